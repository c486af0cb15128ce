"""The README's picture of the layers is the import-linter `layers` contract, and every engine module has a place.

import-linter enforces the contract; these tests keep the two things a reader sees (the README's picture and the
folders) from drifting away from it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYER_NAMES = ("edge", "support", "kernel", "rules", "audit", "spec")  # outer to inner, as the contract lists them
BEGIN = "<!-- layers: generated from pyproject.toml -->"
END = "<!-- /layers -->"


def _contracts() -> list[dict[str, object]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts: list[dict[str, object]] = data["tool"]["importlinter"]["contracts"]
    return contracts


def _layers() -> list[list[str]]:
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    entries = layers["layers"]
    assert isinstance(entries, list)
    return [[name.strip() for name in str(entry).split(":")] for entry in entries]


def _foundation() -> list[str]:
    (contract,) = [c for c in _contracts() if str(c["name"]).startswith("Foundation modules")]
    modules = contract["source_modules"]
    assert isinstance(modules, list)
    return [str(m) for m in modules]


def expected_picture() -> str:
    layers = _layers()
    assert len(layers) == len(LAYER_NAMES), "name the new layer in LAYER_NAMES and in the README"
    width = max(len(name) for name in LAYER_NAMES)
    lines = [f"{name.ljust(width)}  {'  '.join(modules)}" for name, modules in zip(LAYER_NAMES, layers, strict=True)]
    lines.append(f"{'(base)'.ljust(width)}  {'  '.join(_foundation())}")
    return "\n".join([BEGIN, "```", *lines, "```", END])


def test_the_readme_draws_the_layers_contract() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start, end = readme.index(BEGIN), readme.index(END) + len(END)
    assert readme[start:end] == expected_picture(), "paste this into README.md:\n" + expected_picture()


def test_every_engine_module_belongs_to_a_layer_or_the_foundation() -> None:
    placed = {module for layer in _layers() for module in layer} | set(_foundation())
    engine = ROOT / "engine"
    top = {f"engine.{p.stem}" for p in engine.glob("*.py") if p.stem != "__init__"}
    top |= {f"engine.{p.name}" for p in engine.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert top - placed == set(), "place these in the layers contract (pyproject.toml) or the foundation"
    assert {m for m in placed if m.startswith("engine.")} - top == set(), "the contract names modules that do not exist"


def test_the_kernel_and_rule_loading_are_folders() -> None:
    loose = sorted(p.stem for p in (ROOT / "engine").glob("*.py") if p.stem != "__init__")
    kernel_files = {p.stem for p in (ROOT / "engine" / "kernel").glob("*.py")}
    assert {"turn", "policy", "commands", "conversation", "ports", "goal_models"} <= kernel_files
    assert (ROOT / "engine" / "kernel" / "decision").is_dir() and (ROOT / "engine" / "kernel" / "validators").is_dir()
    assert (ROOT / "engine" / "rules" / "loader.py").is_file()
    # what may stay at the root: the foundation, and single-module support or edge entries named in the contract
    assert len(loose) <= 10, loose
