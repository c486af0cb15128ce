"""Check the third blind held-out labelled sets against their corpora (labelling only; never runs the answerer).

    .venv/bin/python -m benchmarks.rag_blind3.check_sets

The checks of benchmarks/rag_blind2/check_sets.py (every ``relevant``/``near`` id is a passage as the loader ingests
it, every fact is written in each relevant passage, 24/6/5/5 items per company with known tags, item ids unique
across the folder, 6 to 10 cross-lingual messages per set, message languages the corpus has), plus two tag checks
these sets promise: ``cross_lingual`` is set exactly when the message language differs from the language of the
cited passages (``relevant`` for answerable items, ``near`` for near misses, the corpus for the other kinds of a
one-language corpus), and ``no_question_mark`` exactly on questions written without one. Exits 1 on any problem.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.rag_blind2.check_sets import check_all as check_blind2_rules
from benchmarks.rag_heldout.check_sets import per_set, report
from engine.retrieval.corpus import load_corpus
from engine.retrieval.labelled_set import LabelledItem, load_labelled_set

HERE = Path(__file__).resolve().parent


def _document_languages(item: LabelledItem, by_language: dict[str, str], corpus_languages: set[str]) -> set[str]:
    cited = item.relevant if item.kind == "answerable" else item.near
    if cited:
        return {by_language[pid] for pid in cited if pid in by_language}
    return corpus_languages if len(corpus_languages) == 1 else {item.language}


def check_tags(set_path: Path) -> list[str]:
    labelled, folder = load_labelled_set(set_path)
    passages = load_corpus(folder).passages
    by_language = {p.id: p.language for p in passages}
    corpus_languages = {p.language for p in passages}
    problems: list[str] = []
    for item in labelled.items:
        crossed = item.language not in _document_languages(item, by_language, corpus_languages)
        if crossed != ("cross_lingual" in item.tags):
            problems.append(
                f"{item.id}: cross_lingual tag {'missing' if crossed else 'set'} for a {item.language} message"
            )
        bare = item.kind != "statement" and "?" not in item.message
        if bare != ("no_question_mark" in item.tags):
            problems.append(f"{item.id}: no_question_mark tag {'missing' if bare else 'wrong'}")
    return problems


def check_all(folder: Path) -> list[str]:
    problems = check_blind2_rules(folder)
    problems.extend(per_set(folder, check_tags))
    return problems


def main() -> int:
    return report(check_all(HERE))


if __name__ == "__main__":
    raise SystemExit(main())
