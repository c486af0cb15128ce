"""Check the second blind held-out labelled sets against their corpora (labelling only; never runs the answerer).

    .venv/bin/python -m benchmarks.rag_blind2.check_sets

The same checks as benchmarks/rag_blind/check_sets.py (every ``relevant``/``near`` id is a passage as the loader
ingests it, every fact is written in each relevant passage, 24/6/5/5 items per company with known tags, item ids
unique across the folder), plus what these sets promise on top: 6 to 10 cross-lingual messages per set, and a
message language that is one of the languages of the company's passages. Exits 1 on any problem.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.rag_blind.check_sets import check_folder
from benchmarks.rag_heldout.check_sets import per_set, report
from engine.retrieval.corpus import load_corpus
from engine.retrieval.labelled_set import load_labelled_set

HERE = Path(__file__).resolve().parent
CROSS_LINGUAL = (6, 10)  # messages per set in the other language from the answering document


def check_languages(set_path: Path) -> list[str]:
    labelled, folder = load_labelled_set(set_path)
    languages = {p.language for p in load_corpus(folder).passages}
    name = set_path.parent.name
    problems = [
        f"{item.id}: message language {item.language!r} is not one of the corpus languages {sorted(languages)}"
        for item in labelled.items
        if item.language not in languages and len(languages) > 1
    ]
    crossed = sum(1 for item in labelled.items if "cross_lingual" in item.tags)
    low, high = CROSS_LINGUAL
    if not low <= crossed <= high:
        problems.append(f"{name}: {crossed} cross-lingual messages, expected {low} to {high}")
    return problems


def check_all(folder: Path) -> list[str]:
    problems = check_folder(folder)
    problems.extend(per_set(folder, check_languages))
    return problems


def main() -> int:
    return report(check_all(HERE))


if __name__ == "__main__":
    raise SystemExit(main())
