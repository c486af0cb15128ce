"""Quantity evidence: counts with the criterion's unit nouns ("170 guests", "unos 30 alumnos"), approximations
("around 200", "50-ish": the number), ranges ("between 150 and 200" -> "150-200"), number words (text2num) and
party compositions ("my partner and I" -> 2, "a family of four" -> 4).

A bare number counts only when the objective's question was just asked, or after a head-count cue for a count
of people. Dates, times, telephone numbers, amounts of money and ordinals are never counts; a number followed by
another objective's unit ("3 nights", "2 bedrooms") is not this objective's count.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from engine.kernel.goal_models import CriterionKind
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.excluded import Spans, clock_led, excluded_spans
from llm_adapters.offline.memo import memo
from llm_adapters.offline.money import currency_at
from llm_adapters.offline.numbers import digit_mentions, parse_digits
from llm_adapters.offline.offline_rules import OfflineRules
from llm_adapters.offline.quantity_data import QuantityWords, alternation, quantity_words, unit_terms
from llm_adapters.offline.spelled import SpelledNumber, spelled_numbers
from llm_adapters.offline.terms import replaced
from llm_adapters.offline.text_index import TextIndex, text_index

_FLAGS = re.IGNORECASE | re.UNICODE
_AFTER = 80  # characters after a number where its unit noun may stand
_BEFORE = 60  # characters before a number where a unit noun or cue may stand
_RANGE_GAP = 24  # longest text between the two ends of a range
_TOKEN = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*|[&,]")
_PLURAL = re.compile(r"(?:e?s|x)$")
_FIRST_WORD = re.compile(r"^[\s\-]*([^\W\d_]+(?:-[^\W\d_]+)*)")

RANK_EXPLICIT = 3  # a unit noun or a composition names what is counted
RANK_CUE = 2  # a head-count cue ("we are 4", "table for 2")
RANK_BARE = 1  # a bare number right after the question


@dataclass(frozen=True)
class _Number:
    start: int  # folded offsets
    end: int
    value: Decimal
    words: tuple[str, ...]  # folded words when spelled out, () for digits
    digits: int
    scaled: bool
    ordinal: bool


@dataclass(frozen=True)
class _Units:
    ours: re.Pattern[str] | None  # this objective's unit nouns, right after a number (one word may intervene)
    before: re.Pattern[str] | None  # this objective's unit nouns, before a number ("guests: 170")
    noun: re.Pattern[str] | None  # this objective's unit nouns anywhere
    others: re.Pattern[str] | None  # other objectives' unit nouns right after a number
    people: bool  # this objective counts people: head-count cues and compositions apply
    age: bool = False  # this objective is counted in years of age: 'she's 5', "my son's 7th" are its values
    only_count: bool = True  # no other count of things in the spec could take a number said without its unit


def _format(value: Decimal) -> str:
    return f"{value.normalize():f}"


def _stem(term: str) -> str:
    return _PLURAL.sub("", term)


_SINGULAR = re.compile(r"(?<=[^\W\d_]{3})[sx]$")


@lru_cache(maxsize=512)
def _unit_body(terms: tuple[str, ...]) -> str:
    """Unit nouns in singular or plural: 'tickets' also matches 'ticket', 'invitados' also 'invitado'."""
    body = alternation({_SINGULAR.sub("", t) for t in terms})
    return rf"{body}(?:e?s|x)?(?![^\W_])" if body else ""


def _people_stems(rules: OfflineRules, words: QuantityWords) -> frozenset[str]:
    return memo(rules, "quantity_people_stems", lambda: frozenset(
        _stem(p) for p in (*words.person_nouns, *words.members, *words.members_plural, *words.multiples)))


def _units(ctx: ExtractionContext, words: QuantityWords) -> _Units:
    ours = unit_terms(ctx.objective)
    # People are counted when the unit nouns name people or members of a party ('children', 'daughters')
    people = bool({_stem(t) for t in ours} & _people_stems(ctx.analysis.rules, words))
    if people:
        ours = ours + list(words.person_nouns)
    others: list[str] = []
    only_count = True  # no other count of things: counts of people or ages never take an uncued bare number
    if ctx.spec is not None:
        people_stems, ages = _people_stems(ctx.analysis.rules, words), words.age_units
        for objective in ctx.spec.objectives:
            if objective.id != ctx.objective.id and objective.criterion.kind is CriterionKind.QUANTITY:
                terms = unit_terms(objective)
                others.extend(terms)
                only_count = only_count and bool({_stem(t) for t in terms} & people_stems or set(terms) & ages)
    stems = {_stem(t) for t in ours}
    others = [t for t in others if _stem(t) not in stems]
    others += [term for vocab in ctx.unit_terms for term, _ in vocab.terms if _stem(term) not in stems]
    age = bool(set(ours) & words.age_units)
    return _compiled_units(tuple(sorted(set(ours))), tuple(sorted(set(others))), words.approx_after, people, age,
                           only_count)


@lru_cache(maxsize=512)
def _compiled_units(ours: tuple[str, ...], others: tuple[str, ...], approx_after: str, people: bool,
                    age: bool = False, only_count: bool = True) -> _Units:
    body = _unit_body(ours)
    other_body = _unit_body(others)
    approx = rf"(?:{approx_after}[\s\-]+)?" if approx_after else ""
    return _Units(
        ours=re.compile(rf"^[\s\-+]*{approx}(?:[^\W\d_]+[\s\-]+)?{body}", _FLAGS) if body else None,
        # 'guests: 170', 'cámaras, unas 6', 'cámaras sí, unas 3': up to three words (and commas) between
        before=re.compile(rf"(?<![^\W_]){body}\s*[:=\-–,]?\s*(?:[^\W\d_]+,?\s+){{0,3}}$", _FLAGS) if body else None,
        noun=re.compile(rf"(?<![^\W_]){body}", _FLAGS) if body else None,
        others=re.compile(rf"^[\s\-]*{other_body}", _FLAGS) if other_body else None,
        people=people,
        age=age,
        only_count=only_count,
    )


def _numbers(analysis: Analysis) -> list[_Number]:
    """Digit and spelled numbers of the message in text order (computed once per message)."""
    def build() -> list[_Number]:
        words = quantity_words(analysis.rules)
        found = []
        for m in digit_mentions(analysis):
            # the suffix right after the digits ('7th'); the pattern's '^' anchors the sliced text's start
            ordinal = not m.scaled and words.ordinal_suffix.match(analysis.masked[m.end:m.end + 8]) is not None
            found.append(_Number(m.start, m.end, m.value, (), m.digits, m.scaled, ordinal))
        digits = [(n.start, n.end) for n in found]
        for s in spelled_numbers(analysis):
            if not any(s.start < e and b < s.end for b, e in digits):
                found.append(_Number(s.start, s.end, s.value, s.words, 0, False, s.ordinal))
        return _with_collectives(analysis, words, sorted(found, key=lambda n: n.start))
    return memo(analysis, "quantity_numbers", build)


def _with_collectives(analysis: Analysis, words: QuantityWords, numbers: list[_Number]) -> list[_Number]:
    """Collective nouns are numbers ('a dozen', 'une vingtaine', 'un par de'); a number right before one
    multiplies it ('two dozen' -> 24)."""
    text = analysis.masked
    matches = list(words.collective_pattern.finditer(text))
    if not matches:
        return numbers
    covered = Spans([m.span() for m in matches])
    kept = [n for n in numbers if not covered.overlaps(n.start, n.end)]
    ends = {n.end: n for n in kept}
    for m in matches:
        value = words.collectives.get(_fold_space(m.group()))
        if value is None:
            continue
        before = m.start()
        while before > 0 and text[before - 1].isspace():
            before -= 1
        factor = ends.get(before) if before < m.start() else None
        if factor is not None and not factor.ordinal:
            kept.remove(factor)
            kept.append(_Number(factor.start, m.end(), factor.value * value, factor.words + (m.group(),), 0, False,
                                False))
        else:
            kept.append(_Number(m.start(), m.end(), value, (m.group(),), 0, False, False))
    return sorted(kept, key=lambda n: n.start)


_CLAUSE_END = re.compile(r"^\s*(?:$|[^\w\s'’-])")  # nothing but punctuation after a number


@lru_cache(maxsize=64)
def _alone_pattern(approx_after: str, function_words: frozenset[str]) -> re.Pattern[str]:
    """After a number: nothing more is said about it (end, punctuation, or a function word)."""
    approx = rf"(?:{approx_after}(?![^\W_]))?" if approx_after else ""
    words = alternation(function_words)
    tail = rf"|{words}(?![^\W_])" if words else ""
    return re.compile(rf"^[\s\-]*{approx}\s*(?:$|[^\w\s]{tail})", _FLAGS)


def _stands_alone(rules: OfflineRules, words: QuantityWords, text: str) -> bool:
    pattern = memo(rules, "quantity_alone", lambda: _alone_pattern(words.approx_after, frozenset(
        w for lang in rules.languages for w in rules.function_words.get(lang, ())) | words.joiners))
    return pattern.match(text) is not None


def _budget_clause(index: TextIndex, number: _Number) -> bool:
    start, end = index.clause_at(number.start)
    return index.any_cue("budget", start, end)


@dataclass(frozen=True)
class _Reading:
    number: _Number
    sentence: Sentence
    rank: int  # 0: not a count of this objective


def _read(ctx: ExtractionContext, index: TextIndex, words: QuantityWords, units: _Units, number: _Number,
          sentence: Sentence) -> int:
    """How convincingly ``number`` is this objective's count (0: it is not)."""
    masked = ctx.analysis.masked
    after = masked[number.end:min(sentence.end, number.end + _AFTER)]
    before = masked[max(sentence.start, number.start - _BEFORE):number.start]
    unit_after = units.ours is not None and units.ours.match(after) is not None
    if number.words and all(w in words.articles for w in number.words):
        if unit_after and units.ours is not None and _next_is_unit(units, after):
            return RANK_EXPLICIT
        # "juste une.", "j'en ai une", "solo una": an article-number that ends its clause is the number one, as
        # the answer to the count just asked ('one of', 'that one' are pronouns, as for a written 'one')
        ends_clause = _CLAUSE_END.match(after) is not None
        pronoun = words.one_pronoun_before.search(before) or words.one_pronoun_after.match(after)
        return RANK_BARE if ctx.lenient and ends_clause and not pronoun and number.value == 1 else 0
    if unit_after:
        return RANK_EXPLICIT
    if units.others is not None and units.others.match(after):
        return 0
    if words.age_before.search(before) or (number.ordinal and _birthday(ctx, words, number, sentence)):
        # "she's 5", "he's turning 6", "my son's 7th": an age, the value of an objective counted in years and
        # never a head count
        return RANK_CUE if units.age else 0
    if any(p.match(after) for p in ctx.analysis.rules.cue("number_unit_after")):
        return 0  # '3 years', '20%', '5 pm': a number of something else
    if currency_at(ctx.analysis, number.start, number.end)[0] is not None or _budget_clause(index, number):
        return 0
    alone = _stands_alone(ctx.analysis.rules, words, after)
    if number.scaled:  # '60k', '60 mil': money unless it stands alone as the answer to the count just asked
        return RANK_BARE if ctx.lenient and alone and not units.people else 0
    if units.before is not None and _noun_before(ctx, units, number) and units.before.search(before) and (
            units.people or not _cued(ctx, words, number)):
        return RANK_EXPLICIT  # 'guests: 170'; not 'clases de pádel para 2', which counts people
    if number.words and number.value == 1 and (words.one_pronoun_before.search(before)
                                                or words.one_pronoun_after.match(after)):
        return 0  # a written "one" as a pronoun or modifier: 'that one', 'look for one', 'one of', 'one-way'
    if units.people and _cued(ctx, words, number) and (alone or _companions_follow(words, after)
                                                       or _strongly_cued(ctx, words, number)):
        return RANK_CUE  # "we are 4", "seríamos 4 amigos", "a group of 2 going to …"
    if _item_count(ctx, words, units, number, before, after):
        return RANK_CUE  # 'needs 4', 'a full set of four', '4 of them', 'dos por semana': the things counted
    if ctx.lenient and alone:
        return RANK_BARE
    return 0


