"""Signed webhook on completion: the event body, its HMAC signature, and a retrying dispatcher over an outbox.

A receiver verifies ``X-Grace-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`` with the shared
secret, rejects old timestamps, and de-duplicates on ``X-Grace-Delivery`` (stable per conversation turn, so a retry
or a second dispatcher never delivers a different id for the same completion).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema
import structlog

from engine.leads.errors import LeadExportError
from engine.leads.export import Lead
from engine.leads.outbox import Delivery, Outbox

log = structlog.get_logger("grace.leads")
SETTINGS_PATH = Path(__file__).with_name("delivery.json")
EVENT = "conversation.completed"
REVISED_EVENT = "conversation.revised"  # a value of a delivered lead was corrected afterwards (issue 32)


@dataclass(frozen=True)
class DeliverySettings:
    backoff_seconds: tuple[float, ...]
    timeout_seconds: float
    signature_tolerance_seconds: int
    poll_seconds: float = 2.0
    lanes_per_goal: int = 4
    delivered_retention_seconds: float = 604800.0

    @property
    def attempts(self) -> int:
        return 1 + len(self.backoff_seconds)

    @staticmethod
    def load(path: Path = SETTINGS_PATH) -> DeliverySettings:
        data = json.loads(path.read_text(encoding="utf-8"))
        schema = json.loads(path.with_name("delivery.schema.json").read_text(encoding="utf-8"))
        try:
            jsonschema.validate(data, schema)
        except jsonschema.ValidationError as exc:
            raise LeadExportError(f"{path.name}: {exc.message}", code="leads.settings_invalid") from None
        return DeliverySettings(tuple(float(x) for x in data["backoff_seconds"]), float(data["timeout_seconds"]),
                                int(data["signature_tolerance_seconds"]), float(data["poll_seconds"]),
                                int(data["lanes_per_goal"]), float(data["delivered_retention_seconds"]))


@dataclass(frozen=True)
class WebhookTarget:
    goal: str  # goal spec id
    url: str
    secret: bytes

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise LeadExportError(f"webhook for {self.goal} needs an http(s) URL", code="leads.webhook_url")
        if len(self.secret) < 16:
            raise LeadExportError(f"webhook secret for {self.goal} must be at least 16 bytes",
                                  code="leads.webhook_secret")


def webhooks_from_file(path: Path, environ: Mapping[str, str]) -> dict[str, WebhookTarget]:
    """The deployment's webhooks (engine/leads/webhooks.schema.json); each secret comes from its env variable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise LeadExportError(f"cannot read webhooks file {path}: {exc}", code="leads.webhooks_unreadable") from None
    schema = json.loads(SETTINGS_PATH.with_name("webhooks.schema.json").read_text(encoding="utf-8"))
    try:
        jsonschema.validate(data, schema)
    except jsonschema.ValidationError as exc:
        raise LeadExportError(f"{path.name}: {exc.message}", code="leads.webhooks_invalid") from None
    targets: dict[str, WebhookTarget] = {}
    for item in data["webhooks"]:
        secret = environ.get(item["secret_env"], "")
        if not secret:
            raise LeadExportError(f"webhook of {item['goal']}: set {item['secret_env']}", code="leads.webhook_secret")
        if item["goal"] in targets:
            raise LeadExportError(f"two webhooks for goal {item['goal']}", code="leads.webhooks_invalid")
        targets[item["goal"]] = WebhookTarget(item["goal"], item["url"], secret.encode("utf-8"))
    return targets


def delivery_id(conversation_id: str, turn: int) -> str:
    return hashlib.sha256(f"grace.lead:{conversation_id}:{turn}".encode()).hexdigest()[:32]


def completion_event(lead: Lead, turn: int, reason: str, occurred_at: datetime) -> dict[str, Any]:
    return {
        "event": EVENT,
        "delivery_id": delivery_id(lead.conversation_id, turn),
        "occurred_at": occurred_at.astimezone(UTC).isoformat(),
        "reason": reason,  # all_complete | visitor_stopped
        "conversation_id": lead.conversation_id,
        "goal_ref": lead.goal_ref,
        "language": lead.language,
        "state": lead.state,
        "values": dict(lead.values),
        "revisions": {objective: list(history) for objective, history in lead.revisions.items()},
        "declined": {objective: list(options) for objective, options in lead.declined.items()},  # spec/adr/0009
    }


def revision_event(lead: Lead, turn: int, revised: list[str], occurred_at: datetime) -> dict[str, Any]:
    """A delivered lead whose values the visitor corrected in ``turn``: the full lead again (latest values), the
    objectives revised in that turn and, per revised objective, its values in order."""
    event = completion_event(lead, turn, "visitor_corrected", occurred_at)
    return {**event, "event": REVISED_EVENT, "revised": list(revised)}


