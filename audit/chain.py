"""Per-conversation hash chain over transition records, with a keyed head checkpoint.

``seal`` gives each record ``seq`` (0-based), ``prev_hash`` (the previous record's ``hash``, ``None`` for
seq 0) and ``hash`` = sha256 over the canonical JSON of the record without ``hash``. The chain alone detects
edits, insertions, deletions and reordering inside the list; it cannot see a dropped tail or a fully
rewritten chain. The checkpoint closes that gap: an HMAC over (conversation_id, seq, head_hash, state_hash,
counter) under a key the writer holds, written in the same transaction as the record it anchors.
``state_hash`` seals the stored conversation state (its stored form without the checkpoint itself);
``counter`` numbers the conversation's checkpoints 1, 2, ... and every checkpoint is also appended to an
append-only checkpoint log, so an older genuine checkpoint put back (rollback) or presented with a truncated
chain no longer matches the log. Each record's ``state_before`` must equal the previous ``state_after``.

``verify`` never raises on bad data: it returns a ``VerifyReport`` with the first failing seq and a stable
reason code (``REASON_CODES``). It raises only for caller errors (a checkpoint without a usable key).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import structlog
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from audit.canonical import canonical_bytes, canonical_bytes_of_plain, is_plain, sha256_hex, sha256_of
from audit.errors import AuditKeyError, CanonicalError, ChainIntegrityError, RecordError
from audit.keys import check_key
from audit.record import TransitionRecord
from audit.stateseal import project_snapshot
from engine.errors import first_validation_error

log = structlog.get_logger("audit")

CHAIN_FIELDS = ("seq", "prev_hash", "hash")
CHECKPOINT_FIELDS = ("conversation_id", "seq", "head_hash", "state_hash", "counter", "mac")
LEGACY_CHECKPOINT_FIELDS = ("conversation_id", "seq", "head_hash", "mac")  # v1: no state seal, no counter
# Domain tag: a MAC made for a checkpoint can never be mistaken for any other keyed digest.
_CHECKPOINT_TAG = b"grace.audit.checkpoint.v2\n"
_HASH_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
_MAC_RE = re.compile(r"^hmac-sha256:[0-9a-f]{64}$")

# Stable reason codes of verification failures.
RECORD_MALFORMED = "audit.record_malformed"  # not an object, or chain fields missing / of the wrong type
HASH_MISMATCH = "audit.hash_mismatch"  # content does not match its own hash: the record was edited
SEQ_GAP = "audit.seq_gap"  # seq jumps ahead: records are missing (deleted)
SEQ_REORDERED = "audit.seq_reordered"  # records out of order, duplicated or inserted
CHAIN_BROKEN = "audit.chain_broken"  # prev_hash does not link to the previous record
CONVERSATION_MISMATCH = "audit.conversation_mismatch"  # a record of another conversation was mixed in
CHECKPOINT_MALFORMED = "audit.checkpoint_malformed"
CHECKPOINT_MAC_INVALID = "audit.checkpoint_mac_invalid"  # checkpoint forged or altered, or wrong key
CHECKPOINT_CONVERSATION_MISMATCH = "audit.checkpoint_conversation_mismatch"
CHECKPOINT_MISMATCH = "audit.checkpoint_mismatch"  # record at the checkpoint seq has another hash (rewrite)
TRUNCATED = "audit.truncated"  # the checkpoint anchors a seq beyond the last record: tail dropped
UNANCHORED_TAIL = "audit.unanchored_tail"  # records after the checkpoint (appended without the key?)
CHECKPOINT_MISSING = "audit.checkpoint_missing"  # records exist but no checkpoint anchors them
CHECKPOINT_LEGACY = "audit.checkpoint_legacy"  # a v1 checkpoint: the state was never sealed
CHECKPOINT_ROLLBACK = "audit.checkpoint_rollback"  # the checkpoint is not the newest one in the log
CHECKPOINT_LOG_INVALID = "audit.checkpoint_log_invalid"  # the append-only log is forged, gapped or reordered
STATE_DISCONTINUITY = "audit.state_discontinuity"  # a record's state_before is not the previous state_after
STATE_MISMATCH = "audit.state_mismatch"  # the stored state is not the state the checkpoint sealed

REASON_CODES = (
    RECORD_MALFORMED,
    HASH_MISMATCH,
    SEQ_GAP,
    SEQ_REORDERED,
    CHAIN_BROKEN,
    CONVERSATION_MISMATCH,
    CHECKPOINT_MALFORMED,
    CHECKPOINT_MAC_INVALID,
    CHECKPOINT_CONVERSATION_MISMATCH,
    CHECKPOINT_MISMATCH,
    TRUNCATED,
    UNANCHORED_TAIL,
    CHECKPOINT_MISSING,
    CHECKPOINT_LEGACY,
    CHECKPOINT_ROLLBACK,
    CHECKPOINT_LOG_INVALID,
    STATE_DISCONTINUITY,
    STATE_MISMATCH,
)


@dataclass(frozen=True)
class SealedHead:
    """The last sealed record of a conversation: what the next ``seal`` links to."""

    conversation_id: str
    seq: int
    hash: str

    @classmethod
    def of(cls, record: Mapping[str, Any]) -> SealedHead:
        """Head of a sealed record (e.g. the last one loaded from the store)."""
        cid, seq, digest = record.get("conversation_id"), record.get("seq"), record.get("hash")
        if not isinstance(cid, str) or type(seq) is not int or not isinstance(digest, str):
            raise RecordError("record is not sealed (conversation_id/seq/hash missing)", code="audit.record.unsealed")
        return cls(conversation_id=cid, seq=seq, hash=digest)


@dataclass(frozen=True)
class VerifyReport:
    """Outcome of ``verify``. ``ok`` is False exactly when ``code`` is set."""

    ok: bool
    records: int
    conversation_id: str | None = None
    head_seq: int | None = None
    head_hash: str | None = None
    anchored_seq: int | None = None  # seq the verified checkpoint anchors (None: no checkpoint)
    code: str | None = None
    failed_seq: int | None = None
    message: str | None = None

    def summary(self) -> str:
        if self.ok:
            anchored = "none" if self.anchored_seq is None else str(self.anchored_seq)
            return (
                f"OK {self.records} records conversation={self.conversation_id} head_seq={self.head_seq} "
                f"head={self.head_hash} anchored_seq={anchored}"
            )
        where = "" if self.failed_seq is None else f" seq={self.failed_seq}"
        return f"FAIL {self.code}{where}: {self.message}"


def record_hash(record: Mapping[str, Any]) -> str:
    """sha256 over the canonical JSON of ``record`` without its ``hash`` field."""
    return sha256_of({key: value for key, value in record.items() if key != "hash"})


def seal(record: Mapping[str, Any], prev: SealedHead | None, *, validate: bool = True) -> dict[str, Any]:
    """Return a new sealed copy of ``record`` chained after ``prev`` (``None`` for the first turn).

    INVARIANT (I-13): ``hash_k = H(record_k without hash)`` and ``prev_hash_k = hash_{k-1}``.

    With ``validate`` (the default) the record must match ``TransitionRecord``; the stored form is then the
    validated model's canonical JSON, so every sealed record conforms to the committed schema. Redact first.
    """
    seq, prev_hash = _position(record, prev)
    sealed: dict[str, Any] | None = None
    body: Any = record
    if validate:
        model = _validated(record)
        sealed = plain_of_model(model)
        if sealed is None:
            body = model.model_dump(mode="python")
    if sealed is None:
        # Round-trip through canonical JSON: the stored record is plain JSON data, byte-stable on reload.
        sealed = json.loads(canonical_bytes(body))
    return _chained(sealed, seq, prev_hash)


def seal_dump(record: dict[str, Any], prev: SealedHead | None, *, validated: bool = False) -> dict[str, Any]:
    """``seal(record, prev)`` for a record that is a JSON-mode dump of a ``TransitionRecord``
    (``model_dump(mode="json")``) with some strings replaced (redaction, encryption): the same sealed record and
    the same errors, without dumping the validated model again. Takes ``record`` over: the result is ``record``'s
    top-level copy with the chain fields, sharing its nested containers.

    The record is still validated in full. A JSON-mode dump holds only dicts, lists, str, int, float, bool and None
    in the very types and key order the model dumps them in, and no validator of the schema rewrites a valid value
    (strings are kept as given, timestamps are already UTC with ``Z``, numbers keep their type): so a record that
    validates dumps back to itself, and ``seal``'s stored form (the validated model's JSON dump) equals it.
    Replaced strings stay strings (a phone-like int redacted to a token in a typed field fails validation, as in
    ``seal``). Where ``seal`` would take its canonical round trip instead (free-form parts that are not plain JSON
    or nest near the depth limit), this is ``seal``. tests/audit/test_seal_dump.py holds it to ``seal``.

    ``validated``: the caller vouches that ``record`` is, unchanged, a fresh JSON-mode dump of a model validated in
    this process, that nobody else held in between (``engine.kernel.turn_record.build_and_seal``); it then dumps back to
    itself and validates, and is not validated again."""
    seq, prev_hash = _position(record, prev)
    if not validated:
        _validated(record)  # the schema is checked on exactly what is stored; the model itself is not needed
    free = [c.get("command") for c in record["candidates"]]
    free += [call.get("output") for call in record["llm_calls"] if call.get("output") is not None]
    if not all(is_plain(value, 3) for value in free):  # as in plain_of_model
        return seal(record, prev)
    return _chained(dict(record), seq, prev_hash)


def _position(record: Mapping[str, Any], prev: SealedHead | None) -> tuple[int, str | None]:
    """``(seq, prev_hash)`` of ``record`` chained after ``prev``, or ``RecordError``."""
    if not isinstance(record, Mapping):
        raise RecordError("record must be a JSON object", code="audit.record.not_object")
    present = [name for name in CHAIN_FIELDS if name in record]
    if present:
        raise RecordError(f"record already has chain field(s) {present}", code="audit.record.already_sealed")
    cid = record.get("conversation_id")
    if not isinstance(cid, str) or not cid:
        raise RecordError("record has no conversation_id", code="audit.record.no_conversation")
    if prev is None:
        return 0, None
    if prev.conversation_id != cid:
        raise RecordError("previous head belongs to another conversation", code="audit.conversation_mismatch")
    if prev.seq < 0 or not _HASH_RE.match(prev.hash):
        raise RecordError("previous head is malformed", code="audit.record.bad_head")
    return prev.seq + 1, prev.hash


def _validated(record: Mapping[str, Any]) -> TransitionRecord:
    try:
        return TransitionRecord.model_validate(dict(record))
    except ValidationError as exc:
        where, message = first_validation_error(exc, ".", "record")
        raise RecordError(
            f"{where}: {message} ({exc.error_count()} error(s))", code="audit.record.schema_invalid"
        ) from exc


def _chained(sealed: dict[str, Any], seq: int, prev_hash: str | None) -> dict[str, Any]:
    sealed["seq"] = seq
    sealed["prev_hash"] = prev_hash
    # ``sealed`` is plain JSON (read back from canonical bytes, or a JSON-mode dump): hashed without a second
    # preparing walk (the bytes equal ``record_hash``'s, which verification recomputes).
    try:
        sealed["hash"] = sha256_hex(canonical_bytes_of_plain(sealed))
    except UnicodeEncodeError as exc:  # a lone surrogate: what canonical_bytes raises on the slow path
        raise CanonicalError("string is not valid Unicode (lone surrogate)", code="audit.canonical.bad_string") from exc
    log.debug("audit.record.sealed", conversation_id=sealed["conversation_id"], seq=seq, hash=sealed["hash"])
    return sealed


def plain_of_model(model: TransitionRecord) -> dict[str, Any] | None:
    """``json.loads(canonical_bytes(model.model_dump(mode="python")))`` by pydantic's JSON-mode serialiser (several
    times faster), or None where the two could differ: only the free-form parts (``dict[str, Any]``) can hold
    values that canonical JSON rejects or writes otherwise (non-finite floats, non-string keys, sets, bytes,
    tuples, datetimes), so those must be plain JSON already. Every typed field serialises to the same plain
    value both ways (aware datetimes are UTC with ``Z``; floats stay the same floats). Text that is not valid
    UTF-8 passes here and is refused when the record is hashed, with canonical JSON's code."""
    free: list[Any] = [c.command for c in model.candidates]
    free += [call.output for call in model.llm_calls if call.output is not None]
    # 3: a free-form part's depth inside the record (record, list, item); canonical JSON counts from the record
    if not all(is_plain(value, 3) for value in free):
        return None
    try:
        plain: dict[str, Any] = model.model_dump(mode="json")
    except PydanticSerializationError:
        return None
    return plain