def _item_count(ctx: ExtractionContext, words: QuantityWords, units: _Units, number: _Number, before: str,
                after: str) -> bool:
    """A count of things without its unit noun after a count cue ('needs 4', '4 of them'). It names this
    objective's things only when no other count of the spec could take it, or when this count was just asked
    (a hotel's rooms, nights and stars all follow 'I need'); a written 'one' after a cue is the thing itself ('I
    need one for Seattle'), not a count."""
    if units.people or units.age or (number.words and number.value == 1):
        return False
    if not (units.only_count or ctx.asked == ctx.objective.id):
        return False
    return bool(words.item_count_before.search(before) or words.item_count_after.match(after))


def _birthday(ctx: ExtractionContext, words: QuantityWords, number: _Number, sentence: Sentence) -> bool:
    """"my son's 7th", 'her 10th birthday': an ordinal after a possessive is the age being celebrated."""
    before = ctx.analysis.masked[max(sentence.start, number.start - _BEFORE):number.start]
    return words.age_ordinal_before.search(before) is not None


def _companions_follow(words: QuantityWords, after: str) -> bool:
    """'somos tres hermanos': after a head-count cue, a plural noun of companions names the people counted."""
    match = _FIRST_WORD.match(after)
    return match is not None and match.group(1) in words.members_plural


