"""Reading a manager's intent deterministically: which objective kinds it asks for, and in which order.

Everything is looked up in ``fold(intent)`` (case- and accent-insensitive). Text after a purpose marker
("in order to arrange a viewing", "para preparar un presupuesto") says what the data is *for*, so it never
yields an objective: that keeps "presupuesto personalizado" (a quotation) from becoming a budget objective.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.compiler.matching import KeywordIndex, Match, compile_patterns
from engine.compiler.rules import CompilerRules
from engine.text import fold

# A full stop ends a sentence unless it sits inside a number ("325.000").
_SENTENCE_END = re.compile(r"[!?\n]|\.(?!\d)")
_CLAUSE_END = re.compile(r"[,;:!?\n]|\.(?!\d)")


@dataclass(frozen=True)
class Mention:
    kind: str  # objective kind key
    start: int  # offset in the folded intent
    keyword: str
    implied: bool  # only implied (e.g. "interested in cleaning services" implies a service-type objective)


@dataclass(frozen=True)
class IntentReading:
    folded: str
    mentions: list[Mention]  # first mention of each kind, in order of appearance
    purpose: list[tuple[int, int]]  # folded-offset ranges that state the purpose
    unrecognised: list[str]  # collect-clause phrases that matched no kind (reported to the reviewer)
    datetime_with_time: bool  # the intent asks for a time of day as well as a date

    def collect_text(self) -> str:
        """The intent without its purpose clauses."""
        kept, last = [], 0
        for start, end in self.purpose:
            kept.append(self.folded[last:start])
            last = end
        kept.append(self.folded[last:])
        return " ".join(kept)


def _inside(position: int, ranges: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in ranges)


def _purpose_ranges(folded: str, rules: CompilerRules, keywords: list[Match]) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for language, sources in sorted(rules.purpose_markers.items()):
        for pattern in compile_patterns(sources, f"compiler.json purpose_markers/{language}"):
            for marker in pattern.finditer(folded):
                # A keyword that starts before the marker and runs into it wins ("way to contact").
                if any(k.start < marker.start() < k.end for k in keywords):
                    continue
                before = folded[: marker.start()].rstrip()
                at_sentence_start = not before or before[-1] in ".!?\n"
                stop = _CLAUSE_END if at_sentence_start else _SENTENCE_END
                end_match = stop.search(folded, marker.end())
                ranges.append((marker.start(), end_match.start() if end_match else len(folded)))
    merged: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _split_items(text: str, rules: CompilerRules) -> list[str]:
    separators = [s for sources in rules.item_separators.values() for s in sources]
    pattern = "|".join(s if s.startswith("\\") else re.escape(s) for s in separators)
    items = re.split(pattern, text) if pattern else [text]
    return [" ".join(item.split()) for item in items if item and item.strip(" .!?'\"")]


def read_intent(intent: str, rules: CompilerRules) -> IntentReading:
    folded = fold(intent)
    index = rules.keyword_index()
    keywords = index.longest_first(folded)
    purpose = _purpose_ranges(folded, rules, keywords)
    kept = [k for k in keywords if not _inside(k.start, purpose)]

    mentions: dict[str, Mention] = {}
    for match in kept:
        mentions.setdefault(match.label, Mention(match.label, match.start, match.keyword, implied=False))
    for kind in rules.objective_kinds:
        if kind.key in mentions:
            continue
        for language, sources in sorted(kind.implied_by.items()):
            for pattern in compile_patterns(sources, f"compiler.json {kind.key}.implied_by/{language}"):
                hit = next((m for m in pattern.finditer(folded) if not _inside(m.start(), purpose)), None)
                if hit is not None and (kind.key not in mentions or hit.start() < mentions[kind.key].start):
                    mentions[kind.key] = Mention(kind.key, hit.start(), hit.group(0), implied=True)

    reading = IntentReading(folded=folded, mentions=[], purpose=purpose, unrecognised=[],
                            datetime_with_time=False)
    collect = reading.collect_text()
    unrecognised = [
        item for item in _split_items(collect, rules)
        if not index.all_matches(item) and not any(m.implied and m.keyword in item for m in mentions.values())
    ]
    granularity = KeywordIndex(
        ("time", keyword)
        for kind in rules.objective_kinds
        for keywords_ in kind.granularity_keywords.values()
        for keyword in keywords_
    )
    return IntentReading(
        folded=folded,
        mentions=sorted(mentions.values(), key=lambda m: m.start),
        purpose=purpose,
        unrecognised=unrecognised,
        datetime_with_time=bool(granularity.all_matches(collect)),
    )
