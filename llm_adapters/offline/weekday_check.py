"""A stated weekday that contradicts the date (issue 32): "Saturday 16 May" when 16 May is a Sunday.

Storing either reading silently would record a day the visitor may not mean, so the date is not proposed; the
proposal carries a note (``WEEKDAY_NOTE``) and the reply asks which day is meant, naming both. The weekday names are
the temporal language data (``rules/temporal/<lang>.json`` -> ``weekdays``) of the languages the message is read in.
"""

from __future__ import annotations

import re
from datetime import date

from llm_adapters.offline.analysis import Analysis
from llm_adapters.offline.evidence import Evidence

WEEKDAY_NOTE = "proposer.weekday_conflict"  # "<note>:<objective>:<date>:<stated weekday key>"
_KEYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # date.weekday() order
_NEAR = 12  # characters around the date's mention where its weekday is written
_DATE = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:T\d{2}:\d{2})?$")


def _weekdays(analysis: Analysis) -> dict[str, str]:
    """Folded weekday name -> weekday key, over the message's languages."""
    names: dict[str, str] = {}
    for data in analysis.rules.family("temporal").values():
        for key, words in (data.get("weekdays") or {}).items():
            for word in words:
                names[str(word)] = str(key)
    return names


def weekday_conflict(analysis: Analysis, evidence: Evidence) -> str | None:
    """The stated weekday key when the evidence's sentence names exactly one weekday and the date falls on another."""
    match = _DATE.match(evidence.value)
    if match is None:
        return None
    names = _weekdays(analysis)
    stated = set()
    for start, end in evidence.sentences:
        # only a weekday written right beside the date's mention ('Saturday 16 May', 'el sábado 16'), not one of
        # another date of the sentence ('Christmas … on Thursday 9 December')
        window = analysis.masked[max(start, evidence.pos - _NEAR):min(end, evidence.pos + _NEAR)]
        for word in re.findall(r"[^\W\d_]+", window):
            if word in names:
                stated.add(names[word])
    if len(stated) != 1:
        return None
    key = stated.pop()
    day = date.fromisoformat(match[1])
    if _KEYS[day.weekday()] == key:
        return None
    for year in (day.year - 1, day.year + 1):  # the stated weekday fits this day in a neighbouring year: the year
        try:                                   # was inferred, not written; no contradiction of the visitor's own
            if _KEYS[day.replace(year=year).weekday()] == key and str(day.year) not in analysis.masked:
                return None
        except ValueError:  # 29 February
            continue
    return key
