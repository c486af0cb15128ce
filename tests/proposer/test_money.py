"""Money evidence: notations, qualifiers, ranges, written-out numbers, and what is not a budget."""

from __future__ import annotations

import pytest

from tests.proposer.helpers import accepted_value, propose, summary


@pytest.mark.parametrize(("text", "value"), [
    ("My budget is below 350.000 EUR", "<=350000 EUR"),
    ("I can spend 350,000 € on it.", "350000 EUR"),
    ("We're hoping to spend no more than €280k.", "<=280000 EUR"),
    ("Let's say a budget of 1.2M EUR.", "1200000 EUR"),
    ("Mi presupuesto es de 1,2 millones de euros", "1200000 EUR"),
    ("up to three hundred and fifty thousand euros", "<=350000 EUR"),
    ("Mi presupuesto máximo es de trescientos mil euros.", "<=300000 EUR"),
    ("Tengo trescientos cincuenta mil euros", "350000 EUR"),
    ("Unos 350 mil euros", "~350000 EUR"),
    ("We can afford roughly half a million euros.", "~500000 EUR"),
    ("My budget is around three hundred thousand euros.", "~300000 EUR"),
    ("between 250.000 and 300.000 EUR", "250000-300000 EUR"),
    ("Tengo entre 200.000 y 250.000 euros para gastar.", "200000-250000 EUR"),
    ("Price range 200-250k", "200000-250000 EUR"),
    ("at least 200.000 EUR", ">=200000 EUR"),
    ("I'm looking for a home for under 350k.", "<=350000 EUR"),
])
def test_amount_notations(text: str, value: str) -> None:
    commands = [c for c in propose("re", text) if c.type == "complete" and c.objective == "budget"]
    assert [c.value for c in commands] == [value]  # type: ignore[union-attr]
    assert accepted_value("re", commands[0])


def test_magnitude_ambiguous_amount_is_proposed_and_rejected_by_the_validator() -> None:
    commands = propose("re", "My budget is around three hundred.")
    assert [(c.type, c.value) for c in commands] == [("complete", "~300 EUR")]  # type: ignore[union-attr]
    assert not accepted_value("re", commands[0])


def test_bare_number_counts_only_after_the_budget_question() -> None:
    assert summary("re", "450.000") == {}
    assert summary("re", "450.000", last_asked="budget") == {"complete:budget": "450000 EUR"}


@pytest.mark.parametrize("text", [
    "My telephone number is 600000005.",
    "I need three bedrooms and two bathrooms.",
    "The villa costs 495,000 EUR?",
    "Do you have anything under 300.000 EUR?",
    "We manage a guesthouse with 12 rooms.",
    "I have two kids and a dog.",
])
def test_numbers_that_are_not_a_budget(text: str) -> None:
    assert "complete:budget" not in summary("re", text)


def test_correction_keeps_the_new_amount_not_the_replaced_one() -> None:
    assert summary("re", "Sorry, my budget is actually 400k, not 350k", bits="1000") == {
        "correct:budget": "400000 EUR"}


def test_other_currency_is_proposed_as_written_and_rejected() -> None:
    commands = propose("re", "My budget is 300,000 dollars.")
    assert [c.value for c in commands] == ["300000 USD"]  # type: ignore[union-attr]
    assert not accepted_value("re", commands[0])
