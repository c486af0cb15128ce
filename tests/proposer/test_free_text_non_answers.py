"""Issue 28, free text and vocabularies on real visitors' long tail: what a visitor thanks for, acknowledgement-only
clauses of any length and acceptances referring back to what the other side said never answer a free-text question;
a several-word cue read with words between its words introduces a name; a vocabulary term in a question about the
offer ('check whether they permit smoking') is not a stated option. Properties over generated messages, in the
language data of rules/free_text and rules/patterns, never the benchmark's sentences."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.text import fold
from llm_adapters.offline.free_text import free_text_words
from tests.proposer.helpers import proposer, summary
from tests.proposer.test_quantity import completed

_NOUNS = st.sampled_from(["help", "assistance", "patience", "time", "answers", "the info", "everything", "support",
                          "your quick reply", "the suggestions", "finding that", "all of this"])
_VERBS = st.sampled_from(["play", "book", "try", "rent", "take", "reserve", "order", "keep", "do", "use"])
_OPENERS = st.sampled_from(["", "Yes, ", "Ok, ", "Yeah ", "Great. ", "Sure, please "])


@lru_cache(maxsize=1)
def _words_en():  # type: ignore[no-untyped-def]
    return free_text_words(proposer().rules_for("thanks", "en"))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Thank you for", "Thanks for", "Thanks so much for", "Thank you very much for"]), _NOUNS,
       st.sampled_from(["!", ".", "", " :)"]))
def test_what_is_thanked_for_never_answers(opening: str, thing: str, end: str) -> None:
    assert "notes" not in completed(f"{opening} {thing}{end}", last_asked="notes")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["Gracias por", "Muchas gracias por"]), st.sampled_from(["tu ayuda", "todo", "la información"]))
def test_what_is_thanked_for_never_answers_in_spanish(opening: str, thing: str) -> None:
    assert "notes" not in completed(f"{opening} {thing}.", "es", last_asked="notes")


def test_thanks_then_an_answer_keeps_the_answer() -> None:
    found = completed("Thank you for asking, we need a vegetarian menu.", last_asked="notes")
    assert found["notes"] == "we need a vegetarian menu"


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(sorted(
    {"yes", "ok", "sure", "that works", "sounds good", "go ahead", "works for me", "that's all i need", "i'm done",
     "much appreciated", "confirmed", "perfect", "great"})), min_size=1, max_size=8))
def test_acknowledgement_only_clauses_never_answer_at_any_length(parts: list[str]) -> None:
    words = _words_en()
    assert all(t in words.acknowledgement_words or t in words.stopwords for p in parts for t in fold(p).split())
    assert "notes" not in completed(" ".join(parts) + ".", last_asked="notes")


@settings(max_examples=60, deadline=None)
@given(_OPENERS, _VERBS, st.sampled_from(["it", "that", "them", "this"]), st.sampled_from(["", " now", " please"]))
def test_an_acceptance_referring_back_never_answers(opener: str, verb: str, anaphor: str, tail: str) -> None:
    assert "notes" not in completed(f"{opener}{verb} {anaphor}{tail}.", last_asked="notes")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["quiet", "vegetarian", "gluten free", "near the stage", "accessible for a wheelchair"]))
def test_something_said_after_the_anaphor_is_an_answer(what: str) -> None:
    found = completed(f"We want it {what}.", last_asked="notes")
    assert found.get("notes") == f"We want it {what}"


@lru_cache(maxsize=1)
def _transfer_spec() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "transfers", "title": "Money transfers", "default_language": "en", "languages": ["en"],
        "objectives": [
            {"id": "recipient", "name": "Recipient", "questions": {"en": "Who should receive the money?"},
             "weight": 1, "order": 1, "criterion": {"kind": "free_text", "description": "Who receives the money",
                                                    "params": {"cues": {"en": ["recipient", "send it to"]}}}},
            {"id": "amount", "name": "Amount", "questions": {"en": "How much?"}, "weight": 1, "order": 2,
             "criterion": {"kind": "money", "description": "The amount to send", "params": {"min_amount": 1}}},
        ],
        "locale": {"currency": "USD", "phone_region": "US", "time_zone": "America/New_York"},
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _transfer(text: str) -> dict[str, str]:
    request = ProposerInput(spec=_transfer_spec(), bits=[0, 0], language="en", turn=1, history=[],
                            message=Message(role=Role.VISITOR, turn=1, text=text),
                            reference_time=datetime(2026, 12, 1, tzinfo=UTC))
    return {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete"}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["", "$380 ", "the money ", "240 dollars ", "some cash "]),
       st.sampled_from(["Maria", "Li", "Abhinav", "Mom", "Svetlana Ivanova"]),
       st.sampled_from(["Please send", "I want to send", "Send"]))
def test_a_gapped_cue_before_a_name_names_the_objective(what: str, name: str, verb: str) -> None:
    found = _transfer(f"{verb} {what}to {name}.")
    assert name in found.get("recipient", "")


def test_a_gapped_cue_without_a_name_names_nothing() -> None:
    assert "recipient" not in _transfer("Please send the money to my savings account.")


_FEATURES = st.sampled_from(["parking", "a pool", "a garden", "a terrace", "a lift"])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["Please check whether they have", "Can you tell me if it has", "Ok, and is there",
                        "I'd like to know if the flat has", "Great, and does it have"]), _FEATURES)
def test_a_feature_asked_about_is_not_a_stated_requirement(ask: str, feature: str) -> None:
    assert "complete:requirements" not in summary("re", f"{ask} {feature}.")


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["I need", "Only if there is", "We want", "It must have"]), _FEATURES,
       st.sampled_from(["", ", if possible", " please"]))
def test_a_stated_feature_is_still_recorded(say: str, feature: str, tail: str) -> None:
    assert summary("re", f"{say} {feature}{tail}.").get("complete:requirements")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["I don't mind", "We don't mind"]), _FEATURES)
def test_not_minding_a_feature_neither_negates_nor_refuses_it(say: str, feature: str) -> None:
    found = summary("re", f"{say} {feature}.")
    assert "refuse:requirements" not in found
    assert found.get("complete:requirements")


@lru_cache(maxsize=1)
def _director_spec() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "films", "title": "Films", "default_language": "en", "languages": ["en"],
        "objectives": [
            {"id": "director", "name": "Director", "questions": {"en": "Do you have a director in mind?"},
             "weight": 1, "order": 1, "criterion": {"kind": "free_text", "description": "A film director",
                                                    "params": {"cues": {"en": ["director", "directed by"]}}}},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _director(text: str) -> dict[str, str]:
    request = ProposerInput(spec=_director_spec(), bits=[0], language="en", turn=1, history=[],
                            message=Message(role=Role.VISITOR, turn=1, text=text), last_asked="director")
    return {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete"}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["No", "Nope", "No thanks", "Not really"]), st.sampled_from([", ", ". "]),
       st.sampled_from(["I'd rather watch Upside", "I want to see Green Book", "Actually, let's rent Dogman"]))
def test_no_to_a_yes_no_question_then_something_else_is_no_answer(no: str, cut: str, rest: str) -> None:
    assert "director" not in _director(f"{no}{cut}{rest}.")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["Yes, ", "", "Sure, "]), st.sampled_from(["Spielberg", "Agnès Varda", "Bong Joon-ho"]))
def test_a_named_director_still_answers(yes: str, name: str) -> None:
    assert name in _director(f"{yes}{name}").get("director", "")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["Thank you for", "Thanks for", "Thanks so much for"]),
       st.sampled_from(["parking", "the pool", "the garden", "the terrace"]))
def test_a_term_in_what_is_thanked_for_is_no_option(thanks: str, thing: str) -> None:
    assert "complete:requirements" not in summary("re", f"{thanks} {thing} information.")


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["Send me the address and if they have", "Find the price, or if it has"]), _FEATURES)
def test_a_feature_in_a_trailing_if_question_is_asked_about(ask: str, feature: str) -> None:
    assert "complete:requirements" not in summary("re", f"{ask} {feature}?")


@lru_cache(maxsize=1)
def _account_spec() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "accounts", "title": "Accounts", "default_language": "en", "languages": ["en"],
        "vocabularies": {"kinds": {"version": "1.0.0", "description": "Account kinds", "id": "kinds",
                                   "kind": "enumeration",
                                   "options": {"checking": {"en": ["checking", "checking account"]},
                                               "savings": {"en": ["savings", "savings account"]}}}},
        "objectives": [
            {"id": "kind", "name": "Account kind", "questions": {"en": "Into which kind of account does it go?"},
             "weight": 1, "order": 1, "criterion": {"kind": "enumeration", "description": "The account kind",
                                                    "params": {"vocabulary": "kinds"}}},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _account(text: str) -> dict[str, str]:
    request = ProposerInput(spec=_account_spec(), bits=[0], language="en", turn=1, history=[],
                            message=Message(role=Role.VISITOR, turn=1, text=text), last_asked="kind")
    return {c.objective: c.value for c in proposer().propose(request).commands
            if c.type == "complete"}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["", "Okay, ", "I'd like to ", "Could you "]), st.sampled_from(["check", "save"]),
       st.sampled_from(["my", "our", "their"]), st.sampled_from(["balance", "details", "history", "changes"]))
def test_a_verb_sharing_an_options_stem_names_no_option(opener: str, verb: str, owner: str, thing: str) -> None:
    assert "kind" not in _account(f"{opener}{verb} {owner} {thing}.")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["", "Into ", "It goes to "]), st.sampled_from(["my", "their", "the"]),
       st.sampled_from(["checking", "savings"]))
def test_an_option_named_after_a_determiner_is_still_recorded(opener: str, owner: str, option: str) -> None:
    assert _account(f"{opener}{owner} {option} account.").get("kind") == option
