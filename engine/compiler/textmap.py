"""Folded text that remembers where each folded character came from, so phrases keep the manager's own words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.text import fold, normalize


@dataclass(frozen=True)
class FoldedText:
    text: str  # normalize(original)
    folded: str  # fold(text), character by character
    origin: tuple[int, ...]  # folded offset -> text offset (one extra entry for the end)

    def original(self, start: int, end: int) -> str:
        """The manager's words behind folded[start:end], whitespace squeezed."""
        return " ".join(self.text[self.origin[start]:self.origin[end]].split())


def fold_map(text: str) -> FoldedText:
    text = normalize(text)
    parts: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = fold(char)
        parts.append(folded)
        origin.extend([index] * len(folded))
    origin.append(len(text))
    return FoldedText(text=text, folded="".join(parts), origin=tuple(origin))


def rewrite(text: str, rules: Iterable[tuple[re.Pattern[str], str]]) -> tuple[str, bool]:
    """Apply (folded pattern, replacement) rewrites to the original text; True if anything changed.

    Matching happens on the folded form (case- and accent-insensitive); the replaced span is cut from the
    original, so words outside the matches keep their case and accents.
    """
    changed = False
    for pattern, replacement in rules:
        mapped = fold_map(text)
        pieces: list[str] = []
        last = 0
        for match in pattern.finditer(mapped.folded):
            start, end = mapped.origin[match.start()], mapped.origin[match.end()]
            pieces.append(mapped.text[last:start])
            pieces.append(match.expand(replacement))
            last = end
            changed = True
        if pieces:
            pieces.append(mapped.text[last:])
            text = " ".join("".join(pieces).split())
    return text, changed
