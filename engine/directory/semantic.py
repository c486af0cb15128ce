"""Semantic constraints: quotable evidence in a record's own text, and concept requests in a query.

A record satisfies a concept only through evidence it contains: a normalised tag listed for the concept, or a
passage (sentence/clause of a text field) matching one of the concept's evidence patterns and none of its
negative patterns. The quote is the verbatim passage, so an answer can cite exactly what the directory says.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass

from engine.directory.directory_rules import SemanticVocabulary
from engine.directory.models import Evidence
from engine.directory.normalize import clean
from engine.text import fold

# Passage boundaries: sentence ends, pipes, semicolons and line breaks (literal "\n" too, as scraped).
_SPLIT = re.compile(r"(?<=[.!?;])\s+(?=[A-Z(])|\s*\|\s*|\s*;\s*|\s*(?:\\n|\r?\n)+\s*")


def split_passages(text: str, field: str, source: str) -> list[Evidence]:
    """Verbatim sub-strings of ``text``; together they cover all of its non-separator characters."""
    out = []
    position = 0
    for match in _SPLIT.finditer(text):
        piece = text[position:match.start()].strip()
        if piece:
            out.append(Evidence(field, piece, source))
        position = match.end()
    tail = text[position:].strip()
    if tail:
        out.append(Evidence(field, tail, source))
    return out


def _match_form(text: str) -> str:
    return fold(clean(html.unescape(text.replace("\\n", " "))))


def _union(patterns: tuple[re.Pattern[str], ...]) -> re.Pattern[str] | None:
    return re.compile("|".join(f"(?:{p.pattern})" for p in patterns)) if patterns else None


@dataclass(frozen=True)
class ConceptRequest:
    concept: str
    start: int
    end: int
    negated_from: str | None = None  # the concept the visitor negated ("no appointment" -> walk_in)
    unsupported: bool = False  # negated, and the vocabulary has no counterpart: cannot be evidenced
    excluded: bool = False  # negated without a counterpart: records evidencing ``concept`` are excluded


class ConceptMatcher:
    def __init__(self, vocab: SemanticVocabulary) -> None:
        self.vocab = vocab
        # one alternation per concept: a passage is scanned once per concept, not once per pattern
        self._evidence = {cid: _union(c.evidence_patterns) for cid, c in vocab.concepts.items()}
        self._negative = {cid: _union(c.negative_patterns) for cid, c in vocab.concepts.items()}

    def evidence(self, passages: Iterable[Evidence], tags: Iterable[tuple[str, Evidence]]
                 ) -> dict[str, tuple[Evidence, ...]]:
        """Concept id -> supporting evidence (tags first, then passages in record order)."""
        found: dict[str, list[Evidence]] = {}
        tag_list = list(tags)
        forms = [(passage, _match_form(passage.quote)) for passage in passages]  # folded once, not per concept
        for concept in self.vocab.concepts.values():
            hits = [ev for tag, ev in tag_list if tag in concept.tags]
            evidence, negative = self._evidence[concept.id], self._negative[concept.id]
            for passage, form in forms:
                if negative is not None and negative.search(form):
                    continue
                if evidence is not None and self._affirmed(evidence, form):
                    hits.append(passage)
            if hits:
                found[concept.id] = list(dict.fromkeys(hits))
        return {k: tuple(v) for k, v in found.items()}

    def _affirmed(self, pattern: re.Pattern[str], form: str) -> bool:
        """Some match of ``pattern`` that the passage does not negate ('proof of address not required').

        INVARIANT (T-2): a semantic constraint passes only on an affirmed, verbatim quote of the record's own text."""
        if pattern.search(form) is None:  # the common case, without the match loop
            return False
        for m in pattern.finditer(form):
            after, before = form[m.end():m.end() + 80], form[max(0, m.start() - 40):m.start()]
            if not (any(c.search(after) for c in self.vocab.negated_after)
                    or any(c.search(before) for c in self.vocab.negated_before)):
                return True
        return False

    def requests(self, folded_query: str) -> list[ConceptRequest]:
        """Concepts a query asks for; overlapping matches resolve to the earliest, then longest."""
        matches: list[tuple[int, int, str]] = []
        for concept in self.vocab.concepts.values():
            for pattern in concept.query_patterns:
                for m in pattern.finditer(folded_query):
                    if m.end() > m.start():
                        matches.append((m.start(), m.end(), concept.id))
        matches.sort(key=lambda item: (item[0], -(item[1] - item[0])))
        chosen: list[ConceptRequest] = []
        taken_until = -1
        for start, end, cid in matches:
            if start < taken_until:
                continue
            taken_until = end
            left = folded_query[max(0, start - 40):start]
            concept = self.vocab.concepts[cid]
            # 'not for university students': a concept right after a negated one shares its negation
            follows_negated = bool(chosen) and chosen[-1].negated_from is not None and not folded_query[
                chosen[-1].end:start].strip()
            if follows_negated or any(cue.search(left) for cue in self.vocab.negation_cues):
                if concept.negation is None and any(cue.search(left) for cue in self.vocab.self_negation_cues):
                    # 'I am not a veteran': the visitor describes themselves; no constraint can be evidenced
                    chosen.append(ConceptRequest(cid, start, end, negated_from=cid, unsupported=True))
                    continue
                if concept.negation is None:
                    # 'not a soup kitchen', "isn't only for seniors": no counterpart to evidence, so the negation
                    # excludes the records whose own text evidences the concept
                    chosen.append(ConceptRequest(cid, start, end, negated_from=cid, excluded=True))
                    continue
                chosen.append(ConceptRequest(concept.negation, start, end, negated_from=cid))
                continue
            chosen.append(ConceptRequest(cid, start, end))
        return chosen
