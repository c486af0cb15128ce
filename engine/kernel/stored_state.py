"""The state as a store writes it, which is also what the audit checkpoint's ``state_hash`` covers: JSON data
with the personal strings (message texts, accepted values) sealed when the conversation has a key. Encryption is
deterministic, so the runtime (which hashes it) and the store (which writes it) compute the same form."""

from __future__ import annotations

from typing import Any

from audit.vault import FieldCipher
from engine.kernel.conversation import ConversationState


def stored_form(state: ConversationState, cipher: FieldCipher | None = None) -> dict[str, Any]:
    """The state as the store writes it: JSON data, personal strings encrypted when a key is given."""
    data: dict[str, Any] = state.model_dump(mode="json")
    if cipher is not None:
        for message in data["messages"]:
            message["text"] = cipher.seal(message["text"])
        for entries in data["values"].values():
            for entry in entries:
                entry["value"] = cipher.seal(entry["value"])
    return data
