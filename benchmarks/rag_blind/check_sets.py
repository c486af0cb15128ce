"""Check the blind held-out labelled sets against their corpora (labelling only; it never runs the answerer).

    .venv/bin/python -m benchmarks.rag_blind.check_sets

Same check as benchmarks/rag_heldout/check_sets.py (every ``relevant``/``near`` id is a passage as the loader
ingests it, every fact is written in each relevant passage), plus the shape these sets promise: 40 items per
company (24 answerable, 6 unanswerable, 5 near misses, 5 statements), non-answerable items name no facts, near
misses list their near sections, and item ids are unique across the whole folder. Exits 1 on any problem.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from benchmarks.rag_heldout.check_sets import check, report
from engine.retrieval.labelled_set import load_labelled_set

HERE = Path(__file__).resolve().parent
SHAPE = {"answerable": 24, "unanswerable": 6, "near_miss": 5, "statement": 5}
TAGS = frozenset({"paraphrase", "colloquial", "typo", "fragment", "no_question_mark", "cross_lingual"})


def check_shape(set_path: Path) -> list[str]:
    labelled, _ = load_labelled_set(set_path)
    name = set_path.parent.name
    problems: list[str] = []
    kinds = Counter(item.kind for item in labelled.items)
    if dict(kinds) != SHAPE:
        problems.append(f"{name}: kinds {dict(kinds)}, expected {SHAPE}")
    for item in labelled.items:
        if item.kind == "answerable" and not item.facts:
            problems.append(f"{item.id}: an answerable item without facts")
        if item.kind == "near_miss" and not item.near:
            problems.append(f"{item.id}: a near miss without near sections")
        if item.kind != "near_miss" and item.near:
            problems.append(f"{item.id}: only near misses list near sections")
        problems.extend(f"{item.id}: unknown tag {tag!r}" for tag in item.tags if tag not in TAGS)
        if "paraphrase" in item.tags and item.kind != "answerable":
            problems.append(f"{item.id}: paraphrase is a tag of answerable items")
    paraphrased = sum(1 for i in labelled.items if i.kind == "answerable" and "paraphrase" in i.tags)
    if paraphrased < 4:
        problems.append(f"{name}: only {paraphrased} paraphrased answerable items (at least 4)")
    return problems


def check_folder(folder: Path) -> list[str]:
    paths = sorted(folder.glob("*/set.json"))
    problems = [p for path in paths for p in [*check(path), *check_shape(path)]]
    ids = Counter(item.id for path in paths for item in load_labelled_set(path)[0].items)
    problems.extend(f"item id {i} is used {n} times" for i, n in ids.items() if n > 1)
    return problems


def main() -> int:
    return report(check_folder(HERE))


if __name__ == "__main__":
    raise SystemExit(main())
