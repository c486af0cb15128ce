"""Declined yes/no features in the offline proposer (spec/adr/0009), French number words of every French-speaking
region, and counts of people stated without a number (multiples, a party introduced by a head-count cue, a lone
member given with its age). Properties over generated inputs, not sentences of a benchmark."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.commands import Command
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from llm_adapters.offline.numbers import words_value
from tests.proposer.helpers import project_bundle, proposer

# ---- a yes/no feature of a company that is not a demo ------------------------------------------------------

FEATURES = {"towels": {"en": ["towels"], "es": ["toallas"], "fr": ["serviettes"]},
            "helmet": {"en": ["helmet"], "es": ["casco"], "fr": ["casque"]},
            "transfer": {"en": ["airport transfer"], "es": ["traslado"], "fr": ["navette"]}}


@lru_cache(maxsize=8)
def _feature_spec(option: str) -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "rental", "title": "Rental", "default_language": "en", "languages": ["en", "es", "fr"],
        "vocabularies": {"extra": {"version": "1.0.0", "description": "One extra", "id": "extra",
                                   "kind": "features", "options": {option: FEATURES[option]}}},
        "objectives": [
            {"id": "extra", "name": "Extra", "questions": {"en": "Do you need it?", "es": "¿Lo necesita?",
                                                           "fr": "En avez-vous besoin ?"},
             "criterion": {"kind": "features", "description": "Whether they need the extra",
                           "params": {"vocabulary": "extra"}}, "weight": "0.5", "order": 1},
            {"id": "name", "name": "Name", "questions": {"en": "Your name?"},
             "criterion": {"kind": "free_text", "description": "The visitor's name"}, "weight": "0.5", "order": 2},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


def _propose(spec: PublishedGoalSpec, text: str, language: str, asked: str | None, bits: list[int] | None = None
             ) -> list[Command]:
    request = ProposerInput(spec=spec, bits=bits or [0] * len(spec.spec.objectives), language=language, turn=1,
                            message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked=asked,
                            refused=[], stopped=False)
    return list(proposer().propose(request).commands)


def _of(commands: list[Command], objective: str) -> list[Command]:
    return [c for c in commands if getattr(c, "objective", None) == objective]


def _accepted(spec: PublishedGoalSpec, command: Command) -> bool:
    objective = next(o for o in spec.spec.objectives if o.id == command.objective)  # type: ignore[union-attr]
    return validate_value(objective.criterion, command.value, command.span.quote,  # type: ignore[union-attr]
                          project_bundle(), spec.spec).ok


DECLINES = {"en": ["No thanks.", "No, we have our own.", "Nope.", "No thank you, not this time.",
                   "I don't need it."],
            "es": ["No, gracias.", "No, tenemos el nuestro.", "No hace falta."],
            "fr": ["Non merci.", "Non, on a le nôtre.", "Pas besoin."]}
_DECLINE = st.sampled_from([(lang, text) for lang, texts in DECLINES.items() for text in texts])


@settings(max_examples=30, deadline=None)
@given(option=st.sampled_from(sorted(FEATURES)), answer=_DECLINE)
def test_a_no_to_the_feature_just_asked_is_recorded_as_declined(option: str, answer: tuple[str, str]) -> None:
    language, text = answer
    spec = _feature_spec(option)
    [command] = _of(_propose(spec, text, language, "extra"), "extra")
    assert command.type == "complete" and command.value == f"no:{option}"
    assert _accepted(spec, command)


@settings(max_examples=20, deadline=None)
@given(option=st.sampled_from(sorted(FEATURES)), answer=_DECLINE)
def test_a_bare_no_is_no_answer_when_the_feature_was_not_asked(option: str, answer: tuple[str, str]) -> None:
    language, text = answer
    assert not _of(_propose(_feature_spec(option), text, language, "name"), "extra")


@pytest.mark.parametrize(("text", "language"), [
    ("No idea yet.", "en"), ("No problem, go ahead.", "en"), ("No, I'd rather not say.", "en"),
    ("No sé todavía.", "es"), ("Non, je ne sais pas encore.", "fr"),
])
def test_uncertainty_refusal_and_agreement_are_not_declines(text: str, language: str) -> None:
    commands = _of(_propose(_feature_spec("towels"), text, language, "extra"), "extra")
    assert all(not (getattr(c, "value", None) or "").startswith("no:") for c in commands), commands


@settings(max_examples=20, deadline=None)
@given(option=st.sampled_from(sorted(FEATURES)), language=st.sampled_from(["en", "es", "fr"]))
def test_a_named_feature_is_claimed_and_a_negated_one_declined(option: str, language: str) -> None:
    spec = _feature_spec(option)
    term = FEATURES[option][language][0]
    claim = {"en": f"Yes, {term} please.", "es": f"Sí, {term} por favor.", "fr": f"Oui, {term} s'il vous plaît."}
    negation = {"en": f"We don't need {term}.", "es": f"Sin {term}.", "fr": f"Pas de {term}."}
    [claimed] = _of(_propose(spec, claim[language], language, "extra"), "extra")
    assert claimed.value == option and _accepted(spec, claimed)  # type: ignore[union-attr]
    [declined] = _of(_propose(spec, negation[language], language, None), "extra")
    assert declined.value == f"no:{option}" and _accepted(spec, declined)  # type: ignore[union-attr]


def test_actually_yes_after_a_decline_is_a_correction() -> None:
    spec = _feature_spec("towels")
    request = ProposerInput(spec=spec, bits=[1, 0], language="en", turn=2,
                            message=Message(role=Role.VISITOR, turn=2, text="Actually, yes, we need towels."),
                            history=[], last_asked="name", refused=[], stopped=False,
                            recorded={"extra": "no:towels"})
    [command] = _of(list(proposer().propose(request).commands), "extra")
    assert command.type == "correct" and command.value == "towels"


# ---- French number words of every region (an independent speller is the oracle) ---------------------------

_UNITS = ["", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "onze", "douze",
          "treize", "quatorze", "quinze", "seize"]
_TENS = {2: "vingt", 3: "trente", 4: "quarante", 5: "cinquante", 6: "soixante"}
_REGIONAL = {7: "septante", 8: "huitante", 9: "nonante"}


def _below_100(n: int, regional: bool, octante: bool) -> list[str]:
    if n <= 16:
        return [_UNITS[n]] if n else []
    if n < 20:
        return ["dix", _UNITS[n - 10]]
    tens, unit = divmod(n, 10)
    if tens >= 7 and regional:
        word = "octante" if tens == 8 and octante else _REGIONAL[tens]
        return [word] + (["et", "un"] if unit == 1 else [_UNITS[unit]] if unit else [])
    if tens == 7:
        return ["soixante"] + (["et", "onze"] if unit == 1 else _below_100(10 + unit, False, False))
    if tens == 8:
        return ["quatre", "vingts" if unit == 0 else "vingt"] + ([_UNITS[unit]] if unit else [])
    if tens == 9:
        return ["quatre", "vingt"] + _below_100(10 + unit, False, False)
    return [_TENS[tens]] + (["et", "un"] if unit == 1 else [_UNITS[unit]] if unit else [])


def _french(n: int, regional: bool, octante: bool) -> list[str]:
    hundreds, rest = divmod(n, 100)
    head = [] if hundreds == 0 else (["cent"] if hundreds == 1 else [_UNITS[hundreds], "cents" if rest == 0
                                                                      else "cent"])
    return head + _below_100(rest, regional, octante)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(1, 999), regional=st.booleans(), octante=st.booleans())
def test_french_numbers_of_every_region_are_read(n: int, regional: bool, octante: bool) -> None:
    numbers = proposer()._rules.numbers
    parsed = words_value(numbers, _french(n, regional, octante))
    assert parsed is not None and parsed[0] == Decimal(n), _french(n, regional, octante)


# ---- counts of people without a number --------------------------------------------------------------------


@lru_cache(maxsize=2)
def _count_spec(unit_terms: tuple[str, ...]) -> PublishedGoalSpec:
    params: dict[str, Any] = {"unit": "children", "min": 1, "max": 50, "integer": True,
                              "unit_terms": {"en": list(unit_terms[:3]), "fr": list(unit_terms[3:])}}
    spec = GoalSpec.model_validate({
        "id": "club", "title": "Club", "default_language": "en", "languages": ["en", "fr"],
        "objectives": [
            {"id": "children", "name": "Children", "questions": {"en": "How many children?", "fr": "Combien ?"},
             "criterion": {"kind": "quantity", "description": "How many children they enrol", "params": params},
             "weight": "0.5", "order": 1},
            {"id": "notes", "name": "Notes", "questions": {"en": "Anything else?"},
             "criterion": {"kind": "free_text", "description": "Anything else"}, "weight": "0.5", "order": 2},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


CHILD_SPEC = ("children", "child", "daughter", "enfants", "enfant", "fille")
NAMES = ["Louise", "Tom", "Inès", "Karim", "Mia"]


def _count(text: str, language: str, unit_terms: tuple[str, ...] = CHILD_SPEC) -> list[str]:
    return [c.value for c in _of(_propose(_count_spec(unit_terms), text, language, None),  # type: ignore[union-attr]
                                 "children")]


@settings(max_examples=20, deadline=None)
@given(multiple=st.sampled_from([("twins", 2, "en"), ("triplets", 3, "en"), ("jumeaux", 2, "fr"),
                                 ("jumelles", 2, "fr")]))
def test_multiples_introduced_by_a_head_count_cue_are_counted(multiple: tuple[str, int, str]) -> None:
    noun, count, language = multiple
    text = f"It's for my {noun}." if language == "en" else f"C'est pour mes {noun}."
    assert _count(text, language) == [str(count)]


@settings(max_examples=20, deadline=None)
@given(name=st.sampled_from(NAMES), age=st.integers(2, 16), language=st.sampled_from(["en", "fr"]))
def test_a_lone_member_named_with_its_age_counts_one(name: str, age: int, language: str) -> None:
    text = f"My daughter {name} is {age} years old." if language == "en" else f"Ma fille {name} a {age} ans."
    assert _count(text, language) == ["1"]
    # the same sentence counts nothing for an objective whose unit nouns do not name that member
    assert _count(text, language, ("seats", "places", "tickets", "places", "billets", "sieges")) == []