def checkpoint(
    conversation_id: str, seq: int, head_hash: str, key: bytes, *, state_hash: str, counter: int
) -> dict[str, Any]:
    """A keyed checkpoint anchoring the chain head ``(seq, head_hash)`` and the stored state ``state_hash``."""
    if not isinstance(conversation_id, str) or not conversation_id:
        raise RecordError("checkpoint needs a conversation_id", code="audit.checkpoint.invalid")
    if type(seq) is not int or seq < 0:
        raise RecordError("checkpoint seq must be a non-negative integer", code="audit.checkpoint.invalid")
    if not isinstance(head_hash, str) or not _HASH_RE.match(head_hash):
        raise RecordError("checkpoint head_hash must be 'sha256:<hex>'", code="audit.checkpoint.invalid")
    if not isinstance(state_hash, str) or not _HASH_RE.match(state_hash):
        raise RecordError("checkpoint state_hash must be 'sha256:<hex>'", code="audit.checkpoint.invalid")
    if type(counter) is not int or counter < 1:
        raise RecordError("checkpoint counter must be a positive integer", code="audit.checkpoint.invalid")
    body = {
        "conversation_id": conversation_id,
        "seq": seq,
        "head_hash": head_hash,
        "state_hash": state_hash,
        "counter": counter,
    }
    return {**body, "mac": _checkpoint_mac(body, check_key(key, source="checkpoint key"))}


