"""The goal's own words: the content words a company uses to say what it does (spec title, manager intent,
objective names, criterion descriptions and cues, vocabulary terms).

A blocker cue that is only the goal's own words names the company's domain, not a digression: "weather" is small
talk for a wedding venue and the very subject of a forecast service. Function words of every configured language
are left out, so a cue such as "been to" never yields because a spec happens to contain "to".
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from engine.kernel.goal_models import GoalSpec
from engine.text import fold

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
# Blocker cues that yield to the goal's own words: small talk only. A third party or the company itself stays a
# blocker whatever the domain (a vet's "my neighbour's dog" is still about the neighbour).
YIELDING_CUES = frozenset({"small_talk"})


def _texts(spec: GoalSpec) -> Iterable[str]:
    yield spec.title
    yield spec.manager_intent
    for objective in spec.objectives:
        yield objective.name
        yield objective.criterion.description
        cues = objective.criterion.params.get("cues")
        if isinstance(cues, dict):
            yield from (term for terms in cues.values() if isinstance(terms, list) for term in terms
                        if isinstance(term, str))
    for vocabulary in spec.vocabularies.values():
        options = vocabulary.get("options") if isinstance(vocabulary, dict) else None
        if isinstance(options, dict):
            yield from (term for by_language in options.values() if isinstance(by_language, dict)
                        for terms in by_language.values() if isinstance(terms, list) for term in terms
                        if isinstance(term, str))


def goal_words(spec: GoalSpec, function_words: frozenset[str]) -> frozenset[str]:
    """Folded content words of the spec's own texts (no function word of any configured language)."""
    return frozenset(w for text in _texts(spec) for w in _WORD.findall(fold(text)) if w not in function_words)


def only_goal_words(matched: str, goal: frozenset[str], function_words: frozenset[str]) -> bool:
    """Is this cue match (folded) made of the goal's own words? Its content words must all be, and there must be
    at least one ('el tiempo' yields for a forecast service whose words hold 'tiempo')."""
    content = [w for w in _WORD.findall(matched) if w not in function_words]
    return bool(content) and all(w in goal for w in content)
