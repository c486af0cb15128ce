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
"""

from __future__ import annotations

import re

from engine.retrieval.rules import LanguageRules, QuestionCues, RetrievalRules
from engine.text import fold, normalize

_SENTENCES = re.compile(r"[^.!?¿¡\n]+[.!?]*|[¿¡][^?!\n]*[?!]?")
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def _words(text: str) -> list[str]:
    return [w.replace("’", "'") for w in _WORD.findall(normalize(text).casefold())]


def _contains_phrase(folded_sentence: str, phrase: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(fold(phrase))}(?!\w)", folded_sentence) is not None


def _cue(sentence: str, cues: QuestionCues) -> bool:
    folded = fold(sentence)
    if any(_contains_phrase(folded, phrase) for phrase in cues.request_phrases):
        return True
    words = _words(sentence)
    if not words:
        return False
    aux = set(cues.auxiliaries)
    if len(words) >= 2 and words[0] in aux and words[1] in set(cues.subject_words):
        return True
    if len(words) >= 3 and words[0] in set(cues.question_openers):
        return True
    if "¡" not in sentence and set(words) & set(cues.anywhere_wh_words):  # "¡qué bien!" exclaims
        return True
    start = 1 if words[0] in set(cues.wh_prepositions) and len(words) > 1 else 0
    if words[start] in set(cues.informal_wh_words):
        window = {fold(w) for w in words[start + 1 : start + 3]}
        if window and not window & {fold(w) for w in cues.informal_blocked}:
            return True
    if words[start] not in set(cues.wh_words):
        return False
    following = words[start + 1 : start + 1 + max(cues.aux_window, 1)]
    if following and following[0] in set(cues.blocked_after_wh):
        return False
    if words[start] in set(cues.standalone_wh_words):
        return True
    return any(word in aux for word in following[: cues.aux_window])


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


def is_question(message: str, rules: RetrievalRules) -> bool:
    return bool(question_sentences(message, rules.languages))