def checkpoint_of(head: SealedHead, key: bytes, *, state_hash: str, counter: int) -> dict[str, Any]:
    return checkpoint(head.conversation_id, head.seq, head.hash, key, state_hash=state_hash, counter=counter)


def state_hash(stored_state: Mapping[str, Any]) -> str:
    """Digest of a conversation's stored state (its stored JSON form), without the checkpoint it carries."""
    return sha256_of({k: v for k, v in stored_state.items() if k != "audit_head"})


def _checkpoint_mac(body: Mapping[str, Any], key: bytes) -> str:
    payload = canonical_bytes({name: body[name] for name in CHECKPOINT_FIELDS if name != "mac"})
    return "hmac-sha256:" + hmac.new(key, _CHECKPOINT_TAG + payload, hashlib.sha256).hexdigest()


def checkpoint_problem(cp: Any, key: bytes) -> tuple[str, str] | None:
    """``(code, message)`` if ``cp`` is not a well-formed v2 checkpoint with a valid MAC under ``key``."""
    if _is_legacy(cp):
        return CHECKPOINT_LEGACY, "checkpoint predates state sealing (storage schema 1); the state is not sealed"
    problem = _checkpoint_problem(cp)
    if problem is not None:
        return CHECKPOINT_MALFORMED, problem
    if not hmac.compare_digest(_checkpoint_mac(cp, key), cp["mac"]):
        return CHECKPOINT_MAC_INVALID, "checkpoint MAC does not verify under the given key"
    return None


