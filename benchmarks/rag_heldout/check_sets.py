"""Check the held-out labelled sets against their corpora (labelling only; it never runs the answerer).

    .venv/bin/python -m benchmarks.rag_heldout.check_sets

For every */set.json here: the set loads, every ``relevant`` and ``near`` id is a passage of the corpus as the
project's loader ingests it, and every fact of an answerable item is written (accent- and case-insensitively)
in each of its relevant passages. Prints the item counts per kind and tag; exits 1 on any labelling error.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path

from engine.retrieval.corpus import load_corpus
from engine.retrieval.labelled_set import load_labelled_set
from engine.text import fold

HERE = Path(__file__).resolve().parent


def check(set_path: Path) -> list[str]:
    labelled, folder = load_labelled_set(set_path)
    passages = load_corpus(folder).by_id()
    problems: list[str] = []
    kinds = Counter(item.kind for item in labelled.items)
    tags = Counter(tag for item in labelled.items for tag in item.tags)
    crossed = Counter(item.kind for item in labelled.items if "cross_lingual" in item.tags)
    print(f"{set_path.parent.name}: {len(labelled.items)} items {dict(kinds)}; cross-lingual {dict(crossed)}")
    print(f"  tags {dict(sorted(tags.items()))}; passages {len(passages)}")
    for item in labelled.items:
        for pid in [*item.relevant, *item.near]:
            if pid not in passages:
                problems.append(f"{item.id}: no passage {pid}")
        for pid in item.relevant:
            if pid in passages:
                text = fold(passages[pid].text)
                problems.extend(
                    f"{item.id}: fact {fact!r} not written in {pid}" for fact in item.facts if fold(fact) not in text
                )
    return problems


def per_set(folder: Path, check_one: Callable[[Path], list[str]]) -> list[str]:
    """``check_one``'s problems over every company's set.json in ``folder``, in name order."""
    return [p for path in sorted(folder.glob("*/set.json")) for p in check_one(path)]


def report(problems: list[str]) -> int:
    """Print each problem; the exit code of a check command (1 on any problem)."""
    for problem in problems:
        print(f"  error: {problem}")
    return 1 if problems else 0


def main() -> int:
    return report(per_set(HERE, check))


if __name__ == "__main__":
    raise SystemExit(main())
