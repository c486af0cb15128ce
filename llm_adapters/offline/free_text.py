"""Free-text evidence: the visitor's own clause that answers the objective's question, or a statement naming the
objective's topic. The value is that clause verbatim, without greetings, thanks or trailing pleasantries.

Refusals, uncertainty, stop requests, small talk, statements about third parties, questions and bare
acknowledgements ("ok", "sí") never complete a free-text objective. Topic terms are the criterion's
``params.cues`` (derived by the compiler); without them they are derived from the objective's name and
description minus the language's stopwords, and then two different terms must appear.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import lru_cache

from engine.kernel.goal_models import CriterionKind, Objective
from engine.text import fold
from llm_adapters.offline.analysis import Analysis, Sentence
from llm_adapters.offline.choice_meaning import cue_stems
from llm_adapters.offline.cues import mentions_any, objective_cues
from llm_adapters.offline.evidence import Evidence, ExtractionContext
from llm_adapters.offline.excluded import excluded_spans
from llm_adapters.offline.free_text_words import FLAGS, WORD, FreeTextWords, free_text_words
from llm_adapters.offline.gazetteer import is_known_place
from llm_adapters.offline.numbers import NumberMention, find_numbers
from llm_adapters.offline.offer import seeks_offer
from llm_adapters.offline.text_index import BLOCKERS, TextIndex, text_index

_SOURCE_TOKEN = re.compile(r"\S+")
_PLURAL = re.compile(r"(?:e?s)$")
_PUNCTUATION = re.compile(r"(?<![0-9])[,:]|[,:](?![0-9])|;")  # '1,110' and '5:15' are one value, not two pieces
_EDGE = " \t\r\n,;:.!?-–—…\"'“”«»()"
_CONTROL = ("refusal", "uncertainty", "stop")
MAX_VALUE = 500  # engine.kernel.commands.Complete.value max_length
_CUE_GAP = 3  # words allowed between the words of a several-word cue ('send $1,290 to')
_BARE_SLACK = 2  # words of the sentence around a short answer ('yes', 'please')
# The longest sentence in which a capitalised word after an indefinite article is read as a stressed kind of
# thing rather than a name ('I'm looking for a Family Counselor' has 6 words; a brand usually comes in longer ones).
_KIND_SENTENCE_WORDS = 6
_BARE_NAME_WORDS = 3  # a short answer to a name question may be written in lower case ('sino', 'la taqueria')

RANK_ANSWER_NAMED = 3  # the answer to the question just asked, naming the topic
RANK_ANSWER = 2  # the answer to the question just asked
RANK_NAMED = 1  # a statement naming the objective's topic, unasked


def _stem(word: str) -> str:
    return _PLURAL.sub("", word) if len(word) > 4 else word


@lru_cache(maxsize=1024)
def _derived(text: str, stopwords: frozenset[str], min_length: int) -> frozenset[str]:
    return frozenset(_stem(w) for w in WORD.findall(fold(text))
                     if w not in stopwords and len(w) >= min_length)


def topic_terms(objective: Objective, words: FreeTextWords) -> tuple[frozenset[str], bool]:
    """The objective's topic terms and whether they are its own (``params.cues``) rather than derived."""
    own = objective_cues(objective)
    if own:
        return own, True
    return _derived(f"{objective.name} {objective.criterion.description}", words.stopwords,
                    words.min_cue_length), False


def _named(tokens: list[str], terms: frozenset[str], own: bool,
           stem: Callable[[str], frozenset[str]] | None = None) -> bool:
    """The words state the topic: an own cue term (one suffices; a one-word cue also by a word sharing its stem:
    'stars' or 'starred' for 'starring') or two different derived terms."""
    if own:
        joined = " " + " ".join(tokens) + " "
        return any((" " + t) in joined if " " in t else any(
            w.startswith(t) or (stem is not None and bool(stem(w) & stem(t))) for w in tokens) for t in terms)
    hits = {t for t in terms for w in tokens if w.startswith(t)}
    return len(hits) >= min(2, len(terms))


def _trim(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int) -> tuple[int, int]:
    """Drop leading greetings/interjections, thanks for something ('thank you for your help, ...') and trailing
    pleasantries (repeatedly) and edge punctuation."""
    text = ctx.analysis.masked
    while True:
        while start < end and text[start] in _EDGE:
            start += 1
        while end > start and text[end - 1] in _EDGE:
            end -= 1
        thanks = words.thanked_for.match(text, start, end)
        if thanks is not None:  # what is thanked for runs to the next break: never the visitor's answer
            cut = _PUNCTUATION.search(text, thanks.end(), end)
            start = cut.end() if cut is not None else end
            continue
        lead = words.leading.match(text, start, end)
        if lead is not None and lead.end() < end:
            start = lead.end()
            continue
        tail = words.trailing.search(text, start, end)
        if tail is not None and tail.start() > start:
            end = tail.start()
            continue
        return start, end


