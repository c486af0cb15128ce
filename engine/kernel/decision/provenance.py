"""Provenance facts (SPEC.md D-10, D-12): is a proposed contact value, place or date the visitor's own?

A contact value never completes the contact objective when it appears in company text (corpus, directory,
published contact details), in what the assistant said or retrieved in this conversation, when it is written with
look-alike characters, or when the clause holding it gives it to someone else or refuses it. This module only
computes the facts; the acceptance rules (rules/acceptance.json) decide and the Z3 transition check re-checks.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import phonenumbers
from confusable_homoglyphs import confusables

from engine.kernel.validators.contact import contact_channels
from engine.rules.loader import RuleBundle
from engine.text import normalize
from spec.z3_encodings import CONTACT_FACTS, WISH_FACTS

# Fact names, in the order the acceptance rules list them (A08..A13); the Z3 rule proof uses the same tuples.
FACTS = CONTACT_FACTS + WISH_FACTS
COMPANY, ECHO, CONFUSABLE, THIRD_PARTY, REFUSED = CONTACT_FACTS
(OTHERS_WISH,) = WISH_FACTS
CLEAN: dict[str, bool] = dict.fromkeys(FACTS, False)

# D-10: an address in a text is a maximal run of word characters and . + % - @ holding an '@'; one that starts
# with '@' names a whole domain ("our staff write from @example.com").
_ADDRESS_RUN = re.compile(r"[\w.+%@-]+")
# A telephone-like run: ASCII digits with at most three separators between two digits.
_PHONE_RUN = re.compile(r"[0-9](?:[ \t.\-/()\u00a0]{0,3}[0-9])*")
_NON_DIGIT = re.compile(r"[^0-9]+")
_PHONE_CHARS = re.compile(r"^[0-9 +\-.()/]*$")
_SENTENCE_END = re.compile(r"(?<=[.!?¡¿])\s+|\n+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'", "`": "'"})


@functools.lru_cache(maxsize=4096)
def _latin_glyph(char: str) -> str:
    """The ASCII character ``char`` looks like (Unicode confusables data), or ``char`` itself."""
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"]) or []
    for entry in found:
        for glyph in entry["homoglyphs"]:
            if glyph["c"].isascii() and len(glyph["c"]) == 1:
                return str(glyph["c"]).lower()
    return char


def skeleton(text: str) -> str:
    """NFKC, case-folded, every look-alike mapped to the ASCII letter it imitates (for comparisons only)."""
    folded = normalize(text).casefold()
    return "".join(ch if ch.isascii() else _latin_glyph(ch) for ch in folded)


def email_key(value: str) -> str:
    return skeleton(value.strip().strip(".<>()[]\"'"))


def _digits(text: str) -> str:
    return _NON_DIGIT.sub("", text)


@functools.lru_cache(maxsize=4096)
def phone_keys(value: str, region: str) -> frozenset[str]:
    """Digit strings under which a telephone number is compared: as written, national number, E.164 (cached:
    a candidate's number is parsed for every provenance fact and again on later turns)."""
    keys = {_digits(normalize(value))}
    try:
        number = phonenumbers.parse(normalize(value), region)
    except phonenumbers.NumberParseException:
        return frozenset(k for k in keys if k)
    keys.add(str(number.national_number))
    keys.add(phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164).lstrip("+"))
    return frozenset(k for k in keys if k)


def is_email(value: str) -> bool:
    return "@" in value


def confusable(value: str) -> bool:
    """Look-alike writing: an e-mail mixing scripts, or a telephone number with anything but ASCII digits and
    separators after NFKC (letters read as digits, other scripts' digits)."""
    text = normalize(value)
    if is_email(text):
        return bool(confusables.is_mixed_script(text))
    return not _PHONE_CHARS.match(text)


