"""Periods an operator selects conversations by (lead export, analytics): parsing the bounds and matching one.

Both commands take ``--since`` / ``--until`` as a day (midnight UTC) or a full ISO-8601 timestamp, and a goal as
a spec id ("real-estate") or an exact ref ("real-estate/v3"); each reports a bad bound with its own error code.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from engine.errors import GraceError


def parse_stamp(stamp: str) -> datetime:
    """A stored ISO-8601 timestamp; one without a zone is UTC."""
    parsed = datetime.fromisoformat(stamp)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def parse_day(text: str | None, name: str, error: type[GraceError], code: str) -> datetime | None:
    """YYYY-MM-DD (midnight UTC) or a full ISO-8601 timestamp; None or "" for no bound."""
    if text is None or text == "":
        return None
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), time(0), tzinfo=UTC)
        return parse_stamp(text)
    except ValueError:
        raise error(f"{name} must be YYYY-MM-DD or an ISO-8601 timestamp, got {text!r}", code=code) from None


def in_period(goal_ref: str, stamp: str, goal: str | None, since: datetime | None, until: datetime | None) -> bool:
    """The conversation of ``goal_ref`` whose chosen timestamp is ``stamp`` is selected: same goal (id or exact
    ref), ``since`` inclusive, ``until`` exclusive."""
    if goal is not None and goal not in (goal_ref, goal_ref.split("/")[0]):
        return False
    moment = parse_stamp(stamp)
    if since is not None and moment < since:
        return False
    return not (until is not None and moment >= until)
