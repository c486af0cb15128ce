"""Re-play LLM outputs recorded in a conversation's audit records, to re-decide it offline and deterministically.

Recorded shape (one audit record per visitor turn; fields this module reads)::

    {
      "conversation_id": "c-123",
      "turn": 2,                                   # visitor turn, 1-based
      "language": "en",
      "state_after": "1010" | {"bits": [1, 0, 1, 0], ...},
      "action": "ASK(budget)" | "NONE",            # or "chosen_action": "budget" | "NONE"
      "fail_closed": null | "proposer.llm.timeout" | {"code": "...", "message": "..."},
      "answer": {"supported": true, "is_question": true, "citations": [{"source", "passage_id", "quote"?}],
                 "text"?: "..."},
      "visitor_text"?: "...",                      # else pass messages= (e.g. from the conversation store)
      "llm_calls": [                               # in call order; protocol.CallRecord.to_record()
        {"purpose": "propose", "adapter": "instructor-mistral", "model": "mistral-small-2603",
         "prompt_id": "grace.propose", "prompt_version": "1.0.0", "prompt_hash": "sha256:...",
         "response_hash": "sha256:...", "latency_ms": 812.4, "input_tokens": 1450, "output_tokens": 96,
         "attempt": 1, "status": "ok", "error_code": null,
         "params": {"provider": "mistral", "mode": "tools", "temperature": 0.2, "max_tokens": 4096},
         "output": {"commands": [{"type": "complete", "objective": "budget", "quote": "450.000 EUR",
                                  "value": "450000 EUR", "turn": null}]}}
      ]
    }

``output`` is the raw output after response-model validation; replay re-validates it with the same model and
context and converts it exactly as the live adapter did, so the decision layer sees the same commands. A
recorded failed call (``error_code`` set) replays as the same typed failure. A missing output fails closed.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from engine.kernel.ports import Citation, GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn_context import TurnContext
from llm_adapters.adapter import LLMAdapter
from llm_adapters.backend import Completion
from llm_adapters.config import LLMSettings, load_llm_settings
from llm_adapters.deadline import Remaining
from llm_adapters.errors import LLMError, LLMOutputError, ReplayError
from llm_adapters.templates import PromptLibrary

M = TypeVar("M", bound=BaseModel)


class ReplayBackend:
    """Serves recorded outputs by (turn, purpose), in recorded order."""

    adapter = "replay"
    ok_status = "replayed"

    def __init__(self, records: Sequence[dict[str, Any]]) -> None:
        self._calls: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
        models = []
        for record in records:
            turn = int(record["turn"])
            for call in record.get("llm_calls") or []:
                self._calls[(turn, str(call.get("purpose")))].append(call)
                models.append(str(call.get("model") or ""))
        self.model = next((m for m in models if m), "replay")
        self._used: dict[tuple[int, str], int] = defaultdict(int)
        self.turn: int | None = None  # current turn for calls that do not name one

    def complete(
        self,
        *,
        purpose: str,
        turn: int | None,
        messages: list[dict[str, str]],
        response_model: type[M],
        context: dict[str, Any] | None,
        remaining: Remaining | None = None,  # a replay answers from the record: no deadline applies
    ) -> Completion[M]:
        at = turn if turn is not None else self.turn
        if at is None:
            raise ReplayError(f"replay: no turn known for a {purpose} call")
        key = (at, purpose)
        position = self._used[key]
        recorded = self._calls.get(key, [])
        if position >= len(recorded):
            raise ReplayError(f"replay: no recorded {purpose} call #{position + 1} for turn {at}")
        self._used[key] += 1
        call = recorded[position]
        if call.get("error_code"):
            raise LLMError(f"replay: recorded {purpose} call failed", code=str(call["error_code"]), attempts=1)
        output = call.get("output")
        if not isinstance(output, dict):
            raise ReplayError(f"replay: recorded {purpose} call of turn {at} has no output (redacted or absent)")
        try:
            parsed = response_model.model_validate(output, context=context)
        except ValidationError as exc:
            raise LLMOutputError(f"replay: recorded {purpose} output of turn {at} no longer validates",
                                 code="llm.replay_invalid") from exc
        input_tokens, output_tokens = call.get("input_tokens"), call.get("output_tokens")
        return Completion(parsed=parsed,
                          input_tokens=input_tokens if isinstance(input_tokens, int) else None,
                          output_tokens=output_tokens if isinstance(output_tokens, int) else None,
                          attempts=1)


def _answer_from_record(record: dict[str, Any]) -> GroundedAnswer:
    answer = record.get("answer") or {}
    return GroundedAnswer(
        text=str(answer.get("text", "")),
        citations=[Citation(source=str(c.get("source", "")), passage_id=str(c.get("passage_id", "")),
                            quote=str(c.get("quote", ""))) for c in answer.get("citations", [])],
        supported=bool(answer.get("supported", False)),
        is_question=bool(answer.get("is_question", False)),
    )


class ReplayAdapter(LLMAdapter):
    """All LLM roles from the records, plus ``answer`` (the Answerer port) from each record's answer summary."""

    def __init__(self, records: Sequence[dict[str, Any]], settings: LLMSettings | None = None,
                 prompts: PromptLibrary | None = None) -> None:
        self.records = sorted(records, key=lambda r: int(r["turn"]))
        self.replay = ReplayBackend(self.records)
        super().__init__(self.replay, settings or load_llm_settings(), prompts)
        self._answers = {int(r["turn"]): _answer_from_record(r) for r in self.records}
        self._answer_cursor = 0

    def begin_turn(self, turn: int) -> None:
        self.replay.turn = turn
        self._answer_cursor = turn - 1

    def propose(self, request: ProposerInput) -> Proposal:
        self.replay.turn = request.turn
        return super().propose(request)

    def answer(self, message: str, language: str, history: Sequence[str] = (),
               context: TurnContext | None = None) -> GroundedAnswer:
        self._answer_cursor += 1
        return self._answers.get(self._answer_cursor, GroundedAnswer())