def _cued(ctx: ExtractionContext, words: QuantityWords, number: _Number) -> bool:
    """A head-count cue ends right where the number starts ('we are 4', 'table for about 6')."""
    ends = memo(ctx.analysis, "quantity_cue_ends",
                lambda: frozenset(m.end() for m in words.count_cue_any.finditer(ctx.analysis.masked)))
    return number.start in ends


def _strongly_cued(ctx: ExtractionContext, words: QuantityWords, number: _Number) -> bool:
    """A group cue ('a group of', 'table for': ``group_cues``) ends right where the number starts: it names a head
    count whatever follows ('a group of 2 going to the airport')."""
    ends = memo(ctx.analysis, "quantity_group_cue_ends", lambda: frozenset(
        m.end() for m in words.group_cue_any.finditer(ctx.analysis.masked)))
    return number.start in ends


def _noun_before(ctx: ExtractionContext, units: _Units, number: _Number) -> bool:
    """One of this objective's unit nouns ends shortly before the number (a cheap test before the exact one)."""
    if units.noun is None:
        return False
    ends = memo(ctx.analysis, f"quantity_noun_ends:{units.noun.pattern}",
                lambda: [m.end() for m in units.noun.finditer(ctx.analysis.masked)] if units.noun else [])
    i = bisect.bisect_left(ends, number.start - _BEFORE)
    return i < len(ends) and ends[i] <= number.start


