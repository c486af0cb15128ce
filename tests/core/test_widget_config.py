"""The goal spec's widget section: WCAG contrast (against published reference values), hex colours, https
links, welcome languages, and its place in the content hash."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import GoalSpecError
from engine.goals.publication import spec_hash
from engine.goals.validation import parse_spec, validate_spec
from engine.goals.widget import contrast_ratio, load_checks, palette, widget_issues
from engine.kernel.goal_models import Widget
from engine.rules.loader import RuleBundle
from tests.conftest import make_spec

HEX = st.from_regex(r"#[0-9a-f]{6}", fullmatch=True)


def _with(**widget: object):  # type: ignore[no-untyped-def]
    return make_spec().model_copy(update={"widget": Widget.model_validate(widget)})


def _codes(**widget: object) -> list[str]:
    return [code for code, _ in widget_issues(_with(**widget))]


def test_contrast_matches_wcag_reference_values() -> None:
    # Reference values of the WCAG 2.x formula (black/white is 21:1; #767676 on white is the classic 4.54:1).
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#ffffff", "#ffffff") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#ffffff") == pytest.approx(4.54, abs=0.01)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


@given(HEX, HEX)
def test_contrast_is_symmetric_and_bounded(a: str, b: str) -> None:
    ratio = contrast_ratio(a, b)
    assert 1.0 <= ratio <= 21.0 + 1e-9
    assert ratio == pytest.approx(contrast_ratio(b, a))


@given(HEX)
def test_a_primary_is_refused_exactly_when_white_text_falls_below_aa(primary: str) -> None:
    refused = "goalspec.widget_contrast" in _codes(primary_color=primary, text_color="#ffffff")
    assert refused == (contrast_ratio("#ffffff", primary) < load_checks().min_text_contrast)


def test_low_contrast_colours_are_refused_with_a_code() -> None:
    with pytest.raises(GoalSpecError) as caught:
        validate_spec(_with(primary_color="#ffd966"), _bundle())
    assert caught.value.code == "goalspec.widget_contrast"
    assert "contrast" in str(caught.value)
    assert _codes(primary_color="#ffd966", text_color="#1f2933") == []  # dark text on a light primary is fine
    assert _codes(accent_color="#9fb3c8") == ["goalspec.widget_contrast"]  # pale links on the white panel


def test_colours_links_and_welcome_are_checked() -> None:
    assert _codes(primary_color="blue") == ["goalspec.widget_color_invalid"]
    assert _codes(accent_color="#12345") == ["goalspec.widget_color_invalid"]
    for url in ("http://example.org/privacy", "javascript:alert(1)", "https:///nohost", "https://u:p@x.example/",
                "https://x.example/a b", "/privacy"):
        assert _codes(privacy_url=url) == ["goalspec.widget_url_invalid"], url
    assert _codes(privacy_url="https://x.example/privacy?lang=en") == []
    assert _codes(consent_required=True) == ["goalspec.widget_consent_link_missing"]
    assert _codes(consent_required=True, consent_url="https://x.example/consent") == []
    assert _codes(welcome={"fr": "Bonjour"}) == ["goalspec.language_invalid"]
    assert _codes(welcome={"en": "   "}) == ["goalspec.widget_welcome_invalid"]
    assert _codes(welcome={"en": "x" * (load_checks().welcome_max_chars + 1)}) == ["goalspec.widget_welcome_invalid"]


def test_unknown_widget_fields_are_refused() -> None:
    data = make_spec().model_dump(mode="json")
    data["widget"] = {"colour": "#000000"}
    with pytest.raises(GoalSpecError) as caught:
        parse_spec(data)
    assert caught.value.code == "goalspec.field_unknown"


def test_widget_is_part_of_the_hash_only_when_present() -> None:
    plain = make_spec()
    assert spec_hash(plain) == spec_hash(plain.model_copy(update={"widget": None}))
    themed = _with(primary_color="#0f5e5a")
    assert spec_hash(themed) != spec_hash(plain)
    assert spec_hash(themed) != spec_hash(_with(primary_color="#0f5e5b"))


def test_palette_falls_back_to_the_defaults() -> None:
    checks = load_checks()
    shown = palette(None)
    assert (shown.primary, shown.text, shown.accent) == (checks.default_primary, checks.default_text,
                                                         checks.default_accent)
    assert palette(Widget(primary_color="#0F5E5A")).primary == "#0f5e5a"
    # Only a colour ever reaches the widget's CSS, whatever a hand-edited file holds.
    assert palette(Widget(primary_color="red;x:url(y)")).primary == checks.default_primary
    # The widget's own palette passes its own checks.
    assert contrast_ratio(shown.text, shown.primary) >= checks.min_text_contrast


def _bundle() -> RuleBundle:
    from engine.rules.loader import DEFAULT_RULES_DIR, load_bundle

    return load_bundle(DEFAULT_RULES_DIR, require_published=False)
