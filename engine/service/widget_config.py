"""The widget's presentation of a published goal (its spec's widget section), and the consent gate of the
first message when the company requires it."""

from __future__ import annotations

from engine.goals.widget import palette
from engine.kernel.goal_models import GoalSpec, PublishedGoalSpec, company_name
from engine.service.errors import RequestError
from engine.service.schemas import WidgetConfigOut

CONSENT_NOTE = "consent.given"


def widget_config_of(published: PublishedGoalSpec, lang: str | None) -> WidgetConfigOut:
    spec = published.spec
    language = lang if lang in spec.languages else spec.default_language
    widget = spec.widget
    shown = palette(widget)
    return WidgetConfigOut(
        goal_ref=published.ref,
        language=language,
        languages=list(spec.languages),
        company_name=(widget.company_name if widget is not None else None) or company_name(spec),
        primary_color=shown.primary,
        text_color=shown.text,
        accent_color=shown.accent,
        welcome=widget.welcome.get(language) if widget is not None else None,
        privacy_url=widget.privacy_url if widget is not None else None,
        consent_url=widget.consent_url if widget is not None else None,
        consent_required=bool(widget is not None and widget.consent_required),
    )


def consent_notes(spec: GoalSpec, turn: int, consent: bool) -> tuple[str, ...]:
    """The audit note of the visitor's consent on the first message; refuses a first message without the
    consent the company requires (fail closed: nothing is stored)."""
    if turn != 0:
        return ()
    widget = spec.widget
    required = widget is not None and widget.consent_required
    if required and not consent:
        raise RequestError("this company asks visitors to accept its privacy terms before the first message",
                           code="consent.required")
    if not consent:
        return ()
    terms = (widget.consent_url or widget.privacy_url) if widget is not None else None
    return (f"{CONSENT_NOTE}: the visitor accepted {terms or 'the privacy terms'} before the first message",)
