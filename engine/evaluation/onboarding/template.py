"""The manager's intent, written from the schema's own words with one fixed template per language.

English (the only language with SGD slot descriptions; a Spanish template would have to translate them, which
would be our words, not the schema's)::

    Our company describes its service as "<service description>". When a customer contacts us, we want to know
    <slot description 1>, <slot description 2> and <slot description n>.

Each description is used verbatim except that a capital first letter is lowered (not an acronym such as "ID")
and a final full stop is dropped, as anyone would when putting them in one sentence. Items are joined by ", " and
the last by " and ". The first sentence is context (what the company does) and the "When ..." clause is a context
clause: neither names information to collect, so a compiler that reads them as objectives is wrong. Nothing in
the template depends on the compiler; it was fixed before the first run.

The intent records where each slot's description sits in it (``spans``), so compiled objectives can be mapped
back to slots through the phrases they claim.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.evaluation.onboarding.errors import OnboardingError
from engine.evaluation.onboarding.slots import SlotChoice
from engine.evaluation.sgd.corpus import SgdService

LANGUAGES = ("en",)
OPENING = {"en": 'Our company describes its service as "{description}". '}
ASK = {"en": "When a customer contacts us, we want to know "}
JOIN = {"en": ", "}
LAST_JOIN = {"en": " and "}
END = {"en": "."}


@dataclass(frozen=True)
class Intent:
    text: str
    language: str
    spans: dict[str, tuple[int, int]]  # slot name -> [start, end) of its description in ``text``


def as_item(description: str) -> str:
    """A slot description as a list item: no final full stop, first letter lowered unless an acronym."""
    text = " ".join(description.split()).rstrip(".").strip()
    if len(text) >= 2 and text[0].isupper() and not text[1].isupper():
        text = text[0].lower() + text[1:]
    return text


def write_intent(service: SgdService, choice: SlotChoice, language: str = "en") -> Intent:
    if language not in LANGUAGES:
        raise OnboardingError(f"no intent template for language {language!r} (templates: {', '.join(LANGUAGES)})",
                              code="onboarding.language_unsupported")
    text = OPENING[language].format(description=" ".join(service.description.split()).rstrip("."))
    text += ASK[language]
    spans: dict[str, tuple[int, int]] = {}
    for index, slot in enumerate(choice.slots):
        if index:
            text += LAST_JOIN[language] if index == len(choice.slots) - 1 else JOIN[language]
        item = as_item(slot.description or slot.name.replace("_", " "))
        spans[slot.name] = (len(text), len(text) + len(item))
        text += item
    return Intent(text + END[language], language, spans)
