"""seal_for_store seals only records that conform to the schema after redaction: a record that was never
validated (constructed or copied with updates) or that redaction makes invalid is refused, nothing sealed."""

from __future__ import annotations

from typing import Any

import pytest

from audit.errors import RecordError
from audit.record import TransitionRecord
from engine.kernel.turn_record import seal_for_store
from tests.audit.factory import KEY, make_record

STATE: dict[str, Any] = {"bits": [0, 0, 0, 0], "messages": []}


def _record(**changes: Any) -> TransitionRecord:
    return TransitionRecord.model_validate({**make_record(), **changes})


def test_a_valid_record_is_sealed() -> None:
    sealed = seal_for_store(_record(), None, KEY, stored_state=STATE)
    assert sealed.record["seq"] == 0 and sealed.checkpoint["seq"] == 0


@pytest.mark.parametrize("broken", [
    lambda r: r.model_copy(update={"turn": 0}),  # copy with an update: never validated
    lambda r: r.model_copy(update={"chosen_action": "ASK(nowhere)"}),  # breaks the cross-field check
    lambda r: TransitionRecord.model_construct(**{**dict(r), "goal_hash": "not-a-digest"}),
])
def test_records_that_were_never_validated_are_refused(broken: Any) -> None:
    with pytest.raises(RecordError) as caught:
        seal_for_store(broken(_record()), None, KEY, stored_state=STATE)
    assert caught.value.code == "audit.record.schema_invalid"


def test_a_record_that_redaction_makes_invalid_is_refused() -> None:
    # A stage name holding a phone-like run: redacted to a token, which the stage-name pattern refuses.
    record = _record(timings_ms={"x_600000005": 1.0})
    with pytest.raises(RecordError) as caught:
        seal_for_store(record, None, KEY, stored_state=STATE)
    assert caught.value.code == "audit.record.schema_invalid"
