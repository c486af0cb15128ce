"""Run the onboarding benchmark: per service, write the intent, compile it, map it, run the dialogues, score.

Scoring is per asked slot (``mapping.SlotMapping.coordinates``): the reference bit of a slot at user turn t is 1
iff some user turn <= t INFORMed it (``engine.evaluation.sgd.evidence``, the corpus README's rule); GRACE's bit is
the bit of the objective(s) mapped to it. A service whose intent does not compile (or whose candidate the runtime
refuses) scores every slot as never recorded; unmapped slots and extra objectives are scored too, so no failure
leaves the denominator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog

from engine.errors import GraceError
from engine.evaluation.dataset import parse_dataset
from engine.evaluation.metrics import ConversationOutcome, Metrics, TurnOutcome, compute_metrics
from engine.evaluation.onboarding.compile_step import Compiled, compile_intent
from engine.evaluation.onboarding.mapping import SlotMapping, map_objectives
from engine.evaluation.onboarding.slots import SlotChoice, choose_slots
from engine.evaluation.onboarding.template import Intent, write_intent
from engine.evaluation.runner import ConversationRun, run_dataset
from engine.evaluation.sgd.corpus import SgdDialogue, SgdService
from engine.evaluation.sgd.evidence import visitor_turns
from engine.evaluation.sgd.scoring import add_metrics, coordinate_metrics
from engine.evaluation.targets import candidate_targets
from engine.kernel.ports import Proposer
from engine.rules.loader import RuleBundle

log = structlog.get_logger("grace.eval.onboarding")


@dataclass(frozen=True)
class Conversation:
    """One dialogue's visitor turns and, per turn, the asked slots INFORMed so far (accumulated)."""

    id: str
    visitor: tuple[str, ...]
    revealed: tuple[frozenset[str], ...]


@dataclass
class ServiceResult:
    service: str
    variant: int
    choice: SlotChoice
    intent: Intent
    compiled: Compiled
    mapping: SlotMapping | None
    failure: str | None  # "compile.<code>" or "runtime.<code>": every slot scored as never recorded
    outcomes: list[ConversationOutcome]
    runs: list[ConversationRun] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def coordinates(self) -> list[str]:
        return self.mapping.coordinates() if self.mapping is not None and self.failure is None \
            else list(self.choice.names)

    @property
    def turns(self) -> int:
        return sum(len(o.turns) for o in self.outcomes)

    def metrics(self) -> Metrics:
        return compute_metrics(self.outcomes)

    def per_coordinate(self) -> dict[str, Metrics]:
        return {c: coordinate_metrics(self.outcomes, i) for i, c in enumerate(self.coordinates)}

    def kind_of(self, coordinate: str) -> str:
        """The criterion kind GRACE gave a coordinate ('unmapped' / 'compile failed' when none)."""
        if self.failure is not None or self.mapping is None or self.compiled.spec is None:
            return "compile failed"
        kinds = {o.id: o.criterion.kind.value for o in self.compiled.spec.ordered()}
        if coordinate.startswith("extra:"):
            return kinds[coordinate[len("extra:"):]]
        claimed = self.mapping.by_slot[coordinate]
        return "+".join(kinds[o] for o in claimed) if claimed else "unmapped"


@dataclass(frozen=True)
class VariantResult:
    variant: int
    services: tuple[ServiceResult, ...]

    def pooled(self) -> Metrics:
        return add_metrics(s.metrics() for s in self.services)

    @property
    def compile_failures(self) -> list[ServiceResult]:
        return [s for s in self.services if s.failure is not None]

    @property
    def unmapped(self) -> int:
        return sum(len(s.mapping.unmapped) for s in self.services if s.mapping is not None and s.failure is None)

    @property
    def extra(self) -> int:
        return sum(len(s.mapping.extra) for s in self.services if s.mapping is not None and s.failure is None)


