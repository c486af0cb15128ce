"""Checkpoint v2 (state seal, counter, log) in ``audit.chain.verify`` and the per-conversation cipher."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.chain import SealedHead, checkpoint_of, state_hash, verify
from audit.errors import AuditKeyError
from audit.redaction import Redactor
from audit.stateseal import project_snapshot
from audit.vault import ERASED, PREFIX, FieldCipher, new_data_key, open_personal, protect_record, unwrap, wrap
from tests.audit.factory import KEY, OTHER_KEY, head_checkpoint, make_chain, make_record

CIPHER = FieldCipher("conv-1", b"\x01" * 64)


def _log(records: list[dict[str, object]]) -> list[dict[str, object]]:
    return [head_checkpoint(records[: n + 1]) for n in range(len(records))]


def test_records_need_a_checkpoint_when_required() -> None:
    records = make_chain(2)
    assert verify(records).ok  # the library default stays permissive for partial exports
    assert verify(records, require_checkpoint=True).code == "audit.checkpoint_missing"
    assert verify([], require_checkpoint=True).ok


def test_legacy_checkpoint_is_reported_as_such() -> None:
    records = make_chain(1)
    legacy = {k: v for k, v in head_checkpoint(records).items() if k not in ("state_hash", "counter")}
    assert verify(records, legacy, KEY).code == "audit.checkpoint_legacy"


def test_state_continuity_is_checked() -> None:
    records = make_chain(3)
    assert verify(records).ok
    from audit.chain import seal

    body = {k: v for k, v in make_record(turn=3).items()}
    body["state_before"] = {"bits": [1, 1, 0, 0]}  # skips the values the previous record ended with
    forged = [*records[:2], seal(Redactor(KEY).redact(body), SealedHead.of(records[1]))]
    report = verify(forged)
    assert (report.code, report.failed_seq) == ("audit.state_discontinuity", 2)


def test_log_must_end_with_the_checkpoint() -> None:
    records = make_chain(3)
    log = _log(records)
    assert verify(records, log[-1], KEY, checkpoint_log=log).ok
    # an older genuine checkpoint with a truncated chain, or put back over the newest one
    assert verify(records[:2], log[1], KEY, checkpoint_log=log).code == "audit.truncated"
    assert verify(records, log[1], KEY, checkpoint_log=log, allow_unanchored_tail=True).code == (
        "audit.checkpoint_rollback")
    assert verify(records, None, KEY, checkpoint_log=log).code == "audit.checkpoint_rollback"
    assert verify(records, log[-1], KEY, checkpoint_log=[log[0], log[2]]).code == "audit.checkpoint_log_invalid"
    forged = dict(log[0], seq=0, mac=head_checkpoint(records[:1], OTHER_KEY)["mac"])
    assert verify(records, log[-1], KEY, checkpoint_log=[forged, *log[1:]]).code == "audit.checkpoint_log_invalid"


def test_stored_state_must_match_the_seal_and_the_last_record() -> None:
    records = make_chain(2)
    after = records[-1]["state_after"]
    stored = {"conversation_id": "conv-1", "turn": 2, "bits": after["bits"], "values": after["values"],
              "audit_head": None}
    sealed = checkpoint_of(SealedHead.of(records[-1]), KEY, state_hash=state_hash(stored), counter=2)
    stored["audit_head"] = sealed
    assert project_snapshot(stored, KEY) == after
    assert verify(records, sealed, KEY, stored_state=stored).ok
    edited = dict(stored, bits=[1, 1, 1, 1])
    assert verify(records, sealed, KEY, stored_state=edited).code == "audit.state_mismatch"
    # re-keyed consistently by someone without the key: the MAC no longer matches
    forged = checkpoint_of(SealedHead.of(records[-1]), OTHER_KEY, state_hash=state_hash(edited), counter=2)
    assert verify(records, forged, KEY, stored_state=edited).code == "audit.checkpoint_mac_invalid"


@given(st.text(max_size=200))
def test_cipher_round_trip_is_deterministic_and_never_looks_like_contact_data(text: str) -> None:
    token = CIPHER.seal(text)
    assert token.startswith(PREFIX) and token == CIPHER.seal(text)
    assert CIPHER.open(token) == text
    assert not any(ch.isdigit() for ch in token[len(PREFIX):]) and "@" not in token
    assert Redactor(KEY).redact_text(token) == token


def test_text_that_looks_sealed_is_encrypted_too() -> None:
    lookalike = CIPHER.seal("x")
    assert CIPHER.open(CIPHER.seal(lookalike)) == lookalike
    assert CIPHER.open(CIPHER.seal("enc:siv:zz")) == "enc:siv:zz"


def test_cipher_is_bound_to_key_and_conversation() -> None:
    token = CIPHER.seal("ana@example.com")
    for other in (FieldCipher("conv-2", b"\x01" * 64), FieldCipher("conv-1", b"\x02" * 64)):
        with pytest.raises(AuditKeyError) as info:
            other.open(token)
        assert info.value.code == "audit.vault.corrupt"
    flipped = token[:-1] + ("a" if token[-1] != "a" else "b")
    with pytest.raises(AuditKeyError):
        CIPHER.open(flipped)
    assert open_personal({"m": [token, 3]}, None) == {"m": [ERASED, 3]}


def test_wrapped_key_needs_the_audit_key_and_the_conversation() -> None:
    data_key = new_data_key()
    wrapped = wrap(data_key, "conv-1", KEY)
    assert unwrap(wrapped, "conv-1", KEY) == data_key and data_key not in wrapped
    for cid, key in (("conv-2", KEY), ("conv-1", OTHER_KEY)):
        with pytest.raises(AuditKeyError) as info:
            unwrap(wrapped, cid, key)
        assert info.value.code == "audit.vault.wrong_key"


def test_protected_record_keeps_no_personal_plaintext_and_decrypts_back() -> None:
    record = make_record(turn=4)  # carries an e-mail address and a phone number in value and quote
    redacted = Redactor(KEY).redact(record)
    protected = protect_record(record, redacted, CIPHER)
    text = str(protected)
    assert "jordan.visitor" not in text and "611 222 333" not in text
    opened = open_personal(protected, CIPHER)
    assert opened["state_after"]["values"] == record["state_after"]["values"]
    assert opened["candidates"][0]["command"] == record["candidates"][0]["command"]
    assert protected["utilities"] == redacted["utilities"]  # the rest stays readable
