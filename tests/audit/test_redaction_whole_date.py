"""``Detector.find`` answers a string that is one date or timestamp (every record's two timestamps) without running
the finders: exactly what the finders give, for date-shaped strings of every kind (valid or not, with extra text,
other digits, separators, zones, fractions)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.redaction import detection
from audit.redaction.detection import Detector
from audit.redaction.policy import load_policy

DETECTOR = Detector(load_policy())

_digits = st.text(alphabet="0123456789٣", min_size=1, max_size=5)
_dateish = st.builds(
    lambda y, m, d, t, frac, zone: f"{y}-{m}-{d}{t}{frac}{zone}",
    st.sampled_from(["2026", "1999", "0999", "3000", "20265", "٢٠٢٦"]),
    st.sampled_from(["12", "01", "13", "00", "1"]),
    st.sampled_from(["02", "31", "32", "00", "2"]),
    st.sampled_from(["", "T12:07", "T12:07:17", " 04:26:58", "T1:07"]),
    st.sampled_from(["", ".279863", ",5", ".", "123"]),
    st.sampled_from(["", "Z", "+02:00", "-0530", "+2", "Z1", " 600000005", "@x.com"]),
)
_texts = st.one_of(
    _dateish,
    st.builds(lambda a, b, c: a + b + c, st.text(alphabet=" x0-./@+", max_size=3), _dateish,
              st.text(alphabet=" x0-./@+Z", max_size=3)),
    st.text(alphabet="0123456789-T:.Z+ ", max_size=30),
    st.builds(lambda a, b: a + b, _dateish, _digits),
)


def _reference(text: str, phones: bool, monkeypatch: Any) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(detection, "_whole_date", lambda text: False)
        return DETECTOR.find(text, phones=phones)


@settings(max_examples=500, deadline=None)
@given(_texts, st.booleans())
def test_find_equals_the_finders(text: str, phones: bool) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        assert DETECTOR.find(text, phones=phones) == _reference(text, phones, monkeypatch)


@pytest.mark.parametrize("text", ["2026-12-02T12:07:17.279863Z", "2026-12-02", "2026-12-02 04:26:58+02:00"])
def test_timestamps_are_whole_dates(text: str) -> None:
    assert detection._whole_date(text)
    assert DETECTOR.find(text) == []


@pytest.mark.parametrize("text", ["2026-13-02T12:07:17Z", "2026-12-02T12:07:17Z 600000005", "x2026-12-02",
                                  "2026-12-02600000005"])
def test_other_strings_are_not(text: str) -> None:
    assert not detection._whole_date(text)