def thanked_for(analysis: Analysis, sentence_start: int, start: int) -> bool:
    """Does the text at ``start`` belong to what the visitor thanks for ('thank you for checking')? The thanks
    opens the text before it within the sentence, with no break in between."""
    words = free_text_words(analysis.rules)
    text = analysis.masked
    for match in words.thanked_for.finditer(text, sentence_start, start):
        if _PUNCTUATION.search(text, match.end(), start) is None:
            return True
    return False


def _silent(ctx: ExtractionContext, index: TextIndex, sentence: Sentence) -> bool:
    """Sentences that never answer: control cues, small talk, third parties, the company itself."""
    return any(index.any_cue(name, sentence.start, sentence.end) for name in (*_CONTROL, *BLOCKERS))


def _secondary(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int) -> bool:
    """A clause that answers only when nothing else does: one carrying a date, a time, a telephone number or an
    e-mail address (values of other objectives, even when not chosen for them)."""
    analysis = ctx.analysis
    if excluded_spans(ctx).overlaps(start, end):
        return True
    src_start, src_end = analysis.source_span(start, end)
    return "@" in analysis.folded.source[src_start:src_end]


def _fit(ctx: ExtractionContext, start: int, end: int, limit: int) -> tuple[int, int]:
    """Cut an over-long clause at the last word boundary within ``limit`` source characters."""
    src_start, src_end = ctx.analysis.source_span(start, end)
    if src_end - src_start <= limit:
        return start, end
    cut = ctx.analysis.folded.to_folded(src_start + limit)
    space = ctx.analysis.masked.rfind(" ", start, cut)
    return start, space if space > start else cut


def _pieces(ctx: ExtractionContext, sentence: Sentence) -> list[tuple[int, int]]:
    """The sentence cut at its clause breaks and at every comma, semicolon or colon (language-neutral), never
    inside a number written in words ('one thousand six hundred and twenty' is one value, not two clauses)."""
    cuts = {sentence.start, sentence.end}
    cuts.update(c for clause in sentence.clauses for c in clause)
    cuts.update(m.end() for m in _PUNCTUATION.finditer(ctx.analysis.masked, sentence.start, sentence.end))
    spelled = [(m.start, _unit_end(ctx, m.end)) for m in find_numbers(ctx.analysis)
               if m.written and sentence.start <= m.start and m.end <= sentence.end and not _article(ctx, m)]
    cuts = {c for c in cuts if not any(start < c < end for start, end in spelled)}
    cuts.update(end for _, end in spelled)  # what follows the amount is a piece of its own ('... to Diego')
    ordered = sorted(c for c in cuts if sentence.start <= c <= sentence.end)
    return [(a, b) for a, b in itertools.pairwise(ordered) if b > a]


def _article(ctx: ExtractionContext, mention: NumberMention) -> bool:
    """A lone 'one' word ('una golondrina', 'un tattoo', 'a swallow') is an article before a noun, no amount: the
    description after it is one piece with it."""
    return mention.value == 1 and _unit_end(ctx, mention.end) == mention.end and " " not in \
        ctx.analysis.masked[mention.start:mention.end].strip()


def _unit_end(ctx: ExtractionContext, end: int) -> int:
    """End of a number written in words, with a currency word right after it ('... and twenty bucks')."""
    following = re.match(r"\s+([^\W\d_]+)", ctx.analysis.masked[end:])
    if following is not None and any(following.group(1) in terms
                                     for terms in ctx.analysis.rules.currencies.values()):
        return end + following.end()
    return end


def _says_more_than_restated(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int,
                             restated: list[int]) -> bool:
    """Does the piece say enough besides the recorded values it restates? 'queremos que puedan atender llamadas
    con clientes en inglés' (English already recorded) answers what the learning is for; 'en inglés' alone does
    not."""
    text = ctx.analysis.masked
    tokens = [m.group() for m in WORD.finditer(text, start, end) if m.start() not in restated]
    return len(_content(tokens, words)) >= words.restated_min_words


