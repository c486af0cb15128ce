"""Does a visitor message contain a company question at all?

"I need three bedrooms" states a requirement (no answer is due); "Do you have houses with a pool?" asks one.
Cues per sentence, from every language in the rules (visitors switch language): a question mark; a request
phrase ("tell me", "me gustaría saber"); an auxiliary followed by a subject ("do you", "are there"); a wh-word
(optionally after a preposition) followed, within ``aux_window`` words, by an auxiliary and not directly by a
pronoun ("What I need is ..." is a statement); a ``standalone`` wh-word ("which villas ...") needs no
auxiliary. In Spanish every sentence-initial interrogative is standalone: written Spanish marks interrogatives
with an accent, so "qué"/"cómo" are matched accent-sensitively while "como" is not a cue. Chat writing drops the
accents and the question marks ("cuanto cuesta", "a q hora abris", "dnd estais"): ``informal_wh_words`` open a
question at sentence start unless the next word is in ``informal_blocked`` ("que te vaya bien"); conjunction-like
words ("como", "cuando") are deliberately not informal cues. ``question_openers`` ("is", "are") make any sentence
they start a question ("are dogs allowed"); ``anywhere_wh_words`` (Spanish accented interrogatives, matched as
written) make any sentence without "¡" a question ("si suspendo, cuánto cuesta volver a presentarme").
A later clause of a sentence (after a comma, semicolon or colon) asks when it opens with an auxiliary and a subject
("my radiators are cold, can you flush them") or with a ``clause_wh_word`` ("I need the gas cert, how much is
it"); relative-clause openers ("which", "who", "que") are deliberately not clause cues. A request written as a
noun phrase ("price of a new boiler", "horario sábado") opens with a ``fragment_opener``. A sentence that ends
in "!" without "?" exclaims ("What a lovely place!"): wh-words do not make it a question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from engine.retrieval.retrieval_rules import LanguageRules, QuestionCues, RetrievalRules
from engine.text import fold, normalize

_SENTENCES = re.compile(r"[^.!?¿¡\n]+[.!?]*|[¿¡][^?!\n]*[?!]?")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_CLAUSES = re.compile(r"[,;:()\u2013\u2014]+|\s-\s")


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(normalize(text).casefold())]


@dataclass(frozen=True)
class _Compiled:
    """One language's cues in the forms the checks look up, built once per cue data (``compiled``): the word
    lists become sets and folded phrases, and the request phrases one pattern instead of a search each."""

    request: re.Pattern[str] | None  # any request phrase, folded, as a whole-word match
    fragment_openers: tuple[tuple[re.Pattern[str], int], ...]  # folded start pattern, word count
    links: frozenset[str]  # folded
    closers: tuple[list[str], ...]  # folded words of each fragment closer
    folded_auxiliaries: frozenset[str]
    auxiliaries: frozenset[str]
    subjects: frozenset[str]
    prepositions: frozenset[str]
    wh: frozenset[str]
    standalone: frozenset[str]
    clause_wh: frozenset[str]
    blocked_after_wh: frozenset[str]
    informal: frozenset[str]
    informal_after_preposition: frozenset[str]
    informal_blocked: frozenset[str]  # folded
    anywhere: frozenset[str]
    question_openers: tuple[tuple[int, str], ...]  # word count, phrase
    closing: tuple[list[str], ...]  # folded words of each closing phrase


def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One whole-word pattern for all ``phrases`` (folded): it matches a folded sentence exactly when one of
    the phrases does on its own (alternation backtracks through every branch at every position)."""
    if not phrases:
        return None
    return re.compile(rf"(?<!\w)(?:{'|'.join(re.escape(fold(p)) for p in phrases)})(?!\w)")


