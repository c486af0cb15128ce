"""``engine.kernel.turn_record.seal_for_store`` seals the redacted JSON dump with ``audit.chain.seal_dump`` (no second
dump of the validated model), and ``build_and_seal`` also skips the second validation when redaction changed
nothing: the same sealed record (bytes, hash, key order), the same checkpoint, or the same error, as the plain
definition (dump, redact, encrypt, ``seal``, checkpoint) for any record: random ones with contact-like strings
(e-mails, phones, names, card numbers) anywhere, odd free-form values, deep nesting, redactions that break the
schema, with and without a cipher and a previous head."""

from __future__ import annotations

import copy
import json
import random
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from audit.chain import SealedHead, checkpoint, seal, seal_dump, state_hash
from audit.errors import AuditError
from audit.record import TransitionRecord
from audit.redaction import redact_record
from audit.vault import FieldCipher, protect_record
from engine.kernel.turn_record import _seal, build_and_seal, seal_for_store
from tests.audit.factory import KEY, make_record

STATE: dict[str, Any] = {"bits": [1, 0], "messages": [{"text": "call me at 611 222 333"}], "audit_head": None}
CIPHER_KEY = bytes(range(64))
HEAD = {"conversation_id": "conv-1", "seq": 4, "head_hash": "sha256:" + "e" * 64, "counter": 5}


def reference_seal_for_store(record: TransitionRecord, head: dict[str, Any] | None, key: bytes, *,
                             stored_state: dict[str, Any], cipher: FieldCipher | None = None) -> Any:
    """seal_for_store as it was before ``seal_dump``: the redacted dump sealed by ``seal``."""
    body = record.model_dump(mode="json")
    redacted = redact_record(body, key)
    if cipher is not None:
        redacted = protect_record(body, redacted, cipher)
    prev = None if head is None else SealedHead(head["conversation_id"], int(head["seq"]), str(head["head_hash"]))
    sealed = seal(redacted, prev)
    counter = 1 if head is None else int(head["counter"]) + 1
    mark = checkpoint(sealed["conversation_id"], sealed["seq"], sealed["hash"], key,
                      state_hash=state_hash(stored_state), counter=counter)
    return sealed, mark


def _outcome(fn: Any, record: TransitionRecord, head: dict[str, Any] | None, cipher: bool) -> tuple[Any, ...]:
    try:
        out = fn(record, head, KEY, stored_state=copy.deepcopy(STATE),
                 cipher=FieldCipher("conv-1", CIPHER_KEY) if cipher else None)
    except AuditError as exc:
        return "error", type(exc).__name__, exc.code, str(exc)
    except UnicodeEncodeError as exc:  # pydantic's JSON-mode dump of a key with a lone surrogate, on both paths
        return "error", type(exc).__name__, str(exc)
    sealed, mark = (out.record, out.checkpoint) if hasattr(out, "record") else out
    # json.dumps without sort_keys: the key order of the returned record counts too (API responses show it)
    return "ok", json.dumps(sealed, ensure_ascii=False), json.dumps(mark)


def _built(record: TransitionRecord, head: dict[str, Any] | None, key: bytes, *, stored_state: dict[str, Any],
           cipher: FieldCipher | None = None) -> Any:
    """What build_and_seal does with the record build_record validated (these records are validated models)."""
    return _seal(record, head, key, stored_state, cipher, built=True)


def assert_same(record: TransitionRecord) -> None:
    for head in (None, HEAD):
        for cipher in (False, True):
            expected = _outcome(reference_seal_for_store, record, head, cipher)
            assert _outcome(seal_for_store, record, head, cipher) == expected
            assert _outcome(_built, record, head, cipher) == expected


# -- contact-like strings and odd values ---------------------------------------------------------------------

_NAMES = ["Vera", "Jordan Müller", "José Álvarez", "李小龍", "O'Brien"]
_pii = st.one_of(
    st.emails(),
    st.from_regex(r"\+?[0-9]{1,3}[ .-]?[0-9]{2,4}[ .-]?[0-9]{3}[ .-]?[0-9]{3,4}", fullmatch=True),
    st.from_regex(r"[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}[ -]?[0-9]{4}", fullmatch=True),
    st.sampled_from(_NAMES),
    st.sampled_from(["ｊｏｒｄａｎ＠ｅｘａｍｐｌｅ．ｏｒｇ", "6\u200b1\u200b1 222 333", "2026-12-02T04:26:58.123456Z",
                     "350.000 EUR", "x\ud800y", "sha256:" + "1234567" * 9 + "0"]),
)
_text = st.one_of(
    st.text(max_size=12),
    st.builds(lambda a, p, b: f"{a}{p}{b}", st.text(max_size=6), _pii, st.text(max_size=6)),
)
_leaf = st.one_of(st.none(), st.booleans(), st.floats(), st.integers(-(10**16), 10**16),
                  st.sampled_from([600000005, 10**6, 10**15 - 1]), _text)
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=10)
_odd = st.sampled_from([(1, 2), {1, 2}, b"x", {1: "int key"}, datetime(2026, 1, 1, tzinfo=UTC), float("nan")])


