"""Conversation-control cues: stop, refusal, temporary uncertainty, correction and re-engagement.

A refusal or uncertainty names its objective through topic words ('budget', 'datos de contacto'); without
one it is about the objective the previous question targeted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.goals.models import Objective
from llm_adapters.offline.analysis import Analysis, Sentence


@dataclass(frozen=True)
class CueHit:
    kind: str  # "stop" | "refusal" | "uncertainty" | "resume" | "correction"
    sentence: Sentence
    objectives: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Cues:
    hits: tuple[CueHit, ...]
    correcting: bool

    def of(self, kind: str) -> list[CueHit]:
        return [hit for hit in self.hits if hit.kind == kind]


def topic_objectives(
    analysis: Analysis, sentence: Sentence, objectives: list[Objective], bits: dict[str, int], last_asked: str | None
) -> tuple[str, ...]:
    """Objectives the sentence talks about, by their criterion kind's topic words."""
    words = analysis.words(sentence.start, sentence.end)
    named = []
    for objective in objectives:
        prefixes = analysis.rules.topics.get(objective.criterion.kind.value, ())
        if any(word.startswith(prefix) for word in words for prefix in prefixes):
            named.append(objective)
    by_kind: dict[str, list[Objective]] = {}
    for objective in named:
        by_kind.setdefault(objective.criterion.kind.value, []).append(objective)
    chosen: list[str] = []
    for group in by_kind.values():
        if len(group) == 1:
            chosen.append(group[0].id)
            continue
        asked = [o.id for o in group if o.id == last_asked]
        open_ = [o.id for o in group if bits.get(o.id) == 0]
        if asked:
            chosen.extend(asked)
        elif len(open_) == 1:
            chosen.extend(open_)
    return tuple(chosen)


def _matches(analysis: Analysis, name: str, sentence: Sentence) -> bool:
    return analysis.any_cue(name, sentence.start, sentence.end)


def detect_cues(
    analysis: Analysis, objectives: list[Objective], bits: dict[str, int], last_asked: str | None
) -> Cues:
    hits: list[CueHit] = []
    correcting = False
    for sentence in analysis.sentences:
        topics = topic_objectives(analysis, sentence, objectives, bits, last_asked)
        if _matches(analysis, "correction", sentence):
            correcting = True
            hits.append(CueHit("correction", sentence, topics))
        fallback = (last_asked,) if last_asked else ()
        if _matches(analysis, "stop", sentence):
            hits.append(CueHit("stop", sentence))
        if not sentence.is_question and _matches(analysis, "refusal", sentence):
            hits.append(CueHit("refusal", sentence, topics or fallback))
        if not sentence.is_question and _matches(analysis, "uncertainty", sentence):
            hits.append(CueHit("uncertainty", sentence, topics or fallback))
        if _matches(analysis, "resume", sentence):
            hits.append(CueHit("resume", sentence, topics))
    return Cues(hits=tuple(hits), correcting=correcting)