@lru_cache(maxsize=32)  # keyed on the cue data (a frozen model, compared by value): a few languages per bundle
def compiled(cues: QuestionCues) -> _Compiled:
    return _Compiled(
        request=phrase_pattern(cues.request_phrases),
        fragment_openers=tuple((re.compile(rf"{re.escape(fold(o))}(?!\w)"), len(fold(o).split()))
                      for o in cues.fragment_openers),
        links=frozenset(fold(w) for w in cues.fragment_links),
        closers=tuple(fold(c).split() for c in cues.fragment_closers),
        folded_auxiliaries=frozenset(fold(a) for a in cues.auxiliaries),
        auxiliaries=frozenset(cues.auxiliaries),
        subjects=frozenset(cues.subject_words),
        prepositions=frozenset(cues.wh_prepositions),
        wh=frozenset(cues.wh_words),
        standalone=frozenset(cues.standalone_wh_words),
        clause_wh=frozenset(cues.clause_wh_words),
        blocked_after_wh=frozenset(cues.blocked_after_wh),
        informal=frozenset(cues.informal_wh_words),
        informal_after_preposition=frozenset(cues.informal_wh_after_preposition),
        informal_blocked=frozenset(fold(w) for w in cues.informal_blocked),
        anywhere=frozenset(cues.anywhere_wh_words),
        question_openers=tuple((len(o.split()), o) for o in cues.question_openers),
        closing=tuple(fold(p).split() for p in cues.closing_phrases),
    )


def _fragment(folded_sentence: str, words: list[str], cues: QuestionCues, c: _Compiled) -> bool:
    """A request written as a noun phrase: "price of a new boiler", "opening hours saturday", "drum lessons how
    much"."""
    folded_words = [fold(w) for w in words]
    verbless = not set(folded_words) & c.folded_auxiliaries
    for pattern, size in c.fragment_openers:
        if not pattern.match(folded_sentence):
            continue
        rest = folded_words[size:]
        if verbless and set(rest[:2]) & c.links:  # "algún descuento para …"
            return True
        if len(words) <= cues.fragment_max_words and verbless:
            return True
    if not 1 < len(words) <= cues.fragment_max_words + 2:
        return False
    for closer_words in c.closers:
        before = folded_words[: -len(closer_words)]
        if before and folded_words[-len(closer_words) :] == closer_words and not set(before) & c.folded_auxiliaries:
            return True
    return False


def _addressed_verbs(words: list[str], cues: QuestionCues) -> list[int]:
    """Positions of verbs addressed to the company that no blocker within two words before turns into a
    subjunctive or subordinate statement ("esperando que me llaméis")."""
    blockers = set(cues.addressed_verb_blockers)
    return [
        i
        for i, word in enumerate(words)
        for ending in cues.addressed_verb_endings
        if word.endswith(ending)
        and len(word) >= len(ending) + 3
        and not any(word.endswith(x) for x in cues.addressed_verb_excluded_endings)
        and not blockers & set(words[max(0, i - 2) : i])
    ]


def _addressed(words: list[str], cues: QuestionCues) -> bool:
    """A verb addressed to the company in a short sentence or clause ("tenéis parking", "el sábado abrís"), or
    beside a clitic or a subject pronoun at any length ("me podéis llevar el coche a la itv", "habláis vosotros
    con la aseguradora")."""
    found = _addressed_verbs(words, cues)
    if found and 2 <= len(words) <= cues.addressed_verb_max_words:
        return True
    companions = set(cues.addressed_verb_companions)
    return any(companions & set(words[max(0, i - 1) : i]) or companions & set(words[i + 1 : i + 2]) for i in found)


def _hypothetical(words: list[str], cues: QuestionCues) -> bool:
    """ "si cancelamos con un año de margen nos devolvéis la señal", "what if it rains on the day"."""
    if not cues.hypothetical_openers or len(words) < cues.hypothetical_min_words:
        return False
    return any(words[: len(o.split())] == o.split() for o in cues.hypothetical_openers)


def _existence(words: list[str], cues: QuestionCues) -> bool:
    """ "hay parking", "el puente hay clase", "somos dos, hay algún descuento"; not "hay un problema", "no hay
    prisa"."""
    after, before = set(cues.existence_blocked_after), set(cues.existence_blocked_before)
    return any(
        word in cues.existence_words
        and i + 1 < len(words)
        and words[i + 1] not in after
        and not (i > 0 and words[i - 1] in before)
        for i, word in enumerate(words)
    )


