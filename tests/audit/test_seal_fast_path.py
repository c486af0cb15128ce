"""``audit.chain.seal`` takes a fast path (pydantic's JSON-mode dump, ``plain_of_model``) instead of the canonical
round trip it replaced: the same sealed record, byte for byte, or the same error code, for any record, including
free-form parts holding values canonical JSON rejects or writes otherwise."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.canonical import canonical_bytes, canonical_bytes_of_plain, sha256_hex
from audit.chain import seal
from audit.errors import AuditError
from audit.record import TransitionRecord
from tests.audit.factory import make_record

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) | st.floats() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)
# Values canonical JSON rejects or writes differently from pydantic: the fast path must not change the outcome.
_ODD = st.one_of(
    st.just(float("nan")), st.just(float("inf")), st.just((1, 2)), st.just({1, 2}), st.just(b"x"),
    st.just({1: "int key"}), st.just(datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))),
    st.just("lone \ud800 surrogate"),
)


def _reference_seal(record: dict[str, Any]) -> dict[str, Any]:
    """``seal`` for seq 0 as it was before the fast path: validate, dump, canonical round trip, hash."""
    body = TransitionRecord.model_validate(dict(record)).model_dump(mode="python")
    sealed: dict[str, Any] = json.loads(canonical_bytes(body))
    sealed["seq"] = 0
    sealed["prev_hash"] = None
    sealed["hash"] = sha256_hex(canonical_bytes_of_plain(sealed))
    return sealed


def _outcome(fn: Any, record: dict[str, Any]) -> tuple[str, Any]:
    try:
        return "ok", canonical_bytes(fn(copy.deepcopy(record)))
    except AuditError as exc:
        return "error", exc.code


@settings(max_examples=200, deadline=None)
@given(command_extra=_JSON | _ODD, output=st.none() | st.dictionaries(st.text(max_size=4), _JSON | _ODD, max_size=3),
       micros=st.integers(min_value=0, max_value=999_999), note=st.text(max_size=6))
def test_seal_equals_the_canonical_round_trip(command_extra: Any, output: dict[str, Any] | None, micros: int,
                                              note: str) -> None:
    record = make_record()
    record["candidates"][0]["command"]["extra"] = command_extra
    record["llm_calls"][0]["output"] = output
    record["timestamps"]["received_at"] = datetime(2026, 3, 1, 10, 0, 0, micros, tzinfo=UTC)
    record["notes"] = [note]
    assert _outcome(lambda r: seal(r, None), record) == _outcome(_reference_seal, record)


def test_realistic_records_seal_to_the_same_bytes() -> None:
    for turn in (1, 2, 3, 4):
        record = make_record(turn=turn)
        assert _outcome(lambda r: seal(r, None), record) == _outcome(_reference_seal, record)


def test_a_lone_surrogate_is_refused_with_the_canonical_code() -> None:
    record = make_record()
    record["notes"] = ["x\ud800"]
    assert _outcome(lambda r: seal(r, None), record) == ("error", "audit.canonical.bad_string")