def _is_legacy(cp: Any) -> bool:
    if not isinstance(cp, Mapping) or sorted(cp.keys()) != sorted(LEGACY_CHECKPOINT_FIELDS):
        return False
    full = {**cp, "state_hash": cp["head_hash"], "counter": 1}
    return _checkpoint_problem(full) is None


def _checkpoint_problem(cp: Any) -> str | None:
    if not isinstance(cp, Mapping):
        return "checkpoint is not a JSON object"
    if sorted(cp.keys()) != sorted(CHECKPOINT_FIELDS):
        return f"checkpoint must have exactly the fields {list(CHECKPOINT_FIELDS)}"
    if not isinstance(cp["conversation_id"], str) or not cp["conversation_id"]:
        return "checkpoint conversation_id is not a non-empty string"
    if type(cp["seq"]) is not int or cp["seq"] < 0:
        return "checkpoint seq is not a non-negative integer"
    if not isinstance(cp["head_hash"], str) or not _HASH_RE.match(cp["head_hash"]):
        return "checkpoint head_hash is not 'sha256:<hex>'"
    if not isinstance(cp["state_hash"], str) or not _HASH_RE.match(cp["state_hash"]):
        return "checkpoint state_hash is not 'sha256:<hex>'"
    if type(cp["counter"]) is not int or cp["counter"] < 1:
        return "checkpoint counter is not a positive integer"
    if not isinstance(cp["mac"], str) or not _MAC_RE.match(cp["mac"]):
        return "checkpoint mac is not 'hmac-sha256:<hex>'"
    return None


