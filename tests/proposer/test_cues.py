"""Control cues: refusal, stop, temporary uncertainty, re-engagement; objective by topic or last question."""

from __future__ import annotations

import pytest

from tests.proposer.helpers import summary


@pytest.mark.parametrize(("text", "expected"), [
    ("I prefer not to disclose my budget.", {"refuse:budget": None}),
    ("I will not provide contact details. Please stop asking me questions.", {"refuse:contact": None, "stop": None}),
    ("De momento no quiero facilitar datos de contacto.", {"refuse:contact": None}),
    ("Prefiero no decir el presupuesto", {"refuse:budget": None}),
    ("I do not know my budget yet.", {"uncertain:budget": None}),
    # "limpieza" is one of the service-type objective's own cue terms (spec params.cues), so the uncertainty is
    # about the service type even while the client type is open too.
    ("Todavía no sé qué tipo de limpieza necesito.", {"uncertain:service_type": None}),
    ("Deja de hacerme preguntas", {"stop": None}),
    ("Bye", {"stop": None}),
])
def test_control_cues(text: str, expected: dict[str, None]) -> None:
    domain = "cl" if "limpieza" in text else "re"
    assert summary(domain, text) == expected


def test_uncertainty_about_an_enumeration_goes_to_the_one_still_open() -> None:
    assert summary("cl", "Todavía no sé qué tipo de limpieza necesito.", bits="1000") == {
        "uncertain:service_type": None}


def test_refusal_without_topic_is_about_the_last_question() -> None:
    assert summary("re", "I'd rather not say.", last_asked="budget") == {"refuse:budget": None}
    assert summary("re", "I'd rather not say.") == {}


def test_refusal_of_something_already_given_is_not_proposed() -> None:
    assert summary("re", "I prefer not to disclose my budget.", bits="1000") == {}


def test_voluntary_re_engagement_resumes_and_completes() -> None:
    result = summary("re", "I have reconsidered. You can use reconsidered@example.com.", bits="1110",
                     refused=("contact",))
    assert result == {"resume:contact": None, "complete:contact": "reconsidered@example.com"}


def test_resume_after_stop_lifts_the_stop() -> None:
    assert summary("re", "I changed my mind, you can ask me again.", stopped=True) == {"resume": None}


def test_feature_negation_is_not_a_refusal() -> None:
    assert "refuse:requirements" not in summary("re", "I won't need parking.")
