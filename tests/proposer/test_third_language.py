"""A third language is data, not code: French cue data (rules/patterns/fr.json, rules/temporal/fr.json,
rules/quantity/fr.json) lets the offline proposer complete place, date, quantity and contact objectives of a
French-speaking company, and each language's words apply only to text in that language."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.conversation import Message, Role
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.ports import ProposerInput
from engine.kernel.validators import validate_value
from llm_adapters.offline.language import detect_languages
from tests.proposer.helpers import project_bundle, proposer

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "bistro_fr.json"
NOW = datetime(2027, 3, 1, 10, 0, tzinfo=UTC)  # a Monday


@lru_cache(maxsize=1)
def bistro() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate_json(FIXTURE.read_bytes())
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=NOW)


def accepted(text: str, *, language: str = "fr", last_asked: str | None = None) -> dict[str, str]:
    """Objective -> value of every Complete the decision layer's validators would accept."""
    published = bistro()
    request = ProposerInput(
        spec=published, bits=[0, 0, 0, 0], language=language, turn=1,
        message=Message(role=Role.VISITOR, turn=1, text=text), history=[], last_asked=last_asked,
        reference_time=NOW,
    )
    by_id = {o.id: o for o in published.spec.objectives}
    out = {}
    for command in proposer().propose(request).commands:
        if command.type != "complete":
            continue
        objective = by_id[command.objective]  # type: ignore[union-attr]
        result = validate_value(objective.criterion, command.value, command.span.quote,  # type: ignore[union-attr]
                                project_bundle(), published.spec)
        assert command.span.quote in text  # the witness is the visitor's own text
        if result.ok:
            out[objective.id] = result.normalized or command.value  # type: ignore[union-attr]
    return out


def test_a_dense_french_message_completes_every_kind() -> None:
    found = accepted("Bonjour, je voudrais réserver à Lyon le 14 mars pour 4 personnes, "
                     "mon e-mail est claire.martin@example.fr")
    assert set(found) == {"city", "date", "party_size", "contact"}
    assert found["city"] == "Lyon"
    assert found["date"] == "2027-03-14"
    assert found["party_size"] == "4"


def test_french_phone_in_national_format() -> None:
    assert "contact" in accepted("Vous pouvez m'appeler au 06 12 34 56 78.")


def test_french_refusal_completes_nothing() -> None:
    assert accepted("Je préfère ne pas donner mon numéro.", last_asked="contact") == {}


@pytest.mark.parametrize(("text", "conversation", "expected"), [
    ("Hotels in Los Angeles for two nights", "en", {"en"}),
    ("Busco un hotel en Madrid para dos noches", "en", {"en", "es"}),
    ("Je cherche une table pour ce soir", "en", {"en", "fr"}),
    ("I need a car in LA", "en", {"en"}),
])
def test_language_data_applies_only_to_text_in_that_language(
    text: str, conversation: str, expected: set[str],
) -> None:
    rules = proposer().rules
    detected = detect_languages(text, rules.function_words, conversation,
                                min_hits=rules.settings.language_min_hits,
                                min_share=rules.settings.language_min_share)
    assert detected == expected


_COVERAGE = ["Vous intervenez {p} {n} ?", "Est-ce que vous livrez {p} {n} ?", "Tu passes {p} {n} ?",
             "Pouvez-vous intervenir {p} {n} ?", "Vous venez {p} {n} ?", "Vous vous déplacez {p} {n} ?"]
_COMPANY_SELF = ["Vous êtes situés {p} {n} ?", "Vous avez dit {n} ?", "Votre agence est {p} {n} ?"]
_COMMUNE = st.builds(lambda head, tail: f"{head}{tail}", st.sampled_from(["Montvaillant", "Berchtoux", "Saint-Orvel",
                                                                          "Lavernay", "Pontrieux"]),
                     st.sampled_from(["", "-sur-Orge", "-les-Vignes", "-en-Bresse"]))


@settings(max_examples=40, deadline=None)
@given(template=st.sampled_from(_COVERAGE), prep=st.sampled_from(["à", "vers"]), name=_COMMUNE)
def test_a_coverage_question_naming_a_commune_records_it(template: str, prep: str, name: str) -> None:
    # asking whether the company serves a place names the visitor's area, in any word order French uses ("sur"
    # is a weak preposition: an unknown name after it is not taken)
    assert accepted(template.format(p=prep, n=name)).get("city") == name


@settings(max_examples=20, deadline=None)
@given(template=st.sampled_from(_COMPANY_SELF), name=_COMMUNE)
def test_a_question_about_the_company_itself_records_no_place(template: str, name: str) -> None:
    assert "city" not in accepted(template.format(p="à", n=name))
