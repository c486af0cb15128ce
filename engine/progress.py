"""Progress of long command-line runs, on stderr so results on stdout stay clean.

On a terminal: a live bar (rich) that disappears when the work is done. Elsewhere (pipes, CI logs, tests):
silent, so captured output and logs hold only results."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Sized
from typing import TextIO, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], label: str, *, total: int | None = None, stream: TextIO | None = None) -> Iterator[T]:
    out = stream if stream is not None else sys.stderr
    if not _is_terminal(out):
        yield from items
        return
    from rich.console import Console
    from rich.progress import Progress

    count = total if total is not None else (len(items) if isinstance(items, Sized) else None)
    with Progress(console=Console(file=out), transient=True) as bar:
        task = bar.add_task(label, total=count)
        for item in items:
            yield item
            bar.advance(task)


def _is_terminal(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # closed or not a real stream
        return False