def _free_runs(ctx: ExtractionContext, words: FreeTextWords, sentence: Sentence,
               names_ours: Callable[[int, int], bool]) -> list[tuple[int, int]]:
    """The sentence's runs of pieces that hold no other objective's value, unless the piece names this
    objective's topic ('I need to prepare the TOEFL in English': the goal, though 'English' is the language) or
    only restates another objective's recorded value beside enough words of its own."""
    inside = [pos for pos in ctx.taken if sentence.start <= pos < sentence.end]
    if not inside:
        return [(sentence.start, sentence.end)]
    dated = excluded_spans(ctx)  # a taken time runs past its start ('5:15 pm', '4:15 in the evening')
    runs: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for piece in _pieces(ctx, sentence):
        held = [pos for pos in inside if piece[0] <= pos < piece[1]]
        new = [pos for pos in held if pos not in ctx.restated]
        restated_only = bool(held) and not new and _says_more_than_restated(ctx, words, *piece, held)
        if ((held and not restated_only) or dated.overlaps(*piece)) and not names_ours(*piece):
            if current is not None:
                runs.append(current)
            current = None
        else:
            current = piece if current is None else (current[0], piece[1])
    if current is not None:
        runs.append(current)
    return runs


def _clause(ctx: ExtractionContext, words: FreeTextWords, sentence: Sentence,
            names_ours: Callable[[int, int], bool]) -> tuple[int, int, list[str]] | None:
    """The longest trimmed free run of the sentence with something said in it, and its words."""
    best: tuple[int, int, list[str]] | None = None
    for run_start, run_end in _free_runs(ctx, words, sentence, names_ours):
        start, end = _trim(ctx, words, run_start, run_end)
        tokens = WORD.findall(ctx.analysis.masked[start:end])
        if " ".join(tokens) in words.acknowledgements or not _content(tokens, words) or _refers_back(tokens, words) \
                or words.leading.fullmatch(ctx.analysis.masked, start, end):
            continue  # nothing said: 'ok', 'yes, that works', a lone joiner, 'please play it' or a lone 'oh'
        lead = ctx.analysis.masked[run_start:start]
        if words.asides.search(lead) and not _PUNCTUATION.search(lead):
            continue  # the rest of a pleasantry trimmed off with no break after it ('thank you again')
        if best is None or end - start > best[1] - best[0]:
            best = (start, end, tokens)
    return best


def _content(tokens: list[str], words: FreeTextWords) -> list[str]:
    """The words that say something: neither stopwords nor words of acknowledgements."""
    return [t for t in tokens if t not in words.stopwords and t not in words.acknowledgement_words]


def _refers_back(tokens: list[str], words: FreeTextWords) -> bool:
    """An acceptance of what the other side said ('yes, please play it', 'try that', 'that should work'): an
    anaphor with nothing said after it and at most one word (a verb) said before it. 'I want it quiet' says
    something after the anaphor, so it stays an answer."""
    for at, token in enumerate(tokens):
        if token in words.anaphors and not _content(tokens[at + 1:], words):
            return len(_content(tokens[:at], words)) <= 1
    return False


@lru_cache(maxsize=256)
def _gapped_cues(terms: frozenset[str], anaphors: frozenset[str]) -> tuple[re.Pattern[str], ...]:
    """Several-word own cues with room for a few words between their words and their anaphors optional:
    'send it to' also reads 'send $380 to', 'transfer to' reads 'transfer 980 bucks to'."""
    patterns = []
    for term in sorted(terms):
        required = [w for w in term.split() if w not in anaphors]
        if len(required) >= 2:
            body = rf"(?:\s+\S+){{0,{_CUE_GAP}}}?\s+".join(re.escape(w) for w in required)
            patterns.append(re.compile(rf"(?<![^\W_]){body}\s+(?=\S)", FLAGS))
    return tuple(patterns)


def _cued_name(ctx: ExtractionContext, gapped: tuple[re.Pattern[str], ...], start: int, end: int) -> bool:
    """A gapped own cue right before a capitalised word ('send the money to Maria'): the name it introduces is
    this objective's value. Without the capital ('to my savings account') the cue names nothing here."""
    source = ctx.analysis.folded.source
    for pattern in gapped:
        for match in pattern.finditer(ctx.analysis.masked, start, end):
            at = ctx.analysis.source_span(match.end(), min(match.end() + 1, end))[0]
            if at < len(source) and source[at].isupper():
                return True
    return False


def _talks_about(tokens: list[str], other: Objective, words: FreeTextWords) -> bool:
    """The words use one of another objective's topic terms; a role word that is a stopword ('to', 'de') names
    no topic."""
    terms = frozenset(t for t in objective_cues(other) if t not in words.stopwords)
    return mentions_any(tokens, terms)


