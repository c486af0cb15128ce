"""What the question asks for must be what the passage states: an asked amount the passage states only with other
numbers is a near miss; an acronym counts as stated where the documents spell it out, and one they neither use nor
spell out names something they never mention (a small software company of my own)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.retrieval import GroundedAnswerer, build_answerer
from engine.retrieval.analysis import AnalyzerSet
from engine.retrieval.names import initials_index
from engine.retrieval.quantities import counted, other_amounts, quantities, unstated_amounts
from engine.retrieval.retrieval_rules import RetrievalRules
from tests.retrieval.project_rules import project_rules

from .conftest import CorpusFactory

SOFTWARE = """# Tallyfold help centre

## Signing in

Every plan supports single sign-on with your company's identity provider, and two-factor codes by app.

## Team plan

The team plan costs 12 EUR per user per month for up to 50 users, billed yearly.

## Storage

Each workspace includes 200 GB of file storage. Extra storage is sold in blocks of 100 GB.

## Data location

All customer data is stored in data centres in Frankfurt and Dublin.

## Support hours

Our support desk answers chat messages on weekdays from 8:00 to 18:00.

## Free trial

You can try every feature for 30 days without a card.

## Cancelling

You can cancel at any time; yearly plans are refunded for the unused months.
"""


@pytest.fixture
def software(make_corpus: CorpusFactory, embedding_cache: Path) -> GroundedAnswerer:
    return build_answerer(make_corpus({"help.md": SOFTWARE}), rules=project_rules(), cache_dir=embedding_cache)


def test_amounts_are_numbers_with_what_they_count(rules: RetrievalRules) -> None:
    es = AnalyzerSet.from_rules(rules).for_language("es")
    asked = quantities("¿Y el bono de 10 sesiones, a las 19:00, para 20.000 personas?", es)
    assert [(q.value, q.unit) for q in asked] == [("10", "sesion"), ("20000", "person")]
    stated = counted("Cada sesión cuesta 45 euros; el bono de 5 sesiones, 200 euros.", es)
    assert stated["sesion"] == frozenset({"5"})
    assert [q.text for q in other_amounts(asked, stated)] == ["10 sesiones"]
    assert other_amounts(quantities("el bono de 5 sesiones", es), stated) == []


def test_initials_spell_out_acronyms() -> None:
    index = initials_index([("a", ["single", "sign", "on"]), ("b", ["valor", "del", "dato", "x"])], frozenset({"del"}))
    assert index["sso"] == {"single sign on": frozenset({"a"})} and index["vdx"] == {"valor dato x": frozenset({"b"})}
    assert "ss" not in index  # two letters spell out too many word pairs


def test_an_acronym_the_documents_spell_out_is_answered(software: GroundedAnswerer) -> None:
    answer = software.answer("Do you support SSO?", "en")
    # answered, or (the model under answering.answer_min_probability) the same section quoted as related
    assert answer.kind in ("answer", "related") and answer.citations[0].passage_id == "help.md#signing-in"


def test_an_acronym_the_documents_never_mention_abstains(software: GroundedAnswerer) -> None:
    answer, trace = software.answer_with_trace("Do you support SCIM?", "en")
    assert not answer.supported and not answer.citations
    assert all(s.reason == "answerability.unknown_name" for s in trace.support)


def test_a_stated_bound_covers_the_amounts_on_its_side(rules: RetrievalRules) -> None:
    en = AnalyzerSet.from_rules(rules).for_language("en")
    bounds = rules.language("en").amount_bounds
    stated = counted("The team plan is for up to 50 users; courses from 6 weeks.", en, bounds)
    assert stated["user"] == frozenset({"<=50"}) and stated["week"] == frozenset({">=6"})
    asked = quantities("team plan for 30 users or 80 users, a course of 4 weeks or 8 weeks", en)
    assert [q.text for q in other_amounts(asked, stated)] == ["80 users", "4 weeks"]


def test_a_rate_or_notice_period_covers_every_amount(rules: RetrievalRules) -> None:
    es = AnalyzerSet.from_rules(rules).for_language("es")
    bounds = rules.language("es").amount_bounds
    stated = counted("Anulación gratuita con 7 días de antelación; después, el 50 %.", es, bounds)
    assert stated == {"dias": frozenset({"*"})}
    assert other_amounts(quantities("¿y si cancelo 3 días antes?", es), stated) == []
    # without a bound phrase, another amount is still a near miss
    assert [q.value for q in other_amounts(quantities("¿y 3 días antes?", es), counted("el bono de 7 días", es))] == [
        "3"
    ]


def test_an_amount_within_the_stated_bound_is_answered(software: GroundedAnswerer) -> None:
    answer = software.answer("How much is the team plan for 30 users?", "en")
    assert answer.supported and "12 EUR" in answer.text


def test_an_amount_stated_only_otherwise_is_a_near_miss(software: GroundedAnswerer, rules: RetrievalRules) -> None:
    answer, trace = software.answer_with_trace("How much is the team plan for 80 users?", "en")
    assert not answer.supported and not answer.citations
    plan = next(s for s in trace.support if s.passage_id == "help.md#team-plan")
    assert plan.reason == "answerability.other_amount" and plan.amounts == ["80 users"]
    assert answer.text.startswith(rules.language("en").near_miss_message.split("{")[0])
    assert "Team plan" in answer.text and "80 users" in answer.text


def test_the_stated_amount_is_answered(software: GroundedAnswerer) -> None:
    answer = software.answer("How much is the team plan for 50 users?", "en")
    assert answer.supported and "12 EUR" in answer.text


def test_a_part_of_the_day_is_stated_by_the_hours(software: GroundedAnswerer) -> None:
    """The word "evening" is never written, but the hours are: the section stating times answers it."""
    answer, trace = software.answer_with_trace("Does the support desk answer chats in the evening?", "en")
    assert answer.supported and answer.citations[0].passage_id == "help.md#support-hours"
    hours = next(s for s in trace.support if s.passage_id == "help.md#support-hours")
    assert "evening" in hours.matched


def test_accented_verb_endings_match_as_written(software: GroundedAnswerer) -> None:
    verbs = software.judge._verbs("¿Abrís los sábados? Es por una crisis; ¿arreglais bicis?")
    assert {"abris", "arreglais"} <= verbs and "crisis" not in verbs


def test_every_asked_word_stated_and_one_only_here_answers(software: GroundedAnswerer) -> None:
    """'Frankfurt' is written in one section only, and everything else asked is stated there too."""
    answer, _trace = software.answer_with_trace("Is my data kept in Frankfurt?", "en")
    assert answer.supported and answer.citations[0].passage_id == "help.md#data-location"


def test_an_unknown_acronym_beside_stated_words_is_a_paraphrase(software: GroundedAnswerer) -> None:
    _answer, trace = software.answer_with_trace("Are unused months of the yearly plans refunded under the EULA?", "en")
    cancelling = next(s for s in trace.support if s.passage_id == "help.md#cancelling")
    assert cancelling.reason != "answerability.unknown_name"


def test_an_unknown_action_is_not_an_only_here_paraphrase(software: GroundedAnswerer) -> None:
    _answer, trace = software.answer_with_trace("Do you sell identity providers?", "en")
    assert all(s.reason != "answerability.only_here" for s in trace.support)


def test_a_bare_number_counts_where_stated_and_never_against(software: GroundedAnswerer) -> None:
    terms = software.judge.asked_terms("Is the 200 included?", "en")
    number = next(t for t in terms if t.word.surface == "200")
    assert number.verb and number.stated_in == frozenset({"help.md#storage"})


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 999), st.integers(1, 999), st.sampled_from(["people", "litres", "users", "nights"]))
def test_an_asked_amount_is_unstated_only_when_no_counted_number_of_the_passage_covers_it(
    rules: RetrievalRules, asked_n: int, stated_n: int, unit: str
) -> None:
    en = AnalyzerSet.from_rules(rules).for_language("en")
    bounds = rules.language("en").amount_bounds
    asked = quantities(f"is there one for {asked_n} {unit}?", en)
    # the passage counts another thing: the number alone decides
    stated = counted(f"The large one sleeps {stated_n} guests.", en, bounds)
    assert bool(unstated_amounts(asked, stated)) == (asked_n != stated_n)
    # a bound covers the numbers on its side, for the thing it counts only
    upper = counted(f"Rooms for up to {stated_n} {unit}.", en, bounds)
    assert bool(unstated_amounts(asked, upper)) == (asked_n > stated_n)
    other_bound = counted(f"Stays of at least {stated_n} nights.", en, bounds)
    assert bool(unstated_amounts(asked, other_bound)) == (unit != "nights" or asked_n < stated_n)
    assert unstated_amounts(quantities("is there one for a family?", en), stated) == []
