"""Unicode normalisation used wherever visitor text is compared (provenance checks, vocabularies)."""

from __future__ import annotations

import unicodedata

# Zero-width and bidirectional control characters: invisible, so they must never decide a match.
_INVISIBLE = {
    0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF, 0x00AD,
    0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F,
}
_INVISIBLE_TABLE = {cp: None for cp in _INVISIBLE}


def normalize(text: str) -> str:
    """NFKC, then strip zero-width and bidi controls. Length may change; spans refer to this form."""
    return unicodedata.normalize("NFKC", text).translate(_INVISIBLE_TABLE)


def fold(text: str) -> str:
    """Case- and accent-insensitive form for vocabulary look-ups (never for provenance checks)."""
    decomposed = unicodedata.normalize("NFKD", normalize(text).casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
