"""The stable failure classes of the SGD benchmark (``benchmarks/sgd/failure_classes.json``).

Every missed bit (the visitor INFORMed an objective's slot at turn t and GRACE had not recorded it at t) and every
unsupported completion (GRACE recorded an objective before any INFORM of it) goes to exactly one class: the first
whose test holds, in the file's order. The tests read only the benchmark's own data (the visitor's words, the
annotated values, the spec's kinds and unit nouns, GRACE's per-turn states and rejection codes), so a class's count
moves only when understanding changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.evaluation.dataset import Dataset
from engine.evaluation.runner import ConversationRun, TurnRow
from engine.evaluation.sgd.errors import SgdError
from engine.evaluation.sgd.mapping import DEFAULT_BENCH_DIR, ServiceBench

CLASSES_FILE = DEFAULT_BENCH_DIR / "failure_classes.json"
MISSED, UNSUPPORTED = "missed", "unsupported"
_FALSE = "false"


@dataclass(frozen=True)
class ClassBook:
    """The ordered class list and the word lists its tests use."""

    order: tuple[tuple[str, str], ...]  # (on, id)
    descriptions: dict[tuple[str, str], str]
    question_openers: frozenset[str]
    request_verbs: frozenset[str]


@dataclass
class ClassTally:
    on: str
    id: str
    count: int = 0
    samples: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"on": self.on, "id": self.id, "count": self.count, "samples": self.samples}


def load_class_book(path: Path = CLASSES_FILE) -> ClassBook:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        order = tuple((c["on"], c["id"]) for c in raw["classes"])
        descriptions = {(c["on"], c["id"]): c["description"] for c in raw["classes"]}
        openers, verbs = frozenset(raw["question_openers"]), frozenset(raw["request_verbs"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SgdError(f"cannot read the failure classes at {path}: {exc}", code="sgd.classes_invalid") from exc
    if len(set(order)) != len(order) or not {MISSED, UNSUPPORTED} >= {on for on, _ in order}:
        raise SgdError(f"{path.name}: classes must be unique and on 'missed' or 'unsupported'",
                       code="sgd.classes_invalid")
    return ClassBook(order, descriptions, openers, verbs)


def _first_one(states: Sequence[str | None], index: int) -> int | None:
    return next((k for k, s in enumerate(states) if s is not None and s[index] == "1"), None)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def _is_request(text: str, book: ClassBook) -> bool:
    """A question ('could you look in X?') or an imperative request ('search X for ...', 'please find ...')."""
    words = [w for w in _words(text) if w not in ("please", "ok", "okay", "so", "then", "and", "also")]
    return "?" in text or bool(words and (words[0] in book.question_openers or words[0] in book.request_verbs))


def _unit_terms(bench: ServiceBench, objective_id: str) -> list[str]:
    objective = next(o for o in bench.objectives if o.id == objective_id)
    terms = (objective.criterion.params or {}).get("unit_terms") or {}
    return [t.lower() for t in terms.get("en", [])]


def _has_term(text: str, terms: Sequence[str]) -> bool:
    lowered = text.lower()
    return any(re.search(rf"\b{re.escape(t)}\b", lowered) for t in terms)


def _siblings(kinds: Sequence[str], index: int) -> list[int]:
    return [k for k, kind in enumerate(kinds) if k != index and kind == kinds[index]]


def _sibling_took(rows: Sequence[TurnRow], at: int, siblings: Sequence[int]) -> bool:
    """A same-kind objective became recorded at this turn without its own reference saying so."""
    row = rows[at]
    before = rows[at - 1].state if at > 0 else None
    return any(row.state[k] == "1" and (before is None or before[k] == "0") and (row.reference or "")[k] != "1"
               for k in siblings)


def _sibling_informed(rows: Sequence[TurnRow], at: int, siblings: Sequence[int]) -> bool:
    row = rows[at]
    before = rows[at - 1].reference if at > 0 else None
    return any((row.reference or "")[k] == "1" and (before is None or before[k] == "0") for k in siblings)


def _classify_miss(kind: str, row: TurnRow, values: Sequence[str], recorded_at: int | None, at: int,
                   rows: Sequence[TurnRow], objective_id: str, siblings: Sequence[int], bench: ServiceBench,
                   book: ClassBook) -> str:
    text = row.visitor
    lowered = text.lower()
    if recorded_at is not None:
        return "timing.late" if recorded_at > at else "timing.early"
    if kind == "features" and values and all(v.lower() == _FALSE for v in values):
        return "declined-yes-no"
    if siblings and _sibling_took(rows, at, siblings):
        return "role-swap"
    codes = [c for c, r in zip(row.reason_codes, row.rejected, strict=False) if f"({objective_id})" in r]
    if kind == "datetime" and any("granularity" in c for c in codes):
        return "availability-granularity"
    if kind == "place" and values and not any(v.lower() in lowered for v in values):
        return "place-short-form"
    if kind == "quantity" and not _has_term(text, _unit_terms(bench, objective_id)):
        return "count-without-unit"
    if _is_request(text, book):
        return "request-as-question"
    return {"enumeration": "vocabulary-miss", "features": "vocabulary-miss", "datetime": "date-time-missed",
            "place": "place-missed", "quantity": "count-with-unit-missed", "free_text": "free-text-missed",
            "money": "money-missed"}.get(kind, "missed-other")


def _classify_unsupported(kind: str, rows: Sequence[TurnRow], at: int, siblings: Sequence[int]) -> str:
    if siblings and _sibling_informed(rows, at, siblings):
        return "role-swap"
    return {"free_text": "free-text-non-answer", "place": "place-false-positive",
            "enumeration": "vocabulary-false-positive", "features": "vocabulary-false-positive",
            "datetime": "date-time-false-positive", "quantity": "count-false-positive"}.get(kind, "unsupported-other")


def _events(dataset: Dataset, runs: Sequence[ConversationRun], bench: ServiceBench,
            book: ClassBook) -> Iterator[tuple[str, str, dict[str, Any]]]:
    by_id = {c.id: c for c in dataset.conversations}
    for run in runs:
        conversation = by_id[run.id]
        objectives = dataset.configs[conversation.config].objectives
        kinds = [str(getattr(o, "kind", "")) for o in objectives]
        rows = run.turns
        for index, objective in enumerate(objectives):
            slots = list(getattr(objective, "slots", []) or [])
            siblings = _siblings(kinds, index)
            ref_at = _first_one([r.reference for r in rows], index)
            rec_at = _first_one([r.state for r in rows], index)
            if ref_at is not None and rec_at != ref_at:
                informed = getattr(conversation.turns[ref_at], "informed", None) or {}
                values = [v for s in slots for v in informed.get(s, [])]
                cls = _classify_miss(kinds[index], rows[ref_at], values, rec_at, ref_at, rows, objective.id,
                                     siblings, bench, book)
                yield MISSED, cls, {"conversation": run.id, "turn": rows[ref_at].turn, "objective": objective.id,
                                    "visitor": rows[ref_at].visitor, "values": values}
            if rec_at is not None and (ref_at is None or rec_at < ref_at):
                cls = _classify_unsupported(kinds[index], rows, rec_at, siblings)
                yield UNSUPPORTED, cls, {"conversation": run.id, "turn": rows[rec_at].turn,
                                         "objective": objective.id, "visitor": rows[rec_at].visitor}


def classify(dataset: Dataset, runs: Sequence[ConversationRun], bench: ServiceBench,
             book: ClassBook) -> dict[tuple[str, str], ClassTally]:
    """Every class of the book (zero counts included, in the book's order) with its count and every event."""
    tallies = {key: ClassTally(*key) for key in book.order}
    for on, cls, sample in _events(dataset, runs, bench, book):
        tally = tallies[(on, cls)]
        tally.count += 1
        tally.samples.append(sample)  # every event: the report prints as many as asked, the JSON keeps them all
    return tallies


def merge_tallies(parts: Sequence[dict[tuple[str, str], ClassTally]],
                  book: ClassBook) -> dict[tuple[str, str], ClassTally]:
    merged = {key: ClassTally(*key) for key in book.order}
    for part in parts:
        for key, tally in part.items():
            merged[key].count += tally.count
            merged[key].samples.extend(tally.samples)
    return merged
