"""Tamper probes: every edit, insertion, deletion, reordering and truncation of a sealed chain is detected."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.chain import SealedHead, record_hash, seal, verify
from audit.errors import ExportFormatError
from audit.jsonl import dumps_jsonl, parse_jsonl
from audit.redaction import redact_record
from tests.audit.factory import KEY, deep, head_checkpoint, make_record

N = 3


def small_chain(n: int = N) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for turn in range(1, n + 1):
        record = redact_record(make_record("conv-t", turn, n_objectives=2), KEY)
        records.append(seal(record, SealedHead.of(records[-1]) if records else None))
    return records


CHAIN = small_chain()
CHECKPOINT = head_checkpoint(CHAIN)


def _detected(data: bytes, checkpoint: dict[str, Any] = CHECKPOINT) -> bool:
    try:
        records = parse_jsonl(data)
    except ExportFormatError:
        return True
    return not verify(records, checkpoint, KEY).ok


def test_untouched_export_verifies() -> None:
    assert not _detected(dumps_jsonl(CHAIN))


@pytest.mark.slow
@pytest.mark.invariant("I-13")
def test_every_byte_flip_is_detected() -> None:
    """Flip one bit in every byte of the export (bit chosen by position so all three masks get used)."""
    data = dumps_jsonl(CHAIN)
    masks = (0x01, 0x20, 0x80, 0x02, 0x40)
    missed = []
    for offset in range(len(data)):
        flipped = bytearray(data)
        flipped[offset] ^= masks[offset % len(masks)]
        if not _detected(bytes(flipped)):
            missed.append(offset)
    assert len(data) > 1000
    assert missed == []


@pytest.mark.slow
def test_every_byte_flip_with_every_mask_is_detected() -> None:
    # All 8 bits of every byte of one sealed record (21,400 verifications); the links between records get every
    # byte flipped above, over three records.
    data = dumps_jsonl(CHAIN[:1])
    checkpoint = head_checkpoint(CHAIN[:1])  # the honest head: one value, computed once, not once per flip
    missed = []
    for offset in range(len(data)):
        for bit in range(8):
            flipped = bytearray(data)
            flipped[offset] ^= 1 << bit
            if not _detected(bytes(flipped), checkpoint):
                missed.append((offset, bit))
    assert missed == []


def test_byte_deletion_and_insertion_in_export_are_detected() -> None:
    data = dumps_jsonl(CHAIN)
    for offset in range(0, len(data), 7):
        assert _detected(data[:offset] + data[offset + 1 :])
        assert _detected(data[:offset] + b" " + data[offset:])


def _leaf_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        if not value:
            yield path
        for key, item in value.items():
            yield from _leaf_paths(item, (*path, key))
    elif isinstance(value, list):
        if not value:
            yield path
        for index, item in enumerate(value):
            yield from _leaf_paths(item, (*path, index))
    else:
        yield path


def _other(value: Any) -> Any:
    """A different value of the same kind (hex stays hex, so hash fields remain well-formed)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        if value and value[-1] in "0123456789abcdef":
            return value[:-1] + ("1" if value[-1] == "0" else "0")
        return value + "x"
    if value is None:
        return 0
    if isinstance(value, list):
        return [0]
    return {"x": 0}


