"""Free-text cues that tell one objective apart: words every visitor of the company says are no cue.

A free-text objective's cues (``params.cues``) let the extractor take an unasked statement as its answer and
keep it off statements about other objectives. The manager's phrase often carries the company's scope noun
("category to which the rental car belongs", "type of cab ride", "genre of the movie"): a word the company's own
description (a context sentence of the intent) or another objective's phrase also uses names the business, not
this objective, so "Book me a rental car" would answer "the category". Such shared words are dropped from the
free-text objective's own cues; its head noun ("category", "type", "genre") always stays, and an objective whose
every word is shared keeps its cues unchanged (dropping all would leave it nothing to be named by). The name of a
thing (``phrasing.name_heads``: "name of the hotel") also keeps the thing's nouns: visitors name it by them ("the
Hanover Hotel"), and the extractor asks a name question's answer for a name.
"""

from __future__ import annotations

import re
from dataclasses import replace

from engine.compiler import phrasing
from engine.compiler.assemble import Built
from engine.compiler.compiler_rules import CompilerRules
from engine.goals.models import CriterionKind
from engine.text import fold

INTENT_PHRASES = "intent_phrases"
_WORD = re.compile(r"[^\W_][\w'-]*")


def _words(texts: list[str], language: str, rules: CompilerRules) -> set[str]:
    found: set[str] = set()
    for text in texts:
        for word in phrasing.content_words(text, language, rules):
            found.update(fold(v) for v in phrasing.variants(word, language, rules.phrasing))
    return found


def _named_thing(phrase: str, rules: CompilerRules) -> list[str]:
    """The words of the thing a name phrase names: 'name of the hair stylist/salon' -> hair, stylist, salon."""
    stop = {w for ws in rules.phrasing.stopwords.values() for w in ws}
    roles = {r for rs in rules.phrasing.roles.values() for r in rs}
    heads = {fold(w) for ws in rules.phrasing.name_heads.values() for w in ws}
    run: list[str] = []
    after_head = False
    for word in _WORD.findall(fold(phrase)):
        if not after_head:
            after_head = word in heads
        elif word in stop or word in roles:
            if run:
                break
        else:
            run.append(word)
    return run


def _phrases(item: Built) -> list[str]:
    return [str(p) for p in item.draft.params.get(INTENT_PHRASES, [])]


def distinctive_cues(built: list[Built], context: list[str], language: str, rules: CompilerRules) -> list[Built]:
    """``built`` with each free-text objective's shared cue words removed (see the module docstring)."""
    result: list[Built] = []
    for index, item in enumerate(built):
        cues = item.draft.params.get("cues", {})
        own = cues.get(language) if isinstance(cues, dict) else None
        if item.draft.criterion is not CriterionKind.FREE_TEXT or not own:
            result.append(item)
            continue
        others = [p for j, other in enumerate(built) if j != index for p in _phrases(other)]
        shared = _words([*others, *context], language, rules)
        head = next((h for p in _phrases(item) if (h := phrasing.head_noun(p, rules)) is not None), None)
        kept_words = [head] if head else []
        if head is not None and fold(head) in {fold(w) for w in rules.phrasing.name_heads.get(language, [])}:
            kept_words += [w for p in _phrases(item) for w in _named_thing(p, rules)]
        keep = {fold(v) for w in kept_words for v in phrasing.variants(w, language, rules.phrasing)}
        kept = [c for c in own if fold(c) in keep or not set(fold(c).split()) <= shared]
        if not kept or kept == own:
            result.append(item)
            continue
        params = {**item.draft.params, "cues": {**cues, language: kept}}
        result.append(replace(item, draft=item.draft.model_copy(update={"params": params})))
    return result