@dataclass(frozen=True)
class ContactIndex:
    """Contact values found in a body of text, in comparable form."""

    emails: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()  # bare '@domain' mentions ("our staff write from @example.com")
    digits: str = ""  # every phone-like digit run (as written and in E.164), '|'-separated, for substring search

    @classmethod
    def from_texts(cls, texts: Iterable[str], region: str) -> ContactIndex:
        emails: set[str] = set()
        domains: set[str] = set()
        runs: set[str] = set()
        for text in texts:
            found = _scan(text, region)
            emails |= found.emails
            domains |= found.domains
            runs.update(r for r in found.digits.split("|") if r)
        return cls(frozenset(emails), frozenset(domains), "|".join(sorted(runs)))

    def holds(self, value: str, region: str, min_digits: int) -> bool:
        if is_email(value):
            key = email_key(value)
            domain = key.rsplit("@", 1)[-1]
            return key in self.emails or domain in self.domains
        return any(len(k) >= min_digits and k in self.digits for k in phone_keys(value, region))


@functools.lru_cache(maxsize=4096)
def _scan(text: str, region: str) -> ContactIndex:
    """Contacts in one text (cached: assistant messages are rescanned every turn of their conversation)."""
    norm = normalize(text)
    emails: set[str] = set()
    domains: set[str] = set()
    if "@" in norm:
        for match in _ADDRESS_RUN.finditer(norm):
            token = match.group().strip(".")
            if "@" not in token:
                continue
            if token.startswith("@"):
                domains.add(skeleton(token[1:]))
            emails.add(email_key(token))
    runs: set[str] = set()
    for match in _PHONE_RUN.finditer(norm):
        digits = _digits(match.group())
        if len(digits) < 6:
            continue
        runs.add(digits)
        runs |= phone_keys(match.group(), region)
    return ContactIndex(frozenset(emails), frozenset(domains), "|".join(sorted(runs)))


@dataclass(frozen=True)
class _Markers:
    breakers: tuple[re.Pattern[str], ...]
    third_party: tuple[re.Pattern[str], ...]
    refused: tuple[re.Pattern[str], ...]
    anaphora: tuple[re.Pattern[str], ...]

    def __post_init__(self) -> None:
        # "Does any of these match?" as one search per clause instead of one per pattern (some 20 per marker kind).
        for name in ("third_party", "refused", "anaphora"):
            object.__setattr__(self, f"any_{name}", any_of(getattr(self, name)))

    any_third_party: re.Pattern[str] | _EachOf = field(init=False, compare=False, repr=False)
    any_refused: re.Pattern[str] | _EachOf = field(init=False, compare=False, repr=False)
    any_anaphora: re.Pattern[str] | _EachOf = field(init=False, compare=False, repr=False)