def _own_unit_after(ctx: ExtractionContext, units: _Units, number: _Number, sentence: Sentence) -> bool:
    after = ctx.analysis.masked[number.end:min(sentence.end, number.end + _AFTER)]
    return units.ours is not None and units.ours.match(after) is not None


def _stated_need(ctx: ExtractionContext, words: QuantityWords, units: _Units, number: _Number,
                 sentence: Sentence) -> bool:
    """A count inside a question that states the visitor's own need: a head-count cue and this objective's unit
    ('anything else for three people?', 'cuánto sale x noche para 2?': a head count closing the question), not a
    question about capacity ('can it hold 200 guests?')."""
    if not _cued(ctx, words, number):
        return False
    if _own_unit_after(ctx, units, number, sentence):
        return True
    after = ctx.analysis.masked[number.end:sentence.end]
    return units.people and _CLAUSE_END.match(after) is not None


def _next_is_unit(units: _Units, after: str) -> bool:
    """An article counts only right before the unit noun ('una persona'), not a word later."""
    assert units.ours is not None
    match = units.ours.match(after)
    return match is not None and len(after[:match.end()].split()) <= 1


def _bounded(sentence: Sentence, start: int, end: int) -> Sentence:
    """The sentence cut to a window around a value: context checks stay linear in the message."""
    return Sentence(start=max(sentence.start, start - _BEFORE), end=min(sentence.end, end + _AFTER),
                    is_question=sentence.is_question, clauses=())


