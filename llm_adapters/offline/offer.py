"""Is a sentence about what the company offers? A request to the company ('could you look in ...', 'search ...
for') or a sentence naming the company's offer by its published title ('the weather for ...' to a weather
service) states what the visitor wants, so the small-talk words in it stop nothing and, in a question, the
visitor's search parameters count as they do in a question seeking the offer ('any buses to Fresno?').
"""

from __future__ import annotations

import re
from functools import lru_cache

from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.cues import mentions_any
from llm_adapters.offline.evidence import ExtractionContext

_TITLE_WORD = re.compile(r"[^\W\d_]{5,}")
_ASIDE = re.compile(r"\([^)]*\)")


@lru_cache(maxsize=256)
def _title_words(title: str, function_words: frozenset[str]) -> frozenset[str]:
    """What the company offers, as its published title names it ('Weather forecasts', 'Dentists'): the title's
    content words of five letters or more, without asides in brackets, plural -s dropped so 'dentist' and
    'dentists' both match as word prefixes."""
    words = (fold(w) for w in _TITLE_WORD.findall(_ASIDE.sub(" ", title)))
    return frozenset(w[:-1] if w.endswith("s") else w for w in words if w not in function_words)


def offer_word(ctx: ExtractionContext, start: int, end: int) -> bool:
    """The text between ``start`` and ``end`` names the company's offer by a word of its title."""
    if ctx.spec is None:
        return False
    return mentions_any(ctx.analysis.words(start, end),
                        _title_words(ctx.spec.title, ctx.analysis.rules.all_function_words))


def requested(analysis: Analysis, sentence: Sentence) -> bool:
    """A request to the company ('could you look in ...', 'search ... for', 'how about ...') states what the
    visitor wants: the values it names are theirs as much as after 'I want'."""
    start = sentence.start
    while start < sentence.end and analysis.masked[start] in "¿¡ ":
        start += 1  # request patterns are anchored at the opening word: '¿Podrías mirar en ...?'
    return not sentence.is_question and analysis.any_cue("request", start, sentence.end)


def blocked(ctx: ExtractionContext, sentence: Sentence, start: int) -> bool:
    """Analysis.blocked, except that small-talk words stop nothing in a request to the company or in a
    sentence about its own offer ('check the weather in ...', 'the forecast for March 4th' to a weather
    service); a clause about a third party or about the company itself stays blocked."""
    analysis = ctx.analysis
    if not analysis.blocked(start):
        return False
    clause_start, clause_end = analysis.clause_at(start)
    clause_start = analysis.colon_extended(clause_start, analysis.clause_at)
    if any(analysis.any_cue(name, clause_start, clause_end) for name in ("third_party", "company_self")):
        return True
    return not (requested(analysis, sentence) or offer_word(ctx, sentence.start, sentence.end))


def seeks_offer(ctx: ExtractionContext, sentence: Sentence) -> bool:
    """A question seeking the company's offer: by the language's offer-question cues ('any ...', 'are there
    ...'), or an open question naming the offer by a word of the company's title ("how's the weather on the
    5th?" to a weather service). A yes/no question about the offer ('is this flight on the 5th?') asks about
    something shown, not for what the visitor wants."""
    if sentence.seeks_offer:
        return True
    return (sentence.is_question and ctx.analysis.any_cue("wh_question", sentence.start, sentence.end)
            and offer_word(ctx, sentence.start, sentence.end))
