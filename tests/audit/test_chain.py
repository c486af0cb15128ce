"""Sealing, checkpoints and verification of one conversation's hash chain."""

from __future__ import annotations

import copy
import logging
from typing import Any

import pytest
import structlog

from audit.canonical import sha256_of
from audit.chain import (
    REASON_CODES,
    SealedHead,
    checkpoint,
    record_hash,
    seal,
    verify,
    verify_or_raise,
)
from audit.errors import AuditKeyError, ChainIntegrityError, RecordError
from tests.audit.factory import KEY, OTHER_KEY, deep, head_checkpoint, make_chain, make_record


def test_valid_chain_verifies() -> None:
    records = make_chain(4)
    report = verify(records, head_checkpoint(records), KEY)
    assert report.ok and report.code is None
    assert (report.records, report.head_seq, report.anchored_seq) == (4, 3, 3)
    assert report.head_hash == records[-1]["hash"]
    assert report.conversation_id == "conv-1"
    assert report.summary().startswith("OK 4 records")


@pytest.mark.invariant("I-13")
def test_seal_links_records() -> None:
    records = make_chain(3)
    assert [r["seq"] for r in records] == [0, 1, 2]
    assert records[0]["prev_hash"] is None
    assert records[1]["prev_hash"] == records[0]["hash"]
    assert records[2]["prev_hash"] == records[1]["hash"]
    for record in records:
        body = {k: v for k, v in record.items() if k != "hash"}
        assert record["hash"] == sha256_of(body) == record_hash(record)
    assert len({r["hash"] for r in records}) == 3


def test_seal_is_deterministic_and_does_not_mutate_input() -> None:
    record = make_record()
    before = copy.deepcopy(record)
    assert seal(record, None) == seal(record, None)
    assert record == before


def test_seal_logs_a_stable_event() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))  # restored by fixture
    with structlog.testing.capture_logs() as logs:
        sealed = seal(make_record(), None)
    events = [entry for entry in logs if entry["event"] == "audit.record.sealed"]
    assert events and events[0]["seq"] == 0 and events[0]["hash"] == sealed["hash"]


def test_seal_refuses_bad_input() -> None:
    sealed = seal(make_record(), None)
    cases: list[tuple[Any, SealedHead | None, str]] = [
        (sealed, None, "audit.record.already_sealed"),
        ({k: v for k, v in make_record().items() if k != "conversation_id"}, None, "audit.record.no_conversation"),
        (make_record("conv-2", 2), SealedHead.of(sealed), "audit.conversation_mismatch"),
        (make_record(turn=2), SealedHead("conv-1", 0, "not-a-hash"), "audit.record.bad_head"),
        (["not", "a", "dict"], None, "audit.record.not_object"),
    ]
    for record, prev, code in cases:
        with pytest.raises(RecordError) as info:
            seal(record, prev)
        assert info.value.code == code


def test_seal_without_validation_accepts_any_json_record() -> None:
    first = seal({"conversation_id": "c", "anything": [1, {"x": None}]}, None, validate=False)
    second = seal({"conversation_id": "c", "y": 2.5}, SealedHead.of(first), validate=False)
    assert verify([first, second]).ok


def test_sealed_head_of_unsealed_record_fails() -> None:
    with pytest.raises(RecordError) as info:
        SealedHead.of(make_record())
    assert info.value.code == "audit.record.unsealed"


def test_checkpoint_shape_and_mac() -> None:
    records = make_chain(2)
    cp = head_checkpoint(records)
    assert set(cp) == {"conversation_id", "seq", "head_hash", "state_hash", "counter", "mac"}
    assert cp["seq"] == 1 and cp["head_hash"] == records[1]["hash"] and cp["counter"] == 2
    assert cp["mac"].startswith("hmac-sha256:") and len(cp["mac"]) == len("hmac-sha256:") + 64
    assert cp == checkpoint("conv-1", 1, records[1]["hash"], KEY, state_hash=cp["state_hash"], counter=2)
    assert cp["mac"] != head_checkpoint(records, OTHER_KEY)["mac"]


def test_checkpoint_refuses_bad_arguments() -> None:
    good = "sha256:" + "0" * 64
    for args in [("", 0, good), ("c", -1, good), ("c", True, good), ("c", 0, "sha256:xyz")]:
        with pytest.raises(RecordError):
            checkpoint(args[0], args[1], args[2], KEY, state_hash=good, counter=1)  # type: ignore[arg-type]
    for state, counter in [("sha256:xyz", 1), (good, 0), (good, True)]:
        with pytest.raises(RecordError):
            checkpoint("c", 0, good, KEY, state_hash=state, counter=counter)
    with pytest.raises(AuditKeyError) as info:
        checkpoint("c", 0, good, b"short", state_hash=good, counter=1)
    assert info.value.code == "audit.key.too_short"


def test_checkpoint_without_key_is_a_caller_error() -> None:
    records = make_chain(1)
    with pytest.raises(AuditKeyError) as info:
        verify(records, head_checkpoint(records), None)
    assert info.value.code == "audit.key.missing"


def test_wrong_key_or_altered_checkpoint_is_detected() -> None:
    records = make_chain(3)
    cp = head_checkpoint(records)
    assert verify(records, cp, OTHER_KEY).code == "audit.checkpoint_mac_invalid"
    for field, value in [("seq", 1), ("head_hash", records[1]["hash"]), ("conversation_id", "conv-9"),
                         ("state_hash", "sha256:" + "1" * 64), ("counter", 9)]:
        altered = dict(cp, **{field: value})
        assert verify(records, altered, KEY).code == "audit.checkpoint_mac_invalid"