def _numeric(ctx: ExtractionContext, index: TextIndex, words: QuantityWords, units: _Units) -> list[Evidence]:
    analysis = ctx.analysis
    excluded = excluded_spans(ctx)
    readings: list[_Reading] = []
    for number in _numbers(analysis):
        number = _own_unit_not_scale(analysis, units, number)
        sentence = index.sentence_at(number.start)
        if sentence is None or index.blocked(number.start) or (number.ordinal and not (
                units.age and _birthday(ctx, words, number, sentence))):
            continue
        if excluded.overlaps(number.start, number.end) and ((
                not _own_unit_after(ctx, units, number, sentence) and not (number.ordinal and units.age))
                or clock_led(analysis, number.start, number.end)):
            continue  # a date, a time, a telephone number ('for 12 days' stays a count of days; "his 7th" an age;
            # 'à 14h' a time, not 14 hours)
        allowed = ctx.allowed(sentence.is_question, "quantity", sentence.seeks_offer, sentence.proposes_figure)
        if not allowed and not _stated_need(ctx, words, units, number, sentence):
            continue
        readings.append(_Reading(number, sentence, _read(ctx, index, words, units, number, sentence)))
    evidence: list[Evidence] = []
    i = 0
    while i < len(readings):
        first = readings[i]
        second = readings[i + 1] if i + 1 < len(readings) else None
        pair = _range(ctx, words, first, second)
        if pair and second is not None:
            rank, value, end = pair, f"{_format(first.number.value)}-{_format(second.number.value)}", second.number.end
            i += 2
        else:
            rank, value, end = first.rank, _format(first.number.value), first.number.end
            i += 1
        if rank:
            sentence = first.sentence
            evidence.append(Evidence(
                value=value, pos=first.number.start, sentences=((sentence.start, sentence.end),), rank=rank,
                old=replaced(analysis, _bounded(sentence, first.number.start, end), first.number.start, end,
                             ctx.correcting),
            ))
    return evidence


def _own_unit_not_scale(analysis: Analysis, units: _Units, number: _Number) -> _Number:
    """'unos 120 m': a letter read as a scale (m = million) that is this objective's unit noun is the unit; the
    number is the digits alone."""
    if not number.scaled or number.words or units.ours is None:
        return number
    digits = analysis.rules.digit_number.match(analysis.masked, number.start)
    if digits is None or digits.end() >= number.end:
        return number
    if not units.ours.fullmatch(analysis.masked[digits.end():number.end]):
        return number
    value = parse_digits(digits.group())
    if value is None:
        return number
    return _Number(number.start, digits.end(), value, (), number.digits, False, number.ordinal)


def _range(ctx: ExtractionContext, words: QuantityWords, first: _Reading, second: _Reading | None) -> int:
    """The rank of 'first-second' read as one range, or 0 when the two numbers are not a range."""
    if second is None or second.sentence != first.sentence:
        return 0
    low, high = first.number, second.number
    if high.start - low.end > _RANGE_GAP or low.value >= high.value:
        return 0
    masked = ctx.analysis.masked
    if not words.range_connector.match(masked[low.end:high.start]):
        return 0
    dashed = bool(re.match(r"^\s*[-–—]\s*$", masked[low.end:high.start]))
    led = words.range_lead.search(masked[max(first.sentence.start, low.start - _BEFORE):low.start]) is not None
    rank = max(first.rank, second.rank)
    if not (dashed or led or second.rank == RANK_EXPLICIT):
        return 0
    return rank


@dataclass(frozen=True)
class _Party:
    """A party described by its members: 'my partner and I' (with the visitor), 'pour mes jumeaux' (introduced by
    a head-count cue), 'ma fille Louise a 5 ans' (a lone member given with its age)."""

    start: int
    end: int
    count: Decimal
    cued: bool = False  # no visitor among the members: a head-count cue introduces them
    aged: tuple[str, ...] = ()  # a lone member given with its age: the member's noun