def _record_problem(record: Any) -> str | None:
    if not isinstance(record, Mapping):
        return "record is not a JSON object"
    seq, digest, prev = record.get("seq"), record.get("hash"), record.get("prev_hash")
    if type(seq) is not int or seq < 0:
        return "seq is missing or not a non-negative integer"
    if not isinstance(digest, str) or not _HASH_RE.match(digest):
        return "hash is missing or not 'sha256:<hex>'"
    if "prev_hash" not in record or not (prev is None or (isinstance(prev, str) and _HASH_RE.match(prev))):
        return "prev_hash is missing or not null / 'sha256:<hex>'"
    cid = record.get("conversation_id")
    if not isinstance(cid, str) or not cid:
        return "conversation_id is missing"
    return None


def verify(
    records: Sequence[Mapping[str, Any]],
    checkpoint: Mapping[str, Any] | None = None,
    key: bytes | None = None,
    *,
    allow_unanchored_tail: bool = False,
    require_checkpoint: bool = False,
    checkpoint_log: Sequence[Mapping[str, Any]] | None = None,
    stored_state: Mapping[str, Any] | None = None,
) -> VerifyReport:
    """Check a conversation's records (in stored order) and, if given, its keyed head checkpoint.

    Without a checkpoint, a dropped tail or a consistently rewritten chain cannot be seen; with
    ``require_checkpoint`` records without one fail (``audit.checkpoint_missing``). With a checkpoint, records
    after its seq fail (``audit.unanchored_tail``) unless ``allow_unanchored_tail``. ``checkpoint_log`` (the
    append-only log, oldest first) must end with the checkpoint; ``stored_state`` (the stored form) must hash
    to the checkpoint's ``state_hash`` and project onto the last record's ``state_after``.
    """
    report = _verify(
        list(records), checkpoint, key, allow_unanchored_tail, require_checkpoint, checkpoint_log, stored_state
    )
    if report.ok:
        log.info("audit.verify.ok", conversation_id=report.conversation_id, records=report.records)
    else:
        log.warning(
            "audit.verify.failed",
            conversation_id=report.conversation_id,
            code=report.code,
            seq=report.failed_seq,
        )
    return report


def verify_or_raise(
    records: Sequence[Mapping[str, Any]],
    checkpoint: Mapping[str, Any] | None = None,
    key: bytes | None = None,
    *,
    allow_unanchored_tail: bool = False,
    require_checkpoint: bool = False,
) -> VerifyReport:
    report = verify(
        records, checkpoint, key, allow_unanchored_tail=allow_unanchored_tail, require_checkpoint=require_checkpoint
    )
    if not report.ok:
        raise ChainIntegrityError(
            report.message or "chain verification failed", code=report.code, seq=report.failed_seq
        )
    return report


