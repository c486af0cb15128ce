"""One visitor message prepared for extraction: folded text with an index map, sentences, questions, clauses.

Cue patterns run on the folded text (case- and accent-insensitive); every match is mapped back to the
original characters, so spans quote the stored message exactly.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from engine.text import fold
from llm_adapters.offline.goal_words import YIELDING_CUES, only_goal_words
from llm_adapters.offline.offline_rules import OfflineRules

_SENTENCE_END = re.compile(r"[.!?;]+(?=\s|$)|\n+")
_INVERTED = re.compile(r"[¿¡]")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    return fold(char)


class FoldedText:
    """``text`` folded character by character, remembering which original character each folded one came from."""

    def __init__(self, source: str) -> None:
        if source.isascii():  # the common case: folding is lower-casing, one character for one
            self.source = source
            self.text = source.lower()
            self._origin = list(range(len(source)))
            return
        parts: list[str] = []
        origin: list[int] = []
        for index, char in enumerate(source):
            folded = _fold_char(char)
            parts.append(folded)
            origin.extend([index] * len(folded))
        self.source = source
        self.text = "".join(parts)
        self._origin = origin

    def to_source(self, start: int, end: int) -> tuple[int, int]:
        """Original [start, end) covering folded [start, end)."""
        if end <= start:
            anchor = self._origin[start] if start < len(self._origin) else len(self.source)
            return anchor, anchor
        return self._origin[start], self._origin[end - 1] + 1

    def to_folded(self, index: int) -> int:
        """First folded index whose source character is at or after ``index``."""
        return bisect.bisect_left(self._origin, index)


@dataclass(frozen=True)
class Sentence:
    start: int  # folded offsets, whitespace-trimmed
    end: int
    is_question: bool
    clauses: tuple[tuple[int, int], ...]  # local clauses (folded offsets) used for blockers
    # A question that seeks the company's offer ('are there any buses to Fresno on the 3rd?'): its search
    # parameters are the visitor's evidence for the kinds of settings.offer_question_evidence_kinds.
    seeks_offer: bool = False
    # A short question proposing a figure ('around R900 a head?'): the answer to the question just asked.
    proposes_figure: bool = False


@dataclass
class Analysis:
    rules: OfflineRules
    folded: FoldedText
    sentences: list[Sentence]
    masked: str  # folded text with e-mail addresses blanked, so vocabulary terms inside them never match
    # The goal's own content words (llm_adapters/offline/goal_words.py): a small-talk cue made only of them is the
    # company's domain ("weather" for a forecast service), not a digression. Empty: every cue blocks as written.
    goal_words: frozenset[str] = frozenset()
    _cue_cache: dict[tuple[str, int, int], bool] = field(default_factory=dict, repr=False, compare=False)

    @property
    def text(self) -> str:
        return self.folded.text

    @cached_property
    def _sentence_starts(self) -> list[int]:
        return [sentence.start for sentence in self.sentences]

    def sentence_at(self, pos: int) -> Sentence | None:
        """Bisection over the (ordered, disjoint) sentences: extractors call this once per candidate."""
        i = bisect.bisect_right(self._sentence_starts, pos) - 1
        if i >= 0 and pos < self.sentences[i].end:
            return self.sentences[i]
        return None

    def clause_at(self, pos: int) -> tuple[int, int]:
        sentence = self.sentence_at(pos)
        if sentence is None:
            return pos, pos
        i = bisect.bisect_right(sentence.clauses, (pos, math.inf)) - 1
        if i >= 0 and sentence.clauses[i][0] <= pos < sentence.clauses[i][1]:
            return sentence.clauses[i]
        return sentence.start, sentence.end

    @property
    def _function_words(self) -> frozenset[str]:
        return self.rules.all_function_words

    def yields_to_goal(self, name: str, matched: str) -> bool:
        """Is this match of cue ``name`` the goal's own domain rather than what the cue means?"""
        return (bool(self.goal_words) and name in YIELDING_CUES
                and only_goal_words(matched, self.goal_words, self._function_words))

    def any_cue(self, name: str, start: int, end: int) -> bool:
        """Memoised per (cue, window): extractors ask it once per candidate, mostly about the same clause."""
        key = (name, start, end)
        cached = self._cue_cache.get(key)
        if cached is None:
            window = self.masked[start:end]
            if self.goal_words and name in YIELDING_CUES:
                cached = any(not self.yields_to_goal(name, m.group()) for p in self.rules.cue(name)
                             for m in p.finditer(window))
            else:
                cached = any(p.search(window) for p in self.rules.cue(name))
            self._cue_cache[key] = cached
        return cached

    def cue_matches(self, name: str, start: int, end: int) -> list[tuple[int, int]]:
        window = self.masked[start:end]
        found = [(m.start() + start, m.end() + start) for p in self.rules.cue(name) for m in p.finditer(window)
                 if not self.yields_to_goal(name, m.group())]
        return sorted(found)

    def source_span(self, start: int, end: int) -> tuple[int, int]:
        return self.folded.to_source(start, end)

    def words(self, start: int, end: int) -> list[str]:
        return _WORD.findall(self.masked[start:end])

    def blocked(self, pos: int) -> bool:
        """The local clause around ``pos`` is small talk, about a third party, or about the company itself.
        A clause introduced by a colon belongs to the clause before it ("with my colleague: jane@...")."""
        start, end = self.clause_at(pos)
        start = self.colon_extended(start, self.clause_at)
        return any(self.any_cue(name, start, end) for name in ("small_talk", "third_party", "company_self"))

    def colon_extended(self, start: int, clause_at: Callable[[int], tuple[int, int]]) -> int:
        """Start of the clause before a colon that introduces the clause starting at ``start``."""
        before = start
        while before > 0 and self.text[before - 1] in " \t":
            before -= 1
        if before > 1 and self.text[before - 1] == ":":
            return min(start, clause_at(before - 2)[0])
        return start


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\n\"'“”«»-–—,":
        start += 1
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    return start, end