def _compositions(analysis: Analysis, words: QuantityWords) -> list[_Party]:
    """Parties described by their members, including the visitor ('my partner and I', 'mi mujer y yo y los dos
    niños'), introduced by a head-count cue ('c'est pour mes jumeaux'), or a lone member with its age, and fixed
    phrases ('just me'), once per message."""
    def build() -> list[_Party]:
        found = [_Party(m.start(), m.end(), words.fixed[_fold_space(m.group())])
                 for m in words.fixed_pattern.finditer(analysis.masked) if _fold_space(m.group()) in words.fixed]
        spelled = {n.start: n for n in spelled_numbers(analysis)}
        cue_ends = memo(analysis, "quantity_cue_ends",
                        lambda: frozenset(m.end() for m in words.count_cue_any.finditer(analysis.masked)))
        for sentence in analysis.sentences:
            tokens = [(m.start() + sentence.start, m.end() + sentence.start, m.group())
                      for m in _TOKEN.finditer(analysis.masked[sentence.start:sentence.end])]
            found.extend(_parties(tokens, words, spelled, cue_ends))
        found.sort(key=lambda p: (p.start, p.end))
        kept: list[_Party] = []
        for item in found:  # a longer composition wins over a fixed phrase inside it
            if kept and item.start < kept[-1].end:
                if item.end - item.start > kept[-1].end - kept[-1].start:
                    kept[-1] = item
                continue
            kept.append(item)
        return kept
    return memo(analysis, "quantity_compositions", build)


def _fold_space(text: str) -> str:
    return " ".join(text.replace("’", "'").split())


def _phrase_at(tokens: list[tuple[int, int, str]], i: int, vocabulary: frozenset[str] | dict[str, Decimal],
               longest: int) -> int:
    """Tokens used by the longest phrase of ``vocabulary`` starting at token i (0: none)."""
    for size in range(min(longest, len(tokens) - i), 0, -1):
        if " ".join(t[2] for t in tokens[i:i + size]) in vocabulary:
            return size
    return 0


_Item = tuple[int, int, Decimal | None, bool, str]  # start, end, count, is the visitor, member noun


def _parties(tokens: list[tuple[int, int, str]], words: QuantityWords, spelled: dict[int, SpelledNumber],
             cue_ends: frozenset[int]) -> list[_Party]:
    found: list[_Party] = []
    i = 0
    while i < len(tokens):
        items: list[_Item] = []
        ends: list[int] = []  # token index after each item
        j = i
        while True:
            item = _member(tokens, j, words, spelled)
            if item is None:
                break
            items.append(item[0])
            j = item[1]
            ends.append(j)
            k = j
            while k < len(tokens) and tokens[k][2] == ",":
                k += 1
            size = _phrase_at(tokens, k, words.joiners, words.longest_member)
            if size == 0 and k == j:
                break
            j = k + size
        counts = [c for _, _, c, _, _ in items]
        has_self = any(item[3] for item in items)
        known = bool(items) and all(c is not None for c in counts)
        total = sum((c for c in counts if c is not None), Decimal(0))
        if len(items) >= 2 and has_self and known:
            found.append(_Party(items[0][0], items[-1][1], total))
            i = max(j, i + 1)
        elif known and not has_self and items[0][0] in cue_ends:
            found.append(_Party(items[0][0], items[-1][1], total, cued=True))
            i = max(j, i + 1)
        elif len(items) == 1 and known and not has_self and (aged := _age_after(tokens, ends[0], words)):
            found.append(_Party(items[0][0], tokens[aged - 1][1], total, aged=(items[0][4],)))
            i = max(aged, i + 1)
        elif not has_self or len(items) < 2:
            i = max(ends[-1] if ends else i + 1, i + 1)  # a later start inside these items has no self either
        else:
            unknown = max(k for k, c in enumerate(counts) if c is None)
            i = max(ends[unknown], i + 1)  # restart after the member whose count is not said
    return found


_NAME_TOKENS = 2  # a member's first name (and a second one) may stand between it and its age


def _age_after(tokens: list[tuple[int, int, str]], j: int, words: QuantityWords) -> int:
    """The token index after '[name] [,] [verb] <number> <age unit>' starting at token j, or 0 when no age
    follows ('ma fille Louise a 5 ans', 'my son Tom, 8 years old')."""
    if not words.age_units:
        return 0
    for skip in range(_NAME_TOKENS + 1):
        k = j + skip
        if skip and (k > len(tokens) or not tokens[k - 1][2].isalpha()):
            break
        while k < len(tokens) and tokens[k][2] == ",":
            k += 1
        k += _phrase_at(tokens, k, words.age_verbs, words.longest_member)
        if k < len(tokens) and tokens[k][2].isdigit():
            size = _phrase_at(tokens, k + 1, words.age_units, words.longest_member)
            if size:
                return k + 1 + size
    return 0