def conversations(dialogues: Sequence[SgdDialogue], service: str, slots: Sequence[str],
                  limit: int | None) -> list[Conversation]:
    """The service's single-service dialogues (first ``limit`` in corpus order) with the asked slots revealed."""
    wanted, result = set(slots), []
    for dialogue in dialogues:
        if dialogue.services != [service]:
            continue
        turns = visitor_turns(dialogue, service)
        if not turns:
            continue
        revealed: set[str] = set()
        steps = []
        for turn in turns:
            revealed |= wanted & set(turn.informed)
            steps.append(frozenset(revealed))
        result.append(Conversation(dialogue.dialogue_id, tuple(t.utterance for t in turns), tuple(steps)))
        if limit is not None and len(result) >= limit:
            break
    return result


def _bits(revealed: frozenset[str], slots: Sequence[str], extra: int) -> str:
    return "".join("1" if s in revealed else "0" for s in slots) + "0" * extra


def never_recorded(convs: Sequence[Conversation], slots: Sequence[str]) -> list[ConversationOutcome]:
    zero = "0" * len(slots)
    return [ConversationOutcome(c.id, zero, tuple(TurnOutcome(i, zero, _bits(r, slots, 0), True)
                                                  for i, r in enumerate(c.revealed, start=1))) for c in convs]


def _dataset(convs: Sequence[Conversation], spec_id: str, mapping: SlotMapping) -> Any:
    ids = list(mapping.objectives)
    claimed = {o: [s for s, objs in mapping.by_slot.items() if o in objs] for o in ids}
    return parse_dataset({
        "name": f"onboarding-{spec_id}",
        "configs": {spec_id: {"language": "en", "objectives": [{"id": o} for o in ids]}},
        "conversations": [{"id": c.id, "config": spec_id, "language": "en", "turns": [
            {"turn": i, "visitor": text, "scored": True,
             "reference": "".join("1" if any(s in revealed for s in claimed[o]) else "0" for o in ids)}
            for i, (text, revealed) in enumerate(zip(c.visitor, c.revealed, strict=True), start=1)]}
            for c in convs],
    })


def _outcomes(runs: Sequence[ConversationRun], convs: Sequence[Conversation],
              mapping: SlotMapping) -> list[ConversationOutcome]:
    slots, extra = list(mapping.slots), len(mapping.extra)
    outcomes = []
    for run, conv in zip(runs, convs, strict=True):
        outcomes.append(ConversationOutcome(run.id, mapping.project(run.initial), tuple(
            TurnOutcome(row.turn, mapping.project(row.state), _bits(revealed, slots, extra), True)
            for row, revealed in zip(run.turns, conv.revealed, strict=True))))
    return outcomes


def run_service(service: SgdService, dialogues: Sequence[SgdDialogue], *, variant: int, limit: int | None,
                bundle: RuleBundle, proposer: Proposer, folder: Path, rules: Path | None,
                language_flag: bool = True) -> ServiceResult:
    choice = choose_slots(service)
    intent = write_intent(service, choice)
    spec_id = f"sgd-{service.service_name.lower().replace('_', '-')}-v{variant}"
    compiled = compile_intent(intent.text, intent.language, spec_id, folder, rules, language_flag)
    convs = conversations(dialogues, service.service_name, choice.names, limit)
    result = ServiceResult(service.service_name, variant, choice, intent, compiled, None, None,
                           never_recorded(convs, choice.names))
    if not compiled.ok or compiled.spec is None or compiled.spec_path is None:
        result.failure = f"compile:{compiled.error_code}"
        return result
    result.mapping = mapping = map_objectives(compiled.spec, intent)
    try:
        targets = candidate_targets([compiled.spec_path], bundle, with_answerer=False)
    except GraceError as exc:
        result.failure = f"runtime:{exc.code}"
        return result
    started = time.perf_counter()
    runs = run_dataset(_dataset(convs, spec_id, mapping), targets, bundle=bundle, proposer=proposer, demo=spec_id)
    result.seconds = time.perf_counter() - started
    result.runs, result.outcomes = runs, _outcomes(runs, convs, mapping)
    log.info("eval.onboarding.service.done", service=service.service_name, variant=variant,
             conversations=len(runs), seconds=round(result.seconds, 2))
    return result
