"""Place evidence: known places of the criterion's vocabulary and, when it allows unlisted places, capitalised
names after a location preposition ('in Níjar', 'cerca de Roquetas').

A place counts when its sentence carries a location anchor (want / looking / located / situada en / a property
or facility noun ...), unless its local clause is small talk, about a third party or about the company. In a
question it counts only when the visitor asks for properties or service there (their area of interest).
"""

from __future__ import annotations

import re

from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.cues import mentions_any, objective_cues
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.gazetteer import is_big_city_folded, is_known_place, is_region
from llm_adapters.offline.offer import blocked, offer_word, requested
from llm_adapters.offline.offline_rules import VocabularyData
from llm_adapters.offline.place_roles import PlaceMarkers, place_markers
from llm_adapters.offline.terms import find_terms, negated, replaced


def _question_ok(ctx: ExtractionContext, sentence: Sentence) -> bool:
    """A question that asks for the company's offer there ("do you have anything in ...", "are there villas
    in ..." when villas are the company's word, "what forecasts ... for ..." from a company titled for its
    forecasts) reveals the visitor's area of interest."""
    analysis = ctx.analysis
    if analysis.any_cue("availability_question", sentence.start, sentence.end):
        return True
    if offer_word(ctx, sentence.start, sentence.end) and (
            sentence.seeks_offer or analysis.any_cue("question_start", sentence.start, sentence.end)):
        return True
    return analysis.any_cue("existence_question", sentence.start, sentence.end) and _company_word(
        ctx, sentence.start, sentence.end)


def _accepted_after(analysis: Analysis, sentence: Sentence, end: int) -> bool:
    """The words right after the name accept it ('... would be perfect', '... is where I leave from')."""
    after = analysis.masked[end:sentence.end]
    region = _REGION.match(analysis.folded.source, analysis.source_span(end, end)[0]) if end < sentence.end else None
    if region is not None and _region_form(analysis.folded.source, region.start()):
        after = after[len(fold(region.group(0))):]  # 'London, UK will be fine'
    return any(p.match(after) for p in analysis.rules.cue("place_after"))


def _venue_for_area(ctx: ExtractionContext, value: str) -> bool:
    """A venue's or property's own name ('Grand Plaza Hotel') never answers an objective cued by an area word
    ('city', 'commune'): the area is where the venue is, not its name."""
    rules = ctx.analysis.rules
    if not rules.venue_designators or not objective_cues(ctx.objective) & rules.area_cues:
        return False
    return any(fold(word.strip(".,;:!?")) in rules.venue_designators for word in value.split())


def _bare(analysis: Analysis, clause_start: int, clause_end: int, start: int, end: int) -> bool:
    """The clause is the place alone, give or take fillers: 'Almería, with a budget of ...', 'Vera, please'."""
    others = analysis.words(clause_start, start) + analysis.words(end, clause_end)
    return all(word in analysis.rules.place_fillers for word in others)


def _only_place_objective(ctx: ExtractionContext) -> bool:
    """The spec's only place objective, or the only one still open ('Las Vegas, please.' once the origin is
    recorded answers the destination)."""
    spec = ctx.spec
    if spec is None:
        return False
    places = [o.id for o in spec.objectives if o.criterion.kind.value == "place"]
    recorded = {oid for oid, _ in ctx.recorded}
    return len(places) == 1 or [p for p in places if p not in recorded] == [ctx.objective.id]


def _alone(analysis: Analysis, sentence: Sentence, start: int, end: int) -> bool:
    """A bare answer is the name alone, give or take fillers, a region code or a postal code ('Wichita, KS
    67202', 'Sedgwick County, please'): 'Para lo de siempre' opens with a word that is also a place name."""
    source = analysis.folded.source
    src_end = analysis.source_span(end, sentence.end)
    region = _REGION.match(source, src_end[0])
    if region is not None and _region_form(source, src_end[0], analysis.source_span(start, end)[0]):
        src_end = (region.end(), src_end[1])  # 'Toronto, Ontario please.'
    rest = source[src_end[0]:src_end[1]].split()
    return all(fold(w.strip(".,;:!?")) in analysis.rules.place_fillers or w.strip(".,;:!?").isdigit()
               or (len(w.strip(".,;:!?")) == 2 and w.strip(".,;:!?").isupper()) or not w.strip(".,;:!?")
               for w in rest)


