"""The demo companies shipped in ``demos/``: each has a published goal spec and a company corpus."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from engine.errors import InputError
from engine.goals.models import PublishedGoalSpec
from engine.goals.publication import list_published

DEMOS_DIR = Path(__file__).resolve().parent.parent / "demos"


@dataclass(frozen=True)
class Demo:
    name: str
    spec: PublishedGoalSpec
    corpus_dir: Path
    language: str


def demo_names() -> list[str]:
    return sorted(p.name.replace("_", "-") for p in DEMOS_DIR.iterdir() if (p / "published").is_dir())


def load_demo(name: str) -> Demo:
    folder = DEMOS_DIR / name.replace("-", "_")
    published = list_published(folder / "published") if (folder / "published").is_dir() else []
    if not published:
        raise InputError(f"unknown demo '{name}' (known: {', '.join(demo_names()) or 'none'})",
                         code="input.unknown_demo")
    spec = published[-1]
    return Demo(name=name, spec=spec, corpus_dir=folder / "corpus", language=spec.spec.default_language)