def _closing(words: list[str], c: _Compiled) -> bool:
    """A sentence or clause closing with "cuánto es", "se puede", "how much"."""
    folded = [fold(w) for w in words]
    return any(len(folded) > len(tail) and folded[-len(tail) :] == tail for tail in c.closing)


def _later_clause(words: list[str], c: _Compiled) -> bool:
    """A clause after a comma or semicolon asks: "…, can you flush them", "…, how much is it"."""
    if len(words) >= 2 and words[0] in c.auxiliaries and words[1] in c.subjects:
        return True
    start = 1 if words[0] in c.prepositions and len(words) > 1 else 0
    if words[start] not in c.clause_wh:
        return False
    following = words[start + 1 : start + 2]
    return bool(following) and following[0] not in c.blocked_after_wh


def _opening(words: list[str], cues: QuestionCues, c: _Compiled, exclaims: bool) -> bool:
    """The sentence's own start asks (auxiliary + subject, an opener, a wh-word)."""
    aux = c.auxiliaries
    if len(words) >= 2 and words[0] in aux and words[1] in c.subjects:
        return True
    for size, opener in c.question_openers:
        if len(words) >= size + 2 and " ".join(words[:size]) == opener:
            return True
    if exclaims:
        return False
    start = 1 if words[0] in c.prepositions and len(words) > 1 else 0
    if start and words[start] in c.informal_after_preposition:  # "hasta cuando …"
        return True
    if words[start] in c.informal:
        window = {fold(w) for w in words[start + 1 : start + 3]}
        if window and not window & c.informal_blocked:
            return True
    if words[start] not in c.wh:
        return False
    following = words[start + 1 : start + 1 + max(cues.aux_window, 1)]
    if following and following[0] in c.blocked_after_wh:
        return False
    if words[start] in c.standalone:
        return True
    return any(word in aux for word in following[: cues.aux_window])


def _cue(sentence: str, cues: QuestionCues) -> bool:
    c = compiled(cues)
    folded = fold(sentence)
    if c.request is not None and c.request.search(folded) is not None:
        return True
    words = _words(sentence)
    if not words:
        return False
    exclaims = sentence.rstrip().endswith("!")
    if "¡" not in sentence and not exclaims and set(words) & c.anywhere:  # "¡qué bien!"
        return True
    if _fragment(folded.strip(" ¿¡"), words, cues, c):
        return True
    clauses = [_words(clause) for clause in _CLAUSES.split(sentence)]
    clauses = [clause for clause in clauses if clause]
    if not clauses:
        return False
    if _opening(clauses[0], cues, c, exclaims):
        return True
    if exclaims:
        return False
    if _hypothetical(words, cues) and len(clauses[0]) > 1:
        return True
    if _addressed(words, cues) or _existence(words, cues) or _closing(words, c):
        return True
    return any(_later_clause(clause, c) or _addressed(clause, cues) or _closing(clause, c) for clause in clauses[1:])


def question_sentences(message: str, languages: dict[str, LanguageRules]) -> list[str]:
    """The sentences of ``message`` that ask something (in message order)."""
    found: list[str] = []
    for match in _SENTENCES.finditer(normalize(message)):
        sentence = match.group(0).strip()
        if not sentence:
            continue
        if "?" in sentence or "¿" in sentence or any(_cue(sentence, lang.question) for lang in languages.values()):
            found.append(sentence)
    return found


def sentence_asks(sentence: str, languages: dict[str, LanguageRules]) -> bool:
    """The sentence asks by a cue of some language (its question marks not counted)."""
    return any(_cue(sentence, lang.question) for lang in languages.values())


def is_question(message: str, rules: RetrievalRules) -> bool:
    return bool(question_sentences(message, rules.languages))
