"""Conversation-control cues: stop, refusal, temporary uncertainty, correction and re-engagement.

A refusal or uncertainty names its objective through topic words ('budget', 'datos de contacto'); without
one it is about the objective the previous question targeted.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from engine.kernel.goal_models import Objective
from engine.text import fold
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



def cue_terms(cues: object) -> frozenset[str]:
    """The plain definition: every entry of every list among the values of the ``cues`` mapping, folded."""
    if not isinstance(cues, dict):
        return frozenset()
    return frozenset(fold(str(t)).strip() for terms in cues.values() if isinstance(terms, list) for t in terms)


@lru_cache(maxsize=4096)
def _cue_terms(cues_json: str) -> frozenset[str]:
    return cue_terms(json.loads(cues_json))


# id(cues) -> (the cues object, a deep copy of it, its terms). Holding the object keeps its id from being reused;
# the copy catches a change made in place. Only all-text cues are kept: between strings, equal means identical.
_SEEN: dict[int, tuple[object, object, frozenset[str]]] = {}
_SEEN_ENTRIES = 4096


def _all_text(cues: dict[Any, Any]) -> bool:
    return all(type(k) is str and type(v) is list and all(type(t) is str for t in v) for k, v in cues.items())


def objective_cues(objective: Objective) -> frozenset[str]:
    """The objective's own topic terms (criterion ``params.cues``, all languages), folded (``cue_terms``). Called
    for every objective on every sentence: a spec's cues are encoded once, not on every call."""
    cues = objective.criterion.params.get("cues")
    if not cues:
        return frozenset()
    seen = _SEEN.get(id(cues))
    if seen is not None and seen[0] is cues and seen[1] == cues:
        return seen[2]
    terms = _cue_terms(json.dumps(cues, sort_keys=True))
    if isinstance(cues, dict) and _all_text(cues):
        if len(_SEEN) >= _SEEN_ENTRIES:
            _SEEN.clear()
        _SEEN[id(cues)] = (cues, copy.deepcopy(cues), terms)
    return terms


@lru_cache(maxsize=4096)  # keyed on the term set (frozensets cache their hash): one entry per vocabulary or cue set
def _split_terms(terms: frozenset[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """One-word terms (matched as word prefixes) and several-word terms as ' '-prefixed phrases."""
    return (tuple(t for t in terms if " " not in t), tuple(" " + t for t in terms if " " in t))


def mentions_any(words: list[str], terms: frozenset[str]) -> bool:
    """The words use one of the folded terms: a one-word term as a word prefix ('villa' in 'villas'), a
    several-word term as a phrase."""
    if not terms:
        return False
    prefixes, phrases = _split_terms(terms)
    if prefixes and any(w.startswith(prefixes) for w in words):  # str.startswith tries every prefix at once
        return True
    if not phrases:
        return False
    joined = " " + " ".join(words) + " "
    return any(phrase in joined for phrase in phrases)


def names_objective(words: list[str], objective: Objective) -> bool:
    """The words use one of the objective's own cue terms."""
    return mentions_any(words, objective_cues(objective))


def topic_objectives(
    analysis: Analysis, sentence: Sentence, objectives: list[Objective], bits: dict[str, int], last_asked: str | None
) -> tuple[str, ...]:
    """Objectives the sentence talks about, by their own cue terms or their criterion kind's topic words."""
    words = analysis.words(sentence.start, sentence.end)
    named = []
    specific = set()
    for objective in objectives:
        prefixes = analysis.rules.topics.get(objective.criterion.kind.value, ())
        if names_objective(words, objective):
            specific.add(objective.id)
            named.append(objective)
        elif prefixes and any(word.startswith(prefixes) for word in words):
            named.append(objective)
    by_kind: dict[str, list[Objective]] = {}
    for objective in named:
        by_kind.setdefault(objective.criterion.kind.value, []).append(objective)
    chosen: list[str] = []
    for group in by_kind.values():
        own = [o for o in group if o.id in specific]
        if own:
            group = own  # an objective named by its own words wins over its kind's generic topic words
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