def sign(body: bytes, secret: bytes, timestamp: int) -> str:
    mac = hmac.new(secret, f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify_signature(body: bytes, header: str, secret: bytes, *, now: int, tolerance: int) -> bool:
    """What a receiver runs: a valid MAC over this body and a timestamp within ``tolerance`` seconds."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        stamp = int(fields["t"])
    except (ValueError, KeyError):
        return False
    if abs(now - stamp) > tolerance:
        return False
    return hmac.compare_digest(sign(body, secret, stamp), f"t={stamp},v1={fields.get('v1', '')}")


def _event_name(body: bytes) -> str:
    try:
        return str(json.loads(body).get("event", EVENT))
    except (ValueError, AttributeError):
        return EVENT


# (url, body, headers, timeout) -> HTTP status; raises OSError on a transport failure
Transport = Callable[[str, bytes, dict[str, str], float], int]
Clock = Callable[[], datetime]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is the receiver's answer, not a new address: following it would send the lead (and its signature
    headers) somewhere nobody configured, and a GET after a 302 drops the body. It counts as a failed attempt."""

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> None:
        return None


_OPENER = urllib.request.build_opener(_NoRedirect)


def urllib_transport(url: str, body: bytes, headers: dict[str, str], timeout: float) -> int:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with _OPENER.open(request, timeout=timeout) as response:  # http(s) only: checked by WebhookTarget
            return int(response.status)
    except urllib.error.HTTPError as exc:  # every status urllib does not treat as success, 3xx included
        return int(exc.code)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class WebhookDispatcher:
    """Queues completion events per goal and delivers what is due; one ``run_due`` call is one pass.

    A pass sends each goal's due deliveries over at most ``lanes_per_goal`` connections at once, and the goals
    side by side, so a slow or dead receiver holds up only its own goal's lanes. ``clock`` tells when an attempt
    ended: a retry waits its backoff from the failure, not from the start of the pass. ``is_erased`` (the
    store's erasure log) is asked before each send, so a lead of an erased conversation is never sent."""

    def __init__(self, outbox: Outbox, targets: dict[str, WebhookTarget], settings: DeliverySettings,
                 transport: Transport = urllib_transport, *, clock: Clock = _utc_now,
                 is_erased: Callable[[str], bool] | None = None) -> None:
        self.outbox = outbox
        self.targets = targets
        self.settings = settings
        self.transport = transport
        self.clock = clock
        self.is_erased = is_erased

    def enqueue(self, event: dict[str, Any], now: datetime) -> bool:
        """Queue an event for its goal's webhook. False when the goal has none or the delivery id is already
        queued (idempotent: a completion is delivered once however often it is queued)."""
        goal = str(event["goal_ref"]).split("/")[0]
        if goal not in self.targets:
            return False
        body = json.dumps(event, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return self.outbox.enqueue(str(event["delivery_id"]), goal, body, now, str(event["conversation_id"]))

    def run_due(self, now: datetime) -> list[Delivery]:
        """One pass over the deliveries due at ``now``: every goal in parallel, each in bounded lanes."""
        due = self.outbox.due(now)
        if not due:
            return []
        by_goal: dict[str, list[Delivery]] = {}
        for delivery in due:
            by_goal.setdefault(delivery.goal, []).append(delivery)
        lanes = sum(min(len(items), self.settings.lanes_per_goal) for items in by_goal.values())
        results: dict[str, Delivery] = {}
        with ThreadPoolExecutor(max_workers=lanes, thread_name_prefix="grace-webhook") as pool:
            futures = [pool.submit(self._goal_lane, items[lane::self.settings.lanes_per_goal], now)
                       for items in by_goal.values()
                       for lane in range(min(len(items), self.settings.lanes_per_goal))]
            for future in futures:
                for delivery in future.result():
                    results[delivery.delivery_id] = delivery
        return [results[d.delivery_id] for d in due]

    def forget_conversation(self, conversation_id: str) -> int:
        """Erasure: the conversation's deliveries become tombstones; a pending one is never sent."""
        return self.outbox.erase_conversation(conversation_id, self.clock())

    def purge_delivered(self) -> int:
        return self.outbox.purge_delivered(self.clock(), self.settings.delivered_retention_seconds)

    def _goal_lane(self, deliveries: list[Delivery], now: datetime) -> list[Delivery]:
        return [self._attempt(delivery, now) for delivery in deliveries]

    def _attempt(self, delivery: Delivery, now: datetime) -> Delivery:
        if delivery.conversation_id and self.is_erased is not None and self.is_erased(delivery.conversation_id):
            self.outbox.erase_conversation(delivery.conversation_id, now)
            log.info("leads.webhook.erased", delivery_id=delivery.delivery_id, goal=delivery.goal)
            return self.outbox.get(delivery.delivery_id)
        target = self.targets.get(delivery.goal)
        if target is None:
            return self.outbox.dead_letter(delivery.delivery_id, now, "no webhook configured for this goal any more")
        stamp = int(now.timestamp())
        headers = {
            "Content-Type": "application/json",
            "User-Agent": "grace-webhook/1",
            "X-Grace-Event": _event_name(delivery.body),
            "X-Grace-Delivery": delivery.delivery_id,
            "X-Grace-Signature": sign(delivery.body, target.secret, stamp),
        }
        started = self.clock()
        try:
            status = self.transport(target.url, delivery.body, headers, self.settings.timeout_seconds)
            error = None if 200 <= status < 300 else f"HTTP {status}"
        except (OSError, ValueError) as exc:  # refused, timed out, DNS, TLS: retried like a 5xx
            error = type(exc).__name__
        now += max(self.clock() - started, timedelta(0))  # when the attempt ended: backoff counts from the failure
        if error is None:
            log.info("leads.webhook.delivered", delivery_id=delivery.delivery_id, goal=delivery.goal,
                     attempt=delivery.attempts + 1)
            return self.outbox.delivered(delivery.delivery_id, now)
        attempt = delivery.attempts + 1
        if attempt >= self.settings.attempts:
            log.warning("leads.webhook.dead_letter", delivery_id=delivery.delivery_id, goal=delivery.goal,
                        attempts=attempt, error=error)
            return self.outbox.dead_letter(delivery.delivery_id, now, error)
        delay = self.settings.backoff_seconds[attempt - 1]
        log.info("leads.webhook.retry", delivery_id=delivery.delivery_id, goal=delivery.goal, attempt=attempt,
                 error=error, delay_s=delay)
        return self.outbox.retry_later(delivery.delivery_id, now, delay, error)