class _EachOf:
    """``any_of`` for patterns that cannot be joined into one alternation: searched one by one."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)

    def search(self, text: str) -> re.Match[str] | None:
        for pattern in self.patterns:
            found = pattern.search(text)
            if found is not None:
                return found
        return None


# A back-reference by number (or by name) would point at another group once the branches are numbered together.
_BACK_REFERENCE = re.compile(r"\\[1-9]|\(\?P=")


def any_of(patterns: Sequence[re.Pattern[str]]) -> re.Pattern[str] | _EachOf:
    """What matches a text exactly when one of ``patterns`` does: one alternation where that keeps every branch's
    meaning, else the patterns one by one.

    An alternation tries every branch at every position, so it finds a match iff some branch matches somewhere,
    provided each branch keeps its meaning: the same flags for all, no back-references (groups are renumbered),
    and no inline global flags (Python refuses them inside a group); ``^`` still means the start of the text. The
    rule files are data, so a pattern that breaks one of these falls back to the plain search, never to an error."""
    if not patterns:
        return re.compile(r"(?!)")  # matches nothing, as any() of nothing
    if len({p.flags for p in patterns}) != 1 or any(_BACK_REFERENCE.search(p.pattern) for p in patterns):
        return _EachOf(patterns)
    try:
        return re.compile("|".join(f"(?:{p.pattern})" for p in patterns), patterns[0].flags)
    except re.error:
        return _EachOf(patterns)


@dataclass(frozen=True)
class ProvenanceRules:
    """``rules/provenance.json``: attribution and refusal markers of every language, and the phone suffix."""

    markers: _Markers
    min_digits: int
    alone_max_words: int = 2
    # Text that is never the visitor's own words (URLs, markup, other speakers' lines), quoted text, and the words
    # before a quote that adopt it ("my email is \"...\"").
    embedded: tuple[re.Pattern[str], ...] = ()
    quoted: tuple[re.Pattern[str], ...] = ()
    adoption: tuple[re.Pattern[str], ...] = ()
    # D-12: the criterion kinds whose values are judged for another person's wish, the rules that judge them
    # (their third_party markers are the wish markers, their breakers add the wish breakers) and adoption markers.
    wish_kinds: frozenset[str] = frozenset()
    wish: ProvenanceRules | None = None
    wish_adoption: re.Pattern[str] | _EachOf | None = None

    @classmethod
    def from_bundle(cls, bundle: RuleBundle) -> ProvenanceRules:
        return _rules(bundle.content_hash, bundle)


_RULES: dict[str, ProvenanceRules] = {}


def _rules(key: str, bundle: RuleBundle) -> ProvenanceRules:
    if key not in _RULES:
        data = bundle.file("provenance")
        langs = data["languages"].values()

        def compiled(field: str) -> tuple[re.Pattern[str], ...]:
            return tuple(re.compile(p, re.IGNORECASE) for lang in langs for p in lang[field])

        def optional(field: str) -> tuple[re.Pattern[str], ...]:
            return tuple(re.compile(p, re.IGNORECASE) for lang in langs for p in lang.get(field, []))

        flags = re.IGNORECASE | re.MULTILINE
        breakers, anaphora = compiled("clause_breakers"), compiled("anaphora")
        min_digits, alone = int(data["phone_suffix_min_digits"]), int(data["alone_max_words"])
        wish_markers = optional("wish_third_party")
        wish = ProvenanceRules(_Markers(breakers + optional("wish_breakers"), wish_markers, (), anaphora),
                               min_digits, alone) if wish_markers else None
        _RULES[key] = ProvenanceRules(
            _Markers(breakers, compiled("third_party"), compiled("refused"), anaphora),
            min_digits,
            alone,
            tuple(re.compile(p, flags) for p in data.get("embedded", [])),
            tuple(re.compile(p, flags) for p in data.get("quoted", [])),
            optional("adoption"),
            frozenset(data.get("wish_kinds", [])),
            wish,
            any_of(optional("wish_adoption")),
        )
    return _RULES[key]


@functools.lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    decomposed = unicodedata.normalize("NFKD", char.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).translate(_APOSTROPHES)


def _folded(text: str) -> tuple[str, list[int]]:
    """Accent- and case-folded text with, for each folded character, the index of its source character."""
    if text.isascii():  # every ASCII character folds to exactly one character: the same result, without the loop
        return text.translate(_APOSTROPHES).lower(), list(range(len(text)))
    parts: list[str] = []
    origin: list[int] = []
    for index, char in enumerate(text):
        folded = char.translate(_APOSTROPHES) if char.isascii() else _fold_char(char)
        parts.append(folded.lower() if char.isascii() else folded)
        origin.extend([index] * len(folded))
    return "".join(parts), origin


def _occurrences(folded: str, value: str) -> list[tuple[int, int]]:
    """Where ``value`` stands in the folded message (telephones by their digits, separators ignored)."""
    if is_email(value):
        needle = "".join(_fold_char(c) for c in normalize(value).strip())
        out, start = [], folded.find(needle)
        while needle and start >= 0:
            out.append((start, start + len(needle)))
            start = folded.find(needle, start + len(needle))
        return out
    needle = _digits(normalize(value))
    if not needle:
        return []
    positions = [i for i, c in enumerate(folded) if "0" <= c <= "9"]
    digits = "".join(folded[i] for i in positions)
    out, start = [], digits.find(needle)
    while start >= 0:
        out.append((positions[start], positions[start + len(needle) - 1] + 1))
        start = digits.find(needle, start + len(needle))
    return out


_WORD = re.compile(r"\w+")


def _sentences(folded: str) -> list[tuple[int, int]]:
    bounds, start = [], 0
    for match in _SENTENCE_END.finditer(folded):
        bounds.append((start, match.start()))
        start = match.end()
    bounds.append((start, len(folded)))
    return bounds


def _cuts(sentence: str, breakers: Sequence[re.Pattern[str]]) -> list[int]:
    """Sorted positions where the clause breakers cut ``sentence``."""
    found = {m.start() for p in breakers for m in p.finditer(sentence)} | \
        {m.end() for p in breakers for m in p.finditer(sentence)}
    return sorted(found)


def _around(cuts: list[int], s: int, e: int, length: int) -> tuple[int, int]:
    before = bisect.bisect_right(cuts, s)
    after = bisect.bisect_left(cuts, e)
    return (cuts[before - 1] if before else 0), (cuts[after] if after < len(cuts) else length)


class _Clauses:
    """Sentences and clause cuts of one folded message, computed once (linear in the message length)."""

    def __init__(self, folded: str, rules: ProvenanceRules) -> None:
        self.folded, self.rules = folded, rules
        self.sentences = _sentences(folded)
        self.starts = [lo for lo, _ in self.sentences]
        self._cuts: dict[int, list[int]] = {}

    def cuts(self, at: int) -> list[int]:
        if at not in self._cuts:
            lo, hi = self.sentences[at]
            self._cuts[at] = _cuts(self.folded[lo:hi], self.rules.markers.breakers)
        return self._cuts[at]

    def key(self, start: int, end: int) -> tuple[int, int, int]:
        """(sentence, clause start, clause end) of the occurrence [start, end)."""
        at = max(0, bisect.bisect_right(self.starts, start) - 1)
        left, right = self.sentences[at]
        lo, hi = _around(self.cuts(at), start - left, end - left, right - left)
        return at, lo, hi

    def text(self, start: int, end: int) -> str:
        """The clause with the value masked. It reaches into the next sentence when that one opens with an
        anaphor ("It's my colleague's"), and into the previous one when the value stands almost alone."""
        at, lo, hi = self.key(start, end)
        left, right = self.sentences[at]
        sentence = self.folded[left:right]
        s, e = max(0, start - left), min(len(sentence), end - left)
        parts = [sentence[lo:s], " VALUE ", sentence[e:hi]]
        if len(_WORD.findall(parts[0] + parts[2])) <= self.rules.alone_max_words and at > 0:
            before = self.sentences[at - 1]
            parts.insert(0, self.folded[before[0]:before[1]] + " . ")
        if at + 1 < len(self.sentences):
            nxt = self.sentences[at + 1]
            following = self.folded[nxt[0]:nxt[1]]
            if self.rules.markers.any_anaphora.search(following):
                cut = self.cuts(at + 1)
                parts.append(" . " + following[:cut[0] if cut and cut[0] > 0 else len(following)])
        return "".join(parts)


def _embedded_spans(folded: str, rules: ProvenanceRules) -> list[tuple[int, int, bool]]:
    """(start, end, quoted) of the parts of the folded message that are not the visitor's own words: web addresses,
    markup, lines presented as another speaker's, and (``quoted``) text in quotation marks or '>' quote lines."""
    spans: list[tuple[int, int, bool]] = []
    for patterns, quoted in ((rules.embedded, False), (rules.quoted, True)):
        for pattern in patterns:
            spans.extend((m.start(), m.end(), quoted) for m in pattern.finditer(folded) if m.end() > m.start())
    return spans