def _set(record: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = record
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def _get(record: dict[str, Any], path: tuple[Any, ...]) -> Any:
    target: Any = record
    for part in path:
        target = target[part]
    return target


def test_every_field_edit_is_detected_at_its_record() -> None:
    probes = 0
    for index, record in enumerate(CHAIN):
        for path in _leaf_paths(record):
            records = deep(CHAIN)
            _set(records[index], path, _other(_get(records[index], path)))
            report = verify(records, CHECKPOINT, KEY)
            probes += 1
            assert not report.ok, path
            assert report.failed_seq == index, path
            if path == ("prev_hash",) and index == 0:  # null -> 0: no longer a chain field at all
                assert report.code == "audit.record_malformed"
            elif path != ("conversation_id",) or index == 0:  # else: caught as a foreign record first
                assert report.code == "audit.hash_mismatch", path
    assert probes > 100


def test_renamed_added_or_removed_key_is_detected() -> None:
    for index in range(N):
        for key in list(CHAIN[index]):
            records = deep(CHAIN)
            records[index][key + "_"] = records[index].pop(key)
            assert not verify(records, CHECKPOINT, KEY).ok
            records = deep(CHAIN)
            if key != "hash":
                del records[index][key]
                assert not verify(records, CHECKPOINT, KEY).ok
        records = deep(CHAIN)
        records[index]["injected"] = "x"
        assert verify(records, CHECKPOINT, KEY).code == "audit.hash_mismatch"


def test_edit_with_recomputed_hash_breaks_the_chain_or_checkpoint() -> None:
    for index in range(N):
        records = deep(CHAIN)
        records[index]["question"] = "forged question"
        records[index]["hash"] = record_hash(records[index])
        report = verify(records, CHECKPOINT, KEY)
        if index < N - 1:
            assert (report.code, report.failed_seq) == ("audit.chain_broken", index + 1)
        else:
            assert (report.code, report.failed_seq) == ("audit.checkpoint_mismatch", index)


def test_every_deletion_is_detected() -> None:
    for index in range(N):
        records = deep(CHAIN)
        del records[index]
        report = verify(records, CHECKPOINT, KEY)
        expected = ("audit.seq_gap", index) if index < N - 1 else ("audit.truncated", index)
        assert (report.code, report.failed_seq) == expected


def test_every_swap_is_detected() -> None:
    for i in range(N):
        for j in range(i + 1, N):
            records = deep(CHAIN)
            records[i], records[j] = records[j], records[i]
            report = verify(records, CHECKPOINT, KEY)
            assert (report.code, report.failed_seq) == ("audit.seq_reordered", i)


def test_every_duplicate_insertion_is_detected() -> None:
    for source in range(N):
        for position in range(N + 1):
            records = deep(CHAIN)
            records.insert(position, copy.deepcopy(CHAIN[source]))
            assert not verify(records, CHECKPOINT, KEY).ok, (source, position)


def test_forged_insertion_is_detected() -> None:
    """An attacker without the key seals a new record after record k and splices it in."""
    for k in range(N):
        forged = seal(redact_record(make_record("conv-t", k + 2, n_objectives=2), KEY), SealedHead.of(CHAIN[k]))
        records = [*deep(CHAIN[: k + 1]), forged, *deep(CHAIN[k + 1 :])]
        report = verify(records, CHECKPOINT, KEY)
        assert not report.ok
        assert report.code in ("audit.seq_reordered", "audit.unanchored_tail")


def test_truncation_at_every_length_is_detected() -> None:
    for keep in range(N):
        report = verify(deep(CHAIN[:keep]), CHECKPOINT, KEY)
        assert (report.code, report.failed_seq) == ("audit.truncated", keep)


# -- properties over random (schema-free) records --------------------------------------------------------

json_leaf = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
json_tree = st.recursive(
    json_leaf,
    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=5), kids, max_size=3),
    max_leaves=8,
)
random_body = st.dictionaries(
    st.text(min_size=1, max_size=6).filter(lambda k: k not in ("seq", "prev_hash", "hash", "conversation_id")),
    json_tree,
    max_size=5,
)


def _chain_of(bodies: list[dict[str, Any]]) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    for body in bodies:
        record = {**body, "conversation_id": "conv-h"}
        records.append(seal(record, SealedHead.of(records[-1]) if records else None, validate=False))
    return records


@settings(max_examples=60, deadline=None)
@given(st.lists(random_body, min_size=1, max_size=6))
def test_random_chains_verify(bodies: list[dict[str, Any]]) -> None:
    records = _chain_of(bodies)
    cp = head_checkpoint(records)
    assert verify(records, cp, KEY).ok
    assert verify(parse_jsonl(dumps_jsonl(records)), cp, KEY).ok


@pytest.mark.invariant("I-13")
@settings(max_examples=150, deadline=None)
@given(
    st.lists(random_body, min_size=2, max_size=6),
    st.sampled_from(["edit", "delete", "swap", "duplicate", "truncate", "inject"]),
    st.data(),
)
def test_random_tampering_is_detected(bodies: list[dict[str, Any]], operation: str, data: st.DataObject) -> None:
    records = _chain_of(bodies)
    cp = head_checkpoint(records)
    tampered = deep(records)
    n = len(records)
    i = data.draw(st.integers(0, n - 1), label="index")
    if operation == "edit":
        paths = list(_leaf_paths(tampered[i]))
        path = data.draw(st.sampled_from(paths), label="path")
        _set(tampered[i], path, _other(_get(tampered[i], path)))
    elif operation == "delete":
        del tampered[i]
    elif operation == "swap":
        j = data.draw(st.integers(0, n - 1).filter(lambda j: j != i), label="other")
        tampered[i], tampered[j] = tampered[j], tampered[i]
    elif operation == "duplicate":
        position = data.draw(st.integers(0, n), label="position")
        tampered.insert(position, copy.deepcopy(records[i]))
    elif operation == "truncate":
        tampered = tampered[:i]
    else:
        tampered[i]["injected"] = data.draw(json_leaf, label="value")
    assert not verify(tampered, cp, KEY).ok