def _led_alone(analysis: Analysis, sentence: Sentence, start: int, end: int) -> bool:
    """The sentence is a location preposition and the name, give or take fillers ('In Oakland.', 'Near
    Leeds, please.'): a bare answer naming a place."""
    before = analysis.masked[sentence.start:start]
    if not before.strip() or not any(p.search(before) for p in analysis.rules.cue("place_preposition")):
        return False
    return (all(word in analysis.rules.place_fillers for word in analysis.words(sentence.start, start))
            and _alone(analysis, sentence, start, end))


def _trim_name(analysis: Analysis, start: int, end: int) -> tuple[int, int]:
    """Drop trailing words that are not place words ('Mojácar I ...'), and a linking word left at the end
    ('Seattle on March 5th': 'on' joins two capitalised words in 'Newcastle upon Tyne', never ends a name)."""
    source = analysis.folded.source
    words = source[start:end].split(" ")
    while len(words) > 1 and (fold(words[-1]) in analysis.rules.non_place_words or words[-1][:1].islower()):
        words.pop()
    if (words[-1][-2:] in ("'s", "’s") and not is_known_place(" ".join(words))
            and is_big_city_folded(fold(" ".join(words)[:-2]))):
        # "San Jose's a good area": a big city's possessive is the city ("St. John's" is a name of its own,
        # "a table at Mcdonald's" a restaurant, though a small town is called Mcdonald)
        words[-1] = words[-1][:-2]
    return start, start + len(" ".join(words))


def _leading_preposition(
    analysis: Analysis, start: int, end: int, markers: frozenset[str] = frozenset(),
) -> int | None:
    """Start of the name after a capitalised location preposition or place-role marker the name pattern
    swallowed at the start of a sentence ('Near Níjar would suit us', 'Cerca de Lorca', 'From San Diego'),
    or None."""
    source = analysis.folded.source
    words = source[start:end].split(" ")
    offset = start
    for k in range(1, len(words)):
        offset += len(words[k - 1]) + 1
        prefix = fold(" ".join(words[:k])) + " "
        if not words[k][:1].isupper():
            continue
        if prefix.strip() in markers or any(p.search(prefix) for p in analysis.rules.cue("place_preposition")) or any(
                p.search(prefix) for p in analysis.rules.cue("place_preposition_weak")):
            return offset
    return None


_BEFORE_WINDOW = 40  # characters before a name where its preposition stands (keeps long messages linear)
_STATE_CODE = re.compile(r"\s*,\s*[A-Z]{2,3}\b")


def _vouched(analysis: Analysis, source: str, start: int, end: int) -> bool:
    """A capitalised name that is a place on its own: a known place, a name with a place designator
    ('Sedgwick County'), or a name followed by a state or province code ('Wichita, KS')."""
    return is_known_place(source[start:end]) or _vouched_by_form(analysis, source, start, end)


def _vouched_by_form(analysis: Analysis, source: str, start: int, end: int) -> bool:
    name = source[start:end]
    words = name.split(" ")[1:]
    if any(fold(word) in analysis.rules.place_designators for word in words):
        return True
    if any(fold(word) in analysis.rules.venue_designators for word in words):
        return True  # 'the Marigold Hotel': a venue by its name (an area objective leaves it out: _venue_for_area)
    return _region_form(source, end)


_REGION = re.compile(r"\s*,\s*([A-Z][\w'-]*(?: [A-Z][\w'-]*)?)")


def _without_region(source: str, start: int, end: int) -> int:
    """'Yountville California': a known place followed, without a comma, by its country or state ends before
    it (the region is where the place is, as in 'Yountville, California')."""
    words = source[start:end].split(" ")
    if len(words) < 2 or is_known_place(source[start:end]):
        return end  # 'West Virginia', 'New Mexico' are names of their own
    for cut in range(len(words) - 1, 0, -1):
        if is_region(" ".join(words[cut:])) and is_known_place(" ".join(words[:cut])):
            return start + len(" ".join(words[:cut]))
    return end


def _region_form(source: str, end: int, start: int | None = None) -> bool:
    """'City, Region': the name is followed by a state or province code ('Wichita, KS', 'Sydney, NSW') or by
    a known country or region ('Paris, France', 'Olema, California'); given where the name starts, a known
    place followed by another known place ('Toronto, Ontario', 'London, England': provinces and nations the
    gazetteer lists only as place names)."""
    if _STATE_CODE.match(source, end) is not None:
        return True
    region = _REGION.match(source, end)
    if region is None:
        return False
    return is_region(region.group(1)) or (
        start is not None and is_known_place(source[start:end]) and is_known_place(region.group(1)))


