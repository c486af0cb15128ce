"""Progress of long command-line runs, on stderr so results on stdout stay clean.

On a terminal: a live bar (rich). Elsewhere (CI logs, pipes): one line at every tenth of the work, so a long run
is never silent and never floods a log."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sized
from typing import TypeVar

T = TypeVar("T")
_STEPS = 10


def progress(items: Iterable[T], label: str, *, total: int | None = None) -> Iterator[T]:
    count = total if total is not None else (len(items) if isinstance(items, Sized) else None)
    if sys.stderr.isatty():
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task(label, total=count)
            for item in items:
                yield item
                bar.advance(task)
        return
    next_mark = 1
    for done, item in enumerate(items, start=1):
        yield item
        if count and done * _STEPS >= next_mark * count:
            print(f"{label}: {done}/{count}", file=sys.stderr, flush=True)
            next_mark = done * _STEPS // count + 1
