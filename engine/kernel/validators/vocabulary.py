"""Place, enumeration and feature criteria, checked against the criterion's vocabulary rule file."""

from __future__ import annotations

import re

from engine.kernel.validators.result import ValidationResult
from engine.rules.loader import Vocabulary
from engine.text import fold

PLACE = "place/1"
ENUMERATION = "enumeration/1"
FEATURES = "features/1"
_FEATURE_ITEM = re.compile(r"^(?P<id>[a-z][a-z0-9_]*)(?:\s*=\s*(?P<n>\d+(?:\.\d+)?))?$")
DECLINED_PREFIX = "no:"  # a declined yes/no feature (spec/adr/0009): 'no:laundry'
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")


def _grounded(vocabulary: Vocabulary, option: str, span_text: str, stemmers: tuple[str, ...] = ()) -> bool:
    """Some term of the option (any language) occurs in the span: the value is the visitor's, not invented. With
    ``stemmers`` (rules/criteria.json, issue 32: choices by meaning) a word of the span sharing its stem with a
    word of a term also grounds it ('rent two kayaks' -> 'kayak rental')."""
    folded = fold(span_text)
    if any(fold(term) in folded for term in vocabulary.terms(option)):
        return True
    if any(_YEAR.match(term) and _short_year(term).search(folded) for term in vocabulary.terms(option)):
        return True  # 'from '16' names the year 2016
    return bool(stemmers) and bool(_stems(folded, stemmers) & _stems(" ".join(
        fold(term) for term in vocabulary.terms(option)), stemmers))


_YEAR = re.compile(r"^(?:19|20)\d\d$")


def _short_year(term: str) -> re.Pattern[str]:
    return re.compile(rf"['’‘]{term[2:]}(?!\w)")


_WORDS = re.compile(r"[^\W\d_]{4,}")  # words of four letters or more: articles and prepositions never ground


def _stems(text: str, stemmers: tuple[str, ...]) -> set[str]:
    import Stemmer  # PyStemmer (Snowball), already a dependency of retrieval

    words = _WORDS.findall(text)
    return {stem for name in stemmers for stem in Stemmer.Stemmer(name).stemWords(words)}


def validate_place(value: str, span_text: str, vocabulary: Vocabulary | None, min_length: int) -> ValidationResult:
    text = value.strip()
    if len(text) < min_length or not any(ch.isalpha() for ch in text):
        return ValidationResult.reject("place.too_short", PLACE)
    if fold(text) not in fold(span_text):
        return ValidationResult.reject("place.value_not_in_span", PLACE)
    if vocabulary is not None and not vocabulary.allow_unlisted:
        listed = {fold(t) for option in vocabulary.options for t in vocabulary.terms(option)}
        if fold(text) not in listed:
            return ValidationResult.reject("place.not_in_vocabulary", PLACE)
    return ValidationResult(ok=True, code="place.ok", validator=PLACE, normalized=text)


def validate_enumeration(value: str, span_text: str, vocabulary: Vocabulary | None,
                         stemmers: tuple[str, ...] = ()) -> ValidationResult:
    if vocabulary is None:
        return ValidationResult.reject("enumeration.vocabulary_missing", ENUMERATION)
    option = value.strip()
    if option not in vocabulary.options:
        return ValidationResult.reject("enumeration.unknown_option", ENUMERATION)
    if not _grounded(vocabulary, option, span_text, stemmers):
        return ValidationResult.reject("enumeration.not_in_span", ENUMERATION)
    return ValidationResult(ok=True, code="enumeration.ok", validator=ENUMERATION, normalized=option)


def validate_features(value: str, span_text: str, vocabulary: Vocabulary | None,
                      decline_words: frozenset[str] = frozenset()) -> ValidationResult:
    """Items '<option>[=<n>]' (claimed) or 'no:<option>' (declined, spec/adr/0009). A claimed option is grounded
    by one of its terms in the span; a declined one by one of the visitor's decline words (``decline_words``,
    folded; none: nothing can be declined)."""
    if vocabulary is None:
        return ValidationResult.reject("features.vocabulary_missing", FEATURES)
    items = [part.strip() for part in value.split(";") if part.strip()]
    if not items:
        return ValidationResult.reject("features.empty", FEATURES)
    normalized: list[str] = []
    claimed: set[str] = set()
    declined: set[str] = set()
    for item in items:
        is_declined = item.startswith(DECLINED_PREFIX)
        match = _FEATURE_ITEM.match(item[len(DECLINED_PREFIX):].strip() if is_declined else item)
        if match is None or (is_declined and match["n"] is not None):
            return ValidationResult.reject("features.unparseable", FEATURES)
        if match["id"] not in vocabulary.options:
            return ValidationResult.reject("features.unknown_option", FEATURES)
        if is_declined:
            if not _declines(span_text, decline_words):
                return ValidationResult.reject("features.decline_not_in_span", FEATURES)
            declined.add(match["id"])
            normalized.append(DECLINED_PREFIX + match["id"])
            continue
        if not _grounded(vocabulary, match["id"], span_text):
            return ValidationResult.reject("features.not_in_span", FEATURES)
        claimed.add(match["id"])
        normalized.append(item.replace(" ", ""))
    if claimed & declined:
        return ValidationResult.reject("features.contradictory", FEATURES)
    return ValidationResult(ok=True, code="features.ok", validator=FEATURES,
                            normalized="; ".join(sorted(dict.fromkeys(normalized))))


def _declines(span_text: str, decline_words: frozenset[str]) -> bool:
    """The span holds one of the visitor's own words of declining ('no', "don't", 'non', 'sin')."""
    return any(fold(word) in decline_words for word in _WORD.findall(span_text))