@pytest.mark.parametrize(
    "cp",
    [
        "not an object",
        {"conversation_id": "conv-1", "seq": 0, "head_hash": "sha256:" + "0" * 64},
        dict(head_checkpoint(make_chain(1)), counter=0),
        dict(head_checkpoint(make_chain(1)), state_hash="nope"),
        {"conversation_id": "conv-1", "seq": "0", "head_hash": "sha256:" + "0" * 64, "mac": "hmac-sha256:" + "0" * 64},
        {"conversation_id": "conv-1", "seq": 0, "head_hash": "sha256:" + "0" * 64, "mac": "nope"},
        {"conversation_id": "", "seq": 0, "head_hash": "sha256:" + "0" * 64, "mac": "hmac-sha256:" + "0" * 64},
        {"conversation_id": "c", "seq": 0, "head_hash": "x", "mac": "hmac-sha256:" + "0" * 64, "extra": 1},
    ],
)
def test_malformed_checkpoint(cp: Any) -> None:
    assert verify(make_chain(1), cp, KEY).code == "audit.checkpoint_malformed"


def test_truncated_tail_is_detected_only_with_checkpoint() -> None:
    records = make_chain(4)
    cp = head_checkpoint(records)
    for keep in range(4):
        report = verify(records[:keep], cp, KEY)
        assert (report.ok, report.code, report.failed_seq) == (False, "audit.truncated", keep)
    # Documented limit: without a checkpoint a shorter prefix is a valid chain.
    assert verify(records[:2]).ok


def test_records_after_checkpoint_are_unanchored() -> None:
    records = make_chain(4)
    old_cp = head_checkpoint(records[:2])
    report = verify(records, old_cp, KEY)
    assert (report.code, report.failed_seq) == ("audit.unanchored_tail", 2)
    relaxed = verify(records, old_cp, KEY, allow_unanchored_tail=True)
    assert relaxed.ok and relaxed.anchored_seq == 1 and relaxed.head_seq == 3


def test_forged_append_without_key_is_detected() -> None:
    records = make_chain(3)
    cp = head_checkpoint(records)
    forged = seal(make_record(turn=4), SealedHead.of(records[-1]))  # correctly chained, but no new checkpoint
    assert verify([*records, forged], cp, KEY).code == "audit.unanchored_tail"


def test_rewritten_chain_is_detected_by_checkpoint() -> None:
    records = make_chain(3)
    cp = head_checkpoint(records)
    rewritten: list[dict[str, Any]] = []
    for record in records:  # attacker edits turn 1 and re-seals everything consistently
        body = {k: v for k, v in record.items() if k not in ("seq", "prev_hash", "hash")}
        if record["seq"] == 0:
            body["question"] = "edited"
        rewritten.append(seal(body, SealedHead.of(rewritten[-1]) if rewritten else None))
    assert verify(rewritten).ok  # internally consistent ...
    report = verify(rewritten, cp, KEY)  # ... but not what the key holder anchored
    assert (report.code, report.failed_seq) == ("audit.checkpoint_mismatch", 2)


def test_checkpoint_of_other_conversation() -> None:
    records = make_chain(2)
    other = make_chain(2, "conv-2")
    assert verify(records, head_checkpoint(other), KEY).code == "audit.checkpoint_conversation_mismatch"


def test_mixed_conversations_are_detected() -> None:
    records = make_chain(3)
    other = make_chain(3, "conv-2")
    mixed = [records[0], other[1], records[2]]
    report = verify(mixed)
    assert (report.code, report.failed_seq) == ("audit.conversation_mismatch", 1)


def test_empty_chain() -> None:
    assert verify([]).ok and verify([]).records == 0
    cp = head_checkpoint(make_chain(1))
    report = verify([], cp, KEY)
    assert (report.code, report.failed_seq) == ("audit.truncated", 0)


@pytest.mark.parametrize(
    "breakage",
    [
        lambda r: r.pop("hash"),
        lambda r: r.pop("prev_hash"),
        lambda r: r.update(seq="1"),
        lambda r: r.update(seq=-1),
        lambda r: r.update(hash="sha256:XYZ"),
        lambda r: r.update(prev_hash=5),
        lambda r: r.pop("conversation_id"),
        lambda r: r.update(note=float("nan")),
    ],
)
def test_malformed_records(breakage: Any) -> None:
    records = deep(make_chain(3))
    breakage(records[1])
    report = verify(records)
    assert (report.code, report.failed_seq) == ("audit.record_malformed", 1)


def test_non_object_record() -> None:
    records: list[Any] = deep(make_chain(2))
    records[1] = ["x"]
    assert verify(records).code == "audit.record_malformed"


def test_verify_or_raise() -> None:
    records = deep(make_chain(3))
    assert verify_or_raise(records).ok
    records[2]["turn"] = 9
    with pytest.raises(ChainIntegrityError) as info:
        verify_or_raise(records)
    assert info.value.code == "audit.hash_mismatch" and info.value.seq == 2


def test_reason_codes_are_stable_dotted_names() -> None:
    assert len(set(REASON_CODES)) == len(REASON_CODES)
    assert all(code.startswith("audit.") and code == code.lower() and " " not in code for code in REASON_CODES)
    for code in (
        "audit.hash_mismatch",
        "audit.chain_broken",
        "audit.seq_gap",
        "audit.truncated",
        "audit.checkpoint_mac_invalid",
    ):
        assert code in REASON_CODES
