"""The controller's keeper of its journal's finished files: compression and retention, in a
thread of its own, at start and after each rotation (docs/journal.md, Compressed files, and
Retention).

The writer only tells it of a rotation (``JournalWriter.housekeeping``): the compression of a
file of a hundred hands and the reading retention does are kept out of the append path, so
the card-to-announcement latency does not grow. A pass that fails (a full disk) is logged and
tried again at the next rotation or start; the table goes on: the file stays plain, or kept.

A stop does not wait for a pass: ``close`` cuts the compression under way at its next chunk
(``compress.CHUNK``, a fraction of a second) and begins nothing more, so ``tablectl run`` exits
well within the unit's ``TimeoutStopSec`` however many files are left plain (a table killed
again and again leaves them: each start's pass is cut short). The next start's pass compresses
them (docs/journal.md, Compressed files).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import structlog

from controller.journal import retention
from controller.journal.compress import compress_rotated
from controller.journal.files import JournalError, file_name, journal_files


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
        #: Set by ``close`` (any thread); the pass under way looks at it between chunks.
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._run, name="journal-keeper", daemon=True)
        self._thread.start()

    def rotated(self) -> None:
        """The writer began a new file: a pass is due (the caller does not wait for it)."""
        with self._wake:
            self._due = True
            self._wake.notify()

    def close(self) -> None:
        """Stop: the pass under way ends at its next chunk or file (what it had not done is
        left as it was, for the next start) and no pass is begun; returns once it has."""
        with self._wake:
            self._closing.set()
            self._wake.notify()
        self._thread.join()

    def pass_once(self) -> None:
        """One pass, in the caller's thread: compress what is finished, then retention; cut
        short once ``close`` is called."""
        stopping = self._closing.is_set
        try:
            compressed = compress_rotated(
                self.directory, fsync=self.options.fsync, stopping=stopping
            )
            for path in compressed:
                self._log.info("journal_file_compressed", file=path.name)
            if stopping():
                finished = journal_files(self.directory)[:-1]
                left = [path.name for n, path in finished if path.name == file_name(n)]
                if left:
                    self._log.info(
                        "journal_compression_stopped",
                        left=len(left),
                        first=left[0],
                        detail="the table is stopping: the finished files left plain are "
                        "compressed at the next start",
                    )
                return
            if self.options.keep_days is None:
                return
            deleted = retention.apply(
                self.directory,
                keep_days=self.options.keep_days,
                now=self._clock(),
                floor=self.options.floor,
                fsync=self.options.fsync,
                stopping=stopping,
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
                while not self._due and not self._closing.is_set():
                    self._wake.wait()
                if self._closing.is_set():
                    return  # a stop begins no pass (the next start's pass does it)
                self._due = False
            self.pass_once()
