"""The LLM adapter: the five roles of ``protocol.LLMRoles`` over any ``LLMBackend`` (Instructor or replay)."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any, TypeVar

import structlog
from pydantic import BaseModel

from engine.kernel.company_data import time_zone
from engine.kernel.conversation import Message
from engine.kernel.ports import Citation, GroundedAnswer, Proposal, ProposerInput
from engine.kernel.turn_context import TurnContext
from llm_adapters.backend import LLMBackend
from llm_adapters.config import LLMSettings
from llm_adapters.errors import LLMError
from llm_adapters.evidence import commands_from_proposal
from llm_adapters.protocol import (
    CallRecord,
    CompileRequest,
    ModulationRequest,
    RoleResult,
    SynthesisRequest,
    UtilityRequest,
)
from llm_adapters.render import NONE_TEXT, answer_text, history_block, listing, objectives_block
from llm_adapters.schemas import (
    CompiledGoals,
    EvidenceProposal,
    ModulatedQuestion,
    SynthesizedAnswer,
    UtilityRatings,
)
from llm_adapters.templates import PromptLibrary

ADAPTER_VERSION = "1.0.0"
M = TypeVar("M", bound=BaseModel)
log = structlog.get_logger("llm_adapters")


def sha256_json(value: Any) -> str:
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class LLMAdapter:
    """Implements ``LLMRoles`` (and so ``engine.kernel.ports.Proposer``) for one backend and one settings object."""

    def __init__(self, backend: LLMBackend, settings: LLMSettings, prompts: PromptLibrary | None = None,
                 *, clock: Callable[[], float] = time.perf_counter) -> None:
        self.backend = backend
        self.settings = settings
        self.prompts = prompts or PromptLibrary(fallback=settings.fallback_language)
        self.name = backend.adapter
        self.version = ADAPTER_VERSION
        self._clock = clock

    # -- one structured call, with its audit metadata -------------------------------------------------------

    def _recent(self, history: list[Message]) -> list[Message]:
        """The latest messages only (prompt.max_history_messages), so prompts fit a small local context."""
        keep = self.settings.max_history_messages
        if keep is None:
            return history
        return history[-keep:] if keep > 0 else []

    def _prompt_language(self, language: str) -> str:
        return language if language in self.settings.prompt_languages else self.settings.fallback_language

    def call(self, purpose: str, language: str, variables: dict[str, str], response_model: type[M],
             *, context: dict[str, Any] | None = None, turn: int | None = None,
             within: TurnContext | None = None) -> tuple[M, CallRecord]:
        """``within``: the turn the call belongs to; it may use only what is left of the turn's deadline."""
        template = self.prompts.get(purpose, self._prompt_language(language))
        messages = template.render(variables)
        base: dict[str, Any] = {
            "purpose": purpose,
            "adapter": self.backend.adapter,
            "model": self.backend.model,
            "prompt_id": template.id,
            "prompt_version": template.version,
            "prompt_hash": sha256_json(messages),
            "params": {
                "provider": self.settings.provider_name,
                "mode": self.settings.provider.mode,
                "temperature": self.settings.temperature,
                "max_tokens": self.settings.budget(purpose),
                "language": template.language,
            },
        }
        started = self._clock()
        try:
            completion = self.backend.complete(purpose=purpose, turn=turn, messages=messages,
                                               response_model=response_model, context=context,
                                               remaining=within.remaining_ms if within is not None else None)
        except LLMError as exc:
            latency = round((self._clock() - started) * 1000, 3)
            attempts = exc.context.get("attempts")
            failed = CallRecord(**base, latency_ms=latency, status=exc.code, error_code=exc.code,
                                attempt=attempts if isinstance(attempts, int) and attempts > 0 else 1,
                                input_tokens=_count(exc.context.get("input_tokens")),
                                output_tokens=_count(exc.context.get("output_tokens")))
            exc.call = failed.to_record()
            log.warning("llm.call.failed", purpose=purpose, adapter=self.name, model=self.backend.model,
                        code=exc.code, attempts=failed.attempt, latency_ms=latency)
            raise
        latency = round((self._clock() - started) * 1000, 3)
        output = completion.parsed.model_dump(mode="json")
        record = CallRecord(
            **base,
            response_hash=sha256_json(output),
            latency_ms=latency,
            input_tokens=completion.input_tokens,
            output_tokens=completion.output_tokens,
            attempt=max(completion.attempts, 1),
            status=getattr(self.backend, "ok_status", "ok"),
            output=output,
        )
        log.info("llm.call.done", purpose=purpose, adapter=self.name, model=self.backend.model,
                 prompt=f"{template.id}@{template.version}", attempts=record.attempt, latency_ms=latency,
                 input_tokens=record.input_tokens, output_tokens=record.output_tokens)
        return completion.parsed, record

    # -- roles ----------------------------------------------------------------------------------------------

    def propose(self, request: ProposerInput) -> Proposal:
        spec = request.spec.spec
        variables = {
            "objectives": objectives_block(spec, request.language, request.bits, _today(request)),
            "state": "".join(str(b) for b in request.bits),
            "last_asked": request.last_asked or NONE_TEXT,
            "refused": listing(request.refused),
            "stopped": "yes" if request.stopped else "no",
            "history": history_block(self._recent(request.history)),
            "turn": str(request.turn),
            "message": request.message.text,
        }
        parsed, call = self.call("propose", request.language, variables, EvidenceProposal, turn=request.turn,
                                 within=request.context)
        commands, malformed = commands_from_proposal(parsed, request)
        return Proposal(commands=commands, malformed=malformed, adapter=self.name, adapter_version=self.version,
                        calls=[call.to_record()])

    def rate_utility(self, request: UtilityRequest) -> RoleResult[UtilityRatings]:
        spec = request.spec.spec
        by_id = {o.id: o for o in spec.objectives}
        unknown = [c for c in request.candidates if c not in by_id]
        if unknown:
            raise LLMError(f"unknown candidate objective(s): {', '.join(unknown)}", code="llm.request_invalid")
        lines = [
            f"- id: {o.id} | name: {o.name} | canonical question: "
            f"{o.question(request.language, spec.default_language)} | times asked: {request.ask_counts.get(o.id, 0)}"
            f" | refused: {'yes' if o.id in request.refused else 'no'}"
            for o in (by_id[c] for c in request.candidates)
        ]
        variables = {
            "candidates": "\n".join(lines),
            "stopped": "yes" if request.stopped else "no",
            "history": history_block(self._recent(request.history)),
            "message": request.message.text,
            "answer": answer_text(request.answer),
        }
        parsed, call = self.call("rate_utility", request.language, variables, UtilityRatings,
                                 context={"candidates": list(request.candidates)}, turn=request.turn,
                                 within=request.context)
        return RoleResult(parsed, call)

    def modulate(self, request: ModulationRequest) -> RoleResult[ModulatedQuestion]:
        spec = request.spec.spec
        objective = next((o for o in spec.objectives if o.id == request.objective_id), None)
        if objective is None:
            raise LLMError(f"unknown objective {request.objective_id}", code="llm.request_invalid")
        variables = {
            "objective_id": objective.id,
            "objective_name": objective.name,
            "criterion": objective.criterion.description,
            "canonical_question": objective.question(request.language, spec.default_language),
            "answer": answer_text(request.answer),
            "message": request.message.text if request.message else NONE_TEXT,
            "history": history_block(self._recent(request.history)),
        }
        parsed, call = self.call("modulate", request.language, variables, ModulatedQuestion,
                                 context={"objective": objective.id}, turn=request.turn,
                                 within=request.context)
        return RoleResult(parsed, call)

    def synthesize(self, request: SynthesisRequest) -> RoleResult[GroundedAnswer]:
        passages = {p.passage_id: p for p in request.passages}
        block = "\n".join(f"[{p.passage_id}] ({p.source}) {p.text}" for p in request.passages) or NONE_TEXT
        variables = {"message": request.message, "passages": block}
        parsed, call = self.call("synthesize", request.language, variables, SynthesizedAnswer,
                                 context={"passages": {k: p.text for k, p in passages.items()}},
                                 turn=request.turn, within=request.context)
        answer = GroundedAnswer(
            text=parsed.text.strip() if parsed.supported else "",
            citations=[Citation(source=passages[c.passage_id].source, passage_id=c.passage_id, quote=c.quote)
                       for c in parsed.citations],
            supported=parsed.supported,
            is_question=parsed.is_question,
        )
        return RoleResult(answer, call)

    def compile_goals(self, request: CompileRequest) -> RoleResult[CompiledGoals]:
        variables = {
            "intent": request.intent,
            "languages": ", ".join(request.languages),
            "kinds": "\n".join(f"- {k.key} (criterion {k.criterion}): {k.name} — {k.description}"
                               for k in request.kinds),
            "prohibited": "\n".join(f"- {line}" for line in request.prohibited) or NONE_TEXT,
            "max_objectives": str(request.max_objectives),
        }
        context = {"kinds": [k.key for k in request.kinds], "languages": list(request.languages),
                   "max_objectives": request.max_objectives}
        parsed, call = self.call("compile", request.language, variables, CompiledGoals, context=context)
        return RoleResult(parsed, call)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _today(request: ProposerInput) -> str | None:
    """The visitor's calendar date and weekday in the company's time zone, for relative dates."""
    if request.reference_time is None:
        return None
    local = request.reference_time.astimezone(time_zone(request.spec.spec))
    return f"{local.date().isoformat()} ({local.strftime('%A')})"
