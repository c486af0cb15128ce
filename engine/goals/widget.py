"""Checks of a goal spec's widget section (engine/goals/widget.json): hex colours, WCAG AA contrast of the
text on the primary colour and of the accent on the white panel, https links, welcome texts per offered
language. Each failure has a stable code; the approval refuses the spec."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import jsonschema

from engine.errors import InputError
from engine.kernel.goal_models import GoalSpec, Widget

SETTINGS_PATH = Path(__file__).with_name("widget.json")
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


@dataclass(frozen=True)
class WidgetChecks:
    min_text_contrast: float
    min_accent_contrast: float
    panel_background: str
    default_primary: str
    default_text: str
    default_accent: str
    url_schemes: tuple[str, ...]
    welcome_max_chars: int


@lru_cache(maxsize=4)
def load_checks(path: Path = SETTINGS_PATH) -> WidgetChecks:
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        schema = json.loads(path.with_name("widget.schema.json").read_text(encoding="utf-8"))
        jsonschema.validate(data, schema)
    except (OSError, ValueError, jsonschema.ValidationError) as exc:
        raise InputError(f"{path.name}: {getattr(exc, 'message', exc)}",
                         code="goalspec.widget_settings_invalid") from None
    return WidgetChecks(
        min_text_contrast=float(data["min_text_contrast"]),
        min_accent_contrast=float(data["min_accent_contrast"]),
        panel_background=data["panel_background"],
        default_primary=data["default_primary"],
        default_text=data["default_text"],
        default_accent=data["default_accent"],
        url_schemes=tuple(data["url_schemes"]),
        welcome_max_chars=int(data["welcome_max_chars"]),
    )


def relative_luminance(color: str) -> float:
    """WCAG 2.x relative luminance of a ``#rrggbb`` colour."""
    channels = []
    for i in (1, 3, 5):
        c = int(color[i:i + 2], 16) / 255
        channels.append(c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4)
    r, g, b = channels
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(first: str, second: str) -> float:
    """WCAG contrast ratio (1..21) between two ``#rrggbb`` colours; symmetric."""
    a, b = sorted((relative_luminance(first), relative_luminance(second)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@dataclass(frozen=True)
class Palette:
    primary: str
    text: str
    accent: str


def palette(widget: Widget | None, checks: WidgetChecks | None = None) -> Palette:
    """The colours the widget shows: the spec's, else the defaults (lower-case ``#rrggbb``). A value that is not
    ``#rrggbb`` (approval refuses it; a hand-edited file might not) falls back too: only a colour reaches CSS."""
    checks = checks or load_checks()
    w = widget or Widget()

    def pick(value: str | None, default: str) -> str:
        return (value if value is not None and _HEX.match(value) else default).lower()

    return Palette(primary=pick(w.primary_color, checks.default_primary),
                   text=pick(w.text_color, checks.default_text),
                   accent=pick(w.accent_color, checks.default_accent))


def _url_issue(name: str, value: str, schemes: tuple[str, ...]) -> tuple[str, str] | None:
    parts = urlsplit(value)
    if (parts.scheme not in schemes or not parts.hostname or parts.username or parts.password
            or any(ch.isspace() for ch in value)):
        return ("goalspec.widget_url_invalid",
                f"widget.{name} must be an absolute {'/'.join(schemes)} URL with a host: {value!r}")
    return None


def widget_issues(spec: GoalSpec, checks: WidgetChecks | None = None) -> list[tuple[str, str]]:
    widget = spec.widget
    if widget is None:
        return []
    checks = checks or load_checks()
    issues: list[tuple[str, str]] = []
    colours = {"primary_color": widget.primary_color, "text_color": widget.text_color,
               "accent_color": widget.accent_color}
    bad = [name for name, value in colours.items() if value is not None and not _HEX.match(value)]
    for name in bad:
        issues.append(("goalspec.widget_color_invalid", f"widget.{name} must be a #rrggbb colour: {colours[name]!r}"))
    if not bad:
        shown = palette(widget, checks)
        ratio = contrast_ratio(shown.text, shown.primary)
        if ratio < checks.min_text_contrast:
            issues.append(("goalspec.widget_contrast",
                           f"text {shown.text} on primary {shown.primary} has contrast {ratio:.2f}:1, below the "
                           f"WCAG AA {checks.min_text_contrast}:1 (set text_color or a darker/lighter primary)"))
        ratio = contrast_ratio(shown.accent, checks.panel_background)
        if ratio < checks.min_accent_contrast:
            issues.append(("goalspec.widget_contrast",
                           f"accent {shown.accent} on the panel {checks.panel_background} has contrast {ratio:.2f}:1,"
                           f" below the WCAG AA {checks.min_accent_contrast}:1"))
    for name in ("privacy_url", "consent_url"):
        value = getattr(widget, name)
        if value is not None:
            issue = _url_issue(name, value, checks.url_schemes)
            if issue is not None:
                issues.append(issue)
    if widget.consent_required and not (widget.consent_url or widget.privacy_url):
        issues.append(("goalspec.widget_consent_link_missing",
                       "widget.consent_required needs consent_url or privacy_url: the visitor must see what they "
                       "agree to"))
    extra = sorted(set(widget.welcome) - set(spec.languages))
    if extra:
        issues.append(("goalspec.language_invalid", f"widget welcome in languages not offered: {extra}"))
    for lang, text in sorted(widget.welcome.items()):
        if not text.strip() or len(text) > checks.welcome_max_chars:
            issues.append(("goalspec.widget_welcome_invalid",
                           f"widget.welcome.{lang} must be 1-{checks.welcome_max_chars} characters"))
    return issues
