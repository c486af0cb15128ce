"""Vocabulary hints from a company corpus: files, front matter, JSON records, limits and errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.corpus import derive_options, derive_places, load_corpus
from engine.compiler.errors import CompileError


def test_documents_languages_and_json_strings(compiler_rules: CompilerRules, tmp_path: Path) -> None:
    (tmp_path / "faq.es.md").write_text("Trabajamos en Sevilla.", encoding="utf-8")
    (tmp_path / "about.md").write_text("---\nlanguage: en\n---\nWe sell homes in Vera.", encoding="utf-8")
    (tmp_path / "listings.json").write_text('{"items": [{"summary": "Flat in Níjar"}, {"n": 3}]}', encoding="utf-8")
    (tmp_path / "notes.jsonl").write_text('{"t": "Villa near Garrucha"}\n\n{"t": "x"}\n', encoding="utf-8")
    (tmp_path / "image.png").write_bytes(b"\x89PNG")
    documents = {d.path: d for d in load_corpus(tmp_path, compiler_rules.corpus)}
    assert set(documents) == {"faq.es.md", "about.md", "listings.json", "notes.jsonl"}
    assert (documents["faq.es.md"].language, documents["about.md"].language) == ("es", "en")
    assert documents["about.md"].text == "We sell homes in Vera."
    assert "Flat in Níjar" in documents["listings.json"].text


def test_place_names_follow_locative_prepositions(compiler_rules: CompilerRules, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(
        "Oficinas en Málaga, Almería y Granada.\nThe Monday team works in Costa del Sol and in Vera.\n"
        "Limpieza en Almería.\nOur office\nIn Vera\n", encoding="utf-8")
    places = derive_places(load_corpus(tmp_path, compiler_rules.corpus), compiler_rules.corpus)
    assert places == ["Almería", "Vera", "Málaga", "Granada", "Costa del Sol"]


def test_seed_options_found_in_any_language(compiler_rules: CompilerRules, tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("Limpiamos OFICINAS y hoteles; también comunidades de propietarios.",
                                   encoding="utf-8")
    kind = compiler_rules.kind("client_type")
    assert kind is not None
    options = derive_options(load_corpus(tmp_path, compiler_rules.corpus), kind.seed_options)
    assert list(options) == ["office", "hotel", "community"]
    assert options["office"]["en"] == ["office", "offices"]


def test_missing_folder_and_bad_json_are_input_errors(compiler_rules: CompilerRules, tmp_path: Path) -> None:
    with pytest.raises(CompileError) as info:
        load_corpus(tmp_path / "nope", compiler_rules.corpus)
    assert info.value.code == "compile.corpus_missing"
    (tmp_path / "broken.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(CompileError) as info:
        load_corpus(tmp_path, compiler_rules.corpus)
    assert info.value.code == "compile.corpus_unreadable"


def test_file_count_limit(compiler_rules: CompilerRules, tmp_path: Path) -> None:
    for i in range(5):
        (tmp_path / f"{i}.md").write_text(f"Office {i} in Vera.", encoding="utf-8")
    limited = compiler_rules.corpus.model_copy(update={"max_files": 2})
    assert [d.path for d in load_corpus(tmp_path, limited)] == ["0.md", "1.md"]
