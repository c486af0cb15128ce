"""structlog configuration: JSON lines with UTC timestamps, stable event names, and redaction of everything."""

from __future__ import annotations

import io
import json
import logging
from typing import Any

import pytest
import structlog
from structlog.testing import CapturingLogger

from audit.errors import AuditConfigError
from audit.logging import TURN_RECORDED, build_processors, configure_logging, emit_turn_recorded, turn_summary
from audit.redaction import Redactor
from tests.audit.factory import KEY, make_chain


def _logger(redactor: Redactor) -> tuple[Any, CapturingLogger]:
    sink = CapturingLogger()
    wrapper = structlog.make_filtering_bound_logger(logging.DEBUG)  # the suite's default config is silenced
    return structlog.wrap_logger(sink, processors=build_processors(redactor), wrapper_class=wrapper), sink


def _lines(sink: CapturingLogger) -> list[dict[str, Any]]:
    return [json.loads(call.args[0]) for call in sink.calls]


def test_events_are_json_with_utc_timestamp_and_level() -> None:
    log, sink = _logger(Redactor(KEY))
    log.info("retrieval.query.done", hits=3)
    (line,) = _lines(sink)
    assert line["event"] == "retrieval.query.done" and line["hits"] == 3 and line["level"] == "info"
    assert line["timestamp"].endswith("Z")


def test_every_value_and_key_is_redacted() -> None:
    redactor = Redactor(KEY)
    log, sink = _logger(redactor)
    log.warning(
        "visitor.message.received",
        text="write to alex@example.com or call +34 611 222 333",
        nested={"alex@example.com": ["600000005"]},
        number=600000005,
        obj=object(),  # opaque values are rendered, then redacted, never refused
    )
    raw = sink.calls[0].args[0]
    assert "alex@example.com" not in raw and "611 222 333" not in raw and "600000005" not in raw
    line = json.loads(raw)
    assert redactor.token("email", "alex@example.com") in line["text"]
    assert line["number"] == redactor.token("phone", "600000005")
    assert redactor.leaks(line) == []


def test_exception_text_is_redacted() -> None:
    log, sink = _logger(Redactor(KEY))
    try:
        raise ValueError("bad contact alex@example.com")
    except ValueError:
        log.exception("turn.failed")
    line = _lines(sink)[0]
    assert "alex@example.com" not in json.dumps(line)
    assert "ValueError" in line["exception"]


def test_keyless_redaction_still_hides_contacts() -> None:
    log, sink = _logger(Redactor(None))
    log.info("x.y", text="alex@example.com")
    assert _lines(sink)[0]["text"] == "email:redacted"


def test_turn_recorded_event() -> None:
    records = make_chain(2)
    log, sink = _logger(Redactor(KEY))
    for record in records:
        emit_turn_recorded(record, log)
    lines = _lines(sink)
    assert [line["event"] for line in lines] == [TURN_RECORDED, TURN_RECORDED] == ["turn.recorded"] * 2
    assert [line["seq"] for line in lines] == [0, 1]
    assert lines[1]["hash"] == records[1]["hash"]
    assert lines[0]["candidates_accepted"] == 1 and lines[0]["candidates_rejected"] == 1
    assert lines[0]["rejected_codes"] == ["command.malformed"]
    assert lines[0]["conversation_id"] == "conv-1" and lines[0]["fail_closed"] is None


def test_turn_summary_carries_no_message_text() -> None:
    record = make_chain(4)[3]
    summary = json.dumps(turn_summary(record))
    assert "contact me" not in summary and "quote" not in summary


@pytest.fixture
def restore_structlog() -> Any:
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


def test_configure_logging_writes_redacted_json(restore_structlog: Any) -> None:
    stream = io.StringIO()
    redactor = configure_logging(redaction_key=KEY, level="info", stream=stream)
    log = structlog.get_logger("audit")
    log.debug("hidden.debug")
    log.info("visible.info", email="alex@example.com")
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert [line["event"] for line in lines] == ["visible.info"]
    assert lines[0]["email"] == redactor.token("email", "alex@example.com")


def test_unknown_level(restore_structlog: Any) -> None:
    with pytest.raises(AuditConfigError) as info:
        configure_logging(redaction_key=None, level="chatty")
    assert info.value.code == "audit.config.log_level"
