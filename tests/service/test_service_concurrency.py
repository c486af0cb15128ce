"""Many visitors at once through a real HTTP server: no crash, no lost turn, every audit chain verifies.

Runs the real decision layer from uvicorn's worker threads, which is how the service is deployed (the
engine lock in engine.service.turns is what keeps this from crashing the process)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.browser.live import LiveServer
from tests.service.helpers import Service


def test_parallel_visitors_and_parallel_turns_on_one_conversation(service: Service) -> None:
    with LiveServer(service.app) as server:

        def visitor(index: int) -> list[int]:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                created = client.post("/v1/conversations", json={"goal": "test"}).json()
                cid, token = created["conversation_id"], {"X-Visitor-Token": created["visitor_token"]}
                codes = []
                for message in (f"budget {100000 + index} EUR", "hello", f"mail v{index}@example.org"):
                    response = client.post(f"/v1/conversations/{cid}/turns", json={"message": message}, headers=token)
                    codes.append(response.status_code)
                return codes

        shared = service.start()

        def same_conversation(index: int) -> int:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                url = f"/v1/conversations/{shared}/turns"
                return client.post(url, json={"message": f"note {index}"}, headers=service.visitor(shared)).status_code

        with ThreadPoolExecutor(max_workers=8) as pool:
            visitors = pool.map(visitor, range(6))
            shared_codes = pool.map(same_conversation, range(8))
            assert all(codes == [200, 200, 200] for codes in visitors)
            assert list(shared_codes) == [200] * 8

        state = service.store.load(shared)
        assert state.turn == 8
        assert sorted(m.text for m in state.messages if m.role.value == "visitor") == sorted(
            f"note {i}" for i in range(8)
        )
        for summary in service.store.summaries(limit=100):
            status = service.client.get(
                f"/v1/operator/conversations/{summary.conversation_id}/audit/verify", headers=service.headers
            ).json()
            assert status["ok"] is True, status
            assert status["records"] == summary.turn