@dataclass(frozen=True)
class Change:
    """One decision that differs between the recording and the replay."""

    turn: int
    field: str  # "state" | "action" | "fail_closed"
    recorded: str | None
    replayed: str | None


class _TurnOutcome(Protocol):
    state: str
    action: str
    fail_closed: str | None


class _Runtime(Protocol):
    def start(self, *, conversation_id: str | None = None, language: str | None = None) -> Any: ...

    def handle(self, conversation_id: str, text: str, *, received_at: datetime | None = None) -> Any: ...


def _received_at(record: dict[str, Any]) -> datetime | None:
    stamps = record.get("timestamps")
    raw = stamps.get("received_at") if isinstance(stamps, dict) else None
    try:
        moment = datetime.fromisoformat(raw) if isinstance(raw, str) else None
    except ValueError:
        return None
    return moment if moment is not None and moment.tzinfo is not None else None


def _state(record: dict[str, Any]) -> str | None:
    value = record.get("state_after")
    if isinstance(value, dict):
        value = value.get("bits")
    if isinstance(value, list):
        return "".join(str(int(b)) for b in value)
    return str(value) if value is not None else None


def _action(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if text == "NONE" or text.startswith("ASK(") else f"ASK({text})"


def _fail_code(value: Any) -> str | None:
    if isinstance(value, dict):
        value = value.get("code")
    return str(value) if value else None


def replay_decisions(
    records: list[dict[str, Any]],
    runtime_factory: Callable[[ReplayAdapter], _Runtime],
    *,
    messages: Sequence[str] | None = None,
    conversation_id: str | None = None,
) -> list[Change]:
    """Re-run a recorded conversation under ``runtime_factory(adapter)`` (e.g. a new rule bundle).

    The factory must wire ``adapter`` as the proposer and as the answerer (and may use it as modulator source).
    Returns every turn whose state, action or fail-closed reason differs; an empty list means same decisions.
    """
    if not records:
        return []
    ordered = sorted(records, key=lambda r: int(r["turn"]))
    if messages is not None and len(messages) != len(ordered):
        raise ReplayError(f"replay: {len(messages)} visitor messages for {len(ordered)} records",
                          code="llm.replay_mismatch")
    adapter = ReplayAdapter(ordered)
    runtime = runtime_factory(adapter)
    first = ordered[0]
    cid = conversation_id or f"replay-{first.get('conversation_id', 'conversation')}"
    runtime.start(conversation_id=cid, language=first.get("language"))
    changes: list[Change] = []
    for index, record in enumerate(ordered):
        text = messages[index] if messages is not None else record.get("visitor_text")
        turn = int(record["turn"])
        if not isinstance(text, str):
            raise ReplayError(f"replay: no visitor text for turn {turn}", code="llm.replay_no_text")
        adapter.begin_turn(turn)
        # The recorded received-at anchors relative dates ("tomorrow") exactly as on the day of the turn.
        result: _TurnOutcome = runtime.handle(cid, text, received_at=_received_at(record))
        recorded_action = record.get("action", record.get("chosen_action"))
        pairs = (
            ("state", _state(record), result.state),
            ("action", _action(recorded_action), _action(result.action)),
            ("fail_closed", _fail_code(record.get("fail_closed")), _fail_code(result.fail_closed)),
        )
        changes.extend(Change(turn, name, old, new) for name, old, new in pairs if old != new)
    return changes
