"""Every proposed span quotes the visitor message exactly; the proposer is deterministic and total."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.kernel.commands import COMMAND_ADAPTER
from engine.kernel.ports import Proposer
from engine.text import normalize
from tests.proposer.helpers import demo_spec, proposer, request

_WORDS = st.sampled_from([
    "I", "need", "three", "bedrooms", "in", "Vera", "Almería", "budget", "350.000", "EUR", "€350k", "not",
    "parking", "pool", "my", "email", "is", "a@example.com", "600000005", "¿", "?", ".", ",", "Busco",
    "limpieza", "general", "de", "oficinas", "no", "quiero", "dar", "mi", "teléfono", "stop", "asking",
    "İstanbul", "ﬁnca", "Ｍojácar", "\u200b", "çok", "ß", "😀", "\n", "Actually", "replace", "with",
])


def _check(domain: str, text: str, last_asked: str | None) -> None:
    text = normalize(text)
    if not text:
        return
    req = request(domain, text, last_asked=last_asked, turn=3)
    proposal = proposer().propose(req)
    for command in proposal.commands:
        COMMAND_ADAPTER.validate_python(command.model_dump())  # a well-formed command of the closed set
        span = command.span
        assert span.turn == 3
        assert 0 <= span.start < span.end <= len(text)
        assert span.quote == text[span.start:span.end]
        value = getattr(command, "value", None)
        assert value is None or 1 <= len(value) <= 500
    assert proposal == proposer().propose(req)  # deterministic


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(_WORDS, max_size=25), domain=st.sampled_from(["re", "cl"]),
       last=st.sampled_from([None, "budget", "location", "contact", "client_type", "service_type"]))
def test_spans_quote_the_message_exactly(words: list[str], domain: str, last: str | None) -> None:
    _check(domain, " ".join(words), last)


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=300))
def test_arbitrary_unicode_never_crashes(text: str) -> None:
    _check("re", text, "location")


def test_very_long_message_keeps_the_witness_within_the_quote_limit() -> None:
    text = ("blah " * 600) + "I need three bedrooms " + ("blah " * 600)
    commands = proposer().propose(request("re", text)).commands
    assert commands and all(len(c.span.quote) <= 2000 for c in commands)
    assert all(c.span.quote == text[c.span.start:c.span.end] for c in commands)


def test_satisfies_the_proposer_port() -> None:
    port: Proposer = proposer()
    proposal = port.propose(request("re", "My budget is 400.000 EUR"))
    assert (proposal.adapter, proposal.adapter_version) == (port.name, port.version)
    assert demo_spec("re").spec.id == "real-estate"
