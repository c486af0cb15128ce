"""Long runs show a progress bar on a terminal's stderr and nothing elsewhere; the items pass through unchanged."""

from __future__ import annotations

import io

from hypothesis import given
from hypothesis import strategies as st

from engine.progress import progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@given(st.lists(st.integers(), max_size=50))
def test_items_pass_through_unchanged_and_a_pipe_stays_silent(items: list[int]) -> None:
    pipe = io.StringIO()
    assert list(progress(items, "work", stream=pipe)) == items
    assert list(progress(iter(items), "work", stream=pipe)) == items  # no length known
    assert pipe.getvalue() == ""


def test_a_terminal_gets_a_bar_on_the_given_stream() -> None:
    terminal = Terminal()
    assert list(progress(range(200), "TRACE KG-3", stream=terminal)) == list(range(200))
    assert "TRACE KG-3" in terminal.getvalue()


def test_a_closed_stream_counts_as_no_terminal() -> None:
    closed = io.StringIO()
    closed.close()
    assert list(progress([1, 2, 3], "work", stream=closed)) == [1, 2, 3]
