"""The rollback anchor: a count of the database's checkpoints kept in a file beside it (spec/adr/0007).

Every turn appends one row to the append-only checkpoint log, so the log's highest row number only grows. The
store writes it to ``<database>.anchor`` after its commits (fsynced, replaced atomically) and refuses a database
whose log ends below the anchor: at open (start-up, ``grace audit verify-stored``) and under each commit's write
lock. A database file restored from an older copy is therefore refused, and a retried Idempotency-Key whose turn
the restore removed is refused at commit instead of being run as a new turn.

The anchor is a lower bound: it may lag the database (it is written after the commit, by a background thread that
coalesces commits), never lead it, so a crash between commit and anchor only loses the newest few increments.
Several processes may open one database (the server, the erase and verify CLIs): the file is updated under an
``fcntl`` lock and only ever raised.
"""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path

import structlog

from engine.errors import IntegrityError
from engine.storage.private_files import FILE_MODE

log = structlog.get_logger("engine.storage.anchor")

ROLLBACK = "store.rollback_detected"
SUFFIX = ".anchor"


def rollback_error(path: Path, found: int, anchored: int) -> IntegrityError:
    return IntegrityError(
        f"database {path.name} ends at checkpoint {found} but its anchor says {anchored}: an older copy of the "
        "database was restored (see spec/adr/0007)", code=ROLLBACK)


class RollbackAnchor:
    """The anchor file of one database: ``check`` a count against it, ``advance`` it (in the background)."""

    def __init__(self, database: Path, *, path: Path | None = None) -> None:
        """``path``: where the anchor lives when it is not beside a database file (PostgreSQL: the service
        host's data folder, spec/adr/0007)."""
        self.path = path if path is not None else database.with_name(database.name + SUFFIX)
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._target = 0
        self._written = self.read()
        self._closing = False
        self._thread: threading.Thread | None = None

    @property
    def value(self) -> int:
        """The highest count known to this process (written or about to be)."""
        with self._lock:
            return max(self._written, self._target)

    def read(self) -> int:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return int(data["checkpoints"])
        except FileNotFoundError:
            return 0
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IntegrityError(f"rollback anchor {self.path.name} is unreadable: {exc}",
                                 code="store.anchor_unreadable") from exc

    def anchored(self) -> int:
        """The highest count this process knows or the file holds."""
        return max(self.value, self.read())

    def check(self, found: int, database: Path) -> None:
        anchored = self.anchored()
        if found < anchored:
            log.error("storage.rollback.detected", database=database.name, found=found, anchored=anchored)
            raise rollback_error(database, found, anchored)

    def advance(self, count: int) -> None:
        """Raise the anchor to ``count`` soon (a background thread writes and fsyncs it)."""
        with self._lock:
            if count <= max(self._target, self._written):
                return
            self._target = count
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="grace-rollback-anchor", daemon=True)
                self._thread.start()
            self._wake.notify()

    def flush(self) -> None:
        """Write the pending count now (close, tests)."""
        with self._lock:
            target = self._target
        if target > self._written:
            self._write(target)

    def close(self) -> None:
        with self._lock:
            self._closing = True
            self._wake.notify()
            thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=10)
        self.flush()
        with self._lock:
            self._closing = False

    def _run(self) -> None:
        while True:
            with self._lock:
                while self._target <= self._written and not self._closing:
                    self._wake.wait()
                if self._closing:
                    return
                target = self._target
            try:
                self._write(target)
            except OSError as exc:  # the next commit tries again; the database itself is committed
                log.warning("storage.anchor.write_failed", error=type(exc).__name__)
                return

    def _write(self, count: int) -> None:
        lock_path = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            count = max(count, self.read())  # another process may have raised it further
            temporary = self.path.with_name(self.path.name + f".{os.getpid()}.tmp")
            out = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
            try:
                os.write(out, json.dumps({"checkpoints": count}).encode() + b"\n")
                os.fsync(out)
            finally:
                os.close(out)
            os.replace(temporary, self.path)
            folder = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(folder)
            finally:
                os.close(folder)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        with self._lock:
            self._written = max(self._written, count)
