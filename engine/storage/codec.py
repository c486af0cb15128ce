"""JSON encoding of states and audit records for the durable stores.

Records are stored as canonical JSON text (sorted keys, no spaces, no NaN) so every backend hands back
exactly the dict that was sealed; the state is stored whole, so new state fields need no migration.

With a conversation key (``audit.vault.FieldCipher``) the personal strings of the state (message texts,
accepted values) are stored encrypted: ``stored_form`` (engine/kernel/stored_state.py), the form the audit
checkpoint's ``state_hash`` covers. Encryption is deterministic, so the runtime and the store compute the same form.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from audit.errors import AuditKeyError
from audit.vault import FieldCipher, open_personal
from engine.errors import first_validation_error
from engine.kernel.conversation import ConversationState
from engine.kernel.stored_state import stored_form
from engine.storage import errors
from engine.storage.base import ConversationAccess


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


def dump_state(state: ConversationState, cipher: FieldCipher | None = None) -> str:
    return dump_json(stored_form(state, cipher), what="state")


def load_stored(text: str) -> dict[str, Any]:
    value = load_json(text, what="state")
    if not isinstance(value, dict):
        raise errors.StoreError("stored state is not a JSON object", code=errors.CORRUPT)
    return value


def load_state(text: str, cipher: FieldCipher | None = None, *, erased: bool = False) -> ConversationState:
    """Parse a stored state; sealed strings are decrypted, or shown as ``[erased]`` once the key is gone."""
    try:
        if cipher is not None or erased:
            try:
                return ConversationState.model_validate(open_personal(load_stored(text), cipher))
            except AuditKeyError as exc:
                raise errors.StoreError(f"stored state does not decrypt: {exc.message}", code=errors.CORRUPT) from exc
        return ConversationState.model_validate_json(text)
    except ValidationError as exc:
        where, message = first_validation_error(exc)
        raise errors.StoreError(f"stored state does not parse at {where}: {message}", code=errors.CORRUPT) from exc


# ConversationAccess field -> the exact type the fast read accepts; anything else takes the full parse.
_ACCESS_TYPES: dict[str, tuple[type, ...]] = {
    "conversation_id": (str,), "goal_ref": (str,), "language": (str,), "turn": (int,),
    "visitor_key": (str, type(None)),
}


def load_access(text: str) -> ConversationAccess | None:
    """The access fields of a stored state, read from its JSON without decrypting or validating the rest; None
    when one of them is missing or not of its exact type (the caller then parses the whole state, so the
    answer is always the one ``load_state`` would give)."""
    data = load_stored(text)
    fields: dict[str, Any] = {}
    for name, types in _ACCESS_TYPES.items():
        if name not in data or type(data[name]) not in types:
            return None
        fields[name] = data[name]
    return ConversationAccess(**fields)


def dump_record(record: dict[str, Any]) -> str:
    if not isinstance(record, dict):
        raise errors.StoreError("an audit record must be a JSON object", code=errors.UNSERIALIZABLE)
    return dump_json(record, what="audit record")


def load_record(text: str) -> dict[str, Any]:
    value = load_json(text, what="audit record")
    if not isinstance(value, dict):
        raise errors.StoreError("stored audit record is not a JSON object", code=errors.CORRUPT)
    return value


def dump_response(response: dict[str, Any], cipher: FieldCipher | None) -> str:
    """A stored turn response (it quotes the conversation): encrypted whole when the conversation has a key."""
    text = dump_json(response, what="response")
    return dump_json({"sealed": cipher.seal(text)}, what="response") if cipher is not None else text


def load_response(text: str, cipher: FieldCipher | None) -> dict[str, Any]:
    value = load_json(text, what="response")
    if isinstance(value, dict) and set(value) == {"sealed"} and cipher is not None:
        try:
            value = load_json(cipher.open(str(value["sealed"])), what="response")
        except AuditKeyError as exc:
            raise errors.StoreError(f"stored response does not decrypt: {exc.message}", code=errors.CORRUPT) from exc
    if not isinstance(value, dict):
        raise errors.StoreError("stored response is not a JSON object", code=errors.CORRUPT)
    return value