def _verify(
    records: list[Mapping[str, Any]],
    cp: Mapping[str, Any] | None,
    key: bytes | None,
    allow_unanchored_tail: bool,
    require_checkpoint: bool,
    cp_log: Sequence[Mapping[str, Any]] | None,
    stored_state: Mapping[str, Any] | None,
) -> VerifyReport:
    count = len(records)

    def fail(code: str, seq: int | None, message: str, cid: str | None = None) -> VerifyReport:
        return VerifyReport(ok=False, records=count, conversation_id=cid, code=code, failed_seq=seq, message=message)

    if cp is not None or cp_log:
        if key is None:
            raise AuditKeyError("a checkpoint was given but no key to check it", code="audit.key.missing")
        key = check_key(key, source="checkpoint key")
    if cp is not None and key is not None:
        found = checkpoint_problem(cp, key)
        if found is not None:
            return fail(found[0], None, found[1])

    cid: str | None = None
    prev_hash: str | None = None
    prev_after: Any = None
    for position, record in enumerate(records):
        problem = _record_problem(record)
        if problem is not None:
            return fail(RECORD_MALFORMED, position, problem, cid)
        if cid is None:
            cid = record["conversation_id"]
        elif record["conversation_id"] != cid:
            return fail(CONVERSATION_MISMATCH, position, "record belongs to another conversation", cid)
        try:
            recomputed = record_hash(record)
        except CanonicalError as exc:
            return fail(RECORD_MALFORMED, position, f"record has no canonical form ({exc.code})", cid)
        if not hmac.compare_digest(recomputed, record["hash"]):
            return fail(HASH_MISMATCH, position, "record content does not match its hash", cid)
        seq = record["seq"]
        if seq != position:
            later = {r.get("seq") for r in records[position + 1 :] if isinstance(r, Mapping)}
            if seq > position and position not in later:
                return fail(SEQ_GAP, position, f"expected seq {position}, found {seq}: records missing", cid)
            return fail(SEQ_REORDERED, position, f"expected seq {position}, found {seq}: records out of order", cid)
        if record["prev_hash"] != prev_hash:
            return fail(CHAIN_BROKEN, position, "prev_hash does not link to the previous record", cid)
        if position > 0 and record.get("state_before") != prev_after:
            return fail(STATE_DISCONTINUITY, position, "state_before is not the previous record's state_after", cid)
        prev_hash = record["hash"]
        prev_after = record.get("state_after")

    head_seq = count - 1 if count else None
    anchored: int | None = None
    if cp is None:
        if require_checkpoint and count:
            return fail(CHECKPOINT_MISSING, None, f"{count} record(s) but no checkpoint anchors them", cid)
        if cp_log:
            return fail(CHECKPOINT_ROLLBACK, None, "the checkpoint log has entries but no checkpoint is stored", cid)
    else:
        if cid is not None and cp["conversation_id"] != cid:
            return fail(CHECKPOINT_CONVERSATION_MISMATCH, None, "checkpoint is for another conversation", cid)
        anchored = cp["seq"]
        if anchored >= count:
            return fail(TRUNCATED, count, f"checkpoint anchors seq {anchored} but the chain ends before it", cid)
        if not hmac.compare_digest(records[anchored]["hash"], cp["head_hash"]):
            return fail(CHECKPOINT_MISMATCH, anchored, "record at the checkpoint seq has another hash", cid)
        if anchored < count - 1 and not allow_unanchored_tail:
            return fail(UNANCHORED_TAIL, anchored + 1, "records after the checkpoint are not anchored", cid)
    if cp_log is not None and key is not None:
        failed = _check_log(records, cp, cp_log, key)
        if failed is not None:
            return fail(failed[0], failed[1], failed[2], cid)
    if stored_state is not None:
        failed_state = _check_state(records, cp, stored_state, key)
        if failed_state is not None:
            return fail(failed_state[0], None, failed_state[1], cid)
    return VerifyReport(
        ok=True,
        records=count,
        conversation_id=cid,
        head_seq=head_seq,
        head_hash=prev_hash,
        anchored_seq=anchored,
    )


def _check_log(
    records: list[Mapping[str, Any]], cp: Mapping[str, Any] | None, cp_log: Sequence[Mapping[str, Any]], key: bytes
) -> tuple[str, int | None, str] | None:
    """The log must be genuine, numbered 1..n, anchor real records, and end with the stored checkpoint."""
    for position, entry in enumerate(cp_log, start=1):
        found = checkpoint_problem(entry, key)
        if found is not None:
            return CHECKPOINT_LOG_INVALID, None, f"checkpoint log entry {position}: {found[1]}"
        if entry["counter"] != position:
            return CHECKPOINT_LOG_INVALID, None, f"checkpoint log entry {position} has counter {entry['counter']}"
        if entry["seq"] >= len(records):
            return TRUNCATED, len(records), f"the checkpoint log anchors seq {entry['seq']}; the chain ends before it"
        if not hmac.compare_digest(records[entry["seq"]]["hash"], entry["head_hash"]):
            return CHECKPOINT_MISMATCH, entry["seq"], "a logged checkpoint anchors another record hash"
    if cp is None:
        return None
    if not cp_log or dict(cp_log[-1]) != dict(cp):
        newest = cp_log[-1]["counter"] if cp_log else 0
        return (
            CHECKPOINT_ROLLBACK,
            None,
            f"stored checkpoint has counter {cp['counter']}, the checkpoint log's newest is {newest}",
        )
    return None


def _check_state(
    records: list[Mapping[str, Any]], cp: Mapping[str, Any] | None, stored: Mapping[str, Any], key: bytes | None
) -> tuple[str, str] | None:
    if cp is None:
        return None
    if not hmac.compare_digest(state_hash(stored), cp["state_hash"]):
        return STATE_MISMATCH, "the stored state is not the state the checkpoint sealed (edited?)"
    if records and key is not None and project_snapshot(stored, key) != records[-1].get("state_after"):
        return STATE_MISMATCH, "the stored state differs from the last record's state_after"
    return None
