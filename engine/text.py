"""Unicode normalisation used wherever visitor text is compared (provenance checks, vocabularies)."""

from __future__ import annotations

import functools
import unicodedata

# Zero-width and bidirectional control characters: invisible, so they must never decide a match.
_INVISIBLE = {
    0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD,
    0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F,
}
_INVISIBLE_TABLE = {cp: None for cp in _INVISIBLE}


def normalize(text: str) -> str:
    """NFKC, then strip zero-width and bidi controls. Length may change; spans refer to this form."""
    if text.isascii():  # NFKC leaves ASCII as it is and every stripped character is outside ASCII
        return text
    return unicodedata.normalize("NFKC", text).translate(_INVISIBLE_TABLE)


def fold(text: str) -> str:
    """Case- and accent-insensitive form for vocabulary look-ups (never for provenance checks)."""
    if text.isascii():  # the same result for ASCII: nothing to normalise or decompose, and casefold is lower
        return text.lower()
    return _fold_unicode(text)


@functools.lru_cache(maxsize=8192)
def _fold_unicode(text: str) -> str:
    # Cached: the same words and vocabulary terms are folded on every turn (fold is among the hottest calls).
    decomposed = unicodedata.normalize("NFKD", normalize(text).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
