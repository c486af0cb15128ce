"""Contact classes of issue 28: a number given in part is refused, and a business's or professional's number given
for reference is another party's (SPEC D-10 (c)), while the visitor's own number beside it stays theirs."""

from __future__ import annotations

import phonenumbers
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kernel.decision.provenance import ProvenanceRules, attribution
from engine.kernel.validators.contact import validate_contact
from engine.rules.loader import RuleBundle

REGIONS = ["GB", "ES", "FR", "BE", "CH", "CA", "US", "MX", "IE"]
TYPES: list[int] = [phonenumbers.PhoneNumberType.FIXED_LINE, phonenumbers.PhoneNumberType.MOBILE]


def _national(region: str, kind: int) -> str:
    example = phonenumbers.example_number_for_type(region, kind)
    assert example is not None
    return phonenumbers.format_number(example, phonenumbers.PhoneNumberFormat.NATIONAL)


@settings(max_examples=80, deadline=None)
@given(region=st.sampled_from(REGIONS), kind=st.sampled_from(TYPES), keep=st.integers(min_value=3, max_value=6))
def test_a_number_given_in_part_is_refused_and_the_whole_number_accepted(
    region: str, kind: int, keep: int
) -> None:
    whole = _national(region, kind)
    assert validate_contact(whole, f"call me on {whole}", ["phone"], region, "valid_or_possible").ok
    # the first `keep` digits, written as the visitor wrote them (spaces kept): no personal line is that short
    digit_ends = [end for end in range(1, len(whole) + 1) if whole[end - 1].isdigit()]
    part = whole[:digit_ends[keep - 1]]
    result = validate_contact(part, f"call me on {part}", ["phone"], region, "valid_or_possible")
    assert not result.ok and result.code == "contact.phone_invalid"


@pytest.fixture(scope="module")
def rules(bundle: RuleBundle) -> ProvenanceRules:
    return ProvenanceRules.from_bundle(bundle)


PROFESSIONALS = {
    "en": ["{p} usual vet is Dr Lee on {n}", "{p} dentist's number is {n}", "{p} old plumber, {n}, did the job"],
    "es": ["{p} gestoría es la del {n}", "el teléfono de {p} veterinario es {n}"],
    "fr": ["{p} médecin est joignable au {n}", "le numéro de {p} ancien garagiste : {n}"],
}
POSSESSIVES = {"en": ["my", "our", "their", "his"], "es": ["mi", "su"], "fr": ["mon", "leur", "notre"]}
NUMBER = "01423 567890"
OWN = "07911 123456"


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_professionals_number_given_for_reference_is_another_partys(
    data: st.DataObject, rules: ProvenanceRules
) -> None:
    language = data.draw(st.sampled_from(sorted(PROFESSIONALS)))
    template = data.draw(st.sampled_from(PROFESSIONALS[language]))
    possessive = data.draw(st.sampled_from(POSSESSIVES[language]))
    text = template.format(p=possessive, n=NUMBER)
    assert attribution(text, NUMBER, (0, len(text)), rules)[0] is True


@pytest.mark.parametrize("text", [
    f"Their usual vet is Dr Lee on {NUMBER}, my number is {OWN}",
    f"Our dentist is on {NUMBER}; you can reach me on {OWN}",
    f"Mi gestoría es la del {NUMBER}, mi móvil es {OWN}",
])
def test_the_visitors_own_number_beside_a_reference_number_stays_theirs(text: str, rules: ProvenanceRules) -> None:
    assert attribution(text, NUMBER, (0, len(text)), rules)[0] is True
    assert attribution(text, OWN, (0, len(text)), rules) == (False, False)


@pytest.mark.parametrize("text", [
    f"Call me on {OWN}, I'm the vet's new client", f"I'm a doctor, my number is {OWN}",
    f"My work number is {OWN}", f"Mon numéro de portable : {OWN}",
])
def test_naming_a_profession_without_owning_the_number_does_not_attribute_it(text: str, rules: ProvenanceRules) -> None:
    assert attribution(text, OWN, (0, len(text)), rules) == (False, False)
