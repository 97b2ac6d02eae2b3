"""The controller's keeper of its journal's finished files: compression and retention, in a
thread of its own, at start and after each rotation (docs/journal.md, Compressed files, and
Retention).

The writer only tells it of a rotation (``JournalWriter.housekeeping``): the compression of a
file of a hundred hands and the reading retention does are kept out of the append path, so
the card-to-announcement latency does not grow. A pass that fails (a full disk) is logged and
tried again at the next rotation or start; the table goes on: the file stays plain, or kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import structlog

from controller.app import retention
from controller.journal.compress import compress_rotated
from controller.journal.files import JournalError


@dataclass(frozen=True, slots=True)
class KeeperOptions:
    """What the keeper does: ``keep_days`` (None: retention off, for tests and simulators) and
    whether a floor is configured (then only what it acknowledged is deleted)."""

    keep_days: int | None
    floor: bool
    fsync: bool = True


#: What a failed pass leaves, for the technician.
_TODO = "the files stay as they are; tried again at the next rotation or start"


class JournalKeeper:
    """Compresses and applies retention to the journal in ``directory`` off the append path."""

    def __init__(
        self, directory: Path, options: KeeperOptions, clock: Callable[[], datetime]
    ) -> None:
        self.directory = directory
        self.options = options
        self._clock = clock
        self._log = structlog.get_logger("controller.journal")
        self._wake = threading.Condition()
        self._due = True  # the start's pass
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="journal-keeper", daemon=True)
        self._thread.start()

    def rotated(self) -> None:
        """The writer began a new file: a pass is due (the caller does not wait for it)."""
        with self._wake:
            self._due = True
            self._wake.notify()

    def close(self) -> None:
        """Finish the pass under way or due (a clean stop leaves the finished files
        compressed; a compression is never cut short) and stop."""
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._thread.join()

    def pass_once(self) -> None:
        """One pass, in the caller's thread: compress what is finished, then retention."""
        try:
            compressed = compress_rotated(self.directory, fsync=self.options.fsync)
            for path in compressed:
                self._log.info("journal_file_compressed", file=path.name)
            if self.options.keep_days is None:
                return
            deleted = retention.apply(
                self.directory,
                keep_days=self.options.keep_days,
                now=self._clock(),
                floor=self.options.floor,
                fsync=self.options.fsync,
            )
            for path in deleted:
                self._log.info(
                    "journal_file_deleted",
                    file=path.name,
                    keep_days=self.options.keep_days,
                    rule="13:69E-1.31(b)",
                )
        except (OSError, JournalError, retention.RetentionError) as error:
            self._log.error("journal_housekeeping_failed", error=str(error), todo=_TODO)
        except Exception:  # a fault of ours: logged whole, and the next pass tries again
            self._log.exception("journal_housekeeping_failed", todo=_TODO)

    def _run(self) -> None:
        while True:
            with self._wake:
                while not self._due and not self._closing:
                    self._wake.wait()
                if not self._due:
                    return  # closing, nothing due
                self._due = False
            self.pass_once()
