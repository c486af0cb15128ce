"""``audit.chain.plain_of_model`` (pydantic's JSON serialiser) against the canonical path it replaces in ``seal``:
the same plain data and bytes, or it declines (None) and the canonical path decides, raising where it must."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.canonical import canonical_bytes
from audit.chain import plain_of_model, seal
from audit.errors import CanonicalError
from audit.record import TransitionRecord
from tests.audit.factory import make_record

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)
# Values canonical JSON rejects or writes differently from pydantic: the fast path must decline them.
_ODD = st.one_of(
    st.just(float("nan")), st.just(float("inf")), st.just((1, 2)), st.just({1, 2}), st.just(b"x"),
    st.just({1: "int key"}), st.just(datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))),
    st.just("lone \ud800 surrogate"),
)


def _canonical_path(model: TransitionRecord) -> Any:
    return json.loads(canonical_bytes(model.model_dump(mode="python")))


@settings(max_examples=150, deadline=None)
@given(command_extra=_JSON | _ODD, output=st.none() | st.dictionaries(st.text(max_size=4), _JSON | _ODD, max_size=3),
       micros=st.integers(min_value=0, max_value=999_999))
def test_fast_path_equals_the_canonical_path_or_declines(command_extra: Any, output: dict[str, Any] | None,
                                                         micros: int) -> None:
    record = make_record()
    record["candidates"][0]["command"]["extra"] = command_extra
    record["llm_calls"][0]["output"] = output
    record["timestamps"]["received_at"] = datetime(2026, 3, 1, 10, 0, 0, micros, tzinfo=UTC)
    model = TransitionRecord.model_validate(copy.deepcopy(record))
    fast = plain_of_model(model)
    try:
        expected = _canonical_path(model)
    except CanonicalError:
        assert fast is None  # declined: seal takes the canonical path and raises its code
        return
    if fast is not None:
        assert canonical_bytes(fast) == canonical_bytes(expected)
        assert fast == expected


def test_declined_values_still_fail_with_the_canonical_code() -> None:
    record = make_record()
    record["candidates"][0]["command"]["extra"] = {1: "int key"}
    try:
        seal(record, None)
    except CanonicalError as exc:
        assert exc.code == "audit.canonical.bad_key"
    else:
        raise AssertionError("a non-string key must not be sealed")


def test_sealed_bytes_are_unchanged_for_realistic_records() -> None:
    for turn in (1, 2, 3, 4):
        record = make_record(turn=turn)
        sealed = seal(copy.deepcopy(record), None)
        expected = _canonical_path(TransitionRecord.model_validate(record))
        assert canonical_bytes({k: v for k, v in sealed.items() if k not in ("seq", "prev_hash", "hash")}) == \
            canonical_bytes(expected)
