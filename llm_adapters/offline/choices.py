"""Vocabulary evidence: features ('bedrooms=3; parking; pool') and enumerations (one option id).

Terms in questions, features asked about ('check whether they permit smoking'), negated terms, terms in small talk /
about third parties, and terms used as modifiers (the facility in 'limpieza de oficinas' names the service, not the
client) are not evidence.
"""

from __future__ import annotations

from decimal import Decimal

from engine.kernel.goal_models import CriterionKind, Objective
from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.choice_meaning import ChoiceSettings, match_by_meaning
from llm_adapters.offline.cues import names_objective, objective_cues
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.free_text import thanked_for
from llm_adapters.offline.free_text_words import free_text_words
from llm_adapters.offline.memo import memo
from llm_adapters.offline.numbers import count_before
from llm_adapters.offline.offline_rules import VocabularyData
from llm_adapters.offline.place_roles import PlaceMarkers
from llm_adapters.offline.terms import (
    TermMatch,
    about_presented_item,
    asked_about,
    find_terms,
    hypothetical,
    inside_place_name,
    inside_title,
    is_modifier,
    negated,
    replaced,
)


def _bare_answer(ctx: ExtractionContext, match: TermMatch) -> bool:
    """A term that is only an acknowledgement ('sí', 'no', 'yes'): it answers this objective's question just
    asked or a sentence naming its topic ('sí, cochera para una camioneta'), never a message about something
    else ('no 6, somos 7', 'aún no sé el día', 'nos quedamos')."""
    if ctx.lenient or " ".join(fold(match.term).split()) not in free_text_words(ctx.analysis.rules).acknowledgements:
        return False
    sentence = ctx.analysis.sentence_at(match.start)
    return sentence is None or not names_objective(ctx.analysis.words(sentence.start, sentence.end), ctx.objective)


def _usable(ctx: ExtractionContext, vocabulary: VocabularyData, kind: str) -> list[tuple[TermMatch, bool]]:
    analysis = ctx.analysis
    usable = []
    for match in find_terms(analysis, vocabulary):
        if _bare_answer(ctx, match):
            continue
        sentence = analysis.sentence_at(match.start)
        # An option named in a question seeking the offer ('any Delta flights?') is the visitor's search; the
        # offer's title word alone does not make a question seek it here ('what music is this, is it from 2013?').
        if sentence is None or not ctx.allowed(sentence.is_question, kind, sentence.seeks_offer) or analysis.blocked(
                match.start):
            continue
        if negated(analysis, sentence, match.start, match.end):
            continue
        if about_presented_item(analysis, sentence, match.start):
            continue  # 'is this a premium economy ticket?': a question about what was offered, not a wish
        if hypothetical(analysis, sentence, match.start):
            continue  # 'not sure whether it will be empty': unsure, not chosen
        if thanked_for(analysis, sentence.start, match.start):
            continue  # 'thank you for checking' thanks the company; it names no option of the visitor's
        if kind == "features" and asked_about(analysis, sentence, match.start):
            continue  # a property asked about ('check whether they permit smoking'); an option asked for in a
            # request ('see if there are any sports events') is the visitor's search, so enumerations keep it
        if is_modifier(analysis, vocabulary.id, sentence, match):
            continue
        if inside_place_name(analysis, match.start, match.end):
            continue  # 'Los Gatos' names a town, not cats
        if inside_title(analysis, sentence.start, match.start, match.end):
            continue  # 'France Rocks Festival' names an event, not the rock category
        usable.append((match, replaced(analysis, sentence, match.start, match.end, ctx.correcting)))
    return usable


def _format_count(count: Decimal) -> str:
    return f"{count.normalize():f}"


