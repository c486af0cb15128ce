"""Free-text cues that tell one objective apart: words every visitor of the company says are no cue.

A free-text objective's cues (``params.cues``) let the extractor take an unasked statement as its answer and
keep it off statements about other objectives. The manager's phrase often carries the company's scope noun
("category to which the rental car belongs", "type of cab ride", "genre of the movie"): a word the company's own
description (the intent's words outside its phrases) also uses names the business, not this objective, so "Book me a
rental car" would answer "the category". Such words are dropped from the free-text objective's own cues when
they stand after its head noun (the scope: "type of cab ride"); the head and the words before it ("account type")
always stay. A word only another objective's phrase shares stays ("ride" in "destination for the ride" and in
"whether the ride is shared": visitors say it with the second's answer). The name of a thing
(``phrasing.name_heads``: "name of the hotel", "name of match or artist for event") keeps every cue: visitors
name it beside those nouns ("the Hanover Hotel", "events in NY, the Yankees vs Orioles"), and the extractor asks
a name for a capitalised name anyway. An objective left with no cue keeps its cues unchanged.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engine.compiler import phrasing
from engine.compiler.assemble import Built
from engine.compiler.compiler_rules import CompilerRules
from engine.compiler.intent import IntentReading
from engine.kernel.goal_models import CriterionKind
from engine.text import fold

INTENT_PHRASES = "intent_phrases"
_WORD = re.compile(r"[^\W_][\w'-]*")


def _words(texts: list[str], language: str, rules: CompilerRules) -> set[str]:
    found: set[str] = set()
    for text in texts:
        for word in phrasing.content_words(text, language, rules):
            found.update(fold(v) for v in phrasing.variants(word, language, rules.phrasing))
    return found


def _protected(phrase: str, rules: CompilerRules) -> list[str] | None:
    """Words of the phrase that say what it asks for: the words up to its head noun ('account type' of 'account
    type of the user'). None for the name of a thing ('name of the hotel'): every word of it stays a cue."""
    stop = {w for ws in rules.phrasing.stopwords.values() for w in ws}
    roles = {r for rs in rules.phrasing.roles.values() for r in rs}
    heads = {fold(w) for ws in rules.phrasing.name_heads.values() for w in ws}
    head = phrasing.head_noun(phrase, rules)
    words = _WORD.findall(fold(phrase))
    if head is None or head not in words:
        return []
    if head in heads:
        return None
    return [w for w in words[:words.index(head) + 1] if w not in stop and w not in roles]


def _phrases(item: Built) -> list[str]:
    return [str(p) for p in item.draft.params.get(INTENT_PHRASES, [])]


def context_text(reading: IntentReading) -> str:
    """The intent without its phrases: what the manager says about the company and when to ask."""
    text = list(reading.folded)
    for phrase in reading.phrases:
        text[phrase.start:phrase.end] = " " * (phrase.end - phrase.start)
    return "".join(text)


def distinctive_cues(built: list[Built], context: list[str], language: str, rules: CompilerRules) -> list[Built]:
    """``built`` with each free-text objective's shared cue words removed (see the module docstring)."""
    result: list[Built] = []
    for item in built:
        cues = item.draft.params.get("cues", {})
        own = cues.get(language) if isinstance(cues, dict) else None
        if item.draft.criterion is not CriterionKind.FREE_TEXT or not own:
            result.append(item)
            continue
        shared = _words(context, language, rules)
        protected = [_protected(p, rules) for p in _phrases(item)]
        if any(words is None for words in protected):
            result.append(item)
            continue
        kept_words = [w for words in protected for w in words or []]
        keep = {fold(v) for w in kept_words for v in phrasing.variants(w, language, rules.phrasing)}
        kept = [c for c in own if fold(c) in keep or not all(
            {fold(v) for v in phrasing.variants(w, language, rules.phrasing)} & shared for w in fold(c).split())]
        if not kept or kept == own:
            result.append(item)
            continue
        params = {**item.draft.params, "cues": {**cues, language: kept}}
        result.append(replace(item, draft=item.draft.model_copy(update={"params": params})))
    return result
