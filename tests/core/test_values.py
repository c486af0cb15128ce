"""The current value of an objective from its value history (engine/kernel/values.py, spec/adr/0006)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine.kernel.values import current_value

EMAILS = st.sampled_from(["ana@example.com", "bo@example.org", "c.d@example.net"])
PHONES = st.sampled_from(["+34612345678", "+447700900123", "+525512345678"])


@given(st.lists(st.text(min_size=1).filter(lambda t: "@" not in t and not t.startswith("+")), min_size=1))
def test_any_other_value_reads_as_its_latest(history: list[str]) -> None:
    assert current_value(history) == history[-1]


@given(EMAILS, PHONES, PHONES)
def test_a_new_telephone_replaces_the_telephone_and_keeps_the_email(email: str, old: str, new: str) -> None:
    assert current_value([f"{email}; {old}", new]) == f"{new}; {email}"


@given(EMAILS, EMAILS, PHONES)
def test_a_new_email_replaces_the_email_and_keeps_the_telephone(old: str, new: str, phone: str) -> None:
    assert current_value([f"{old}; {phone}", new]) == f"{new}; {phone}"


def test_a_revision_with_every_channel_replaces_them_all() -> None:
    assert current_value(["ana@example.com; +34612345678", "bo@example.org; +447700900123"]) == \
        "bo@example.org; +447700900123"
    assert current_value([]) == ""