def _member(tokens: list[tuple[int, int, str]], i: int, words: QuantityWords, spelled: dict[int, SpelledNumber]
            ) -> tuple[_Item, int] | None:
    """One member of a party at token i: ([determiner] [number] member | self), and the next token index."""
    if i >= len(tokens):
        return None
    start = tokens[i][0]
    if tokens[i][2] in words.self_words:
        return (start, tokens[i][1], Decimal(1), True, tokens[i][2]), i + 1
    j = i
    while j < len(tokens) and j - i < 2 and tokens[j][2] in words.determiners:
        j += 1
    count: Decimal | None = None
    if j < len(tokens):
        word = tokens[j][2]
        number = spelled.get(tokens[j][0])
        if word.isdigit():
            count, j = Decimal(word), j + 1
        elif number is not None and number.end <= tokens[j][1] and word not in words.determiners:
            count, j = number.value, j + 1
    size = _phrase_at(tokens, j, words.multiples, words.longest_member)
    if size and count is None:
        noun = " ".join(t[2] for t in tokens[j:j + size])
        return (start, tokens[j + size - 1][1], words.multiples[noun], False, noun), j + size
    size = _phrase_at(tokens, j, words.members, words.longest_member)
    if size:
        noun = " ".join(t[2] for t in tokens[j:j + size])
        return (start, tokens[j + size - 1][1], count if count is not None else Decimal(1), False, noun), j + size
    size = _phrase_at(tokens, j, words.members_plural, words.longest_member)
    if size:
        noun = " ".join(t[2] for t in tokens[j:j + size])
        return (start, tokens[j + size - 1][1], count, False, noun), j + size
    return None


def _composed(ctx: ExtractionContext, index: TextIndex, words: QuantityWords, people: bool) -> list[Evidence]:
    evidence = []
    own = {_stem(t) for t in unit_terms(ctx.objective)}
    for party in _compositions(ctx.analysis, words):
        if (party.cued or party.aged) and not people:
            continue  # 'there will be three people' is no rating, even when the rating was just asked
        if party.aged and not any(_stem(noun) in own for noun in party.aged):
            continue  # a lone member with its age counts only members this objective names ('enfants', 'fille')
        start, end = party.start, party.end
        sentence = index.sentence_at(start)
        if sentence is None or index.blocked(start) or not ctx.allowed(
                sentence.is_question, "quantity", sentence.seeks_offer):
            continue
        evidence.append(Evidence(
            value=_format(party.count), pos=start, sentences=((sentence.start, sentence.end),),
            rank=RANK_CUE if party.cued or party.aged else RANK_EXPLICIT,
            old=replaced(ctx.analysis, _bounded(sentence, start, end), start, end, ctx.correcting),
        ))
    return evidence


def _none_of_them(ctx: ExtractionContext, index: TextIndex, words: QuantityWords, units: _Units) -> list[Evidence]:
    """'cámaras no, solo el cerco', 'no cameras', 'sans caméra': the visitor wants none of what this objective
    counts; the count is 0 only when the objective allows 0."""
    minimum = ctx.params.get("min")
    if units.noun is None or not isinstance(minimum, int | float) or minimum > 0:
        return []
    masked = ctx.analysis.masked
    evidence = []
    for match in units.noun.finditer(masked):
        start, end = match.span()
        if not (words.none_before.search(masked[max(0, start - _BEFORE):start])
                or words.none_after.match(masked[end:end + _AFTER])):
            continue
        sentence = index.sentence_at(start)
        if sentence is None or index.blocked(start) or not ctx.allowed(
                sentence.is_question, "quantity", sentence.seeks_offer):
            continue
        old = replaced(ctx.analysis, _bounded(sentence, start, end), start, end, ctx.correcting)
        evidence.append(Evidence(value="0", pos=start, sentences=((sentence.start, sentence.end),),
                                 rank=RANK_EXPLICIT, old=old))
    return evidence


def extract_quantity(ctx: ExtractionContext) -> list[Evidence]:
    words = quantity_words(ctx.analysis.rules)
    index = text_index(ctx.analysis)
    units = _units(ctx, words)
    evidence = _numeric(ctx, index, words, units) + _none_of_them(ctx, index, words, units)
    if units.people or ctx.lenient:
        evidence += _composed(ctx, index, words, units.people)
    return sorted(evidence, key=lambda e: e.pos)
