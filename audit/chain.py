"""Per-conversation hash chain over transition records, with a keyed head checkpoint.

``seal`` gives each record ``seq`` (0-based), ``prev_hash`` (the previous record's ``hash``, ``None`` for
seq 0) and ``hash`` = sha256 over the canonical JSON of the record without ``hash``. The chain alone detects
edits, insertions, deletions and reordering inside the list; it cannot see a dropped tail or a fully
rewritten chain. The checkpoint closes that gap: an HMAC over (conversation_id, seq, head_hash) under a key
the writer holds, written in the same transaction as the record it anchors.

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

from audit.canonical import canonical_bytes, sha256_of
from audit.errors import AuditKeyError, CanonicalError, ChainIntegrityError, RecordError
from audit.keys import check_key
from audit.record import TransitionRecord

log = structlog.get_logger("audit")

CHAIN_FIELDS = ("seq", "prev_hash", "hash")
CHECKPOINT_FIELDS = ("conversation_id", "seq", "head_hash", "mac")
# Domain tag: a MAC made for a checkpoint can never be mistaken for any other keyed digest.
_CHECKPOINT_TAG = b"grace.audit.checkpoint.v1\n"
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

    With ``validate`` (the default) the record must match ``TransitionRecord``; the stored form is then the
    validated model's canonical JSON, so every sealed record conforms to the committed schema. Redact first.
    """
    if not isinstance(record, Mapping):
        raise RecordError("record must be a JSON object", code="audit.record.not_object")
    present = [name for name in CHAIN_FIELDS if name in record]
    if present:
        raise RecordError(f"record already has chain field(s) {present}", code="audit.record.already_sealed")
    cid = record.get("conversation_id")
    if not isinstance(cid, str) or not cid:
        raise RecordError("record has no conversation_id", code="audit.record.no_conversation")
    if prev is None:
        seq, prev_hash = 0, None
    else:
        if prev.conversation_id != cid:
            raise RecordError("previous head belongs to another conversation", code="audit.conversation_mismatch")
        if prev.seq < 0 or not _HASH_RE.match(prev.hash):
            raise RecordError("previous head is malformed", code="audit.record.bad_head")
        seq, prev_hash = prev.seq + 1, prev.hash
    body: Any = record
    if validate:
        try:
            body = TransitionRecord.model_validate(dict(record)).model_dump(mode="python")
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"]) or "record"
            raise RecordError(
                f"{where}: {first['msg']} ({exc.error_count()} error(s))", code="audit.record.schema_invalid"
            ) from exc
    # Round-trip through canonical JSON: the stored record is plain JSON data, byte-stable on reload.
    sealed: dict[str, Any] = json.loads(canonical_bytes(body))
    sealed["seq"] = seq
    sealed["prev_hash"] = prev_hash
    sealed["hash"] = record_hash(sealed)
    log.debug("audit.record.sealed", conversation_id=cid, seq=seq, hash=sealed["hash"])
    return sealed


def checkpoint(conversation_id: str, seq: int, head_hash: str, key: bytes) -> dict[str, Any]:
    """A keyed checkpoint anchoring the chain head ``(seq, head_hash)`` of ``conversation_id``."""
    if not isinstance(conversation_id, str) or not conversation_id:
        raise RecordError("checkpoint needs a conversation_id", code="audit.checkpoint.invalid")
    if type(seq) is not int or seq < 0:
        raise RecordError("checkpoint seq must be a non-negative integer", code="audit.checkpoint.invalid")
    if not isinstance(head_hash, str) or not _HASH_RE.match(head_hash):
        raise RecordError("checkpoint head_hash must be 'sha256:<hex>'", code="audit.checkpoint.invalid")
    mac = _checkpoint_mac(conversation_id, seq, head_hash, check_key(key, source="checkpoint key"))
    return {"conversation_id": conversation_id, "seq": seq, "head_hash": head_hash, "mac": mac}


def checkpoint_of(head: SealedHead, key: bytes) -> dict[str, Any]:
    return checkpoint(head.conversation_id, head.seq, head.hash, key)


def _checkpoint_mac(conversation_id: str, seq: int, head_hash: str, key: bytes) -> str:
    payload = canonical_bytes({"conversation_id": conversation_id, "seq": seq, "head_hash": head_hash})
    return "hmac-sha256:" + hmac.new(key, _CHECKPOINT_TAG + payload, hashlib.sha256).hexdigest()


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
) -> VerifyReport:
    """Check a conversation's records (in stored order) and, if given, its keyed head checkpoint.

    Without a checkpoint, a dropped tail or a consistently rewritten chain cannot be seen. With one, records
    after the checkpoint's seq fail (``audit.unanchored_tail``) unless ``allow_unanchored_tail``.
    """
    report = _verify(list(records), checkpoint, key, allow_unanchored_tail)
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
) -> VerifyReport:
    report = verify(records, checkpoint, key, allow_unanchored_tail=allow_unanchored_tail)
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
) -> VerifyReport:
    count = len(records)

    def fail(code: str, seq: int | None, message: str, cid: str | None = None) -> VerifyReport:
        return VerifyReport(ok=False, records=count, conversation_id=cid, code=code, failed_seq=seq, message=message)

    if cp is not None:
        if key is None:
            raise AuditKeyError("a checkpoint was given but no key to check it", code="audit.key.missing")
        key = check_key(key, source="checkpoint key")
        problem = _checkpoint_problem(cp)
        if problem is not None:
            return fail(CHECKPOINT_MALFORMED, None, problem)
        expected_mac = _checkpoint_mac(cp["conversation_id"], cp["seq"], cp["head_hash"], key)
        if not hmac.compare_digest(expected_mac, cp["mac"]):
            return fail(CHECKPOINT_MAC_INVALID, None, "checkpoint MAC does not verify under the given key")

    cid: str | None = None
    prev_hash: str | None = None
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
        prev_hash = record["hash"]

    head_seq = count - 1 if count else None
    anchored: int | None = None
    if cp is not None:
        if cid is not None and cp["conversation_id"] != cid:
            return fail(CHECKPOINT_CONVERSATION_MISMATCH, None, "checkpoint is for another conversation", cid)
        anchored = cp["seq"]
        if anchored >= count:
            return fail(TRUNCATED, count, f"checkpoint anchors seq {anchored} but the chain ends before it", cid)
        if not hmac.compare_digest(records[anchored]["hash"], cp["head_hash"]):
            return fail(CHECKPOINT_MISMATCH, anchored, "record at the checkpoint seq has another hash", cid)
        if anchored < count - 1 and not allow_unanchored_tail:
            return fail(UNANCHORED_TAIL, anchored + 1, "records after the checkpoint are not anchored", cid)
    return VerifyReport(
        ok=True,
        records=count,
        conversation_id=cid,
        head_seq=head_seq,
        head_hash=prev_hash,
        anchored_seq=anchored,
    )
