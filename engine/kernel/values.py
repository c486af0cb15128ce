"""The current value of an objective, read from its value history (SPEC D-3, D-6; spec/adr/0006).

The history keeps every accepted value with its own witness; nothing here changes it. For most objectives the
current value is the latest one. A contact objective keeps every channel the visitor gave: a revision replaces
the channels of its own types (a new telephone replaces the telephone) and the other channels stay, so
"jane@example.com; +447700900123" followed by "actually my number is +447700900456" reads as the e-mail and the
new number. Contact values are recognised by their validator's normalised grammar (e-mail addresses and E.164
numbers, separated by ';'), so readers without the goal spec (lead export, webhooks) agree with the summary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.kernel.conversation import ConversationState

SEPARATOR = ";"
DECLINED_PREFIX = "no:"  # a declined yes/no feature (spec/adr/0009, SPEC D-13)
_EMAIL = re.compile(r"^[^\s@;]+@[^\s@;]+$")
_E164 = re.compile(r"^\+\d{4,15}$")


def _channel_type(channel: str) -> str | None:
    if _EMAIL.match(channel):
        return "email"
    if _E164.match(channel):
        return "phone"
    return None


def _channels(value: str) -> list[str] | None:
    """The channels of a normalised contact value, or None when the value is not one."""
    parts = [part.strip() for part in value.split(SEPARATOR)]
    if not parts or any(_channel_type(part) is None for part in parts):
        return None
    return parts


def current_value(history: Sequence[str]) -> str:
    """The value a reader should use now: the latest, with earlier contact channels of other types kept."""
    if not history:
        return ""
    latest = history[-1]
    per_value = [_channels(value) for value in history]
    if any(channels is None for channels in per_value):
        return latest
    kept = list(per_value[-1] or [])
    types = {_channel_type(channel) for channel in kept}
    for channels in reversed(per_value[:-1]):
        older = [c for c in channels or [] if _channel_type(c) not in types and c not in kept]
        kept.extend(older)
        types |= {_channel_type(c) for c in older}
    return f"{SEPARATOR} ".join(kept)


def current_values(state: ConversationState) -> dict[str, str]:
    """Objective id -> its current value, for every objective with a recorded value."""
    return {objective: current_value([r.value for r in records])
            for objective, records in state.values.items() if records}


def feature_reading(value: str) -> tuple[frozenset[str], frozenset[str]]:
    """SPEC D-13: the (claimed, declined) options of a features value ('parking=2; no:pool'). A declined option
    is never read as claimed."""
    claimed: set[str] = set()
    declined: set[str] = set()
    for item in (part.strip() for part in value.split(SEPARATOR)):
        if item.startswith(DECLINED_PREFIX):
            declined.add(item.removeprefix(DECLINED_PREFIX).strip())
        elif item:
            claimed.add(item.partition("=")[0].strip())
    return frozenset(claimed - declined), frozenset(declined)


def declined_options(state: ConversationState) -> dict[str, list[str]]:
    """Objective id -> the options its current value declines, for objectives with a declined yes/no feature."""
    out = {}
    for objective, value in current_values(state).items():
        if DECLINED_PREFIX not in value:
            continue
        _, declined = feature_reading(value)
        if declined:
            out[objective] = sorted(declined)
    return out
