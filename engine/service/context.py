"""What every router of the HTTP API shares: the store, the served catalog, limits, operators, and the request
dependencies built on them (client address, rate limit families, operator roles, conversation lookup)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, TypeVar

import structlog
from fastapi import Depends, Header, Request
from fastapi import Path as PathParam
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from engine.errors import StoreError
from engine.handoff.config import HandoffConfig
from engine.leads.notifier import LeadNotifier
from engine.service import visitor_access
from engine.service.catalog import Catalog, ServedGoal
from engine.service.config import ServiceConfig
from engine.service.errors import AuthError, ForbiddenError, NotFoundError, RequestError
from engine.service.limits import ServiceLimits
from engine.service.operators import Operator, OperatorDirectory, Role
from engine.service.ratelimit import RateLimiter
from engine.service.schemas import CONVERSATION_ID_PATTERN, ErrorResponse
from engine.service.turns import TurnSubmitter
from engine.storage.base import ConversationAccess, DurableStore

# Reads that take personal data out of the service: logged like actions.
_EXPORTS = ("/audit/packet", "/leads/export")
log = structlog.get_logger("engine.service")

ConversationId = Annotated[str, PathParam(pattern=CONVERSATION_ID_PATTERN)]
VisitorToken = Annotated[
    str | None,
    Header(alias=visitor_access.HEADER, description="the visitor_token returned when the conversation was created"),
]
# Module level: route signatures are resolved from module globals (postponed annotations).
bearer = HTTPBearer(auto_error=False, description="GRACE_OPERATOR_TOKEN")
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse} for status in (400, 401, 403, 404, 409, 410, 413, 415, 429, 500, 503)
}
T = TypeVar("T")
MAX_OFFSET = 2**63 - 1  # SQL BIGINT: a larger OFFSET is a driver overflow, not an empty page


def check_text(value: str, field: str) -> None:
    # JSON escapes can smuggle lone surrogates into a str; they are not text and no store can keep them.
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise RequestError(f"{field} contains invalid Unicode (lone surrogate)", code="input.binary") from None


@dataclass
class ServiceContext:
    config: ServiceConfig
    store: DurableStore
    catalog: Catalog
    audit_key: bytes
    limiter: RateLimiter
    submitter: TurnSubmitter
    operators: OperatorDirectory
    notifier: LeadNotifier | None = None
    handoff: dict[str, HandoffConfig] = field(default_factory=dict)  # goal spec id -> how its people take over

    @property
    def limits(self) -> ServiceLimits:
        return self.config.limits

    def client_of(self, request: Request) -> str:
        if self.config.trust_forwarded:
            forwarded = request.headers.get("x-forwarded-for", "")
            if forwarded:
                # The entry our trusted proxy appended; everything left of it is whatever the client sent.
                return forwarded.split(",")[-1].strip() or "unknown"
        return request.client.host if request.client else "unknown"

    def limited(self, family: str) -> Callable[[Request], Awaitable[None]]:
        # async: FastAPI runs a sync dependency on a worker thread, a hand-off per request for a dictionary
        # update under a lock that is never held for long.
        async def dependency(request: Request) -> None:
            self.limiter.check(family, self.client_of(request))

        return dependency

    def require(self, needed: Role) -> Callable[..., Operator]:
        """The operator behind the bearer token, if their role allows ``needed``; every call is logged."""

        def dependency(
            request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
        ) -> Operator:
            self.limiter.check("operator", self.client_of(request))
            if "authorization" not in request.headers:
                raise AuthError("operator endpoints need Authorization: Bearer <token>", code="auth.missing_token")
            who = self.operators.identify(credentials.credentials) if credentials else None
            if who is None:
                log.info("service.auth.refused", client=self.client_of(request))
                raise AuthError("operator token is not valid", code="auth.invalid_token")
            if not who.may(needed):
                log.warning("operator.forbidden", operator=who.name, role=who.role.label, needed=needed.label,
                            method=request.method, path=request.url.path)
                raise ForbiddenError(f"operator {who.name} ({who.role.label}) may not do this; needs "
                                     f"{needed.label}", code="auth.forbidden")
            # Reads are routine (info); an action that changes or takes something out (erase, requeue, export) is an
            # audit event and shows at the default warning level.
            routine = request.method in ("GET", "HEAD") and not request.url.path.endswith(_EXPORTS)
            (log.info if routine else log.warning)(
                "operator.request", operator=who.name, role=who.role.label, method=request.method,
                path=request.url.path, client=self.client_of(request))
            request.state.operator = who  # handlers name the operator in what they log and record
            return who

        return dependency

    def visitor_goal_of(self, conversation_id: str, token: str | None) -> tuple[Any, ServedGoal]:
        presented = visitor_access.require_token(token)
        state, goal = self.goal_of(conversation_id)
        visitor_access.check_access(state, presented)
        return state, goal

    def visitor_access_of(self, conversation_id: str, token: str | None) -> tuple[ConversationAccess, ServedGoal]:
        """``visitor_goal_of`` for a turn: the same checks and refusals, on the stored state's access fields
        only (the turn loads and decrypts the state itself, under the conversation's lock)."""
        presented = visitor_access.require_token(token)
        access = self._stored(self.store.access, conversation_id)
        visitor_access.check_access(access, presented)
        return access, self.catalog.for_ref(access.goal_ref)

    def goal_of(self, conversation_id: str) -> tuple[Any, ServedGoal]:
        state = self._stored(self.store.load, conversation_id)
        return state, self.catalog.for_state(state)

    def records(self, conversation_id: str) -> list[dict[str, Any]]:
        return self._stored(self.store.records, conversation_id)

    @staticmethod
    def _stored(read: Callable[[str], T], conversation_id: str) -> T:
        """``read(conversation_id)`` with an unknown conversation answered as ``conversation.not_found``."""
        try:
            return read(conversation_id)
        except StoreError as exc:
            if exc.code == "store.not_found":
                raise NotFoundError(f"no conversation {conversation_id}", code="conversation.not_found") from exc
            raise
