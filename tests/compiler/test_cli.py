"""`grace compile`: candidate written atomically with its company data, coded errors, text vs file intents."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from engine.cli import compile as cli
from engine.errors import GraceError
from engine.goals.validation import semantic_issues
from engine.kernel.goal_models import GoalSpec
from engine.rules.loader import RuleBundle

INTENT = ("Identificar clientes potenciales interesados en servicios profesionales de limpieza, recopilando el tipo "
          "de cliente o instalación, la ubicación, y los datos de contacto necesarios para preparar un "
          "presupuesto personalizado.")
LOCALE = ["--currency", "EUR", "--phone-region", "ES", "--time-zone", "Europe/Madrid"]


def run(argv: list[str]) -> int:
    """Parse like `grace` does (the group's own register) and run the handler, mapping errors to exit 2."""
    parser = argparse.ArgumentParser(prog="grace")
    cli.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return int(args.handler(args))
    except GraceError as exc:
        print(f"error {exc.code}: {exc.message}")
        return 2


def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "servicios.md").write_text(
        "Ofrecemos limpieza general y desinfección de oficinas y hoteles en Málaga y Granada.", encoding="utf-8")
    return corpus


def test_compile_writes_the_spec_with_its_vocabularies(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out" / "candidate.json"
    code = run(["compile", "--intent", INTENT, "--language", "es", "--corpus", str(_corpus(tmp_path)),
                "--out", str(out), "--id", "cleaning-candidate", *LOCALE])
    assert code == 0
    spec = GoalSpec.model_validate(json.loads(out.read_text(encoding="utf-8")))
    assert [o.id for o in spec.ordered()] == ["client_type", "location", "service_type", "contact"]
    assert sorted(spec.vocabularies) == ["cleaning_candidate_client_type", "cleaning_candidate_location",
                                         "cleaning_candidate_service_type"]
    assert spec.locale is not None and (spec.locale.currency, spec.locale.phone_region) == ("EUR", "ES")
    printed = capsys.readouterr().out
    assert "client_type=0.35" in printed and "phone_region=ES" in printed
    assert [p.name for p in out.parent.iterdir()] == ["candidate.json"]  # no temp file, no vocabulary files


def test_the_candidate_validates_against_the_unchanged_rule_bundle(tmp_path: Path, draft_bundle: RuleBundle) -> None:
    """Company data travels in the spec: no vocabulary file has to be copied into rules/."""
    out = tmp_path / "candidate.json"
    assert run(["compile", "--intent", INTENT, "--language", "es", "--corpus", str(_corpus(tmp_path)),
                "--out", str(out), "--id", "cleaning-candidate", *LOCALE]) == 0
    bundle = draft_bundle
    spec = GoalSpec.model_validate(json.loads(out.read_text(encoding="utf-8")))
    assert not any(v in bundle.vocabularies for v in spec.vocabularies)
    assert semantic_issues(spec, bundle) == []


def test_vocabularies_can_also_be_exported(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    assert run(["compile", "--intent", INTENT, "--language", "es", "--corpus", str(_corpus(tmp_path)),
                "--out", str(out), "--id", "clean", "--vocab-out", str(tmp_path / "vocab"), *LOCALE]) == 0
    assert sorted(p.name for p in (tmp_path / "vocab").iterdir()) == [
        "clean_client_type.json", "clean_location.json", "clean_service_type.json"]


def test_intent_from_a_file(tmp_path: Path) -> None:
    intent = tmp_path / "intent.txt"
    intent.write_text("We want the budget, preferred area and a phone number.", encoding="utf-8")
    out = tmp_path / "c.json"
    assert run(["compile", "--intent-file", str(intent), "--out", str(out), *LOCALE]) == 0
    assert [o["id"] for o in json.loads(out.read_text(encoding="utf-8"))["objectives"]] == [
        "budget", "location", "contact"]


def test_intent_text_is_never_read_as_a_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A long intent is text, and a path given as --intent is text too (here: nothing to collect)."""
    long_intent = ("We are a family-run dental practice with three chairs and a friendly team. " * 4 +
                   "We want to know the reason for the visit, the preferred day and a phone number.")
    assert len(long_intent) > 300
    out = tmp_path / "c.json"
    assert run(["compile", "--intent", long_intent, "--out", str(out), *LOCALE]) == 0
    assert [o["id"] for o in json.loads(out.read_text(encoding="utf-8"))["objectives"]] == [
        "reason", "preferred_date", "contact"]
    file_path = tmp_path / "intent.txt"
    file_path.write_text("We need the budget.", encoding="utf-8")
    assert run(["compile", "--intent", str(file_path), "--out", str(tmp_path / "d.json"), *LOCALE]) == 2
    assert "error compile.no_objectives" in capsys.readouterr().out


def test_a_missing_intent_file_is_a_coded_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compile", "--intent-file", str(tmp_path / "nope.txt"), "--out", str(tmp_path / "c.json")]) == 2
    assert "error compile.intent_file_missing" in capsys.readouterr().out


def test_the_output_folder_is_created_only_one_level_deep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compile", "--intent", "We need the budget.", "--out", str(tmp_path / "new" / "c.json"),
                *LOCALE]) == 0
    deep = tmp_path / "no" / "such" / "c.json"
    assert run(["compile", "--intent", "We need the budget.", "--out", str(deep), *LOCALE]) == 2
    assert "error compile.output_folder_missing" in capsys.readouterr().out
    assert not (tmp_path / "no").exists()


def test_existing_output_is_kept_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.json"
    out.write_text("keep me", encoding="utf-8")
    assert run(["compile", "--intent", "We need the budget.", "--out", str(out), *LOCALE]) == 2
    assert "compile.output_exists" in capsys.readouterr().out
    assert out.read_text(encoding="utf-8") == "keep me"
    assert run(["compile", "--intent", "We need the budget.", "--out", str(out), "--force", *LOCALE]) == 0


@pytest.mark.parametrize(("intent", "flags", "code"), [
    ("We need the client's health condition and phone.", LOCALE, "goalspec.prohibited_category"),
    ("Nothing to see here.", LOCALE, "compile.no_objectives"),
    ("We need the budget and a phone number.", [], "compile.locale_missing"),
])
def test_errors_write_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str], intent: str, flags: list[str],
                              code: str) -> None:
    out = tmp_path / "c.json"
    assert run(["compile", "--intent", intent, "--out", str(out), *flags]) == 2
    assert f"error {code}:" in capsys.readouterr().out
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_a_missing_locale_names_the_flags_to_give(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["compile", "--intent", "We need their budget, the preferred date and a phone number.",
                "--out", str(tmp_path / "c.json")]) == 2
    printed = capsys.readouterr().out
    assert "--currency" in printed and "--phone-region" in printed and "--time-zone" in printed


@pytest.mark.parametrize(("extra", "code"), [
    (["--language", "x"], "compile.input_invalid"),
    (["--language", "de"], "compile.language_unsupported"),  # fr is accepted since issue 32 (understood language)
    (["--id", "Bad Id"], "compile.spec_id_invalid"),
    (["--title", "  "], "compile.title_invalid"),
    (["--currency", "EURO"], "compile.locale_invalid"),
    (["--time-zone", "Mars/Olympus"], "compile.locale_invalid"),
])
def test_bad_options_are_coded_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str],
                                      code: str) -> None:
    assert run(["compile", "--intent", "We need the budget.", "--out", str(tmp_path / "c.json"), *LOCALE,
                *extra]) == 2
    assert f"error {code}:" in capsys.readouterr().out
    assert not (tmp_path / "c.json").exists()
