"""Text helpers shared by ingestion and query parsing: length-preserving folding and place/name keys."""

from __future__ import annotations

import html
import re
import unicodedata

from engine.text import fold, normalize

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# Abbreviations that are spelled both ways in directories and queries ("St. Marys" / "Saint Marys").
_TOKEN_ALIASES = {"st": "saint", "mt": "mount", "ft": "fort"}
# The Hawaiian okina (U+02BB) and the modifier apostrophe are letters of a word, like an apostrophe: Keaʻau = Keaau.
_DASHES = str.maketrans({"\u2013": "-", "\u2014": "-", "\u2212": "-", "\u2010": "-", "\u2011": "-",
                         "\u2019": "'", "\u2018": "'", "\u02bb": "'", "\u02bc": "'", "\u00a0": " "})


def clean(text: str) -> str:
    """NFKC + invisible-character stripping, HTML entities decoded, dashes/quotes unified."""
    return normalize(html.unescape(text)).translate(_DASHES)


def fold_same_length(text: str) -> str:
    """``fold`` character by character, keeping offsets aligned with ``text`` (spans stay valid)."""
    out = []
    for ch in text:
        folded = fold(ch)
        out.append(folded if len(folded) == 1 else (ch.lower()[:1] or " "))
    return "".join(out)


def tokens_with_spans(folded: str) -> list[tuple[str, int, int]]:
    """Word tokens of already-folded text with their spans; apostrophes dropped, common abbreviations aliased."""
    result = []
    for match in _TOKEN.finditer(folded):
        token = match.group(0).replace("'", "")
        result.append((_TOKEN_ALIASES.get(token, token), match.start(), match.end()))
    return result


def key_tokens(text: str) -> tuple[str, ...]:
    """Comparable token tuple of a place or pantry name ("Prince George's" -> ("prince", "georges"))."""
    folded = fold(clean(text)).replace("&", " and ")
    return tuple(token for token, _, _ in tokens_with_spans(folded))


def place_key(text: str) -> str:
    return " ".join(key_tokens(text))


def strip_accents(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def display_case(text: str) -> str:
    """Title-case SHOUTED or all-lower directory values; leave mixed case alone."""
    stripped = text.strip()
    if stripped.isupper() or stripped.islower():
        return " ".join(word[:1].upper() + word[1:].lower() for word in stripped.split())
    return stripped
