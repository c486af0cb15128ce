"""The audit packet of one conversation: what a compliance officer downloads, reads and re-verifies offline.

A zip with ``report.md`` (the turns and the verification result in plain words), and exactly the files
``grace audit verify`` reads: ``records.jsonl``, ``checkpoint.json``, ``checkpoint-log.jsonl`` and ``state.json``
(personal parts stay encrypted in the stored form, so the packet verifies and reveals nothing erased), plus
``verification.json``. No message text is written into the report: the records are already redacted."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any

from audit.chain import VerifyReport
from audit.jsonl import dumps_jsonl
from audit.stored import VerifiableStore, verify_stored

VERIFY_COMMAND = ("grace audit verify records.jsonl --checkpoint checkpoint.json "
                  "--checkpoint-log checkpoint-log.jsonl --state state.json --key-file AUDIT_KEY_FILE")


def build_packet(store: VerifiableStore, conversation_id: str, key: bytes, *, title: str,
                 objectives: Sequence[Mapping[str, Any]], now: datetime | None = None) -> bytes:
    records = store.records(conversation_id)
    state = store.stored_state(conversation_id)
    log = store.checkpoints(conversation_id)
    report = verify_stored(store, conversation_id, key)
    made = (now or datetime.now(UTC)).isoformat()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as packet:
        packet.writestr("report.md", render_report(conversation_id, title, objectives, records, report, made))
        packet.writestr("records.jsonl", dumps_jsonl(records))
        if state.get("audit_head") is not None:
            packet.writestr("checkpoint.json", _json(state["audit_head"]))
        packet.writestr("checkpoint-log.jsonl", dumps_jsonl(log))
        packet.writestr("state.json", _json(state))
        packet.writestr("verification.json", _json({**asdict(report), "verified_at": made}))
    return buffer.getvalue()


def render_report(conversation_id: str, title: str, objectives: Sequence[Mapping[str, Any]],
                  records: Sequence[Mapping[str, Any]], report: VerifyReport, made: str) -> str:
    names = [str(o.get("name", o.get("id"))) for o in objectives]
    verdict = ("VERIFIED — every record, the state continuity, the stored state and the checkpoint log check out"
               if report.ok else f"FAILED — {report.code}"
               + (f" at record {report.failed_seq}" if report.failed_seq is not None else "")
               + (f": {report.message}" if report.message else ""))
    lines = [
        f"# Audit packet — conversation {conversation_id}",
        "",
        f"- Goal: {title}",
        f"- Objectives in approved order: {', '.join(names)}",
        f"- Records: {len(records)}",
        f"- Verification ({made}): {verdict}",
        f"- Re-verify offline: `{VERIFY_COMMAND}`",
        "",
        "## Turns",
    ]
    for record in records:
        lines += ["", *_turn_lines(record, names)]
    return "\n".join(lines) + "\n"


def _turn_lines(record: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    before = _bits(record.get("state_before"))
    after = _bits(record.get("state_after"))
    changed = [names[i] for i, (b, a) in enumerate(zip(before, after, strict=False)) if b == 0 and a == 1
               and i < len(names)]
    head = f"### Turn {record.get('turn')} (record {record.get('seq')}, {_when(record)})"
    lines = [head, f"- State {''.join(map(str, before))} → {''.join(map(str, after))}"
             + (f": recorded {', '.join(changed)}" if changed else ": nothing new recorded")]
    for candidate in record.get("candidates") or []:
        command = candidate.get("command") or {}
        what = f"{command.get('type', '?')} {command.get('objective') or ''}".strip()
        verdict = "accepted" if candidate.get("accepted") else f"rejected ({candidate.get('reason_code')})"
        lines.append(f"- Proposed {what}: {verdict}")
    lines.append(f"- Asked: {record.get('chosen_action')}")
    check = record.get("invariant_check")
    lines.append("- Safety check (Z3): " + {"unsat": "passed — no invariant can be violated",
                                              "sat": "violation found — failed closed",
                                              "unknown": "inconclusive — failed closed"}.get(str(check),
                                                                                              "no transition checked"))
    failed = record.get("fail_closed")
    if isinstance(failed, Mapping):
        lines.append(f"- Failed closed: {failed.get('code')}")
    return lines


def _bits(snapshot: Any) -> list[int]:
    if isinstance(snapshot, Mapping):
        bits = snapshot.get("bits")
        if isinstance(bits, list):
            return [int(b) for b in bits]
    return []


def _when(record: Mapping[str, Any]) -> str:
    stamps = record.get("timestamps")
    return str(stamps.get("received_at")) if isinstance(stamps, Mapping) else "time not recorded"


def _json(value: Any) -> bytes:
    return (json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
