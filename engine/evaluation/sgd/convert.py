"""SGD dialogues of one service -> an evaluation dataset (the format of shared/benchmarks/paper_traces.json).

Each user turn becomes a scored visitor turn; the reference bit of an objective at user turn t is 1 iff some user
turn <= t INFORMed one of its mapped slots (see ``evidence``). System turns are not fed to GRACE (it asks its own
questions); each visitor turn keeps the system turn it answered, and what it INFORMed, for the failure analysis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.evaluation.dataset import Dataset, parse_dataset
from engine.evaluation.sgd.corpus import SPLITS, SgdDialogue
from engine.evaluation.sgd.errors import SgdError
from engine.evaluation.sgd.evidence import visitor_turns
from engine.evaluation.sgd.mapping import ServiceBench


def config_name(service: str) -> str:
    return service.lower()


def _conversation(dialogue: SgdDialogue, bench: ServiceBench) -> dict[str, Any] | None:
    name = bench.service.service_name
    revealed: set[str] = set()
    turns = []
    for index, turn in enumerate(visitor_turns(dialogue, name), start=1):
        revealed |= {o for o, slots in bench.slots.items() if any(s in turn.informed for s in slots)}
        turns.append({
            "turn": index, "visitor": turn.utterance, "scored": True,
            "reference": "".join("1" if o.id in revealed else "0" for o in bench.objectives),
            "informed": {slot: list(values) for slot, values in turn.informed.items()},
            "system_before": turn.system_before,
        })
    if not turns:
        return None
    return {"id": dialogue.dialogue_id, "config": config_name(name), "language": "en", "turns": turns}


def convert_service(dialogues: Sequence[SgdDialogue], bench: ServiceBench, limit: int | None = None) -> Dataset:
    """The single-service dialogues of ``bench.service`` (the first ``limit`` of each split, in corpus order) as a
    dataset."""
    name = bench.service.service_name
    chosen = [d for d in dialogues if d.services == [name]]
    conversations: list[dict[str, Any]] = []
    for split in SPLITS:
        of_split = [c for d in chosen if d.split == split and (c := _conversation(d, bench)) is not None]
        conversations += of_split[:limit] if limit is not None else of_split
    if not conversations:
        raise SgdError(f"no single-service dialogue of {name} in the corpus", code="sgd.no_dialogues")
    objectives = [{"id": o.id, "name": o.name, "kind": o.criterion.kind.value, "slots": list(bench.slots[o.id])}
                  for o in bench.objectives]
    return parse_dataset({
        "name": f"sgd-{'+'.join(s for s in SPLITS if any(d.split == s for d in chosen))}-{name}",
        "configs": {config_name(name): {"language": "en", "service": name, "objectives": objectives}},
        "conversations": conversations,
    })

