"""Does the visitor ask for a person? Phrases of every language in rules/handoff.json, folded (case and accents)
and matched on whole words, so "talk to a person" matches "Can I TALK to a person?" but not "talk to a personal
trainer". A rule, not a model: it proposes the intent; the service decides what to do with it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.rules.loader import RuleBundle
from engine.text import fold

HANDOFF_FILE = "handoff"


@dataclass(frozen=True)
class HandoffRequest:
    language: str  # the language whose phrase matched
    phrase: str  # the folded phrase (rule data, never the visitor's words)


class HandoffDetector:
    def __init__(self, languages: dict[str, Any]) -> None:
        self.wording = languages
        self._patterns = [
            (language, phrase, re.compile(r"(?<!\w)" + re.escape(phrase).replace(r"\ ", r"\s+") + r"(?!\w)"))
            for language, data in languages.items() for phrase in data["phrases"]
        ]

    @classmethod
    def from_bundle(cls, bundle: RuleBundle) -> HandoffDetector | None:
        """None for a bundle without handoff data (published before 1.9.0): nobody is ever handed off."""
        return cls(bundle.file(HANDOFF_FILE)["languages"]) if bundle.has(HANDOFF_FILE) else None

    def detect(self, text: str, language: str) -> HandoffRequest | None:
        """The first matching phrase, the conversation's language first (a visitor may switch language)."""
        folded = fold(text).replace("’", "'")
        ordered = sorted(self._patterns, key=lambda item: item[0] != language)
        for lang, phrase, pattern in ordered:
            if pattern.search(folded):
                return HandoffRequest(lang, phrase)
        return None
