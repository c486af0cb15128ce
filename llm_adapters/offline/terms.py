"""Vocabulary term matching on folded text, with the context checks every typed extractor shares:
negation ("I do not need parking"), questions about the offer ("is smoking allowed there"), modifier contexts
("limpieza de oficinas") and replaced values."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.gazetteer import is_known_place
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import VocabularyData


@dataclass(frozen=True)
class TermMatch:
    start: int  # folded offsets
    end: int
    option: str
    term: str


_YEAR = re.compile(r"^(?:19|20)\d\d$")


@lru_cache(maxsize=8192)  # every vocabulary term of the loaded rules (a few thousand): no recompiling
def term_pattern(term: str) -> re.Pattern[str]:
    if _YEAR.match(term):  # 'from '16': a year's short form names it too
        return re.compile(rf"(?<![\w@])(?:{term}|['’‘]{term[2:]})(?![\w@])")
    parts = [re.escape(p) for p in re.split(r"[\s\-]+", term) if p]
    body = r"[\s\-]+".join(parts)
    plural = "(?:e?s)?" if term[-1:].isalpha() else ""  # 'terrace' also matches 'terraces', 'hotel' 'hoteles'
    return re.compile(rf"(?<![\w@]){body}{plural}(?![\w@])")


def _inflection_stem(term: str) -> str:
    """The term's first word (or its stem): what must occur in a text for the term's pattern to match."""
    if _YEAR.match(term):
        return term[2:]  # in both '2016' and ''16'
    head = re.split(r"[\s\-]+", term, maxsplit=1)[0]
    return head[: max(3, len(head) - 1)]


def compiled_terms(vocabulary: VocabularyData) -> tuple[list[re.Pattern[str]], list[str]]:
    """Each term's pattern and pre-check stem, built once per vocabulary (a spec may carry more terms than any
    regex cache holds); the proposer's warm-up builds them before the first visitor waits."""
    patterns = memo(vocabulary, "term_patterns", lambda: [term_pattern.__wrapped__(t) for t, _ in vocabulary.terms])
    stems = memo(vocabulary, "term_stems", lambda: [_inflection_stem(t) for t, _ in vocabulary.terms])
    return patterns, stems


def find_terms(analysis: Analysis, vocabulary: VocabularyData) -> list[TermMatch]:
    """Non-overlapping matches, longest term first, returned in text order."""
    text = analysis.masked
    taken: list[tuple[int, int]] = []
    found: list[TermMatch] = []
    patterns, stems = compiled_terms(vocabulary)
    for (term, option), pattern, stem in zip(vocabulary.terms, patterns, stems, strict=True):
        if stem not in text:  # cheap pre-check before the regex (the stem is a prefix of the term)
            continue
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            taken.append((start, end))
            found.append(TermMatch(start=start, end=end, option=option, term=term))
    return sorted(found, key=lambda m: m.start)


def _last_match_end(analysis: Analysis, name: str, start: int, end: int) -> int | None:
    matches = analysis.cue_matches(name, start, end)
    return max((e for _, e in matches), default=None)


def negated(analysis: Analysis, sentence: Sentence, start: int, end: int) -> bool:
    """Is the term at [start, end) negated inside its sentence?"""
    text = analysis.masked
    before = text[sentence.start:start]
    if any(p.search(before) for p in analysis.rules.cue("negation_immediate")):
        return True
    cue_end = _last_match_end(analysis, "negation_before", sentence.start, start)
    if cue_end is not None and not analysis.any_cue("negation_breaker", cue_end, start):
        return True
    after = text[end:sentence.end]
    return any(p.match(after) for p in analysis.rules.cue("negation_after"))


def asked_about(analysis: Analysis, sentence: Sentence, start: int) -> bool:
    """Is the term at ``start`` a property the visitor asks the company about ('check whether they permit
    smoking', 'and is it furnished?') rather than one they state? Also in sentences read as requests."""
    before = analysis.masked[sentence.start:start]
    return any(p.search(before) for p in analysis.rules.cue("asked_about_before"))


def hypothetical(analysis: Analysis, sentence: Sentence, start: int) -> bool:
    """Is the term at ``start`` something the visitor is unsure of ('not sure yet whether it will be empty', 'je
    ne sais pas si on aura tout vidé') rather than a choice they state?"""
    before = analysis.masked[sentence.start:start]
    return any(p.search(before) for p in analysis.rules.cue("hypothetical_before"))


