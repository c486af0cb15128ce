"""The free-text language data of every language, compiled once per rule set: greetings and pleasantries to
drop, acknowledgements and asides that never answer, stopwords, name statements, role leads. Read by the free-text
extractor, the choice extractor and the temporal extractor (a social aside is no date); kept apart from the
free-text extractor so that those modules do not import each other."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.text import fold
from llm_adapters.offline.memo import memo
from llm_adapters.offline.offline_rules import OfflineRules
from llm_adapters.offline.quantity_data import NEVER, alternation

FLAGS = re.IGNORECASE | re.UNICODE
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


@dataclass(frozen=True)
class FreeTextWords:
    leading: re.Pattern[str]  # greetings and interjections at the start of an answer
    trailing: re.Pattern[str]  # pleasantries at the end of an answer
    acknowledgements: frozenset[str]  # whole answers that say nothing
    asides: re.Pattern[str]  # social asides ('sorry, my Spanish is bad'): never an answer
    stopwords: frozenset[str]
    min_cue_length: int
    name_markers: frozenset[str] = frozenset()
    name_introducers: frozenset[str] = frozenset()  # 'called', 'titled': the next word is a name in any case
    acknowledgement_words: frozenset[str] = frozenset()  # words of acknowledgements: "yes, that's correct"
    thanked_for: re.Pattern[str] = NEVER  # 'thank you for': what follows up to the next break is thanked for
    anaphors: frozenset[str] = frozenset()  # 'it', 'that': words referring back to what the other side said
    declines: re.Pattern[str] = NEVER  # a message opening with 'no' / 'nope': the visitor says no
    yes_no_questions: tuple[tuple[str, re.Pattern[str]], ...] = ()  # (language, how a yes/no question opens)
    restated_min_words: int = 3  # content words besides a restated recorded value for a clause to still answer
    name_before: tuple[re.Pattern[str], ...] = ()  # 'i like', 'heard that': a capitalised name follows
    name_after: tuple[re.Pattern[str], ...] = ()  # 'is supposed to be good': a capitalised name precedes
    name_joiners: frozenset[str] = frozenset()  # 'vs': joins two names into one
    other_name_leads: frozenset[str] = frozenset()  # 'by', 'directed by': the name after one is someone else's
    category_nouns: frozenset[str] = frozenset()  # 'food', 'type': a lone capitalised word before one classifies
    category_determiners: frozenset[str] = frozenset()  # 'a', 'another': a capitalised word after one is a kind
    not_names: frozenset[str] = frozenset()  # 'someone else', 'anything': a short answer holding one names none
    selection_before: tuple[re.Pattern[str], ...] = ()  # 'go with', 'rent': the name after it is an offered item
    selection_after: tuple[re.Pattern[str], ...] = ()  # 'sounds good', 'works for me': the name before it likewise
    role_leads: dict[str, frozenset[str]] = field(default_factory=dict)  # 'by' -> cue words of creator roles


def free_text_words(rules: OfflineRules) -> FreeTextWords:
    def build() -> FreeTextWords:
        family = rules.family("free_text")
        docs = [family[lang] for lang in sorted(family)]

        def collect(name: str) -> list[str]:
            return [str(w) for doc in docs for w in doc.get(name, [])]

        leading, trailing = alternation(collect("leading")), alternation(collect("trailing"))
        asides, thanked = alternation(collect("asides")), alternation(collect("thanked_for"))
        declines = alternation(collect("declines"))
        return FreeTextWords(
            leading=re.compile(rf"(?:{leading})(?![^\W_])[\s,;:.!\-–—…]*", FLAGS) if leading else NEVER,
            trailing=re.compile(rf"[\s,;:.!\-–—…]*(?<![^\W_])(?:{trailing})[\s,;:.!…]*$", FLAGS)
            if trailing else NEVER,
            acknowledgements=frozenset(" ".join(fold(w).split()) for w in collect("acknowledgements")),
            asides=re.compile(rf"(?<![^\W_]){asides}(?![^\W_])", FLAGS) if asides else NEVER,
            stopwords=frozenset(fold(w) for w in collect("stopwords")),
            min_cue_length=min((int(d.get("min_cue_length", 4)) for d in docs), default=4),
            restated_min_words=min((int(d.get("restated_min_words", 3)) for d in docs), default=3),
            name_before=tuple(re.compile(r, FLAGS) for r in collect("name_statements_before")),
            name_after=tuple(re.compile(r, FLAGS) for r in collect("name_statements_after")),
            name_joiners=frozenset(fold(w) for w in collect("name_joiners")),
            selection_before=tuple(re.compile(r, FLAGS) for r in collect("selection_before")),
            selection_after=tuple(re.compile(r, FLAGS) for r in collect("selection_after")),
            role_leads=_role_leads(docs),
            name_markers=frozenset(fold(w) for w in collect("name_markers")),
            name_introducers=frozenset(fold(w) for w in collect("name_introducers")),
            acknowledgement_words=frozenset(t for w in collect("acknowledgements") for t in WORD.findall(fold(w))),
            thanked_for=re.compile(rf"(?:{thanked})(?![^\W_])", FLAGS) if thanked else NEVER,
            anaphors=frozenset(fold(w) for w in collect("anaphors")),
            other_name_leads=frozenset(fold(w) for w in collect("other_name_leads")),
            category_nouns=frozenset(fold(w) for w in collect("category_nouns")),
            category_determiners=frozenset(fold(w) for w in collect("category_determiners")),
            not_names=frozenset(" ".join(fold(w).split()) for w in collect("not_names")),
            declines=re.compile(rf"\s*(?:{declines})(?![^\W_])", FLAGS) if declines else NEVER,
            yes_no_questions=tuple((lang, re.compile("|".join(f"(?:{r})" for r in family[lang]["yes_no_question"]),
                                                     FLAGS))
                                   for lang in sorted(family) if family[lang].get("yes_no_question")),
        )
    return memo(rules, "free_text_words", build)


def _role_leads(docs: list[dict[str, object]]) -> dict[str, frozenset[str]]:
    leads: dict[str, set[str]] = {}
    for doc in docs:
        table = doc.get("role_leads", {})
        for lead, roles in (table.items() if isinstance(table, dict) else ()):
            leads.setdefault(fold(str(lead)), set()).update(fold(str(r)) for r in roles)
    return {lead: frozenset(roles) for lead, roles in leads.items()}
