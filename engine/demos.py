"""The demo companies shipped in ``demos/``: each has a published goal spec and an answerer config (demo.json).

``demo.json`` (schema: demos/demo.schema.json) names the answerer: ``corpus`` (embedded RAG over
``demos/<name>/corpus``) or ``directory`` (TRACE over a service directory and its mapping, paths relative to the
project root). A demo folder without demo.json uses its corpus, as every demo did before demo.json existed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema

from engine.errors import GraceError, InputError
from engine.goals.publication import list_published
from engine.kernel.goal_models import PublishedGoalSpec
from engine.retrieval.corpus import load_corpus

PROJECT_ROOT = Path(__file__).resolve().parent.parent
DEMOS_DIR = PROJECT_ROOT / "demos"
CONFIG_FILE = "demo.json"
CONFIG_SCHEMA = DEMOS_DIR / "demo.schema.json"  # fixed: also used for demo folders outside demos/
DEFAULT_VARIANT = "KG-3"


@dataclass(frozen=True)
class AnswererConfig:
    """Which answerer a demo uses; ``directory`` and ``mapping`` are absolute (resolved) for kind 'directory'."""

    kind: str = "corpus"  # "corpus" | "directory"
    directory: Path | None = None
    mapping: Path | None = None
    variant: str = DEFAULT_VARIANT


@dataclass(frozen=True)
class Demo:
    name: str
    spec: PublishedGoalSpec
    corpus_dir: Path
    language: str
    answerer: AnswererConfig = field(default_factory=AnswererConfig)
    config_version: str | None = None  # demo.json version; None when the folder has no demo.json


def demo_names() -> list[str]:
    return sorted(p.name.replace("_", "-") for p in DEMOS_DIR.iterdir() if (p / "published").is_dir())


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{what} {path}: {exc.strerror}", code="demo.config_unreadable") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{what} {path}: not valid JSON ({exc})", code="demo.config_unreadable") from exc


def read_config(folder: Path, root: Path | None = None) -> tuple[AnswererConfig, str | None]:
    """The demo's answerer config from ``folder/demo.json``, schema-checked; paths resolved against ``root``."""
    path = folder / CONFIG_FILE
    if not path.exists():
        return AnswererConfig(), None
    data = _read_json(path, "demo config")
    schema = _read_json(CONFIG_SCHEMA, "demo config schema")
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        where = "/".join(str(p) for p in exc.absolute_path) or "(top)"
        raise InputError(f"{path}: at {where}: {exc.message}", code="demo.config_invalid") from exc
    raw = data["answerer"]
    if raw["kind"] == "corpus":
        return AnswererConfig(kind="corpus"), str(data["version"])
    base = root or PROJECT_ROOT
    config = AnswererConfig(
        kind="directory",
        directory=(base / raw["directory"]).resolve(),
        mapping=(base / raw["mapping"]).resolve(),
        variant=str(raw.get("variant", DEFAULT_VARIANT)),
    )
    return config, str(data["version"])


def load_demo(name: str) -> Demo:
    folder = DEMOS_DIR / name.replace("-", "_")
    published = list_published(folder / "published") if (folder / "published").is_dir() else []
    if not published:
        raise InputError(f"unknown demo '{name}' (known: {', '.join(demo_names()) or 'none'})",
                         code="input.unknown_demo")
    spec = published[-1]
    answerer, version = read_config(folder)
    return Demo(name=name, spec=spec, corpus_dir=folder / "corpus", language=spec.spec.default_language,
                answerer=answerer, config_version=version)


def demo_company_texts(spec: PublishedGoalSpec) -> list[str]:
    """The texts of the demo company serving ``spec`` (its corpus passages), for re-deciding its conversations
    offline (replay) with the same D-10 facts as the service had. Other companies: nothing (replay then only
    knows what the recorded assistant messages showed)."""
    for name in demo_names():
        demo = load_demo(name)
        if demo.spec.spec.id != spec.spec.id or demo.answerer.kind != "corpus":
            continue
        try:
            return [f"{p.title}\n{p.text}" for p in load_corpus(demo.corpus_dir).passages]
        except GraceError:
            return []
    return []
