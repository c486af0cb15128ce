"""Declined yes/no features (spec/adr/0009): the visitor's "no" is their answer, recorded as 'no:<option>'.

Two readings, both only when the message claims no option of the vocabulary (a claim always wins):

* a term of the vocabulary negated in the visitor's sentence ("I don't need parking", "sin piscina") declines that
  option, when the objective is a yes/no feature (its vocabulary has one option) or its yes/no question was just
  asked (a list of wishes said in passing — "I don't need a garage or a pool" — is not an answer to it). A
  question asking the visitor to name what they need ("Which facilities will you need?", the
  ``constituent_question`` cue) is not answered by a "no" to one of the options: the others stay unanswered;
* the features objective was just asked and the visitor's short message (at most ``bare_answer_max_words``
  words) opens with a decline answer ("no thanks", "no, I have my own", "non merci": the ``decline_answer`` cue of
  rules/patterns/<lang>.json) declines every option of its vocabulary. A refusal ("no, I'd rather not say"),
  uncertainty ("no idea"), a stop, a closing ("no, that's all, thanks for your help"), a correction ("no, I
  actually want the 8th") or a value for another objective in the same message ("no, three rooms") is not a
  decline.

The decision layer's validator accepts a declined item only when the span holds one of the visitor's own decline
words (rules/criteria.json features.decline_words), so the words are always theirs.
"""

from __future__ import annotations

from engine.text import fold
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.offline_rules import VocabularyData
from llm_adapters.offline.terms import find_terms, negated

DECLINED_PREFIX = "no:"  # the value grammar of engine/kernel/validators/vocabulary.py (SPEC D-13)
_RANK_NEGATED = 2  # the visitor named the option
RANK_ANSWER = 1  # a bare "no" to the question just asked


def _value(options: list[str]) -> str:
    return "; ".join(f"{DECLINED_PREFIX}{option}" for option in sorted(dict.fromkeys(options)))


def _options(vocabulary: VocabularyData) -> list[str]:
    return list(dict.fromkeys(option for _, option in vocabulary.terms))


def _asks_to_name_options(ctx: ExtractionContext) -> bool:
    """Does the objective's question ask the visitor to name what they need ("Which facilities…?", "¿Qué
    servicios…?", "Que faut-il inclure…?") rather than ask yes or no? Read on the question in every language of
    the spec (the cues are merged over languages, like the visitor's)."""
    patterns = ctx.analysis.rules.cue("constituent_question")
    return any(p.match(fold(question).strip()) for question in ctx.objective.questions.values() for p in patterns)


def _negated_terms(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    analysis = ctx.analysis
    if len(_options(vocabulary)) != 1 and (not ctx.lenient or _asks_to_name_options(ctx)):
        return []
    options: list[str] = []
    sentences: dict[tuple[int, int], None] = {}
    first: int | None = None
    for match in find_terms(analysis, vocabulary):
        sentence = analysis.sentence_at(match.start)
        if sentence is None or not ctx.allowed(sentence.is_question, "features") or analysis.blocked(match.start):
            continue
        if not negated(analysis, sentence, match.start, match.end):
            continue
        options.append(match.option)
        sentences[(sentence.start, sentence.end)] = None
        first = match.start if first is None else first
    if not options or first is None:
        return []
    return [Evidence(value=_value(options), pos=first, sentences=tuple(sentences), rank=_RANK_NEGATED)]


def _declining_answer(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    analysis = ctx.analysis
    rules = analysis.rules
    if not ctx.lenient or not analysis.sentences:
        return []
    if ctx.correcting or len(analysis.words(0, len(analysis.masked))) > rules.settings.bare_answer_max_words:
        return []  # "No, make it 2 rooms", "No, I actually want the 8th": the "no" answers something else
    sentence = analysis.sentences[0]
    rest = analysis.masked[sentence.start:]  # the cue may look ahead ("no, that's all" closes, it declines nothing)
    if sentence.is_question or not any(p.match(rest) for p in rules.cue("decline_answer")):
        return []
    if any(p.search(analysis.masked) for name in ("refusal", "uncertainty", "stop") for p in rules.cue(name)):
        return []  # "no, I'd rather not say" refuses; "no idea" is uncertainty; "no, bye" stops
    options = _options(vocabulary)
    if not options:
        return []
    return [Evidence(value=_value(options), pos=sentence.start, sentences=((sentence.start, sentence.end),),
                     rank=RANK_ANSWER)]


def extract_declined(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    """The features this message declines, as one 'no:<option>; …' candidate (empty when it declines none)."""
    return _negated_terms(ctx, vocabulary) or _declining_answer(ctx, vocabulary)


def drop_answer_declines_beside_other_values(chosen: dict[str, Evidence]) -> None:
    """A bare "no" that comes with a value for another objective ("No, three rooms") answers that other
    objective, not the feature just asked: its decline is dropped. Changes ``chosen`` in place."""
    declines = [oid for oid, found in chosen.items()
                if found.rank == RANK_ANSWER and found.value.startswith(DECLINED_PREFIX)]
    if declines and len(chosen) > len(declines):
        for oid in declines:
            del chosen[oid]
