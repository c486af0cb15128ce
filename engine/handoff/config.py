"""How a company's people take over a conversation: company data, one file per deployment (``grace serve
--handoff FILE``, schema beside this module): per goal an e-mail, a phone, whether the goal's webhook gets a
``conversation.handoff`` event, opening hours in the company's time zone, and the console address for the
transcript link."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import jsonschema

from engine.handoff.errors import HandoffConfigError

SCHEMA_PATH = Path(__file__).with_name("handoff.schema.json")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


@dataclass(frozen=True)
class OpeningHours:
    time_zone: str
    weekly: dict[str, list[tuple[time, time]]] = field(default_factory=dict)

    def open_at(self, moment: datetime) -> bool:
        local = moment.astimezone(ZoneInfo(self.time_zone))
        now = local.time()
        return any(start <= now < end for start, end in self.weekly.get(DAYS[local.weekday()], []))

    def describe(self) -> str:
        """'mon 09:00-18:00; tue 09:00-18:00 Europe/Madrid': the hours as configured."""
        spans = [f"{day} " + ", ".join(f"{s:%H:%M}-{e:%H:%M}" for s, e in self.weekly[day])
                 for day in DAYS if self.weekly.get(day)]
        return f"{'; '.join(spans)} {self.time_zone}"


@dataclass(frozen=True)
class HandoffConfig:
    email: str | None = None
    phone: str | None = None
    webhook: bool = False  # deliver a conversation.handoff event through the goal's completion webhook
    hours: OpeningHours | None = None
    console_url: str | None = None  # e.g. https://chat.example.com/console: the transcript link's base

    def transcript_link(self, conversation_id: str) -> str:
        return f"{(self.console_url or '/console').rstrip('/')}#conversation={conversation_id}"


def load_handoff(path: Path) -> dict[str, HandoffConfig]:
    """Goal spec id -> its handoff configuration; a coded error names the first problem."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise HandoffConfigError(f"{path}: not a readable JSON file ({type(exc).__name__})",
                                 code="handoff.config_unreadable") from None
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    error = next(iter(jsonschema.Draft202012Validator(schema).iter_errors(raw)), None)
    if error is not None:
        where = "/".join(str(p) for p in error.absolute_path) or "(top)"
        raise HandoffConfigError(f"{path}: {where}: {error.message}", code="handoff.config_invalid")
    return {goal: _config(goal, body) for goal, body in raw["goals"].items()}


def _config(goal: str, body: dict[str, object]) -> HandoffConfig:
    hours = None
    raw_hours = body.get("hours")
    if isinstance(raw_hours, dict):
        zone = str(raw_hours["time_zone"])
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise HandoffConfigError(f"{goal}: unknown time zone {zone!r}", code="handoff.time_zone") from None
        weekly: dict[str, list[tuple[time, time]]] = {}
        for day, spans in dict(raw_hours.get("weekly") or {}).items():
            for span in spans:
                start, end = (time.fromisoformat(part) for part in str(span).split("-"))
                if start >= end:
                    raise HandoffConfigError(f"{goal}: {day} {span}: the opening must come before the closing",
                                             code="handoff.hours_invalid")
                weekly.setdefault(day, []).append((start, end))
        hours = OpeningHours(zone, weekly)
    return HandoffConfig(email=_text(body.get("email")), phone=_text(body.get("phone")),
                         webhook=bool(body.get("webhook", False)), hours=hours,
                         console_url=_text(body.get("console_url")))


def _text(value: object) -> str | None:
    return str(value) if value else None
