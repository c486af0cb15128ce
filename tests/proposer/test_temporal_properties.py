"""Properties of the temporal reader: it never crashes, its spans lie inside the message and quote it, every
value it writes follows the grammar, and its time grows linearly with the message."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.kernel.validators.temporal import COMPLETES, parse_value, validate_datetime
from llm_adapters.offline.evidence import ExtractionContext
from llm_adapters.offline.temporal import extract_datetime
from tests.proposer.temporal_support import REF, analysis_of, mentions, objective, spec_with

PIECES = [
    "next Tuesday", "at 5pm", "the 14th of June", "mid-March", "el jueves que viene", "pasado mañana", "por la tarde",
    "between", "and", "from", "to", "del 3 al 5 de junio", "03/09", "12/06/2027", "17:30", "17h30", "half past five",
    "a las cinco y media", "weekday evenings", "los fines de semana", "every", "Mondays", "within", "three", "months",
    "next quarter", "ASAP", "lo antes posible", "before", "summer", "by the end of the year", "170 guests", "350.000 €",
    "+34 600 123 456", "3 bedrooms", "in 2 weeks", "?", ".", ",", "-", "I", "we", "my sister", "Q1", "Christmas",
    "le soir", "à", "demain", "tous les", "lundis", "2027", "31", "0", "99", "la", "de", "the", "on",
    "Friday from 2 to 4pm", "between 3 and", "from 11pm to 1am", "Feb 29", "31 June", "until", "or", "y", "winter",
    "next weekend", "midnight", "12am", "del 30 al 2", "in 3 days", "not", "no puedo",
]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=14), st.sampled_from(["en", "es", "fr"]))
def test_reader_is_total_and_spans_quote_the_message(pieces: list[str], language: str) -> None:
    text = " ".join(pieces)
    analysis = analysis_of(text, language)
    for mention in mentions(text, language):
        assert 0 <= mention.start < mention.end <= len(analysis.text)
        start, end = analysis.source_span(mention.start, mention.end)
        assert 0 <= start < end <= len(text)
        assert mention.values
        for value in mention.values:
            assert parse_value(value).canonical == value


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(PIECES), max_size=12), st.sampled_from(["en", "es", "fr"]), st.booleans())
def test_complete_evidence_always_validates(pieces: list[str], language: str, lenient: bool) -> None:
    """Whatever the message, a value offered with rank >= 0 completes the objective's granularity."""
    text = " ".join(pieces)
    for granularity in COMPLETES:
        spec = spec_with(objective("when", granularity, 1), language=language)
        ctx = ExtractionContext(analysis=analysis_of(text, language), objective=spec.objectives[0], lenient=lenient,
                                correcting=False, spec=spec, reference_time=REF)
        for evidence in extract_datetime(ctx):
            result = validate_datetime(evidence.value, text, granularity)
            assert result.ok == (evidence.rank >= 0), (granularity, evidence)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_never_crashes(text: str) -> None:
    for mention in mentions(text, "en"):
        assert 0 <= mention.start < mention.end


# Time against message length is measured by `python -m benchmarks.proposer_length_bench` (shape 'dates'),
# which prints the growth exponent; unit tests assert no wall-clock limits.
