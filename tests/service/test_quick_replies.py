"""Quick replies name the asked objective's listed options in the conversation's language, and nothing else."""

from __future__ import annotations

from pathlib import Path

from engine.goals.publication import load_published
from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle
from engine.service.quick_replies import MAX_CHOICES, quick_replies

ROOT = Path(__file__).resolve().parents[2]


def _cleaning() -> object:
    folder = ROOT / "demos" / "cleaning" / "published" / "cleaning"
    return load_published(max(folder.glob("v*.json"), key=lambda p: int(p.stem[1:]))).spec


def test_enumeration_question_offers_its_options_in_the_visitors_language() -> None:
    spec = _cleaning()
    bundle = load_bundle(DEFAULT_RULES_DIR)
    asked = {"action": "ASK(client_type)", "question": "¿Para qué tipo de instalación?"}
    spanish = quick_replies(spec, asked, "es", bundle)  # type: ignore[arg-type]
    english = quick_replies(spec, asked, "en", bundle)  # type: ignore[arg-type]
    assert spanish and len(spanish) == len(english) <= MAX_CHOICES
    assert "hogar" in spanish and "home" in english


def test_no_choices_without_a_listed_question() -> None:
    spec = _cleaning()
    bundle = load_bundle(DEFAULT_RULES_DIR)
    assert quick_replies(spec, {"action": "ASK(location)", "question": "¿Dónde?"}, "es", bundle) == []  # type: ignore[arg-type]
    assert quick_replies(spec, {"action": "NONE", "question": None}, "es", bundle) == []  # type: ignore[arg-type]
    assert quick_replies(spec, {"action": "ASK(client_type)", "question": None}, "es", bundle) == []  # type: ignore[arg-type]
