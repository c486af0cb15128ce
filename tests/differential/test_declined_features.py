"""Declined yes/no features (spec/adr/0009, SPEC D-13): the engine against the reference model, and the real
decision layer over sequences of declined and affirmed answers.

* The engine's reading of a features value (engine/kernel/values.py) equals the reference model's (spec/reference.py).
* Through the Decider (validators, acceptance rules, Z3 transition check): the first answer, declined or not,
  completes the objective; every later answer is a Correct appended to the history; the state never goes back
  (I-6); the reading is the last answer's; a declined-then-affirmed feature ends claimed; a declined answer never
  reads as claimed, in the reading, the summary line, the lead export or the webhook payload.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.goals.publication import spec_hash
from engine.kernel.commands import Complete, Correct, Span
from engine.kernel.conversation import ConversationState, Message, Role
from engine.kernel.decision.decider import Decider
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec
from engine.kernel.validators import validate_value
from engine.kernel.values import current_value, feature_reading
from engine.leads.export import lead_of, to_csv
from engine.leads.webhook import completion_event
from engine.rules.loader import RuleBundle
from engine.storage.base import ConversationSummary
from spec.reference import feature_reading as reference_reading
from tests.proposer.helpers import project_bundle

OPTIONS = ("laundry", "parking", "pool")
TERMS = {"laundry": "laundry", "parking": "parking", "pool": "pool"}


def _spec() -> PublishedGoalSpec:
    spec = GoalSpec.model_validate({
        "id": "stay", "title": "Stay", "default_language": "en", "languages": ["en"],
        "vocabularies": {"extras": {"version": "1.0.0", "description": "Extras", "id": "extras",
                                    "kind": "features",
                                    "options": {o: {"en": [TERMS[o]]} for o in OPTIONS}}},
        "objectives": [
            {"id": "extras", "name": "Extras", "questions": {"en": "Do you need laundry, parking or a pool?"},
             "criterion": {"kind": "features", "description": "Extras the guest needs",
                           "params": {"vocabulary": "extras"}}, "weight": "0.5", "order": 1},
            {"id": "notes", "name": "Notes", "questions": {"en": "Anything else?"},
             "criterion": {"kind": "free_text", "description": "Anything else"}, "weight": "0.5", "order": 2},
        ],
    })
    return PublishedGoalSpec(spec=spec, version=1, content_hash=spec_hash(spec), approved_by="tests",
                             approved_at=datetime(2026, 1, 1, tzinfo=UTC))


# ---- the reading: engine vs reference ---------------------------------------------------------------------

_ITEM = st.tuples(st.sampled_from(OPTIONS), st.booleans(), st.one_of(st.none(), st.integers(1, 5)))


def _value(items: list[tuple[str, bool, int | None]]) -> str:
    return "; ".join(f"no:{o}" if declined else (f"{o}={n}" if n else o) for o, declined, n in items)


@settings(max_examples=200, deadline=None)
@given(history=st.lists(st.lists(_ITEM, min_size=1, max_size=4), min_size=1, max_size=5))
def test_engine_reads_features_values_as_the_reference_model(history: list[list[tuple[str, bool, int | None]]]
                                                             ) -> None:
    values = [_value(items) for items in history]
    # a value the validator would accept never claims and declines one option; the readers agree on the others
    claimed, declined = reference_reading(values)
    if claimed & declined:
        return
    assert feature_reading(current_value(values)) == (claimed, declined)
    assert not feature_reading(current_value(values))[0] & feature_reading(current_value(values))[1]


# ---- the validator's grammar (D-13) -----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "span", "code"), [
    ("no:laundry", "No thanks, I have my own.", "features.ok"),
    ("no:laundry", "Non merci.", "features.ok"),
    ("no:laundry", "Sin lavandería.", "features.ok"),
    ("no:laundry", "I have my own.", "features.decline_not_in_span"),  # the words must be the visitor's "no"
    ("no:sauna", "No thanks.", "features.unknown_option"),
    ("parking; no:parking", "parking, no", "features.contradictory"),
    ("parking; no:pool", "Parking yes, no pool.", "features.ok"),
    ("no:laundry=2", "no", "features.unparseable"),
])
def test_declined_items_are_validated_from_the_visitors_words(value: str, span: str, code: str) -> None:
    spec = _spec().spec
    result = validate_value(spec.objectives[0].criterion, value, span, project_bundle(), spec)
    assert result.code == code, result


# ---- through the decision layer ---------------------------------------------------------------------------

_DECLINES = ("No thanks.", "No, we have our own.", "Non merci.", "No gracias.", "I don't need it.")


def _message(declined: bool, option: str, variant: int) -> str:
    if declined:
        return _DECLINES[variant % len(_DECLINES)]
    return ("Actually yes, I need {t}.", "Yes, {t} please.", "We want {t}.")[variant % 3].format(t=TERMS[option])


def _state(spec: PublishedGoalSpec) -> ConversationState:
    return ConversationState(conversation_id="c", goal_ref=spec.ref, goal_hash=spec.content_hash,
                             bundle_hash="b", language="en", turn=0, bits=[0, 0], messages=[])


_ANSWERS = st.lists(st.tuples(st.booleans(), st.sampled_from(OPTIONS), st.integers(0, 10)), min_size=1, max_size=5)


@pytest.mark.invariant("I-6")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(answers=_ANSWERS)
def test_declined_and_affirmed_answers_through_the_decider(answers: list[tuple[bool, str, int]]) -> None:
    bundle: RuleBundle = project_bundle()
    spec = _spec()
    decider = Decider(spec, bundle)
    state = _state(spec)
    for turn, (declined, option, variant) in enumerate(answers, start=1):
        text = _message(declined, option, variant)
        state = state.model_copy(deep=True)
        state.turn = turn
        state.messages.append(Message(role=Role.VISITOR, turn=turn, text=text))
        value = f"no:{option}" if declined else option
        span = Span(turn=turn, start=0, end=len(text), quote=text)
        command = (Complete if state.bits[0] == 0 else Correct)(objective="extras", span=span, value=value)
        decision = decider.decide(state, [command])
        assert decision.fail_closed is None
        assert [c.reason for c in decision.candidates] == ["accepted"], decision.candidates
        assert decision.bits_after[0] == 1  # answered, declined or not; never un-completed (I-6)
        state = decision.new_state
    history = [r.value for r in state.values["extras"]]
    assert len(history) == len(answers)  # every later answer is a Correct appended to the history
    last_declined, last_option, _ = answers[-1]
    claimed, declined_options = feature_reading(current_value(history))
    assert (claimed, declined_options) == reference_reading(history)
    if last_declined:
        assert last_option in declined_options and last_option not in claimed  # never read as claimed
    else:
        assert last_option in claimed and last_option not in declined_options  # declined then affirmed: claimed
    # the readers of a lead show the declined option as declined, never as the feature claimed
    summary = ConversationSummary(conversation_id="c", goal_ref=spec.ref, language="en", turn=len(answers), state="10",
                                  created_at="t", updated_at="t")
    lead = lead_of(state, summary)
    assert lead.declined.get("extras", []) == sorted(declined_options)
    event = completion_event(lead, 1, "all_complete", datetime(2026, 1, 1, tzinfo=UTC))
    assert event["declined"] == lead.declined
    csv_text = to_csv([lead])
    assert csv_text.splitlines()[0].endswith(",revised,declined")
