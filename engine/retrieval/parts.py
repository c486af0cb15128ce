"""The parts of a multi-part question (issue 32 item 7): "How much is X, and do you do Y?" asks two things.

Answered as one question, the section that fits one half wins and the other half gets no word at all. So a short
message is cut into its questions: each question sentence, and inside a sentence each clause that a joiner word
("and", "y", "et"; ``answering.multi_part.joiners``) opens when that clause asks on its own by the question cues
(questions.py, read without its question mark: "… and do you fix watches" asks, "… and a helmet" does not). A
piece that does not ask ("I have two kids and do you …") stays with the question after it as its context. A
message with more pieces than ``max_parts``, or longer than ``max_chars`` (a visitor's story, whose questions are
asked in passing), is one question, as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engine.retrieval.questions import question_sentences, sentence_asks
from engine.retrieval.retrieval_rules import LanguageRules, MultiPartSettings
from engine.text import fold, normalize

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_EDGE = " \t,;:¿?¡!."


def _asks(piece: str, languages: Mapping[str, LanguageRules]) -> bool:
    """The piece asks by a cue of some language, its question marks set aside (a trailing "?" belongs to the
    whole sentence, not to each clause of it)."""
    bare = piece.replace("?", " ").replace("¿", " ").strip(_EDGE)
    return bool(bare) and sentence_asks(bare, dict(languages))


def _clauses(sentence: str, joiners: frozenset[str], languages: Mapping[str, LanguageRules]) -> list[str]:
    """The sentence cut before every joiner word that opens a clause asking on its own."""
    pieces: list[str] = []
    start = 0
    for match in _WORD.finditer(sentence):
        if fold(match.group(0)) not in joiners or not sentence[start : match.start()].strip(_EDGE):
            continue
        rest = sentence[match.end() :]
        following = _WORD.search(rest)
        if following is None:
            continue
        if _asks(rest, languages):
            pieces.append(sentence[start : match.start()])
            start = match.end()
    pieces.append(sentence[start:])
    return [p.strip(" \t,;:") for p in pieces if p.strip(_EDGE)]


def question_parts(
    message: str, languages: Mapping[str, LanguageRules], settings: MultiPartSettings
) -> list[str]:
    """The message's questions when it asks two to ``max_parts`` separate things, else [] (one question)."""
    text = normalize(message)
    if settings.max_parts < 2 or len(text) > settings.max_chars:
        return []
    joiners = frozenset(fold(w) for words in settings.joiners.values() for w in words)
    pieces: list[str] = []
    for sentence in question_sentences(text, dict(languages)):
        pieces.extend(_clauses(sentence, joiners, languages))
    return _grouped(pieces, languages, settings.max_parts)


def _grouped(pieces: Sequence[str], languages: Mapping[str, LanguageRules], max_parts: int) -> list[str]:
    """Pieces that do not ask joined to the question after them (the last one to the question before it). A
    question's marks count for the clause they touch: the closing "?" for the last, the Spanish opening "¿" for
    the first ("¿Usáis X y trabajáis con Y?" asks two things even when "usáis" is too short to be told from a
    number by its ending)."""
    parts: list[str] = []
    context = ""
    for piece in pieces:
        asks = "?" in piece or "¿" in piece or _asks(piece, languages)
        if not asks:
            context = f"{context} {piece}".strip()
            continue
        parts.append(f"{context} {piece}".strip() if context else piece)
        context = ""
    if context and parts:
        parts[-1] = f"{parts[-1]} {context}"
    return parts if 2 <= len(parts) <= max_parts else []
