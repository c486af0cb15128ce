"""JSON encoding of states and audit records for the durable stores.

Records are stored as canonical JSON text (sorted keys, no spaces, no NaN) so every backend hands back
exactly the dict that was sealed; the state is stored whole, so new state fields need no migration.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from engine.conversation import ConversationState
from engine.storage import errors


def dump_json(value: Any, *, what: str) -> str:
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        text.encode("utf-8")  # lone surrogates would fail later, inside the transaction
        return text
    except (TypeError, ValueError) as exc:  # UnicodeEncodeError is a ValueError
        raise errors.StoreError(f"{what} is not JSON-serialisable: {exc}", code=errors.UNSERIALIZABLE) from exc


def load_json(text: str, *, what: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as exc:
        raise errors.StoreError(f"stored {what} is not JSON", code=errors.CORRUPT) from exc


def dump_state(state: ConversationState) -> str:
    return dump_json(state.model_dump(mode="json"), what="state")


def load_state(text: str) -> ConversationState:
    try:
        return ConversationState.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        raise errors.StoreError(f"stored state does not parse at {where}: {first['msg']}", code=errors.CORRUPT) from exc


def dump_record(record: dict[str, Any]) -> str:
    if not isinstance(record, dict):
        raise errors.StoreError("an audit record must be a JSON object", code=errors.UNSERIALIZABLE)
    return dump_json(record, what="audit record")


def load_record(text: str) -> dict[str, Any]:
    value = load_json(text, what="audit record")
    if not isinstance(value, dict):
        raise errors.StoreError("stored audit record is not a JSON object", code=errors.CORRUPT)
    return value