def _raw_sentences(text: str, max_chars: int | None = None) -> Iterable[tuple[int, int]]:
    cuts = {0, len(text)}
    for match in _SENTENCE_END.finditer(text):
        cuts.add(match.end())
    for match in _INVERTED.finditer(text):
        cuts.add(match.start())  # "Busco limpieza general, ¿cuánto cuesta?": the statement stands alone
    ordered = sorted(cuts)
    for start, end in itertools.pairwise(ordered):
        yield from _bounded(text, start, end, max_chars)


def _bounded(text: str, start: int, end: int, max_chars: int | None) -> Iterable[tuple[int, int]]:
    """[start, end) in pieces of at most ``max_chars``, cut after the last comma, else the last space, in the
    second half of each piece (a hard cut only inside one endless token)."""
    if max_chars is None:
        yield start, end
        return
    while end - start > max_chars:
        limit = start + max_chars
        cut = text.rfind(",", start + max_chars // 2, limit) + 1 or text.rfind(" ", start + max_chars // 2, limit) + 1
        cut = cut or limit
        yield start, cut
        start = cut
    yield start, end


def _is_question(rules: OfflineRules, body: str) -> bool:
    """A question to the company. A request phrased as a question ("can you help me find a dentist in Leeds?")
    is the visitor stating what they want, so it is evidence like a statement."""
    stripped = body.strip().lstrip("¿¡").strip()
    if any(p.match(stripped) for p in rules.cue("request")):
        return False
    if body.strip().endswith("?") or "¿" in body:
        return True
    return any(p.match(stripped) for p in rules.cue("question_start"))


def _proposes_figure(rules: OfflineRules, body: str) -> bool:
    """'around R900 a head?', '3 tyres?', '10am?': a question of a few words holding a figure and opening with no
    question word, auxiliary or existence cue proposes that figure; 'how much for 4?', 'any for 2?' ask. Only as
    the answer to the question just asked ('The villa costs 495,000 EUR?' asks about a price shown)."""
    stripped = body.strip().lstrip("¿¡").strip()
    if not any(ch.isdigit() for ch in stripped) or len(_WORD.findall(stripped)) > rules.settings.bare_answer_max_words:
        return False
    if any(p.match(stripped) for name in ("question_start", "wh_question", "constituent_question")
           for p in rules.cue(name)):
        return False
    return not any(p.search(stripped) for name in ("existence_question", "offer_question", "availability_question")
                   for p in rules.cue(name))


def _seeks_offer(rules: OfflineRules, body: str) -> bool:
    """A question seeking the company's offer ('any buses to Fresno?')."""
    return any(p.search(body) for p in rules.cue("offer_question"))



def _split_tag_question(rules: OfflineRules, text: str, start: int, end: int) -> list[tuple[int, int, bool]]:
    """'I need a pool, do you have any?': the statement before a comma-introduced question is not a question;
    nor is the statement a tag only asks to confirm ('three kegs, is that enough?', '¿80 lucas, alcanza?').
    Each part comes with whether it is such a confirmed statement."""
    body = text[start:end]
    if not body.rstrip().endswith("?"):
        return [(start, end, False)]
    for comma in reversed([m.end() for m in re.finditer(r",\s*", body)]):
        tag = body[comma:]
        if any(p.match(tag) for p in rules.cue("tag_question")):
            return [(start, start + comma, True), (start + comma, end, False)]
        if any(p.match(tag) for p in rules.cue("question_start")):
            return [(start, start + comma, False), (start + comma, end, False)]
    return [(start, end, False)]


def _clauses(rules: OfflineRules, text: str, start: int, end: int) -> tuple[tuple[int, int], ...]:
    cuts = {start, end}
    window = text[start:end]
    for pattern in rules.cue("clause_breaker"):
        for match in pattern.finditer(window):
            cuts.add(start + match.start())
            cuts.add(start + match.end())
    ordered = sorted(cuts)
    return tuple((a, b) for a, b in itertools.pairwise(ordered) if b > a)


def _mask_emails(rules: OfflineRules, folded: FoldedText) -> str:
    if "@" not in folded.source:
        return folded.text  # no address to mask (and no e-mail regex scan over long words)
    chars = list(folded.text)
    for match in rules.email.finditer(folded.source):
        start = folded.to_folded(match.start())
        end = folded.to_folded(match.end())
        for i in range(start, min(end, len(chars))):
            chars[i] = " "
    return "".join(chars)


def analyze(rules: OfflineRules, text: str, goal_words: frozenset[str] = frozenset()) -> Analysis:
    folded = FoldedText(text)
    sentences: list[Sentence] = []
    for raw_start, raw_end in _raw_sentences(folded.text, rules.settings.max_sentence_chars):
        for part_start, part_end, confirmed in _split_tag_question(rules, folded.text, raw_start, raw_end):
            start, end = _trim(folded.text, part_start, part_end)
            if end <= start or not any(ch.isalnum() for ch in folded.text[start:end]):
                continue
            body = folded.text[start:end]
            question = not confirmed and _is_question(rules, body)
            sentences.append(Sentence(
                start=start, end=end, is_question=question,
                clauses=_clauses(rules, folded.text, start, end),
                seeks_offer=question and _seeks_offer(rules, body),
                proposes_figure=question and _proposes_figure(rules, body),
            ))
    return Analysis(rules=rules, folded=folded, sentences=sentences, masked=_mask_emails(rules, folded),
                    goal_words=goal_words)