def _adopted(folded: str, start: int, rules: ProvenanceRules) -> bool:
    """The words right before a quote make the quoted value the visitor's own ("my email is \"...\"")."""
    before = folded[max(0, start - 80):start]
    return any(pattern.search(before) for pattern in rules.adoption)


def not_own_words(folded: str, start: int, end: int, spans: Sequence[tuple[int, int, bool]],
                  rules: ProvenanceRules) -> bool:
    """The occurrence [start, end) stands inside embedded text (a URL, markup, another speaker's line) or inside a
    quote the visitor does not adopt: whoever the value belongs to, the visitor did not give it as theirs."""
    return any(lo <= start and end <= hi and not (quoted and _adopted(folded, lo, rules))
               for lo, hi, quoted in spans)


def attribution(message: str, value: str, span: tuple[int, int], rules: ProvenanceRules) -> tuple[bool, bool]:
    """(third party, refused) for ``value`` in the visitor ``message``: any occurrence's clause counts. Each
    distinct clause is judged once, so a value repeated many times costs no more than the message is long."""
    folded, origin = _folded(message)
    places = _occurrences(folded, value)
    if not places:  # the validator already requires the value inside the span; fall back to the span itself
        lo = bisect.bisect_left(origin, span[0])
        hi = bisect.bisect_left(origin, span[1])
        places = [(min(lo, len(folded)), min(max(hi, lo), len(folded)))]
    clauses = _Clauses(folded, rules)
    markers = rules.markers
    third = refused = False
    embedded = _embedded_spans(folded, rules)
    if embedded and any(not_own_words(folded, start, end, embedded, rules) for start, end in places):
        third = True
    judged: set[tuple[int, int, int]] = set()
    for start, end in places:
        key = clauses.key(start, end)
        if key in judged:
            continue
        judged.add(key)
        clause = clauses.text(start, end)
        third = third or markers.any_third_party.search(clause) is not None
        refused = refused or markers.any_refused.search(clause) is not None
        if third and refused:
            break
    return third, refused


