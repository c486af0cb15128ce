"""Which languages a visitor message is written in, so each language's cue data applies only to its own text.

The conversation's language always applies. Another configured language applies too when the message carries
enough of that language's function words (rules/patterns/<lang>.json ``function_words``): code-switching keeps
working, while a Spanish article never vetoes "Los Angeles" in an English sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from engine.text import fold

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


_SENTENCE_END = frozenset(".!?¿¡\n")


def _common_words(text: str) -> list[str]:
    """Words that can tell a language: not acronyms ("LA") and not capitalised inside a sentence, where they
    are part of a name ("Los Angeles", "El Cerrito"). One pass: linear in the message length."""
    words = []
    previous_end = 0
    for match in _WORD.finditer(text):
        word = match.group()
        gap = text[previous_end:match.start()]
        sentence_start = previous_end == 0 or any(ch in _SENTENCE_END for ch in gap)
        previous_end = match.end()
        if len(word) > 1 and word.isupper():
            continue
        if word[:1].isupper() and not sentence_start:
            continue
        words.append(word)
    return words


def detect_languages(
    text: str, function_words: Mapping[str, frozenset[str]], conversation_language: str, *,
    min_hits: int, min_share: float,
) -> frozenset[str]:
    """The conversation language plus every language with at least ``min_hits`` function words making up at
    least ``min_share`` of the message's words. Words shared by several languages count for none of them."""
    words = [fold(w) for w in _common_words(text)]
    if not words:
        return frozenset({conversation_language})
    owners: dict[str, int] = {}
    for word in words:
        langs = [lang for lang, vocab in function_words.items() if word in vocab]
        if len(langs) == 1:
            owners[langs[0]] = owners.get(langs[0], 0) + 1
    detected = {lang for lang, hits in owners.items() if hits >= min_hits and hits / len(words) >= min_share}
    return frozenset({conversation_language, *detected})
