"""The transition record schema: committed JSON Schemas are current, every field is documented, and the
structural invariants refuse bad records."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from pydantic import ValidationError

from audit import schema_gen
from audit.chain import seal
from audit.errors import RecordError
from audit.record import SealedTransitionRecord, TransitionRecord
from audit.redaction import DEFAULT_POLICY_PATH, RedactionPolicy
from tests.audit.factory import make_chain, make_record

SCHEMA_DIR = Path(schema_gen.__file__).parent / "schema"


@pytest.mark.parametrize("name", sorted(schema_gen.SCHEMAS))
def test_committed_schema_equals_generated(name: str) -> None:
    committed = (SCHEMA_DIR / name).read_text(encoding="utf-8")
    assert committed == schema_gen.render(name), f"run: python -m audit.schema_gen --write ({name} is stale)"


def test_schema_check_command_reports_current_files() -> None:
    assert schema_gen.stale() == []
    assert schema_gen.main(["--check"]) == 0


def _all_properties(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    out = [("<root>", name, prop) for name, prop in schema.get("properties", {}).items()]
    for def_name, definition in schema.get("$defs", {}).items():
        out.extend((def_name, name, prop) for name, prop in definition.get("properties", {}).items())
    return out


@pytest.mark.parametrize("model", [SealedTransitionRecord, RedactionPolicy])
def test_every_field_is_documented(model: type[Any]) -> None:
    props = _all_properties(model.model_json_schema())
    assert len(props) > 5
    undocumented = [f"{owner}.{name}" for owner, name, prop in props if not prop.get("description")]
    assert undocumented == []


def test_sealed_records_validate_against_committed_schema() -> None:
    schema = json.loads((SCHEMA_DIR / "transition_record.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    for record in make_chain(3):
        validator.validate(record)
        SealedTransitionRecord.model_validate(record)
    broken = make_chain(1)[0]
    broken["surprise"] = 1
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(broken)


def test_policy_file_validates_against_committed_schema() -> None:
    schema = json.loads((SCHEMA_DIR / "redaction_policy.schema.json").read_text(encoding="utf-8"))
    data = json.loads(DEFAULT_POLICY_PATH.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)
    assert data["version"] and data["description"]


def test_valid_record_passes() -> None:
    model = TransitionRecord.model_validate(make_record())
    assert model.turn == 1 and model.record_version == 1


def _mutated(change: Any) -> dict[str, Any]:
    record = copy.deepcopy(make_record(turn=2))
    change(record)
    return record


BAD_RECORDS = {
    "unknown_field": lambda r: r.update(extra_field=1),
    "unknown_nested_field": lambda r: r["proposer"].update(temperature=1),
    "accepted_without_witness": lambda r: r["candidates"][0].update(witness=None),
    "empty_witness": lambda r: r["candidates"][0].update(witness={"turn": 2, "start": 5, "end": 5}),
    "chosen_not_scored": lambda r: r.update(chosen_action="ASK(unknown)"),
    "duplicate_action": lambda r: r["utilities"].append(dict(r["utilities"][0])),
    "bit_goes_back_to_zero": lambda r: r["state_after"].update(bits=[0, 0, 0, 0]),
    "state_length_changes": lambda r: r["state_after"].update(bits=[1, 1, 0]),
    "bit_not_binary": lambda r: r["state_after"].update(bits=[1, 2, 0, 0]),
    "fail_closed_changes_bits": lambda r: r.update(fail_closed={"code": "store.failed", "message": "x"}),
    "naive_timestamp": lambda r: r["timestamps"].update(received_at="2026-03-01T10:00:00"),
    "nan_utility": lambda r: r["utilities"][0].update(U_V=float("nan")),
    "rubric_out_of_range": lambda r: r["utilities"][0]["R"].update(value=1.5),
    "rubric_without_rationale": lambda r: r["utilities"][0]["R"].update(rationale=""),
    "bad_goal_hash": lambda r: r.update(goal_hash="md5:abc"),
    "bad_reason_code": lambda r: r["candidates"][1].update(reason_code="Not A Code"),
    "negative_timing": lambda r: r["timings_ms"].update(total_ms=-1.0),
    "bad_timing_name": lambda r: r["timings_ms"].update({"Total MS": 1.0}),
    "turn_zero": lambda r: r.update(turn=0),
    "bad_value_digest": lambda r: r["candidates"][0].update(value_digest="sha256:" + "0" * 64),
}


@pytest.mark.parametrize("name", sorted(BAD_RECORDS))
def test_structural_invariants_refuse_bad_records(name: str) -> None:
    record = _mutated(BAD_RECORDS[name])
    with pytest.raises(ValidationError):
        TransitionRecord.model_validate(record)
    with pytest.raises(RecordError) as info:
        seal(record, None)
    assert info.value.code == "audit.record.schema_invalid"


def test_fail_closed_turn_with_unchanged_bits_is_valid() -> None:
    def fail_closed(r: dict[str, Any]) -> None:
        r["state_after"] = copy.deepcopy(r["state_before"])
        r["candidates"] = []
        r["fail_closed"] = {"code": "decision.solver_unknown", "message": "solver returned unknown"}

    TransitionRecord.model_validate(_mutated(fail_closed))


def test_timestamps_are_stored_in_utc() -> None:
    record = make_record()
    record["timestamps"] = {"received_at": "2026-03-01T12:00:00+02:00", "completed_at": "2026-03-01T10:00:01Z"}
    sealed = seal(record, None)
    assert sealed["timestamps"] == {"received_at": "2026-03-01T10:00:00Z", "completed_at": "2026-03-01T10:00:01Z"}


def test_sealed_model_requires_genesis_consistency() -> None:
    record = make_chain(2)[1]
    record["prev_hash"] = None
    with pytest.raises(ValidationError):
        SealedTransitionRecord.model_validate(record)


def test_llm_adapter_call_records_fit_the_schema() -> None:
    """Contract with llm_adapters: every CallRecord field has a place in ``llm_calls[]``."""
    protocol = pytest.importorskip("llm_adapters.protocol")
    call = protocol.CallRecord(
        purpose="propose",
        adapter="instructor-mistral",
        model="mistral-small",
        prompt_id="grace.propose",
        prompt_version="1.0.0",
        prompt_hash="sha256:" + "1" * 64,
        response_hash="sha256:" + "2" * 64,
        latency_ms=812.4,
        input_tokens=1450,
        output_tokens=96,
        params={"provider": "mistral", "temperature": 0.2},
        output={"commands": [{"type": "complete", "objective": "contact", "quote": "call 600000005"}]},
    )
    record = make_record()
    record["llm_calls"] = [call.to_record()]
    sealed = seal(record, None)
    assert sealed["llm_calls"][0]["prompt_version"] == "1.0.0"
    assert set(protocol.CallRecord.model_fields) <= set(sealed["llm_calls"][0])