def _asks_for_name(objective: Objective, words: FreeTextWords) -> bool:
    """The objective asks for a name: a name marker in its name, its questions or the first sentence of its
    description, which says what the visitor gives. Later sentences often say what does not count ('A car model
    or "not sure" does not count' under a tyre size) and must not turn the objective into a name question."""
    description = _FIRST_SENTENCE.match(objective.criterion.description)
    said = _QUOTED.sub(" ", description.group(0)) if description else ""
    text = " ".join([objective.name, *objective.questions.values(), said])
    return any(w in words.name_markers for w in WORD.findall(fold(text)))


_FIRST_SENTENCE = re.compile(r".*?(?:[.!?](?=\s|$)|$)", re.S)  # up to the first full stop that ends a sentence
# a quoted example of a value ('a swallow with flowers', 'a name in script') shows what a visitor may write; a name
# marker inside it does not make the objective ask for a name. An apostrophe inside a word ("visitor's") opens none.
_QUOTED = re.compile(r"(?<![^\W_])'[^'\n]*'(?![^\W_])|\"[^\"\n]*\"|“[^”\n]*”|«[^»\n]*»|‘[^’\n]*’")


_PLACE_WINDOW = 40  # characters before a capitalised word where its location preposition stands
_SAME_STEM = 5  # letters two words share to be one word's forms ('directed' / 'director', 'starring')


def _known_place_end(source: str, start: int, end: int) -> int | None:
    """End of the longest run of capitalised words from ``start`` that is a known place, or None."""
    run: list[tuple[str, int]] = []
    for match in re.finditer(r"\S+", source[start:end]):
        word = match.group().strip(_EDGE)
        if not word[:1].isupper():
            break
        run.append((word, start + match.start() + match.group().index(word) + len(word)))
        if match.group()[-1] in ",;:.!?":
            break  # a comma or full stop ends the name
    return next((run[k - 1][1] for k in range(len(run), 0, -1) if is_known_place(" ".join(w for w, _ in run[:k]))),
                None)


def _led_place_end(ctx: ExtractionContext, start: int, end: int, sentence_start: int) -> int | None:
    """End of a known place name at ``start`` led by a location preposition ('a dentist in Pleasant Hill', 'near
    San Diego'): where the visitor is, never the name asked for. A place role is not enough: 'send it to Maria'
    names the recipient, though some town is called Maria."""
    source = ctx.analysis.folded.source
    before = fold(source[max(sentence_start, start - _PLACE_WINDOW):start])
    led = any(p.search(before) for p in ctx.analysis.rules.cue("place_preposition"))
    return _known_place_end(source, start, end) if led else None


def _bare_place(ctx: ExtractionContext, start: int, end: int) -> bool:
    """A short answer that is only a known place ('Sunnyvale.', 'In Pleasanton please'): no name."""
    rules = ctx.analysis.rules
    source = ctx.analysis.folded.source
    for match in re.finditer(r"\S+", source[start:end]):
        at = start + match.start()
        preposition = any(p.search(fold(source[start:at + len(match.group())]) + " ")
                          for p in rules.cue("place_preposition"))  # 'In San Diego'
        if match.group()[:1].isupper() and fold(match.group().strip(_EDGE)) not in rules.non_place_words \
                and not preposition:
            place_end = _known_place_end(source, at, end)
            following = re.match(r"\S+\s+(\S)", source[at:end])
            if place_end is None and not source[start:at].strip(_EDGE) \
                    and (following is None or not following.group(1).isupper()):
                continue  # the answer's first word alone, capitalised as any first word is ('Look in Napa')
            rest = [fold(w.strip(_EDGE)) for w in source[place_end:end].split()] if place_end is not None else []
            return place_end is not None and all(not w or w in rules.non_place_words for w in rest)
    return False


def _capitalised_run_end(source: str, start: int, end: int) -> int:
    """End of the run of capitalised words from ``start`` ('Brian De Palma'; a lower-case 'de' inside a name is
    read by the next capitalised word)."""
    run_end = start
    for match in re.finditer(r"\S+", source[start:end]):
        word = match.group().strip(_EDGE)
        if word[:1].isupper():
            run_end = start + match.start() + match.group().index(word) + len(word)
        elif len(word) > 3 or not word:
            break
        if match.group()[-1:] in ",;:.!?":
            break
    return run_end


