"""Per-conversation data keys, wrapped under the deployment's audit key (see ``audit.vault``, ADR 0004).

A store opened with the audit key gives every new conversation a data key and keeps only its wrapped form.
A store opened without it creates plaintext conversations (tests, tools) and refuses to read encrypted ones.
"""

from __future__ import annotations

from audit.errors import AuditKeyError
from audit.vault import FieldCipher, new_data_key, unwrap, wrap
from engine.storage import errors


class KeyRing:
    def __init__(self, audit_key: bytes | None) -> None:
        self._audit_key = audit_key

    @property
    def enabled(self) -> bool:
        return self._audit_key is not None

    def new(self, conversation_id: str) -> tuple[FieldCipher | None, bytes | None]:
        """A fresh cipher and the wrapped key to store with the conversation (None, None without a key)."""
        if self._audit_key is None:
            return None, None
        data_key = new_data_key()
        return FieldCipher(conversation_id, data_key), wrap(data_key, conversation_id, self._audit_key)

    def open(self, conversation_id: str, wrapped: bytes | None) -> FieldCipher | None:
        if wrapped is None:
            return None
        if self._audit_key is None:
            raise errors.StoreError(
                f"conversation {conversation_id!r} is encrypted; open the store with the audit key",
                code=errors.KEY_REQUIRED,
            )
        try:
            return FieldCipher(conversation_id, unwrap(wrapped, conversation_id, self._audit_key))
        except AuditKeyError as exc:
            raise errors.StoreError(exc.message, code=exc.code) from exc
