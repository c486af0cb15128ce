"""Per-turn checks of what no proposer may break, read from the sealed audit record of each turn.

* every coordinate that went 0 -> 1 has an accepted complete command for that objective whose witness span lies
  inside a visitor message of the conversation (model, retrieved or bot text never completes an objective);
* every accepted complete/correct command carries such a witness;
* every rejected candidate carries a dotted reason code.

Monotonic consistency and evidence precision are scored from the state vectors (engine.evaluation.metrics).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_CODE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")
_WITNESSED = ("complete", "correct")


def _witness_ok(witness: Any, visitor: Mapping[int, str], turn: int) -> bool:
    if not isinstance(witness, Mapping):
        return False
    at, start, end = witness.get("turn"), witness.get("start"), witness.get("end")
    if not (isinstance(at, int) and isinstance(start, int) and isinstance(end, int)) or at > turn:
        return False
    text = visitor.get(at)
    return text is not None and 0 <= start < end <= len(text)


def turn_violations(record: Mapping[str, Any], objective_ids: Sequence[str], visitor: Mapping[int, str]) -> list[str]:
    """Violations in one turn's record. ``objective_ids``: the order of the state bits; ``visitor``: the
    conversation's visitor messages by turn, as stored."""
    turn = int(record.get("turn") or 0)
    problems: list[str] = []
    witnessed: set[str] = set()
    for candidate in record.get("candidates") or []:
        command = candidate.get("command") or {}
        kind, objective = command.get("type"), command.get("objective")
        if not candidate.get("accepted"):
            code = candidate.get("reason_code")
            if not (isinstance(code, str) and _CODE.match(code)):
                problems.append(f"t{turn}: rejected {kind}({objective}) has no reason code")
            continue
        if kind in _WITNESSED:
            if _witness_ok(candidate.get("witness"), visitor, turn):
                witnessed.add(str(objective))
            else:
                problems.append(f"t{turn}: accepted {kind}({objective}) without a visitor span")
    before = (record.get("state_before") or {}).get("bits") or []
    after = (record.get("state_after") or {}).get("bits") or []
    for index, (old, new) in enumerate(zip(before, after, strict=False)):
        objective = objective_ids[index] if index < len(objective_ids) else str(index)
        if old == 0 and new == 1 and objective not in witnessed:
            problems.append(f"t{turn}: {objective} completed without an accepted visitor span")
        if old == 1 and new == 0:
            problems.append(f"t{turn}: {objective} went from 1 to 0")
    return problems
