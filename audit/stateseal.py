"""The stored conversation state as the audit records see it: what "the stored state equals the last
record's ``state_after``" compares.

A record's ``state_after`` is the decision-relevant snapshot of the state, redacted (contact data -> keyed
tokens) except for values that were encrypted per conversation (``audit.vault``), which stay ciphertext.
``project_snapshot`` builds the same form from the *stored* state (its JSON as written by the store), so
the comparison needs no decryption and still works after the conversation's key was erased.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from audit.redaction import default_redactor


def snapshot(state: Mapping[str, Any]) -> dict[str, Any]:
    """Decision-relevant fields of a state in the order and shape of ``audit.record.StateSnapshot``."""
    values = state.get("values") or {}
    return {
        "bits": list(state.get("bits") or []),
        "refused": sorted(state.get("refused") or []),
        "stopped": bool(state.get("stopped", False)),
        "uncertain": dict(sorted((state.get("uncertain") or {}).items())),
        "ask_counts": dict(sorted((state.get("ask_counts") or {}).items())),
        "last_asked": state.get("last_asked"),
        "values": {
            k: [
                {f: v.get(f) for f in ("turn", "kind", "value", "span_start", "span_end")}
                for v in entries
                if isinstance(v, Mapping)
            ]
            for k, entries in sorted(values.items())
        },
    }


def project_snapshot(stored_state: Mapping[str, Any], key: bytes) -> Any:
    """``snapshot`` of the stored state, redacted under ``key`` exactly as records are."""
    return default_redactor(key).redact(snapshot(stored_state), strict=True)