def _someone_elses(ctx: ExtractionContext, words: FreeTextWords, terms: frozenset[str], start: int,
                   sentence_start: int) -> int | None:
    """End of a capitalised name that is not the thing asked for: led by another entity's word ('a song by Frank
    Ocean', 'the album The Getaway'), or a lone capitalised word classifying the noun after it ('a Drama
    movie', 'Concert events', 'Italian food'). None when the word may be the name."""
    source = ctx.analysis.folded.source
    before = " " + " ".join(fold(source[max(sentence_start, start - _PLACE_WINDOW):start]).split())
    run_end = _capitalised_run_end(source, start, len(source))
    leads = [lead for lead in words.other_name_leads if before.endswith(" " + lead)]
    if leads:  # the longest lead tells whose name it is: 'directed by' names the director asked for
        lead = max(leads, key=len)
        ours = any(w[:_SAME_STEM] == t[:_SAME_STEM] for w in lead.split() for t in terms
                   if " " not in t and len(w) >= _SAME_STEM and len(t) >= _SAME_STEM)
        return None if ours else run_end
    following = re.match(r"\s+([^\W\d_][\w'-]*)", source[run_end:])
    if following is None or " " in source[start:run_end] or not following.group(1).islower():
        return None
    noun = fold(following.group(1))
    if noun in words.category_nouns or any(noun.startswith(t) for t in terms if " " not in t and len(t) > 2):
        return run_end
    return None


def _has_name(ctx: ExtractionContext, start: int, end: int, sentence_start: int,
              terms: frozenset[str] = frozenset()) -> bool:
    """A capitalised word in the clause that is not the sentence's first word nor another objective's value
    (the place in 'italian restaurants in Berkeley') nor a known place led by a location preposition ('a dentist
    in Pleasant Hill') nor a name of something else (:func:`_someone_elses`): 'Sipan', 'Villa Romano'."""
    source = ctx.analysis.folded.source
    words = free_text_words(ctx.analysis.rules)
    others = set(ctx.taken)
    dated = excluded_spans(ctx)
    skip_to = start
    for match in WORD.finditer(source, start, end):
        word = match.group()
        if match.start() < skip_to:
            continue
        if not word[:1].isupper() or word.isupper() or not source[sentence_start:match.start()].strip(_EDGE):
            continue
        if fold(word) in words.stopwords:
            continue  # 'I', 'You': a capitalised pronoun names nothing
        # A capitalised word after 'a'/'une' in a short sentence is a stressed kind ('I want a Psychologist'); in a
        # longer one it is a brand as often ('un changement de pile pour une Swatch'): it stays a candidate name.
        if len(WORD.findall(source, sentence_start, end)) <= _KIND_SENTENCE_WORDS \
                and _after_determiner(source, match.start(), sentence_start, words) \
                and not _model_name(source, match.start(), end, _listed_terms(ctx.objective)):
            skip_to = _capitalised_run_end(source, match.start(), end)
            continue  # 'I want a Psychologist', 'a General Practitioner': a kind of thing, stressed, no name
        at = ctx.analysis.folded.to_folded(match.start())
        if at in others:
            skip_to = _capitalised_run_end(source, match.start(), end)
            continue  # another objective's value, with its later words ('San Carlos' taken as the city)
        if dated.overlaps(at, at + len(word)):
            continue  # the month of a date ('the 14th of March')
        elsewhere = _led_place_end(ctx, match.start(), end, sentence_start)
        if elsewhere is None:
            elsewhere = _someone_elses(ctx, words, terms, match.start(), sentence_start)
        if elsewhere is not None:
            skip_to = elsewhere
            continue
        return True
    return False


def _after_determiner(source: str, start: int, sentence_start: int, words: FreeTextWords) -> bool:
    """The word at ``start`` follows an indefinite determiner of the sentence ('a', 'another', 'una')."""
    before = WORD.findall(fold(source[sentence_start:start]))
    return bool(before) and before[-1] in words.category_determiners


def _listed_terms(objective: Objective) -> frozenset[str]:
    """The objective's cue terms that are not words of its own name or questions: values the company listed
    ('Peugeot', 'Toyota' under 'make and model'), not the noun it asks about ('therapist')."""
    own = {fold(w) for text in (objective.name, *objective.questions.values()) for w in WORD.findall(text)}
    return frozenset(t for t in objective_cues(objective) if " " not in t and t not in own)


