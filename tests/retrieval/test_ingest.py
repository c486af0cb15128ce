from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.retrieval.corpus import load_corpus
from engine.retrieval.errors import CorpusError

from .conftest import CLEANING, REAL_ESTATE, CorpusFactory

FAQ = """---
language: en
---
# Company

Intro line before any sub-heading.

## Do you deliver?

Yes, we deliver on weekdays.

## Do you deliver?

Second section with the same title.

```
# not a heading inside a fence
```
"""


def test_markdown_is_split_by_heading_with_stable_unique_ids(make_corpus: CorpusFactory) -> None:
    corpus = load_corpus(make_corpus({"faq.md": FAQ}))
    ids = [p.id for p in corpus.passages]
    assert ids == ["faq.md#company", "faq.md#do-you-deliver", "faq.md#do-you-deliver-2"]
    deliver = corpus.passages[1]
    assert deliver.title == "Do you deliver?"
    assert deliver.text == "Yes, we deliver on weekdays."
    assert deliver.language == "en"
    assert deliver.fields["section_path"] == "Company > Do you deliver?"
    assert "# not a heading" in corpus.passages[2].text


def test_plain_text_qa_pairs_become_passages(make_corpus: CorpusFactory) -> None:
    text = "Q: Do you open on Sundays?\nA: No, only Monday to Saturday.\n\nQ: Is parking free?\nA: Yes, for clients.\n"
    corpus = load_corpus(make_corpus({"faq.txt": text}, default_language="en"))
    assert [(p.title, p.text) for p in corpus.passages] == [
        ("Do you open on Sundays?", "No, only Monday to Saturday."),
        ("Is parking free?", "Yes, for clients."),
    ]


def test_json_and_csv_records_keep_typed_fields(make_corpus: CorpusFactory) -> None:
    records = [
        {"ref": "H1", "title": "House one", "price_eur": 100000, "amenities": ["pool"], "summary": "A house."},
        {"ref": "H2", "title": "House two", "price_eur": 250000.5, "summary": "Another house.", "language": "es"},
    ]
    csv_text = "code,town,rooms,tags,blurb\nC1,Vera,3,pool|garden,Nice flat\n"
    root = make_corpus(
        {"homes.json": json.dumps(records), "flats.csv": csv_text},
        records={
            "homes.json": {"id_field": "ref", "title_field": "title", "text_fields": ["summary"]},
            "flats.csv": {"id_field": "code", "list_fields": ["tags"]},
        },
    )
    by_id = load_corpus(root).by_id()
    home = by_id["homes.json#H1"]
    assert (home.kind, home.title, home.text) == ("record", "House one", "A house.")
    assert home.fields["price_eur"] == 100000 and home.fields["amenities"] == ["pool"]
    assert by_id["homes.json#H2"].language == "es"
    flat = by_id["flats.csv#C1"]
    assert flat.fields == {"code": "C1", "town": "Vera", "rooms": 3, "tags": ["pool", "garden"], "blurb": "Nice flat"}
    assert "town: Vera" in flat.text  # no text_fields: every other field is rendered


@pytest.mark.parametrize(
    ("files", "records", "code"),
    [
        ({"a.md": "---\nlanguage en\n---\n# A\ntext\n"}, None, "retrieval.corpus.front_matter"),
        ({"a.md": "---\nlanguage: en\n# A\ntext\n"}, None, "retrieval.corpus.front_matter"),
        ({"a.md": "# A\n```\nunclosed\n"}, None, "retrieval.corpus.markdown"),
        ({"data.json": "[]"}, None, "retrieval.corpus.undeclared"),
        ({"data.json": "{oops"}, {"data.json": {}}, "retrieval.corpus.record"),
        (
            {"data.json": '[{"id": "1", "text": "a"}, {"id": "1", "text": "b"}]'},
            {"data.json": {}},
            "retrieval.corpus.record",
        ),
        ({"data.json": '[{"text": "no id"}]'}, {"data.json": {}}, "retrieval.corpus.record"),
        ({"data.json": '[{"id": "1", "bad-name": "x"}]'}, {"data.json": {}}, "retrieval.corpus.record"),
        ({"data.json": '[{"id": "1", "nested": {"a": 1}}]'}, {"data.json": {}}, "retrieval.corpus.record"),
        ({}, {"missing.json": {}}, "retrieval.corpus.manifest"),
        ({"empty.md": "\n\n"}, None, "retrieval.corpus.empty"),
    ],
)
def test_bad_corpus_input_fails_with_stable_code(
    make_corpus: CorpusFactory, files: dict[str, str], records: dict[str, dict[str, object]] | None, code: str
) -> None:
    with pytest.raises(CorpusError) as info:
        load_corpus(make_corpus(files, records=records))
    assert info.value.code == code


def test_missing_folder_and_manifest(tmp_path: Path) -> None:
    with pytest.raises(CorpusError) as missing:
        load_corpus(tmp_path / "nothing")
    assert missing.value.code == "retrieval.corpus.missing"
    with pytest.raises(CorpusError) as no_manifest:
        load_corpus(tmp_path)
    assert no_manifest.value.code == "retrieval.corpus.manifest"


def test_content_hash_tracks_content_only(make_corpus: CorpusFactory, tmp_path: Path) -> None:
    first = load_corpus(make_corpus({"a.md": "# A\nalpha\n"}, name="one"))
    same = load_corpus(make_corpus({"a.md": "# A\nalpha\n"}, name="two"))
    changed = load_corpus(make_corpus({"a.md": "# A\nalpha beta\n"}, name="three"))
    assert first.content_hash == same.content_hash != changed.content_hash


@pytest.mark.parametrize("root", [REAL_ESTATE, CLEANING])
def test_demo_corpora_load(root: Path) -> None:
    corpus = load_corpus(root)
    assert len(corpus.passages) >= 20
    assert {p.language for p in corpus.passages} == {"en", "es"}
