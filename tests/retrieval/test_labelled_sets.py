"""Labelled company sets and ``grace bench rag --corpus DIR --set FILE``: loading, coded errors, metrics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.rag_bench import OWN_SETS, main, run_sets
from engine.retrieval.corpus import load_corpus
from engine.retrieval.errors import LabelledSetError
from engine.retrieval.labelled_set import load_labelled_set

from .conftest import CorpusFactory

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("set_file", sorted(OWN_SETS.glob("*/set.json")), ids=lambda p: p.parent.name)
def test_own_sets_are_well_formed_and_label_real_passages(set_file: Path) -> None:
    labelled, corpus_dir = load_labelled_set(set_file, repository=ROOT)
    ids = {p.id for p in load_corpus(corpus_dir).passages}
    kinds = [item.kind for item in labelled.items]
    assert 25 <= len(labelled.items) <= 40
    assert {"answerable", "unanswerable", "near_miss", "statement"} <= set(kinds)
    assert any("cross_lingual" in item.tags for item in labelled.items)
    for item in labelled.items:
        assert set(item.relevant) | set(item.near) <= ids, item.id
        if item.kind == "answerable":
            assert item.facts, item.id


def test_at_least_five_companies_with_html_and_pdf_documents() -> None:
    corpora = [p.parent / "corpus" for p in OWN_SETS.glob("*/set.json")]
    assert len(corpora) >= 5
    suffixes = {f.suffix for c in corpora for f in c.iterdir()}
    assert {".md", ".html", ".pdf"} <= suffixes


def test_demo_sets_load_in_the_same_shape() -> None:
    labelled, corpus = load_labelled_set(ROOT / "demos" / "cleaning" / "retrieval_set.json", repository=ROOT)
    assert corpus.is_dir()
    kinds = {item.kind for item in labelled.items}
    assert kinds == {"answerable", "unanswerable", "statement"}


@pytest.mark.parametrize(
    ("content", "code"),
    [
        ("not json", "retrieval.set.json"),
        ('{"items": 3}', "retrieval.set.schema"),
        (
            '{"corpus": "c", "items": [{"id": "a", "language": "en", "message": "hi?", "kind": "answerable"}]}',
            "retrieval.set.schema",
        ),
        (
            '{"corpus": "missing-folder", "items": '
            '[{"id": "a", "language": "en", "message": "Hi.", "kind": "statement"}]}',
            "retrieval.set.corpus",
        ),
    ],
)
def test_bad_sets_are_coded_errors(tmp_path: Path, content: str, code: str) -> None:
    path = tmp_path / "set.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(LabelledSetError) as info:
        load_labelled_set(path)
    assert info.value.code == code


def test_missing_set_is_a_coded_error(tmp_path: Path) -> None:
    with pytest.raises(LabelledSetError) as info:
        load_labelled_set(tmp_path / "nope.json")
    assert info.value.code == "retrieval.set.missing"


@pytest.mark.parametrize(
    "argv",
    [
        ["--set", "/nonexistent/set.json"],
        ["--corpus", "somewhere"],
        ["--sets", "/nonexistent-folder"],
        ["--repeats", "0"],
    ],
)
def test_cli_bad_arguments_exit_with_a_code_not_a_traceback(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error ") and "Traceback" not in err


def test_bench_on_a_small_labelled_set(
    make_corpus: CorpusFactory, embedding_cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = make_corpus(
        {
            "faq.md": "# Kiosk\n\n## When are you open?\n\nWe open daily from 6:00 to 13:00.\n\n"
            "## Do you sell newspapers?\n\nYes, we sell local and national newspapers.\n\n"
            "## Do you sell stamps?\n\nYes, stamps for letters within the country cost 1 EUR each.\n"
        }
    )
    items = [
        {
            "id": "a1",
            "language": "en",
            "message": "what time do you open",
            "kind": "answerable",
            "relevant": ["faq.md#when-are-you-open"],
            "facts": ["6:00"],
            "tags": ["no_question_mark"],
        },
        {
            "id": "a2",
            "language": "es",
            "message": "¿Vendéis periódicos?",
            "kind": "answerable",
            "relevant": ["faq.md#do-you-sell-newspapers"],
            "facts": ["newspapers"],
            "tags": ["cross_lingual"],
        },
        {"id": "u1", "language": "en", "message": "Do you repair bicycles?", "kind": "unanswerable"},
        {"id": "s1", "language": "en", "message": "I live next door.", "kind": "statement"},
    ]
    set_path = root.parent / "kiosk-set.json"
    set_path.write_text(json.dumps({"corpus": "corpus", "items": items}), encoding="utf-8")
    report = run_sets([(set_path, root)], repeats=1, cache_dir=embedding_cache)["sets"][0]
    assert report["counts"]["answerable"] == 2 and report["counts"]["statements"] == 1
    assert report["non_questions"] == 1.0 and report["abstention_silent"] == 1.0
    assert report["latency_ms"]["calls"] == 3 and report["latency_ms"]["p50"] <= report["latency_ms"]["p99"]
    for key in ("answer_rate", "correct_citation", "fact_recall", "question_detection"):
        assert 0.0 <= report[key] <= 1.0
    # padding is a share of the `answer`-tier replies: undefined (None) when the graded reply gave none
    assert report["padding"] is None if report["answer_rate"] == 0 else 0.0 <= report["padding"] <= 1.0
    assert report["cross_lingual"]["items"] == 1
    assert (
        main(["--set", str(set_path), "--corpus", str(root), "--repeats", "1", "--cache-dir", str(embedding_cache)])
        == 0
    )
    out = capsys.readouterr().out
    assert "answered, correct first citation" in out and "p99=" in out