def _model_name(source: str, start: int, end: int, terms: frozenset[str]) -> bool:
    """A capitalised word after 'a' that still names the thing asked: one of the objective's own cue terms ('un
    Peugeot' where the company lists the makes it services), or a make with its model number ('a Peugeot 308',
    'un Hyundai i30')."""
    run_end = _capitalised_run_end(source, start, end)
    if any(fold(w) in terms for w in WORD.findall(source[start:run_end])):
        return True  # (terms: the cues beyond the objective's own name and questions, see _listed_terms)
    following = re.match(r"\s+(\S+)", source[run_end:end])
    tail = source[start:run_end] + (following.group(1) if following is not None else "")
    return any(c.isdigit() for c in tail)  # 'Peugeot C4', 'Hyundai i30', 'Peugeot 308'


def _names_nothing(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int, sentence_start: int) -> bool:
    """A short answer to a name question that names nothing: it asks for other options or leaves the choice open
    ('someone else', 'another one', 'anything'), or its only capitalised word follows an indefinite determiner
    ('Just a General Practitioner', 'a Psychologist': a kind of professional, not one of them)."""
    source = ctx.analysis.folded.source
    joined = " " + " ".join(WORD.findall(fold(source[start:end]))) + " "
    if any(f" {term} " in joined for term in words.not_names):
        return True
    capitals = [m for m in WORD.finditer(source, start, end)
                if m.group()[:1].isupper() and fold(m.group()) not in words.stopwords]
    terms = _listed_terms(ctx.objective)
    runs = [(m.start(), _capitalised_run_end(source, m.start(), end)) for m in capitals
            if _after_determiner(source, m.start(), sentence_start, words)
            and not _model_name(source, m.start(), end, terms)]
    # besides the kinds' own words, only the answer's first word may be capitalised ('Just a General Practitioner')
    others = [m for m in capitals if m.start() != start and not any(a <= m.start() < b for a, b in runs)]
    return bool(runs) and not others


def _selects_item(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int) -> bool:
    """The clause (source span) chooses a capitalised name among offered items: after a choice ('go with X',
    'rent X') or before an approval ('X sounds good', 'X works for me')."""
    source = ctx.analysis.folded.source
    tokens = _name_tokens(source, start, end)

    def capital(k: int) -> bool:
        return tokens[k][2][:1].isupper() and fold(tokens[k][2]) not in words.stopwords

    for at in range(len(tokens)):
        if not capital(at):
            continue
        if any(p.search(source[start:tokens[at][0]]) for p in words.selection_before):
            return True
        # a title may hold small words ('The Man Who Knew Too Much', 'Shine a Light'): any run of capitalised
        # words and stopwords ending in a capitalised word, before an approval
        for last in range(at, len(tokens)):
            if last > at and tokens[last - 1][3]:
                break  # a comma or full stop ends the name
            if not capital(last) and fold(tokens[last][2]) not in words.stopwords:
                break
            if capital(last) and any(p.match(source[tokens[last][1]:end]) for p in words.selection_after):
                return True
    return False


def _role_led(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int) -> bool:
    """The clause (source span) holds a capitalised name right after a role lead ('a song by X', 'a movie with
    X') whose role words are cues of this objective and of no other name objective of the spec: X is this
    objective's value ('by' a director, not an actor)."""
    if not words.role_leads:
        return False
    own = objective_cues(ctx.objective)
    others = [objective_cues(o) for o in (ctx.spec.objectives if ctx.spec is not None else [])
              if o.id != ctx.objective.id and o.criterion.kind is CriterionKind.FREE_TEXT
              and _asks_for_name(o, words)]
    source = ctx.analysis.folded.source
    tokens = _name_tokens(source, start, end)
    taken = set(ctx.taken)
    for at in range(1, len(tokens)):
        roles = words.role_leads.get(fold(tokens[at - 1][2]))
        if roles is None or tokens[at - 1][3] or ctx.analysis.folded.to_folded(tokens[at][0]) in taken:
            continue
        if not (own & roles) or any(cues & roles for cues in others):
            continue
        # 'songs by the Konshens', 'by The Wombats': an article between the lead and the name
        article = fold(tokens[at][2]) in words.stopwords and not tokens[at][3] and at + 1 < len(tokens)
        if _name_at(tokens, at + 1 if article else at, words) is None:
            continue
        return True
    return False