def _unlisted(ctx: ExtractionContext, taken: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
    analysis = ctx.analysis
    source = analysis.folded.source
    # A known place said alone ("New York, please.") answers the only place objective even when unasked.
    bare = ctx.lenient or _only_place_objective(ctx)
    max_words = analysis.rules.settings.bare_answer_max_words
    markers = place_markers(analysis, ctx.spec)
    found = []
    for match in analysis.rules.place_name.finditer(source):
        start, end = _trim_name(analysis, match.start(), match.end())
        led = _leading_preposition(analysis, start, end, markers.all if markers is not None else frozenset())
        if led is not None:
            start = led
        end = _lower_case_tail(source, start, end)
        end = _without_region(source, start, end)
        fstart, fend = analysis.folded.to_folded(start), analysis.folded.to_folded(end)
        if any(fstart < e and s < fend for s, e in taken):
            continue
        words = source[start:end].split(" ")
        if any(ch.isdigit() for ch in words[0]):
            continue  # 'R900', 'A4', 'M25': a sign or code glued to digits names no place
        first = fold(words[0])
        # "Los Angeles", "El Cerrito": an article opening a multi-word name is part of the name.
        led_by_article = first in analysis.rules.place_articles and len(words) > 1
        if fold(source[start:end]) in ctx.company_terms or _opens_company_term(ctx, fstart):
            continue  # the company's own word for something else ('Economy class', 'Premium economy')
        acronym_place = len(words) == 1 and words[0].isupper() and is_known_place(words[0])  # "LA", "NYC"
        if first in analysis.rules.non_place_words and not (led_by_article or acronym_place):
            continue
        sentence = analysis.sentence_at(fstart)
        if sentence is None:
            continue
        before = analysis.masked[sentence.start:fstart]
        after_preposition = any(p.search(before) for p in analysis.rules.cue("place_preposition")) or (
            markers is not None and markers.owner(analysis, sentence.start, fstart) == ctx.objective.id)
        # After a weak preposition ("on Gusto", "a VW Golf") and as a bare answer ("Thank you", "SUV") a
        # capitalised name counts only when it is a known place.
        after_weak = any(p.search(before) for p in analysis.rules.cue("place_preposition_weak"))
        # A short sentence of its own, even with more sentences after it ('LAX. I need it on March 9th.').
        short = len(analysis.words(sentence.start, sentence.end)) <= max_words
        bare_answer = bare and fstart == sentence.start and (
            (short and _alone(analysis, sentence, fstart, fend))
            or _big_city_clause(analysis, source[start:end], fstart, fend))
        # "Sunnyvale would be perfect": a known place the visitor accepts in the same breath.
        accepted = fstart == sentence.start and _accepted_after(analysis, sentence, fend)
        # Unasked, a name alone must be a big city ("New York, please."): "Bye" is also a small town somewhere.
        vouched = _vouched(analysis, source, start, end) if (ctx.lenient or after_weak or accepted) else (
            is_big_city_folded(fold(source[start:end])) or _vouched_by_form(analysis, source, start, end))
        # "I need one for Seattle, WA": a 'City, Region' form is a place wherever it stands.
        region_form = _region_form(source, end, start) and (
            _STATE_CODE.match(source, end) is None or is_known_place(source[start:end]))
        known_place = ((after_weak or bare_answer or accepted) and vouched) or region_form or _offer_for(
            ctx, sentence, before, source, start, end)
        if after_preposition or known_place:
            found.append((fstart, fend, source[start:end]))
    found.extend(_lower_case_cities(ctx, taken + [(s, e) for s, e, _ in found], markers))
    return found


def _big_city_clause(analysis: Analysis, name: str, fstart: int, fend: int) -> bool:
    """A big city alone in the sentence's first clause, cut by a conjunction ('Paris and checking out on the
    5th', 'New York please and ...'): a bare answer with more said after it. Only big cities ('Bye and thanks'
    opens with a small town's name), and not beside small talk or a third party's doings."""
    _, clause_end = analysis.clause_at(fstart)
    if analysis.masked[clause_end:clause_end + 1] in (",", ";", ":"):
        return False  # cut by a conjunction ('Paris and ...'), not a comma ('Man, I'm starving')
    sentence = analysis.sentence_at(fstart)
    if sentence is None or any(analysis.any_cue(name, sentence.start, sentence.end)
                               for name in ("small_talk", "third_party")):
        return False
    return is_big_city_folded(fold(name)) and all(
        word in analysis.rules.place_fillers for word in analysis.words(fend, clause_end))


def _offer_for(ctx: ExtractionContext, sentence: Sentence, before: str, source: str, start: int, end: int) -> bool:
    """'the forecast for Toronto' to a weather service: in a sentence naming the company's offer, a preposition
    of place_preposition_offer introduces a big city, a name in a place form, or, when the place was just
    asked, any known place ('a table for Anna' stays a person: Anna is no big city)."""
    analysis = ctx.analysis
    if not any(p.search(before) for p in analysis.rules.cue("place_preposition_offer")):
        return False
    if not offer_word(ctx, sentence.start, sentence.end):
        return False
    name = source[start:end]
    return is_big_city_folded(fold(name)) or _vouched_by_form(analysis, source, start, end) or (
        ctx.lenient and is_known_place(name))


_FOLDED_WORD = re.compile(r"[a-z][a-z'\-]*")
_CITY_WORDS = 3  # longest lower-case city name tried ('salt lake city')
_LOWER_WORD = re.compile(r" [a-z][a-z'-]*")


def _lower_case_tail(source: str, start: int, end: int) -> int:
    """A big city's name typed with only its first word capitalised ('San jose', 'New york') is read whole:
    the lower-case words after the capitalised name join it when together they name a city of 100,000 people
    or more."""
    ends: list[int] = []
    at = end
    while len(ends) < _CITY_WORDS - 1 and (word := _LOWER_WORD.match(source, at)) is not None:
        at = word.end()
        ends.append(at)
    return next((e for e in reversed(ends) if is_big_city_folded(fold(source[start:e]))), end)




def _lower_case_cities(
    ctx: ExtractionContext, taken: list[tuple[int, int]], markers: PlaceMarkers | None,
) -> list[tuple[int, int, str]]:
    """Big cities typed in lower case ('a bus to las vegas', 'hotels in chicago') right after a location
    preposition or the objective's own marker; only cities of 100,000 people or more, so ordinary words stay
    words. Works on the folded text: one set look-up per word n-gram."""
    analysis = ctx.analysis
    text = analysis.masked
    source = analysis.folded.source
    words = list(_FOLDED_WORD.finditer(text))
    found: list[tuple[int, int, str]] = []
    for i, first in enumerate(words):
        for size in range(min(_CITY_WORDS, len(words) - i), 0, -1):
            last = words[i + size - 1]
            fstart, fend = first.start(), last.end()
            if text.count(" ", fstart, fend) != size - 1 or not is_big_city_folded(text[fstart:fend]):
                continue
            src_start, src_end = analysis.source_span(fstart, fend)
            sentence = analysis.sentence_at(fstart)
            if (sentence is None or not source[src_start:src_end].islower()
                    or any(fstart < e and s < fend for s, e in taken)):
                break  # capitalised names are read by the name pattern
            if _used_as_a_word(analysis, fend, sentence.end):
                break
            before = analysis.masked[max(sentence.start, fstart - _BEFORE_WINDOW):fstart]
            # Lower case, the objective's marker must stand right before the name: 'help me to find the nice
            # one' is no city of Nice.
            own = markers is not None and markers.owner(analysis, sentence.start, fstart) == ctx.objective.id and any(
                f" {before.strip()} ".endswith(f" {m} ") for m in markers.by_objective.get(ctx.objective.id, ()))
            if own or any(p.search(before) for p in analysis.rules.cue("place_preposition")):
                found.append((fstart, fend, source[src_start:src_end]))
            break
    return found


def _used_as_a_word(analysis: Analysis, end: int, sentence_end: int) -> bool:
    """A lower-case city name followed by an article or a venue word is an ordinary word ('to hail a taxi',
    'a room in nice hotel')."""
    following = analysis.words(end, min(sentence_end, end + _BEFORE_WINDOW))[:1]
    return bool(following) and (following[0] in analysis.rules.numbers.articles
                                or following[0] in analysis.rules.venue_designators)


def _opens_company_term(ctx: ExtractionContext, start: int) -> bool:
    """The name is the first word of one of the company's several-word terms ('Premium economy')."""
    text = ctx.analysis.masked
    for term in ctx.company_terms:
        if " " in term and text.startswith(term, start) and (
                start + len(term) == len(text) or not text[start + len(term)].isalnum()):
            return True
    return False


def _addresses(analysis: Analysis, taken: list[tuple[int, int]]) -> list[tuple[int, int, str, bool]]:
    """Street addresses ("5434 Ygnacio Valley Road #90", "calle Mayor 12"): places in their own right."""
    found = []
    for start, end in analysis.cue_matches("street_address", 0, len(analysis.text)):
        if any(start < e and s < end for s, e in taken):
            continue
        src_start, src_end = analysis.source_span(start, end)
        found.append((start, end, analysis.folded.source[src_start:src_end].rstrip(" ,."), True))
    return found


def _anchor(ctx: ExtractionContext, start: int, end: int) -> bool:
    """The text says what the visitor wants there: a language anchor ('looking for', 'near') or one of the
    company's own words (its vocabularies and objective cues: 'a villa in ...', 'a table in ...')."""
    return ctx.analysis.any_cue("place_anchor", start, end) or _company_word(ctx, start, end)


def _company_word(ctx: ExtractionContext, start: int, end: int) -> bool:
    return bool(ctx.company_terms) and mentions_any(ctx.analysis.words(start, end), ctx.company_terms)


def extract_place(ctx: ExtractionContext, vocabulary: VocabularyData | None) -> list[Evidence]:
    analysis = ctx.analysis
    candidates: list[tuple[int, int, str, bool]] = []
    taken: list[tuple[int, int]] = []
    if vocabulary is not None:
        for match in find_terms(analysis, vocabulary):
            src_start, src_end = analysis.source_span(match.start, match.end)
            candidates.append((match.start, match.end, analysis.folded.source[src_start:src_end], True))
            taken.append((match.start, match.end))
    if vocabulary is None or vocabulary.allow_unlisted:
        addresses = _addresses(analysis, taken)
        candidates.extend(addresses)
        taken.extend((s, e) for s, e, _, _ in addresses)
        candidates.extend((s, e, v, False) for s, e, v in _unlisted(ctx, taken))
    evidence = []
    markers = place_markers(analysis, ctx.spec)
    for start, end, value, known in candidates:
        sentence = analysis.sentence_at(start)
        if sentence is None or blocked(ctx, sentence, start) or negated(analysis, sentence, start, end):
            continue
        owner = markers.owner(analysis, sentence.start, start) if markers is not None else None
        if owner is not None and owner != ctx.objective.id:
            continue  # "from Atlanta" is the origin's, never the destination's
        # A question seeking the company's offer with a role marker ('any buses to Fresno?') names the place.
        if sentence.is_question and not (ctx.allowed(True, "place") and (
                _question_ok(ctx, sentence) or (sentence.seeks_offer and owner is not None))):
            continue
        clause_start, clause_end = analysis.clause_at(start)
        local = owner is not None or _anchor(ctx, clause_start, clause_end) or (
            known and _bare(analysis, clause_start, clause_end, start, end))
        if not known and _venue_for_area(ctx, value):
            continue
        # A sentence naming the company's offer ('weather check in San Jose') wants it where it names.
        anchored = (local or _anchor(ctx, sentence.start, sentence.end) or requested(analysis, sentence)
                    or _accepted_after(analysis, sentence, end) or offer_word(ctx, sentence.start, sentence.end))
        said_alone = ((sentence.start == start or _led_alone(analysis, sentence, start, end))
                      and _alone(analysis, sentence, start, end))
        said_alone = said_alone or (sentence.start == start and _big_city_clause(analysis, value, start, end))
        alone = (not known or _only_place_objective(ctx)) and said_alone and _only_place_objective(ctx)
        if not (anchored or sentence.is_question or ctx.correcting or ctx.lenient or alone):
            continue
        evidence.append(Evidence(
            value=value, pos=start, sentences=((sentence.start, sentence.end),),
            old=replaced(analysis, sentence, start, end, ctx.correcting),
            rank=(2 if local else 1 if anchored else 0) * 2 + (1 if known else 0),
        ))
    return evidence