def extract_features(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    analysis = ctx.analysis
    items: dict[str, Decimal | None] = {}
    sentences: dict[tuple[int, int], None] = {}
    first = None
    for match, old in _usable(ctx, vocabulary, "features"):
        sentence = analysis.sentence_at(match.start)
        if old or sentence is None:
            continue
        count = count_before(analysis, match.start, sentence.start)
        if match.option not in items or (items[match.option] is None and count is not None):
            items[match.option] = count
        sentences[(sentence.start, sentence.end)] = None
        first = match.start if first is None else first
    if not items or first is None:
        return []
    value = "; ".join(option if count is None else f"{option}={_format_count(count)}"
                      for option, count in items.items())
    return [Evidence(value=value, pos=first, sentences=tuple(sentences), rank=2)]


def _rivals(ctx: ExtractionContext) -> list[Objective]:
    """Enumeration objectives of the spec choosing from the same vocabulary as this one (the visitor's account
    and the recipient's account), in the spec's order; empty when this objective has none."""
    if ctx.spec is None:
        return []
    vocab = ctx.objective.criterion.params.get("vocabulary")
    same = [o for o in ctx.spec.ordered() if o.criterion.kind is CriterionKind.ENUMERATION
            and _options_of(ctx, o) == _options_of(ctx, ctx.objective) and vocab is not None]
    return same if len(same) > 1 else []


def _options_of(ctx: ExtractionContext, objective: Objective) -> frozenset[str]:
    vocab_id = objective.criterion.params.get("vocabulary")
    vocabulary = ctx.spec.vocabularies.get(str(vocab_id)) if ctx.spec is not None else None
    options = vocabulary.get("options") if isinstance(vocabulary, dict) else None
    return frozenset(options) if isinstance(options, dict) else frozenset({str(vocab_id)})


def _role_owner(ctx: ExtractionContext, rivals: list[Objective], sentence_start: int, start: int) -> str:
    """Which of several objectives sharing a vocabulary a term belongs to: the one whose own cue (a cue no
    rival shares) stands just before it ('to their savings account'); else, after a first-person possessive
    ('my checking account'), the first in the spec's order (the default role: the visitor's own); else the one
    whose question was just asked; else the default role."""
    cues = {o.id: objective_cues(o) for o in rivals}
    counts: dict[str, int] = {}
    for terms in cues.values():
        for term in terms:
            counts[term] = counts.get(term, 0) + 1
    markers = PlaceMarkers({oid: frozenset(t for t in terms if counts[t] == 1) for oid, terms in cues.items()})
    owner = markers.owner(ctx.analysis, sentence_start, start)
    if owner is not None:
        return owner
    before = ctx.analysis.masked[sentence_start:start]
    if any(p.search(before) for p in ctx.analysis.rules.cue("own_possessive_before")):
        return rivals[0].id  # 'my checking account' is the visitor's own: the default role, whatever was asked
    if ctx.asked is not None and any(o.id == ctx.asked for o in rivals):
        return ctx.asked
    return rivals[0].id


def extract_enumeration(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    analysis = ctx.analysis
    evidence = []
    rivals = _rivals(ctx)
    usable = _usable(ctx, vocabulary, "enumeration")
    for match, old in usable:
        sentence = analysis.sentence_at(match.start)
        if sentence is None or _hesitates(analysis, sentence, usable):
            continue
        if rivals and _role_owner(ctx, rivals, sentence.start, match.start) != ctx.objective.id:
            continue  # the term fills another role ('from my checking' is not the recipient's account)
        evidence.append(Evidence(value=match.option, pos=match.start,
                                 sentences=((sentence.start, sentence.end),), old=old, rank=2))
    if not evidence and not find_terms(analysis, vocabulary):
        evidence = _by_meaning(ctx, vocabulary)
    return evidence


def _hesitates(analysis: Analysis, sentence: Sentence, usable: list[tuple[TermMatch, bool]]) -> bool:
    """'Between the barbecue and the cocktail I'm still hesitating': two options of one sentence that says the
    visitor is undecided choose neither."""
    options = {m.option for m, _ in usable if sentence.start <= m.start < sentence.end}
    return len(options) > 1 and analysis.any_cue("uncertainty", sentence.start, sentence.end)


AMBIGUITY_MEMO = "choice_ambiguity"  # per message: objective id -> the options a phrasing could mean
AMBIGUOUS_NOTE = "proposer.choice_ambiguous"  # proposal note "<note>:<objective>:<option>,<option>"


def ambiguous_choices(ctx_analysis: object) -> dict[str, tuple[str, ...]]:
    """Objective id -> candidate options of the message's ambiguous choices (llm_adapters/offline/choice_meaning)."""
    return memo(ctx_analysis, AMBIGUITY_MEMO, dict)


def _by_meaning(ctx: ExtractionContext, vocabulary: VocabularyData) -> list[Evidence]:
    """No term of the vocabulary was written: an option named by its meaning, or an ambiguity to clarify."""
    analysis = ctx.analysis
    settings = memo(analysis.rules, "choice_settings",
                    lambda: ChoiceSettings.from_json(analysis.rules.settings.choice_matching))
    allowed = [s for s in analysis.sentences
               if ctx.allowed(s.is_question, "enumeration") and not analysis.blocked(s.start)]
    topic = frozenset(w for cue in objective_cues(ctx.objective) for w in cue.split())
    # the company's words name other objectives' values; this objective's own cues and terms are not among them
    # ('a ride share' for the shared-ride question)
    others = ctx.company_terms - objective_cues(ctx.objective) - {term for term, _ in vocabulary.terms}
    found = match_by_meaning(analysis, vocabulary, settings, ctx.lenient, allowed, topic, frozenset(ctx.taken),
                             others, free_text_words(analysis.rules).acknowledgement_words)
    if found is None:
        return []
    if len(found.options) > 1:
        ambiguous_choices(analysis)[ctx.objective.id] = found.options
        return []
    return [Evidence(value=found.options[0], pos=found.pos, sentences=((found.sentence.start, found.sentence.end),),
                     rank=1)]