def _names_item(ctx: ExtractionContext, words: FreeTextWords) -> bool:
    """Does the objective ask for the company's item itself (its name or cues share a word with the company's
    title: 'Preferred restaurant' of 'Restaurant table reservations')? Else it asks for something about the
    item (the actor of a rented movie, the recipient of a transfer)."""
    if ctx.spec is None:
        return True
    title = [w for w in WORD.findall(fold(ctx.spec.title)) if w not in words.stopwords and len(w) >= _SAME_STEM]
    own = [w for text in (ctx.objective.name, *objective_cues(ctx.objective)) for w in WORD.findall(fold(text))
           if w not in words.stopwords and len(w) >= _SAME_STEM]
    return any(w[:_SAME_STEM] == t[:_SAME_STEM] for w in own for t in title)


def _name_tokens(source: str, start: int, end: int) -> list[tuple[int, int, str, bool]]:
    """(start, end, word, a break follows) for the source words of [start, end)."""
    out = []
    for match in _SOURCE_TOKEN.finditer(source, start, end):
        word = match.group().rstrip(_EDGE)
        if word:
            out.append((match.start(), match.start() + len(word), word, len(word) < len(match.group())))
    return out


def _name_at(tokens: list[tuple[int, int, str, bool]], at: int, words: FreeTextWords) -> int | None:
    """The index after the capitalised name starting at token ``at`` ('Blue Jays Vs Yankees', 'the Yankees vs
    orioles', 'Nissan Versa 2018'), or None when no name starts there. A name ends before a lower-case word other
    than a stopword ('Spanish food' is no name) only when that word does not follow a joiner."""
    word = tokens[at][2]
    if not word[:1].isupper() or fold(word) in words.stopwords:
        return None
    k = at + 1
    while k < len(tokens) and not tokens[k - 1][3]:
        current = fold(tokens[k][2])
        if current in words.name_joiners and k + 1 < len(tokens) and not tokens[k][3]:
            k += 2
        elif tokens[k][2][:1].isupper() or tokens[k][2][:1].isdigit():
            k += 1  # 'Mazda 3', 'Jetta 2015': a number after a name's word is part of it (a model, a year)
        else:
            break
    if k < len(tokens) and not tokens[k - 1][3] and tokens[k][2][:1].islower():
        while k - 1 > at and tokens[k - 1][2][:1].isdigit():
            k -= 1  # 'Send Amir 650 bucks': the number counts the noun after it, it is no model number
        if tokens[k][2][:1].isdigit():
            return k
    if k < len(tokens) and not tokens[k - 1][3] and fold(tokens[k][2]) not in words.stopwords:
        return None  # 'Spanish food': an adjective, not a name
    return k


def _states_name(ctx: ExtractionContext, words: FreeTextWords, start: int, end: int) -> bool:
    """The clause (source span) states a capitalised name unasked: after a preference or recommendation ('I like
    Basta', 'heard that Lizzo is good'), before one ('Damien Jurado is supposed to be good'), or two names joined
    ('Diamondbacks Vs Cardinals'). A name that is another objective's value (a place) is none."""
    source = ctx.analysis.folded.source
    tokens = _name_tokens(source, start, end)
    taken = set(ctx.taken)
    skip_to = start
    for at in range(len(tokens)):
        if tokens[at][0] < skip_to:
            continue  # a later word of another objective's value or of a place ('Jose' of 'in San Jose')
        if ctx.analysis.folded.to_folded(tokens[at][0]) in taken:
            skip_to = _capitalised_run_end(source, tokens[at][0], end)
            continue
        before_text = source[start:tokens[at][0]]
        led = any(p.search(before_text) for p in words.name_before)
        place_end = None if led else _led_place_end(ctx, tokens[at][0], end, start)
        if place_end is not None:
            skip_to = place_end  # 'a restaurant in San Jose': where, not the name asked for ('interested in X' is)
            continue
        after = _name_at(tokens, at, words)
        if after is None:
            continue
        joined = any(fold(t[2]) in words.name_joiners for t in tokens[at:after])
        after_text = source[tokens[after - 1][1]:end]
        if joined or led or any(
                p.match(after_text) for p in words.name_after):
            return True
    return False


def _sole_name_objective(ctx: ExtractionContext, words: FreeTextWords) -> bool:
    """No other free-text objective of the spec asks for a name: an unasked name can only be this one's."""
    others = ctx.spec.objectives if ctx.spec is not None else []
    return not any(o.id != ctx.objective.id and o.criterion.kind is CriterionKind.FREE_TEXT
                   and _asks_for_name(o, words) for o in others)


def _declined(ctx: ExtractionContext, words: FreeTextWords) -> bool:
    """The objective's question asks yes or no ('Is there an actor you would like to see?') and the visitor's
    message opens with no: what follows ('no, I'd rather watch the other one') answers something else."""
    if not words.declines.match(ctx.analysis.masked):
        return False
    questions = ctx.objective.questions
    return any(lang in questions and pattern.match(fold(questions[lang]).strip()) is not None
               for lang, pattern in words.yes_no_questions)


