"""The visitor's capability: a secret token handed out once when a conversation is created.

Reading a conversation and posting to it need the token in the ``X-Visitor-Token`` header; the conversation
id alone grants nothing. Only the token's sha256 is stored (in the conversation state), so a database reader
cannot act as the visitor. A missing token is a 401; a wrong token answers exactly like an unknown
conversation (404), so probing ids reveals nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Protocol

from engine.service.errors import AuthError, NotFoundError

HEADER = "X-Visitor-Token"
TOKEN_BYTES = 32  # 256 bits from the OS CSPRNG


def new_token() -> tuple[str, str]:
    """(token for the visitor, hash to store)."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    return token, token_hash(token)


def token_hash(token: str) -> str:
    return "sha256:" + hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def require_token(token: str | None) -> str:
    if not token:
        raise AuthError(f"this conversation needs its visitor token in the {HEADER} header",
                        code="visitor.token_missing")
    return token


class Guarded(Protocol):
    """A conversation as far as the access check needs it: a ``ConversationState`` or a store's
    ``ConversationAccess``."""

    @property
    def conversation_id(self) -> str: ...

    @property
    def visitor_key(self) -> str | None: ...


def check_access(state: Guarded, token: str) -> None:
    stored = state.visitor_key
    # Hash first: the comparison then takes the same time whatever the presented token is.
    presented = token_hash(token)
    if stored is None or not hmac.compare_digest(presented.encode(), stored.encode()):
        raise NotFoundError(f"no conversation {state.conversation_id}", code="conversation.not_found")
