"""Issue 32 item 8: the onboarding journey of a new company, each papercut with its test."""

from __future__ import annotations

import io
import json
import shutil
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import GraceError
from engine.evaluation.dataset import parse_dataset
from engine.goals.publication import load_published, spec_hash
from engine.kernel.arc import ArcWording
from engine.kernel.goal_models import Closing, GoalSpec, PublishedGoalSpec
from engine.retrieval.corpus import load_corpus
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from engine.runtimes import plain_folder_manifest
from engine.service.widget_config import widget_config_of

ROOT = Path(__file__).resolve().parents[2]
DEMO_CORPUS = ROOT / "demos" / "real_estate" / "corpus"
REAL_ESTATE = ROOT / "demos" / "real_estate" / "published" / "real-estate"


@pytest.fixture(scope="module")
def full_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture(scope="module")
def real_estate() -> PublishedGoalSpec:
    return load_published(max(REAL_ESTATE.glob("v*.json"), key=lambda p: int(p.stem[1:])))


def _plain_folder(tmp_path: Path) -> Path:
    """The demo's documents as a company hands them over: no corpus.json (and a CSV nobody declared)."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for path in DEMO_CORPUS.glob("*.md"):
        shutil.copy(path, folder / path.name)
    (folder / "prices.csv").write_text("ref,price\nA1,250000\n", encoding="utf-8")
    return folder


def _unnamed(spec: GoalSpec) -> PublishedGoalSpec:
    """The spec as the compiler writes it: no closing, no widget; a title cut from the intent."""
    bare = spec.model_copy(update={"closing": None, "widget": None,
                                   "title": "We are a small family business that runs guided river…"})
    return PublishedGoalSpec(spec=bare, version=1, content_hash=spec_hash(bare), approved_by="t",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


# -- grace chat --corpus DIR on a plain folder ------------------------------------------------------------------

def test_a_plain_folder_is_a_corpus_for_chat(tmp_path: Path, real_estate: PublishedGoalSpec) -> None:
    folder = _plain_folder(tmp_path)
    corpus = load_corpus(folder, plain_folder_manifest(real_estate))
    assert corpus.manifest.company == "Cabo Indalo Homes" and corpus.manifest.default_language == "en"
    assert {p.source for p in corpus.passages} == {p.name for p in DEMO_CORPUS.glob("*.md")}  # CSV skipped


def test_a_folder_without_manifest_and_without_spec_names_what_is_missing(tmp_path: Path) -> None:
    with pytest.raises(GraceError) as info:
        load_corpus(_plain_folder(tmp_path))
    assert info.value.code == "retrieval.corpus.manifest"
    assert "default_language" in info.value.message and "README" in info.value.message


def test_grace_chat_runs_on_a_plain_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec_file = max(REAL_ESTATE.glob("v*.json"), key=lambda p: int(p.stem[1:]))
    monkeypatch.setattr("sys.stdin", io.StringIO("Which areas do you cover?\n\n"))
    assert main(["chat", "--spec", str(spec_file), "--corpus", str(_plain_folder(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert out.count("grace> ") >= 2, out  # the grounded answer (or its abstention), then the decided question


# -- the closing line and the widget header use the company's name, never a title cut short -------------------

def test_closing_of_an_unnamed_company_never_uses_its_title(full_bundle: RuleBundle,
                                                            real_estate: PublishedGoalSpec) -> None:
    unnamed = _unnamed(real_estate.spec)
    for language, expected in (("en", "Our team will follow up with you."),
                               ("es", "Nuestro equipo se pondrá en contacto con usted.")):
        wording = ArcWording(full_bundle, unnamed.spec, language)
        assert wording.company == ""
        assert wording._next_step() == expected
        assert "…" not in wording._next_step()


def test_closing_and_widget_header_use_the_configured_name(full_bundle: RuleBundle,
                                                           real_estate: PublishedGoalSpec) -> None:
    named = real_estate.spec.model_copy(update={
        "widget": None, "closing": Closing(company_name="River Guides Ltd", next_step={})})
    published = PublishedGoalSpec(spec=named, version=1, content_hash=spec_hash(named), approved_by="t",
                                  approved_at=real_estate.approved_at)
    assert ArcWording(full_bundle, named, "en")._next_step() == "The team at River Guides Ltd will follow up with you."
    assert widget_config_of(published, "en").company_name == "River Guides Ltd"
    assert widget_config_of(_unnamed(real_estate.spec), "en").company_name is None  # the widget's own title


# -- grace compile --language fr ---------------------------------------------------------------------------------

def test_compile_accepts_a_french_intent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "candidate.json"
    code = main(["compile", "--intent", "Nous voulons connaître le budget, la ville et l'adresse e-mail du client.",
                 "--language", "fr", "--currency", "EUR", "--phone-region", "FR", "--time-zone", "Europe/Paris",
                 "--out", str(out)])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    spec = json.loads(out.read_text(encoding="utf-8"))
    # the compiler reads and writes French itself (issue 27): every part kept, each asked in French
    assert {o["criterion"]["kind"] for o in spec["objectives"]} == {"money", "place", "contact"}
    assert all(o["questions"].get("fr") for o in spec["objectives"])
    assert main(["compile", "--intent", "x", "--language", "xx", "--out", str(tmp_path / "c2.json")]) == 2
    assert "compile.language_unsupported" in capsys.readouterr().err


# -- grace eval's dataset format -----------------------------------------------------------------------------------

def test_a_wrong_dataset_names_the_field_and_where_the_format_is_documented() -> None:
    with pytest.raises(GraceError) as info:
        parse_dataset({"conversations": [{"id": "c1", "turns": []}]})
    assert info.value.code == "eval.dataset_invalid"
    assert "README 'Evaluation datasets'" in info.value.message
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "**Evaluation datasets**" in readme and '"reference": "0100"' in readme


# -- grace serve: arguments before the port; the operator token in that step ------------------------------------

@pytest.fixture
def busy_port() -> Iterator[int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.mark.parametrize(("extra", "code"), [
    ([], "service.no_goals"),
    (["--goals", "no/such/folder"], "service.goals_missing"),
    (["--demo", "--corpus", "no-equals-sign"], "service.corpus_arg"),
    (["--goals", str(REAL_ESTATE.parent)], "service.token_missing"),
])
def test_serve_reports_bad_arguments_even_when_the_port_is_taken(
        busy_port: int, extra: list[str], code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("GRACE_OPERATOR_TOKEN", raising=False)
    monkeypatch.delenv("GRACE_OPERATORS_FILE", raising=False)
    assert main(["serve", "--port", str(busy_port), "--data-dir", str(tmp_path), *extra]) == 2
    err = capsys.readouterr().err
    assert f"error {code}:" in err and "in use" not in err
    if code == "service.token_missing":
        assert "export GRACE_OPERATOR_TOKEN=" in err


def test_readme_says_serving_needs_the_operator_token() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    step = readme[readme.index("# 5. Talk to it"):readme.index("grace serve --goals my-company/published")]
    assert "export GRACE_OPERATOR_TOKEN=" in step