def extract_free_text(ctx: ExtractionContext) -> list[Evidence]:
    analysis = ctx.analysis
    words = free_text_words(analysis.rules)
    index = text_index(analysis)
    terms, own = topic_terms(ctx.objective, words)
    limit = min(int(ctx.params.get("max_length", MAX_VALUE)), MAX_VALUE)
    evidence: list[Evidence] = []
    gapped = _gapped_cues(terms, words.anaphors) if own else ()
    stem = cue_stems(analysis)

    wants_name = _asks_for_name(ctx.objective, words)
    about_item = wants_name and not _names_item(ctx, words)
    sole_name = wants_name and _sole_name_objective(ctx, words)

    def states_ours(start: int, end: int) -> bool:
        return sole_name and _states_name(ctx, words, *analysis.source_span(start, end))

    def cued(start: int, end: int) -> bool:
        return bool(terms) and (_named(WORD.findall(analysis.masked[start:end]), terms, own, stem)
                                or _cued_name(ctx, gapped, start, end))

    def names_ours(start: int, end: int) -> bool:
        # 'Necesito afinación para mi Jetta 2015': the service is another objective's, the stated name is ours;
        # 'any country songs by X?': the genre is another objective's, the name after our role lead is ours
        return states_ours(start, end) or cued(start, end) or (
            wants_name and _role_led(ctx, words, *analysis.source_span(start, end)))

    declined = ctx.lenient and _declined(ctx, words)
    others = [o for o in (ctx.spec.objectives if ctx.spec is not None else []) if o.id != ctx.objective.id]
    for sentence in analysis.sentences:
        searching = sentence.is_question and seeks_offer(ctx, sentence)
        if (not ctx.allowed(sentence.is_question, "free_text") and not searching) or _silent(ctx, index, sentence):
            continue
        found = _clause(ctx, words, sentence, names_ours)
        if found is None:
            continue
        start, end, tokens = found
        chosen = about_item and _selects_item(ctx, words, *analysis.source_span(start, end))
        led = wants_name and not chosen and _role_led(ctx, words, *analysis.source_span(start, end))  # 'by X'
        stated = states_ours(start, end) or led
        named = stated or cued(start, end)
        if sentence.is_question and not (named and wants_name):
            continue  # a search question ('any movies directed by X?') states only a name its own cue leads
        if chosen and not named:
            continue  # 'I'd like to rent High Life', 'Green Book sounds good': the item chosen, not its actor
        if not named and words.asides.search(analysis.masked, start, end):
            continue  # a social aside ('sorry, my Spanish is bad', 'you have been very helpful')
        if not named and any(_talks_about(tokens, other, words) for other in others):
            continue  # the visitor talks about another objective ("that's my insurance")
        if declined and not named:
            continue  # 'no' to a yes/no question; the rest of the message is about something else
        if ctx.lenient:
            rank = RANK_ANSWER_NAMED if named else RANK_ANSWER
            if not named and _secondary(ctx, words, start, end):
                rank -= 1
        elif named:  # a cue, or a name stated for the only name objective ('I heard the Nationals Vs Indians is good')
            rank = RANK_NAMED
        else:
            continue
        start, end = _fit(ctx, start, end, limit)
        src_start, src_end = analysis.source_span(start, end)
        # 'an alarm called cleaning': a name introduced, or stated unasked
        introduced = stated or led or any(t in words.name_introducers for t in tokens[:-1])
        # a short answer, not a short leftover of a longer sentence ('... six hundred and twenty bucks')
        bare = ctx.lenient and len(tokens) <= _BARE_NAME_WORDS and len(
            WORD.findall(analysis.masked[sentence.start:sentence.end])) - len(tokens) <= _BARE_SLACK
        sentence_source = analysis.source_span(sentence.start, sentence.end)[0]
        if wants_name and not introduced and (
                (_bare_place(ctx, src_start, src_end) or _names_nothing(ctx, words, src_start, src_end,
                                                                        sentence_source))
                if bare else not _has_name(ctx, src_start, src_end, sentence_source, terms)):
            continue  # asked for a name; "a restaurant reservation", "in Sunnyvale" or "someone else" names none
        value = analysis.folded.source[src_start:src_end].strip()
        if value:
            evidence.append(Evidence(value=value, pos=start, sentences=((sentence.start, sentence.end),),
                                     rank=rank))
    return evidence
