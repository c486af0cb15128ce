"""Contact evidence: e-mails and phones as written; invalid ones are still proposed (the validator decides)."""

from __future__ import annotations

import pytest

from tests.proposer.helpers import accepted_value, propose, summary


@pytest.mark.parametrize(("text", "value"), [
    ("You can contact me at alex.buyer@example.com.", "alex.buyer@example.com"),
    ("Mi correo electrónico de contacto es balanced.b01@example.com.", "balanced.b01@example.com"),
    ("Ring me on +34 612 345 678.", "+34 612 345 678"),
    ("My telephone number is 600000005.", "600000005"),
    ("(+34) 600000005", "(+34) 600000005"),
    ("Mi móvil es el 677 888 999.", "677 888 999"),
    ("¿Me podéis llamar al 600 111 222?", "600 111 222"),
])
def test_contacts_are_extracted_exactly_as_written(text: str, value: str) -> None:
    commands = propose("re", text)
    assert [(c.type, c.value) for c in commands] == [("complete", value)]  # type: ignore[union-attr]
    assert accepted_value("re", commands[0])


@pytest.mark.parametrize(("text", "value"), [
    ("My email is buyer@invalid.", "buyer@invalid"),
    ("My telephone number is 12.", "12"),
    ("Mi teléfono es 61.", "61"),
])
def test_invalid_contacts_are_still_proposed_so_the_audit_shows_the_rejection(text: str, value: str) -> None:
    commands = propose("re", text)
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]
    assert not accepted_value("re", commands[0])


def test_every_channel_is_kept_in_one_value_and_replaced_addresses_are_skipped() -> None:
    # spec/adr/0006: one value per objective, holding every channel the visitor gave as their own
    assert summary("re", "My contacts are first@example.com and second@example.com.") == {
        "complete:contact": "first@example.com; second@example.com"}
    assert summary("re", "Please use only second@example.com and disregard first@example.com.",
                   bits="1111") == {"correct:contact": "second@example.com"}


def test_a_plausible_address_wins_over_a_malformed_one() -> None:
    assert summary("re", "my email is me@broken, sorry, me@example.com") == {"complete:contact": "me@example.com"}


def test_short_digit_runs_need_a_phone_cue_or_the_contact_question() -> None:
    assert summary("re", "1234") == {}
    assert summary("re", "6123", last_asked="contact") == {"complete:contact": "6123"}


def test_company_addresses_and_questions_are_not_visitor_contacts() -> None:
    assert summary("re", "Is your email info@agency.example?") == {}
    assert summary("re", "What is your phone number?") == {}


def test_terms_inside_an_email_never_count_as_evidence() -> None:
    assert summary("cl", "Escribid a casa.oficina@example.com", bits="0000") == {
        "complete:contact": "casa.oficina@example.com"}


@pytest.mark.parametrize(("reference", "own"), [
    ("Our usual vet is on 612 345 678", "my number is 677 888 999"),
    ("Mi gestoría es la del 612 345 678", "mi móvil es el 677 888 999"),
    ("My colleague's number is 612 345 678", "you can reach me on 677 888 999"),
])
def test_a_number_given_for_reference_leaves_the_visitors_own_one(reference: str, own: str) -> None:
    # one channel of someone else's must not cost the visitor theirs, even when theirs is the only one left
    commands = propose("re", f"{reference}, {own}.")
    assert [c.value for c in commands] == ["677 888 999"]  # type: ignore[union-attr]
    assert accepted_value("re", commands[0])
