"""Check blind labelled answering sets against their corpora (labelling only; never runs the answerer).

    .venv/bin/python -m benchmarks.rag_blind4.check_sets                          # the fourth sets (this folder)
    .venv/bin/python -m benchmarks.rag_blind4.check_sets benchmarks/rag_blind5    # any folder of sets in this format

Shared by every blind folder written in this format (``rag_blind4``, ``rag_blind5``), so it is not copied again.
For every ``*/set.json`` in the folder: the set loads; every ``relevant`` and ``near`` id is a passage as
``load_corpus`` ingests it; every fact of an answerable item is written (accent- and case-insensitively) in each
of its relevant passages; answerable items have facts, near misses have near sections and only they do; tags are
known; item ids are unique across the folder; each set has at least 30 items with every kind present, at least
two ``long_message`` items (1,500 to 4,000 characters, and only those that long), at least two ``multi_part``
items (answerable, each described in ``multi_part.json`` either with the part answered and the part never
answered, or, when both parts are covered, with ``also_answered``: then each fact is written in at least one relevant
passage and each relevant passage holds at least one fact), at least four ``cross_lingual`` ones;
``cross_lingual`` is set exactly when the message language differs from the cited passages' language
(``relevant`` for answerable items, ``near`` for near misses, the corpus for the other kinds of a one-language
corpus); ``no_question_mark`` exactly on questions written without one. Across the folder, at least two companies
have Spanish documents and two English. Prints counts per kind, tag and language; exits 1 on any problem.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from engine.retrieval.corpus import load_corpus
from engine.retrieval.labelled_set import LabelledItem, load_labelled_set
from engine.text import fold

HERE = Path(__file__).resolve().parent
KINDS = ("answerable", "unanswerable", "near_miss", "statement")
TAGS = frozenset(
    {
        "paraphrase",
        "colloquial",
        "typo",
        "fragment",
        "no_question_mark",
        "cross_lingual",
        "multi_part",
        "long_message",
    }
)
MIN_ITEMS = 30
MIN_TAGGED = {"long_message": 2, "multi_part": 2, "cross_lingual": 4}
LONG_CHARS = (1500, 4000)  # a long message: a visitor telling their story before asking
MIN_COMPANIES_PER_LANGUAGE = {"es": 2, "en": 2}


def _cited_languages(item: LabelledItem, by_language: dict[str, str], corpus_languages: set[str]) -> set[str]:
    cited = item.relevant if item.kind == "answerable" else item.near
    if cited:
        return {by_language[pid] for pid in cited if pid in by_language}
    return corpus_languages if len(corpus_languages) == 1 else {item.language}


def _fact_problems(item: LabelledItem, texts: dict[str, str], both_answered: bool) -> list[str]:
    """Each fact in every relevant passage; for a two-part item with both parts covered, each fact in some relevant
    passage and some fact in each (the two parts may be answered by different sections)."""
    cited = [pid for pid in item.relevant if pid in texts]
    if not both_answered:
        return [
            f"{item.id}: fact {fact!r} not written in {pid}"
            for pid in cited
            for fact in item.facts
            if fold(fact) not in texts[pid]
        ]
    problems = [
        f"{item.id}: fact {fact!r} not written in any of {cited}"
        for fact in item.facts
        if not any(fold(fact) in texts[pid] for pid in cited)
    ]
    problems.extend(
        f"{item.id}: relevant {pid} holds none of the facts"
        for pid in cited
        if not any(fold(fact) in texts[pid] for fact in item.facts)
    )
    return problems


def _check_item(
    item: LabelledItem,
    texts: dict[str, str],
    by_language: dict[str, str],
    languages: set[str],
    both_answered: bool = False,
) -> list[str]:
    problems: list[str] = []
    for pid in [*item.relevant, *item.near]:
        if pid not in texts:
            problems.append(f"{item.id}: no passage {pid}")
    problems.extend(_fact_problems(item, texts, both_answered))
    if item.kind == "answerable" and not (item.facts and item.relevant):
        problems.append(f"{item.id}: an answerable item without relevant passages and facts")
    if item.kind != "answerable" and (item.facts or item.relevant):
        problems.append(f"{item.id}: only answerable items name relevant passages and facts")
    if item.kind == "near_miss" and not item.near:
        problems.append(f"{item.id}: a near miss without near sections")
    if item.kind != "near_miss" and item.near:
        problems.append(f"{item.id}: only near misses list near sections")
    problems.extend(f"{item.id}: unknown tag {tag!r}" for tag in item.tags if tag not in TAGS)
    if "paraphrase" in item.tags and item.kind != "answerable":
        problems.append(f"{item.id}: paraphrase is a tag of answerable items")
    if "multi_part" in item.tags and item.kind != "answerable":
        problems.append(f"{item.id}: multi_part items are answerable (one part answered, one not)")
    if len(languages) > 1 and item.language not in languages:
        problems.append(f"{item.id}: message language {item.language!r} is not one of {sorted(languages)}")
    crossed = item.language not in _cited_languages(item, by_language, languages)
    if crossed != ("cross_lingual" in item.tags):
        problems.append(f"{item.id}: cross_lingual tag {'missing' if crossed else 'set'} for a {item.language} message")
    bare = item.kind != "statement" and "?" not in item.message
    if bare != ("no_question_mark" in item.tags):
        problems.append(f"{item.id}: no_question_mark tag {'missing' if bare else 'wrong'}")
    low, high = LONG_CHARS
    long_enough = low <= len(item.message) <= high
    if ("long_message" in item.tags) != long_enough:
        problems.append(
            f"{item.id}: {len(item.message)} characters, long_message tag {'missing' if long_enough else 'wrong'}"
        )
    return problems


def _multi_part_sidecar(set_path: Path) -> dict[str, dict[str, str]]:
    sidecar = set_path.parent / "multi_part.json"
    if not sidecar.exists():
        return {}
    items: dict[str, dict[str, str]] = json.loads(sidecar.read_text(encoding="utf-8"))["items"]
    return items


def _check_multi_part(set_path: Path, items: list[LabelledItem]) -> list[str]:
    sidecar = set_path.parent / "multi_part.json"
    described = _multi_part_sidecar(set_path)
    tagged = {item.id for item in items if "multi_part" in item.tags}
    problems = [f"{i}: multi_part item not described in {sidecar.name}" for i in sorted(tagged - set(described))]
    problems.extend(
        f"{i}: described in {sidecar.name} but not tagged multi_part" for i in sorted(set(described) - tagged)
    )
    problems.extend(
        f"{i}: {sidecar.name} entry needs 'answered' and exactly one of 'not_answered' or 'also_answered'"
        for i, entry in described.items()
        if not (entry.get("answered") and bool(entry.get("not_answered")) != bool(entry.get("also_answered")))
    )
    return problems


def check(set_path: Path) -> tuple[list[str], set[str]]:
    """The problems of one set and the languages of its corpus."""
    labelled, folder = load_labelled_set(set_path)
    passages = load_corpus(folder).passages
    texts = {p.id: fold(p.text) for p in passages}
    by_language = {p.id: p.language for p in passages}
    languages = set(by_language.values())
    items = list(labelled.items)
    name = set_path.parent.name
    both = {i for i, entry in _multi_part_sidecar(set_path).items() if entry.get("also_answered")}
    problems = [p for item in items for p in _check_item(item, texts, by_language, languages, item.id in both)]
    problems.extend(_check_multi_part(set_path, items))
    kinds: Counter[str] = Counter(item.kind for item in items)
    tags = Counter(tag for item in items for tag in item.tags)
    if len(items) < MIN_ITEMS:
        problems.append(f"{name}: {len(items)} items, expected at least {MIN_ITEMS}")
    problems.extend(f"{name}: no {kind} item" for kind in KINDS if not kinds[kind])
    problems.extend(
        f"{name}: {tags[tag]} {tag} items, expected at least {n}" for tag, n in MIN_TAGGED.items() if tags[tag] < n
    )
    message_languages = Counter(item.language for item in items)
    crossed = Counter(item.kind for item in items if "cross_lingual" in item.tags)
    print(f"{name}: {len(items)} items {dict(kinds)}; passages {len(passages)} {sorted(languages)}")
    print(f"  messages by language {dict(sorted(message_languages.items()))}; cross-lingual by kind {dict(crossed)}")
    print(f"  tags {dict(sorted(tags.items()))}")
    if both:
        one_part = tags["multi_part"] - len(both)
        print(f"  multi_part with both parts covered {len(both)}, with one part covered {one_part}")
    return problems, languages


def check_all(folder: Path) -> list[str]:
    paths = sorted(folder.glob("*/set.json"))
    problems: list[str] = []
    companies_per_language: Counter[str] = Counter()
    for path in paths:
        found, languages = check(path)
        problems.extend(found)
        companies_per_language.update(languages)
    ids = Counter(item.id for path in paths for item in load_labelled_set(path)[0].items)
    problems.extend(f"item id {i} is used {n} times" for i, n in ids.items() if n > 1)
    problems.extend(
        f"{n_have} companies with {lang} documents, expected at least {n}"
        for lang, n in MIN_COMPANIES_PER_LANGUAGE.items()
        if (n_have := companies_per_language[lang]) < n
    )
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    folder = Path(args[0]) if args else HERE
    if not folder.is_dir():
        print(f"error: {folder} is not a folder of sets (usage: check_sets [FOLDER])")
        return 2
    problems = check_all(folder)
    for problem in problems:
        print(f"  error: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