def about_presented_item(analysis: Analysis, sentence: Sentence, start: int) -> bool:
    """Is the term at ``start`` asked about the item the company presented ('is this a premium economy ticket?',
    'tell me if it is a museum', 'est-ce une murale ?') rather than asked for? The cue puts the verb before the
    pronoun or an 'if' before both, so a statement ('this is a museum') never matches."""
    before = analysis.masked[sentence.start:start]
    return any(p.search(before) for p in analysis.rules.cue("presented_item_before"))


def is_modifier(analysis: Analysis, vocabulary_id: str, sentence: Sentence, match: TermMatch) -> bool:
    """The term is used as a modifier (object of a service, ...) rather than stated as the visitor's option."""
    contexts = analysis.rules.term_contexts.get(vocabulary_id, {})
    before = analysis.masked[sentence.start:match.start]
    after = analysis.masked[match.end:sentence.end]
    return any(p.search(before) for p in contexts.get("exclude_before", ())) or any(
        p.match(after) for p in contexts.get("exclude_after", ()))


def replaced(analysis: Analysis, sentence: Sentence, start: int, end: int, correcting: bool) -> bool:
    """A value the visitor is replacing ('replace X with Y', 'instead of X', 'no en X')."""
    before = analysis.masked[sentence.start:start]
    if any(p.search(before) for p in analysis.rules.cue("replaced_before")):
        return True
    if not correcting:
        return False
    after = analysis.masked[end:sentence.end]
    return any(p.match(after) for p in analysis.rules.cue("replaced_after"))


def _known_place_names(analysis: Analysis) -> list[tuple[int, int]]:
    """Folded spans of the capitalised names of this message that are known places ('Los Gatos', 'Palm
    Springs'), found once per message. Only multi-word names: a one-word name is the term itself or nothing."""
    source = analysis.folded.source
    spans = []
    for match in analysis.rules.place_name.finditer(source):
        name = match.group()
        if " " in name and is_known_place(name):
            spans.append((analysis.folded.to_folded(match.start()), analysis.folded.to_folded(match.end())))
    return spans


def inside_place_name(analysis: Analysis, start: int, end: int) -> bool:
    """Is the term at [start, end) a word of a longer known place name ('gatos' in 'Los Gatos', 'palm' in 'Palm
    Springs')? Then it names the place, not an option of the vocabulary. Only a capitalised term is looked up."""
    at = analysis.source_span(start, end)[0]
    if not analysis.folded.source[at:at + 1].isupper():
        return False
    spans = memo(analysis, "known_place_names", lambda: _known_place_names(analysis))
    return any(s <= start and end <= e and (s, e) != (start, end) for s, e in spans)


_NAME_WORD = re.compile(r"[^\W\d_][\w'&-]*")
_TITLE_MIN_OTHER_WORDS = 2  # capitalised words beside the term that make the run a title ('Blue Jays Vs Yankees')


def inside_title(analysis: Analysis, sentence_start: int, start: int, end: int) -> bool:
    """Is the capitalised term at [start, end) a word of a longer capitalised name written mid-sentence ('France
    Rocks Festival', 'Blue Jays Vs Yankees')? Then it names that event or title, not an option. A capitalised
    category phrase ('a Rock concert', 'Rock Concert') or a several-word term written as a name ('Air Canada') is
    no such name, nor a single capitalised word beside the term ('I Prefer Drama', 'Classic Rock'): the run must
    hold two capitalised words beside the term (the sentence's first word not counted)."""
    source = analysis.folded.source
    src_start, src_end = analysis.source_span(start, end)
    if not source[src_start:src_start + 1].isupper():
        return False
    first = analysis.source_span(sentence_start, sentence_start + 1)[0]
    words = [(m.start(), m.end(), m.group()) for m in _NAME_WORD.finditer(source, first)]
    at = next((k for k, w in enumerate(words) if w[0] <= src_start < w[1]), None)
    if at is None:
        return False

    def linked(k: int) -> bool:  # words k and k+1 stand in one name: only spaces between them
        return k + 1 < len(words) and not source[words[k][1]:words[k + 1][0]].strip()

    def capital(k: int) -> bool:
        return words[k][2][:1].isupper()

    lo = at
    while lo > 0 and linked(lo - 1) and capital(lo - 1) and words[lo - 1][0] > first:
        lo -= 1
    last = at
    while last + 1 < len(words) and words[last + 1][0] < src_end:
        last += 1  # the term's own words
    hi = last
    while linked(hi) and capital(hi + 1):
        hi += 1
    return (at - lo) + (hi - last) >= _TITLE_MIN_OTHER_WORDS
