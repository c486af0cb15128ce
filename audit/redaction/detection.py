"""Where contact data stands in a string: e-mail addresses, and phone-like digit runs that are not dates,
decimals, money amounts or pieces of an id or digest."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import babel.numbers

from audit.redaction.policy import RedactionPolicy
from engine.text import normalize
from engine.value_tokens import PARTS_OF_DAY, WEEKDAYS

Kind = Literal["email", "phone"]

_LOCAL_CHARS = r"\w.!#$%&'*+/=?^`{|}~-"
# Starts only at the beginning of a run of local-part characters: keeps matching linear on long words.
_EMAIL_RE = re.compile(rf"(?<![{_LOCAL_CHARS}])[{_LOCAL_CHARS}]+[@\uff20\ufe6b][\w-]+(?:\.[\w-]+)*")
# "spec@v3", "free_text@1", "pkg@1.2.0": version references, not addresses (a real domain has a name part).
_VERSION_DOMAIN_RE = re.compile(r"[vV]?\d+(?:\.\d+)*")
# Calendar dates and ISO timestamps: protected from phone detection (validated below). A date-shaped
# piece of a longer digit-group sequence ("00-2026-01-01") is not a date.
_ISO_RE = re.compile(
    r"(?<![\w./-])(\d{4})-(\d{2})-(\d{2})"
    r"(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?!\d|[./-]\d)"
)
# A date range of the validators' grammar ("2027-06-21/2027-09-21"): the second date follows a '/', which the
# date pattern above does not accept before a date (so "12/2026-01-01" is not read as one).
_ISO_RANGE_RE = re.compile(
    r"(?<![\w./-])(\d{4})-(\d{2})-(\d{2})/(\d{4})-(\d{2})-(\d{2})(?!\d|[./-]\d)"
)
# A whole value that is two ascending plain numbers joined by one dash ("1500-2000", "150000-250000"): the
# quantity and amount ranges the validators write. Contact data is stored by the contact validator in E.164
# ('+' first) or as an address, never in this form (see the policy's description).
_NUMBER_RANGE_RE = re.compile(r"([1-9]\d*|0)(?:\.(\d+))?-([1-9]\d*|0)(?:\.(\d+))?")
# A weekly schedule of the datetime validator's grammar ("weekly:thu,fri@afternoon", "weekly:mon@09:00-12:00"):
# its '@' is "at", not an address, and its clock times are not phone numbers. Its words are the validator's own.
_DAY = "|".join(WEEKDAYS)
_AT = "|".join(PARTS_OF_DAY) + r"|\d{2}:\d{2}(?:-\d{2}:\d{2})?"
_SCHEDULE_RE = re.compile(rf"(?<![\w.-])weekly:(?:{_DAY})(?:,(?:{_DAY}))*(?:@(?:{_AT}))?(?![\w@.-])")
_DMY_RE = re.compile(r"(?<![\w./-])(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?![\w]|[./-]\d)")
_YMD_RE = re.compile(r"(?<![\w./-])(\d{4})([./])(\d{1,2})\2(\d{1,2})(?![\w]|[./-]\d)")
_DECIMAL_RE = re.compile(r"\d+\.\d+")
_AMOUNT_RE = re.compile(r"\d+(?:\.\d+|,\d{1,2})?|\d{1,3}([.,' \u00a0])\d{3}(?:\1\d{3})*(?:[.,]\d{1,2})?")
# After the run: its decimals, or the rest of a range too long for one phone-like run ("10000000-20000000 CHF").
_RANGE_REST = r"(?:[.,]\d{1,2}|\.\d+)?(?:\s?[-–]\s?\d+(?:\.\d+)?)?"
_CODE_AFTER_RE = re.compile(rf"{_RANGE_REST}[ \u00a0]?([A-Z]{{3}})(?!\w)")
_CODE_BEFORE_RE = re.compile(r"(?<!\w)([A-Z]{3})[ \u00a0]?$")
_DIGIT_RE = re.compile(r"\d")
_DIGITS_RE = re.compile(r"\d+")
PHONE_SEPARATORS = " \t\u00a0().-/"
_HEX_CHARS = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True)
class Finding:
    """One piece of contact data found in a string: ``text[start:end]``."""

    kind: Kind
    start: int
    end: int


class Detector:
    """The finders of one redaction policy (its patterns are compiled once)."""

    def __init__(self, policy: RedactionPolicy) -> None:
        self.min_digits, self.max_digits = policy.phone.min_digits, policy.phone.max_digits
        lo, hi = self.min_digits, self.max_digits
        # |n| has between lo and hi decimal digits exactly when 10**(lo-1) <= |n| < 10**hi (0 has one digit)
        self._int_low: int = 0 if lo <= 1 else 10 ** (lo - 1)
        self._int_high: int = 10**hi
        # Not inside a number or an address; groups joined by at most two separator characters. Letters
        # around the run are judged in _glued_to_token (hex digests must stay intact, "tel600..." must not).
        self._phone_re = re.compile(
            rf"(?<![\d+@])\+?\d(?:[{re.escape(PHONE_SEPARATORS)}]{{0,2}}\d){{{lo - 1},{hi - 1}}}(?![\d@])"
        )
        markers = sorted({m.strip() for m in policy.money_markers}, key=len, reverse=True)
        alternation = "|".join(_marker_pattern(m) for m in markers)
        self._money_after = re.compile(rf"{_RANGE_REST}[ \u00a0]?(?:{alternation})", re.IGNORECASE)
        self._money_before = re.compile(rf"(?:{alternation})[ \u00a0]?$", re.IGNORECASE)
        # ISO 4217 codes ("CHF", "MXN") mark amounts too, as the money validator writes them: upper case only.
        self._codes: frozenset[str] = _iso_4217_codes() if policy.iso_4217_codes else frozenset()

    def find(self, text: str, *, phones: bool = True) -> list[Finding]:
        """Contact data in ``text`` as given (no normalisation), in order, non-overlapping."""
        if _whole_date(text):  # every record's timestamps: nothing to find, known without the finders
            return []
        schedules = [m.span() for m in _SCHEDULE_RE.finditer(text)] if "weekly:" in text else []
        findings = [
            Finding("email", m.start(), m.end())
            for m in _EMAIL_RE.finditer(text)
            if _is_domain(re.split("[@\uff20\ufe6b]", m.group(), maxsplit=1)[1])
            and not any(start <= m.start() < end for start, end in schedules)
        ]
        if phones and not findings and _ascending_range(text):
            return []
        if phones:
            masked = text
            if findings:  # an address's digits are never a phone number
                chars = list(text)
                for found in findings:
                    chars[found.start : found.end] = "\x00" * (found.end - found.start)
                masked = "".join(chars)
            findings.extend(self._find_phones(masked))
        return sorted(findings, key=lambda f: f.start)

    def holds_contact(self, text: str, phones: bool) -> bool:
        """Contact data in ``text`` as given or in its Unicode-normalised form."""
        if self.find(text, phones=phones):
            return True
        return not text.isascii() and bool(self.find(normalize(text), phones=phones))

    @property
    def int_bounds(self) -> tuple[int, int]:
        """``(low, high)``: an int is phone-like exactly when ``low <= abs(n) < high``."""
        return self._int_low, self._int_high

    def phone_like_int(self, value: int) -> bool:
        """``min_digits <= len(str(abs(value))) <= max_digits``, by comparison (no string is made)."""
        return self._int_low <= abs(value) < self._int_high

    def _find_phones(self, text: str) -> list[Finding]:
        if self._phone_re.search(text) is None:  # no phone-like run at all: the dates need not be looked for
            return []
        protected = sorted(_date_spans(text))
        found: list[Finding] = []
        pos = 0
        while (match := self._phone_re.search(text, pos)) is not None:
            start, end = match.span()
            inside = next((span for span in protected if span[0] <= start < span[1]), None)
            if inside is not None:  # a date or timestamp: skip past it
                pos = inside[1]
                continue
            cut = next((span[0] for span in protected if start < span[0] < end), None)
            if cut is not None:  # a phone-like run that runs into a date: keep only the part before it
                end = start + len(text[start:cut].rstrip(PHONE_SEPARATORS))
            pos = end if cut is None else cut
            span = self._phone_span(text, start, end)
            if span is not None:
                found.append(Finding("phone", span[0], span[1]))
        return found

    def _phone_span(self, text: str, start: int, end: int) -> tuple[int, int] | None:
        """The phone-like part of a digit run, or None if it is a date-free amount, decimal or id fragment."""
        glued_before, glued_after = _glued_to_token(text, start, end)
        if glued_before or glued_after:
            # Drop the digit group that touches an id-like word; the groups between stand free.
            runs = [m.span() for m in _DIGITS_RE.finditer(text, start, end)]
            runs = runs[1 if glued_before else 0 : len(runs) - 1 if glued_after else len(runs)]
            if not runs:
                return None
            start, end = runs[0][0], runs[-1][1]
        candidate = text[start:end]
        if len(_DIGIT_RE.findall(candidate)) < self.min_digits:
            return None
        if _DECIMAL_RE.fullmatch(candidate) or self._is_amount(text, start, end):
            return None
        return start, end

    def _is_amount(self, text: str, start: int, end: int) -> bool:
        # One amount, or a range of two ("200000-300000 EUR"), each part shaped like an amount.
        parts = re.split(r"\s?[-–]\s?", text[start:end].lstrip("+"))
        if len(parts) > 2 or not all(_AMOUNT_RE.fullmatch(part) for part in parts):
            return False
        if self._money_after.match(text, end):
            return True
        if self._codes:
            after = _CODE_AFTER_RE.match(text, end)
            if after is not None and after.group(1) in self._codes:
                return True
            before = _CODE_BEFORE_RE.search(text, max(0, start - 8), start)
            if before is not None and before.group(1) in self._codes:
                return True
        return self._money_before.search(text[max(0, start - 24) : start]) is not None


def _glued_to_token(text: str, start: int, end: int) -> tuple[bool, bool]:
    """Whether the run's first / last digit group belongs to a hex digest or an alphanumeric id.

    Letters touching the run are fine ("tel600000005", "600000005thanks"), unless the word they form could
    be hex or already holds digits ("sha256:ab12cd34...", "Zk9x1234567").
    """
    before = start
    while before > 0 and _is_word_char(text[before - 1]):
        before -= 1
    after = end
    while after < len(text) and _is_word_char(text[after]):
        after += 1
    word_before, word_after = text[before:start], text[end:after]
    return (
        bool(word_before) and text[start] != "+" and _hex_or_numeric(word_before),
        bool(word_after) and _hex_or_numeric(word_after),
    )


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _hex_or_numeric(word: str) -> bool:
    return all(ch in _HEX_CHARS for ch in word) or any(ch.isdigit() for ch in word)


def _marker_pattern(marker: str) -> str:
    # Word markers ("EUR") must stand alone; symbols ("€") may touch the number.
    before = r"(?<!\w)" if marker[0].isalnum() else ""
    after = r"(?!\w)" if marker[-1].isalnum() else ""
    return before + re.escape(marker) + after


@lru_cache(maxsize=1)
def _iso_4217_codes() -> frozenset[str]:
    return frozenset(code for code in babel.numbers.list_currencies() if len(code) == 3 and code.isalpha())


def _is_domain(domain: str) -> bool:
    """An e-mail domain, not a version ("spec@v3", "pkg@1.2.0")."""
    return _VERSION_DOMAIN_RE.fullmatch(domain) is None


def _ascending_range(text: str) -> bool:
    """``text`` is exactly a range "A-B" of plain numbers with A <= B (a quantity or amount range)."""
    match = _NUMBER_RANGE_RE.fullmatch(text)
    if match is None:
        return False
    low = float(f"{match.group(1)}.{match.group(2) or 0}")
    high = float(f"{match.group(3)}.{match.group(4) or 0}")
    return low <= high


def _whole_date(text: str) -> bool:
    """``text`` is one calendar date or ISO timestamp, as ``_date_spans`` protects it: the first span it finds
    (a match at 0 is the one ``finditer`` tries first) covers the whole text. Then ``find`` finds nothing: the
    pattern holds no '@', and every phone-like run starts inside the protected span and is skipped."""
    match = _ISO_RE.match(text)
    return (match is not None and match.end() == len(text)
            and _valid_date(int(match.group(1)), int(match.group(2)), int(match.group(3))))


def _date_spans(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for match in _ISO_RANGE_RE.finditer(text):
        groups = [int(g) for g in match.groups()]
        if _valid_date(*groups[:3]) and _valid_date(*groups[3:]):
            spans.append(match.span())
    for match in _ISO_RE.finditer(text):
        if _valid_date(int(match.group(1)), int(match.group(2)), int(match.group(3))):
            spans.append(match.span())
    for match in _DMY_RE.finditer(text):
        first, second, year = int(match.group(1)), int(match.group(3)), int(match.group(4))
        if _valid_date(year, second, first) or _valid_date(year, first, second):  # d/m/y or m/d/y
            spans.append(match.span())
    for match in _YMD_RE.finditer(text):
        if _valid_date(int(match.group(1)), int(match.group(3)), int(match.group(4))):
            spans.append(match.span())
    return spans


def _valid_date(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31 and 1000 <= year <= 2999