def _nested(depth: int) -> Any:
    value: Any = "a@b.com"
    for _ in range(depth):
        value = {"k": value}
    return value


@st.composite
def records(draw: st.DrawFn) -> TransitionRecord:
    record = make_record(turn=draw(st.integers(1, 4)))
    command = record["candidates"][0]["command"]
    command["value"] = draw(_text)
    command["span"]["quote"] = draw(_text)
    command["extra"] = draw(_json | _odd | st.builds(_nested, st.integers(55, 64)))
    record["llm_calls"][0]["output"] = draw(st.none() | st.dictionaries(_text, _json | _odd, max_size=3))
    record["llm_calls"][0]["params"] = draw(st.dictionaries(st.text(max_size=4), _leaf, max_size=3))
    record["notes"] = draw(st.lists(_text, max_size=3))
    record["question"] = draw(st.none() | _text)
    record["conversation_id"] = draw(st.sampled_from(["conv-1", "conv-1 a@b.com", "c" * 195 + "a@b.c"]))
    record["state_after"]["values"] = {draw(_text): [{"turn": 1, "kind": "complete", "value": draw(_text),
                                                       "span_start": 0, "span_end": draw(st.integers(0, 10**9))}]}
    record["state_after"]["uncertain"] = draw(st.dictionaries(_text, st.integers(0, 10**8), max_size=2))
    record["timings_ms"] = draw(st.dictionaries(st.sampled_from(["total_ms", "x_600000005", "a@b"]),
                                                st.floats(0, 1e9), max_size=2))
    record["fail_closed"] = draw(st.none() | st.builds(lambda m: {"code": "x.y", "message": m}, _text))
    if record["fail_closed"] is not None:
        record["state_after"]["bits"] = list(record["state_before"]["bits"])
    record["utilities"][0]["R"]["rationale"] = draw(_text.filter(bool))
    try:
        return TransitionRecord.model_validate(record)
    except ValidationError:
        return draw(st.nothing())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(records())
def test_seal_for_store_equals_the_plain_definition(record: TransitionRecord) -> None:
    assert_same(record)


def test_records_of_the_decision_layer_seal_as_before() -> None:
    """Realistic records: the seeded random cases of the differential test, decided and built as a turn does."""
    from engine.evaluation.differential import random_case
    from engine.kernel.decision.bundle_proofs import load_verified_bundle
    from engine.kernel.decision.decider import Decider
    from engine.kernel.ports import GroundedAnswer, Proposal
    from engine.kernel.turn_record import build_record
    from engine.rules.loader import DEFAULT_RULES_DIR

    bundle = load_verified_bundle(DEFAULT_RULES_DIR, require_published=False)
    rng = random.Random(16)
    now = datetime(2026, 12, 2, 12, 0, 0, 123456, tzinfo=UTC)
    for _ in range(150):
        case = random_case(rng)
        decision = Decider(case.spec, bundle).decide(case.state, case.commands,
                                                     company_question=case.company_question)
        fields: dict[str, Any] = dict(
            spec=case.spec, bundle=bundle, state_before=case.state, state_after=decision.new_state,
            proposal=Proposal(adapter="bench", adapter_version="1"), decision=decision,
            question=rng.choice([None, "Your e-mail, Vera? (e.g. vera@example.org)"]), answer=GroundedAnswer(),
            fail_closed=None, timings={"total_ms": 1.5}, received_at=now, completed_at=now)
        record = build_record(**fields)
        assert_same(record)
        for head in (None, {**HEAD, "conversation_id": record.conversation_id}):
            sealed = build_and_seal(head, KEY, stored_state=STATE, **fields)
            record_then, mark = reference_seal_for_store(record, head, KEY, stored_state=STATE)
            assert json.dumps(sealed.record, ensure_ascii=False) == json.dumps(record_then, ensure_ascii=False)
            assert sealed.checkpoint == mark


@pytest.mark.parametrize("depth", [58, 59, 60, 61, 62])
def test_free_form_parts_near_the_depth_limit_take_seal(depth: int) -> None:
    record = make_record()
    record["candidates"][0]["command"]["extra"] = _nested(depth)
    assert_same(TransitionRecord.model_validate(record))


def test_seal_dump_refuses_what_seal_refuses() -> None:
    body = redact_record(TransitionRecord.model_validate(make_record()).model_dump(mode="json"), KEY)
    broken = [
        {**body, "turn": "phone:hmac8:abcdefgh"},  # a typed int redacted to a token
        {**body, "seq": 3},
        {**body, "conversation_id": ""},
        {**body, "goal_hash": "sha256:x"},
        {**body, "notes": ["x\ud800"]},
        {**body, "utilities": body["utilities"] + body["utilities"][:1]},  # an action scored twice
        {**body, "timestamps": {**body["timestamps"], "received_at": "2026-03-01T10:00:00"}},  # naive
    ]
    for record in broken:
        expected = _errors(seal, record)
        assert expected[0] == "error"
        assert _errors(seal_dump, record) == expected


def _errors(fn: Any, record: dict[str, Any]) -> tuple[Any, ...]:
    try:
        return "ok", json.dumps(fn(copy.deepcopy(record), None))
    except AuditError as exc:
        return "error", exc.code, str(exc)
