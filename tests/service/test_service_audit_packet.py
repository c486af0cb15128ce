"""The audit packet: a readable report plus files that `grace audit verify` re-checks offline."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from engine.cli import main
from tests.service.helpers import AUDIT_KEY, Service

EMAIL = "packet.visitor@example.com"


def test_packet_reports_the_turns_and_verifies_offline(service: Service, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    cid = service.start()
    service.turn(cid, "budget 80000 EUR")
    service.turn(cid, f"mail me at {EMAIL}")
    response = service.client.get(f"/v1/operator/conversations/{cid}/audit/packet", headers=service.headers)
    assert response.status_code == 200 and response.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as packet:
        assert set(packet.namelist()) == {"report.md", "records.jsonl", "checkpoint.json", "checkpoint-log.jsonl",
                                          "state.json", "verification.json"}
        packet.extractall(tmp_path)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "VERIFIED" in report and "### Turn 2" in report and "recorded budget" in report.lower()
    assert EMAIL not in response.content.decode("latin-1")  # redacted records, encrypted state: nothing personal

    monkeypatch.setenv("GRACE_PACKET_KEY", "hex:" + AUDIT_KEY.hex())
    args = ["audit", "verify", str(tmp_path / "records.jsonl"), "--checkpoint", str(tmp_path / "checkpoint.json"),
            "--checkpoint-log", str(tmp_path / "checkpoint-log.jsonl"), "--state", str(tmp_path / "state.json"),
            "--key-env", "GRACE_PACKET_KEY"]
    assert main(args) == 0
    assert capsys.readouterr().out.startswith("OK")

    # A packet whose state was edited after download no longer verifies.
    state = tmp_path / "state.json"
    state.write_text(state.read_text(encoding="utf-8").replace('"turn": 2', '"turn": 3'), encoding="utf-8")
    assert main(args) == 1


def test_packet_needs_an_auditor(service: Service) -> None:
    cid = service.start()
    assert service.client.get(f"/v1/operator/conversations/{cid}/audit/packet").status_code == 401
    assert service.client.get("/v1/operator/conversations/nope/audit/packet",
                              headers=service.headers).status_code == 404
