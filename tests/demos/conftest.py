"""Fixtures of the demo tests: the project's full rule bundle (vocabularies included), the pantry-helpline spec
published to a temporary registry (the shipped one is published by the lead), and the small fake directory."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from engine.directory.answer import DirectoryAnswerer
from engine.goals.publication import approve
from engine.goals.validation import read_spec_file
from engine.kernel.goal_models import PublishedGoalSpec
from engine.rules.loader import DEFAULT_RULES_DIR, RuleBundle, load_bundle
from tests.demos.pantry_directory import directory_answerer

PANTRY_DIR = Path(__file__).resolve().parents[2] / "demos" / "pantry_helpline"
SPEC_FILE = PANTRY_DIR / "goal_spec.json"


@pytest.fixture(scope="session")
def project_bundle() -> RuleBundle:
    return load_bundle(DEFAULT_RULES_DIR, require_published=False)


@pytest.fixture(scope="session")
def pantry_spec(project_bundle: RuleBundle, tmp_path_factory: pytest.TempPathFactory) -> PublishedGoalSpec:
    registry = tmp_path_factory.mktemp("registry")
    return approve(read_spec_file(SPEC_FILE), project_bundle, "tests", registry,
                   now=datetime(2026, 1, 1, tzinfo=UTC))


@pytest.fixture(scope="session")
def small_answerer(tmp_path_factory: pytest.TempPathFactory) -> DirectoryAnswerer:
    return directory_answerer(tmp_path_factory.mktemp("pantries"))


def make_demo_folder(demos_dir: Path, project_bundle: RuleBundle, demo_json: str | None = None) -> Path:
    """demos_dir/pantry_helpline with the shipped goal spec published into it (and demo.json, shipped or given)."""
    folder = demos_dir / "pantry_helpline"
    folder.mkdir(parents=True)
    shutil.copy(SPEC_FILE, folder / "goal_spec.json")
    if demo_json is None:
        shutil.copy(PANTRY_DIR / "demo.json", folder / "demo.json")
    else:
        (folder / "demo.json").write_text(demo_json, encoding="utf-8")
    approve(read_spec_file(SPEC_FILE), project_bundle, "tests", folder / "published",
            now=datetime(2026, 1, 1, tzinfo=UTC))
    return folder