@dataclass(frozen=True)
class ProvenanceContext:
    """What a turn's decision knows besides the visitor's words: company contacts and what the assistant showed."""

    company: ContactIndex
    # Passages retrieved this turn (company text the visitor may be reading). Not this turn's answer text: the
    # visitor wrote before it existed, and a generated answer may quote the visitor back.
    shown: tuple[str, ...] = ()


def contact_facts(
    value: str,
    normalized: str | None,
    message: str,
    span: tuple[int, int],
    region: str,
    assistant_texts: Sequence[str],
    context: ProvenanceContext,
    rules: ProvenanceRules,
) -> dict[str, bool]:
    """The five provenance facts of one contact value (raw and validator-normalised forms both count). A value
    of several channels ('a@b.example; +34 600 000 000', spec/adr/0006) has a fact when any channel has it."""
    values = [v for v in {*contact_channels(value), *contact_channels(normalized or value)} if v]
    shown = ContactIndex.from_texts([*assistant_texts, *context.shown], region)
    third = refused = False
    for channel in contact_channels(value) or [value]:
        channel_third, channel_refused = attribution(message, channel, span, rules)
        third, refused = third or channel_third, refused or channel_refused
    return {
        **CLEAN,
        COMPANY: any(context.company.holds(v, region, rules.min_digits) for v in values),
        ECHO: any(shown.holds(v, region, rules.min_digits) for v in values),
        CONFUSABLE: any(confusable(v) for v in values),
        THIRD_PARTY: third,
        REFUSED: refused,
    }


def others_wish(message: str, value: str, span: tuple[int, int], rules: ProvenanceRules) -> bool:
    """D-12: the clause of the value inside the cited span (or of the span, when the value is not written there,
    e.g. a normalised date) states it as another person's wish or plan ("my sister wants to live in …"), and
    neither that sentence nor the next one adopts it ("… and so do I")."""
    wish = rules.wish
    if wish is None:
        return False
    folded, origin = _folded(message)
    lo = min(bisect.bisect_left(origin, span[0]), len(folded))
    hi = min(max(bisect.bisect_left(origin, span[1]), lo), len(folded))
    needle = _folded(normalize(value).strip())[0]
    places: list[tuple[int, int]] = []
    at = folded.find(needle, lo, hi) if needle else -1
    while at >= 0:
        places.append((at, at + len(needle)))
        at = folded.find(needle, at + len(needle), hi)
    clauses = _Clauses(folded, wish)
    if places:
        texts = [(clauses.key(s, e)[0], clauses.text(s, e)) for s, e in places]
    else:  # the span itself is the anchor, unmasked: its own words may hold the marker
        sentence, c_lo, c_hi = clauses.key(lo, hi)
        left = clauses.sentences[sentence][0]
        texts = [(sentence, folded[left + c_lo:left + max(c_hi, hi - left)])]
    for sentence, text in texts:
        if wish.markers.any_third_party.search(text) is None:
            continue
        following = clauses.sentences[sentence:sentence + 2]
        if rules.wish_adoption is None or not any(
                rules.wish_adoption.search(folded[a:b]) is not None for a, b in following):
            return True
    return False
