"""Retention of the journal's rotated files: how long they are kept, and what keeps them longer
(docs/journal.md, Retention; 13:69E-1.31(b): game history kept at least one year).

``apply`` deletes the journal's oldest rotated files whose last record is older than
``[journal] keep_days``, oldest first, and stops at the first file it may not delete:

- the file in use (the last) is never deleted;
- a file holding the start of a hand under a dispute hold (``hold``; ``tablectl journal hold
  --hand N``), or the file just before it (the records that lead into the hand: the software
  record and signed checkpoint a dispute bundle reaches back to), until the hold is released;
- where a floor is configured, a file not wholly acknowledged by the floor's stream (the
  forwarder's ``journal-forwarded.json``, ``Forwarded``).

Only a run of the oldest files is deleted, so what remains is one chain: before deleting a
file, the first record of the file after it is noted as a retention anchor
(``files.add_retention_anchor``) where ``journal verify`` and every reader begin.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from controller.journal import Record, schema
from controller.journal import tablerecords as rec
from controller.journal.files import (
    JournalError,
    RetentionAnchor,
    add_retention_anchor,
    fsync_directory,
    journal_files,
    read_journal_file,
    retention_anchors,
    write_all,
)
from controller.journal.record import RecordError, parse_line
from controller.poker.engine.events import HandStarted

#: The dispute holds (``hold``/``release``), beside the journal's files.
HOLDS_FILE: Final = "journal-holds.json"
#: What the floor's stream has acknowledged, written by ``tablectl forward`` (``Forwarded``).
FORWARDED_FILE: Final = "journal-forwarded.json"


class RetentionError(Exception):
    """A hold or a state file that cannot be read or changed: the message says which, why."""


@dataclass(frozen=True, slots=True)
class Hold:
    """A hand kept with the files that lead to it until released (a patron's dispute)."""

    hand: int
    reason: str
    since: str  #: when it was placed, UTC ISO-8601


@dataclass(frozen=True, slots=True)
class Forwarded:
    """The journal's last record the floor's stream has acknowledged (``tablectl forward``)."""

    journal: str  #: the journal's id (the hash of its seq 1)
    acked: int  #: the last seq acknowledged

    def write(self, directory: Path) -> None:
        """Replace the state file atomically: a crash leaves the old one or the new one."""
        _write_json(directory / FORWARDED_FILE, {"version": 1, **self._fields()})

    def _fields(self) -> dict[str, object]:
        return {"journal": self.journal, "acked": self.acked}

    @classmethod
    def read(cls, directory: Path) -> Forwarded | None:
        """The state the forwarder last wrote; None if it never wrote one."""
        data = _read_json(directory / FORWARDED_FILE)
        if data is None:
            return None
        try:
            return cls(str(data["journal"]), int(data["acked"]))
        except (KeyError, TypeError, ValueError) as error:
            raise RetentionError(f"{directory / FORWARDED_FILE}: unreadable ({error})") from None


def holds(directory: Path) -> list[Hold]:
    """The dispute holds in force, by hand."""
    data = _read_json(directory / HOLDS_FILE)
    if data is None:
        return []
    try:
        return [Hold(int(h["hand"]), str(h["reason"]), str(h["since"])) for h in data["holds"]]
    except (KeyError, TypeError, ValueError) as error:
        raise RetentionError(f"{directory / HOLDS_FILE}: unreadable ({error})") from None


def hold(directory: Path, hand: int, reason: str, now: datetime) -> list[Hold]:
    """Hold hand ``hand``'s files until released; the holds in force after it."""
    if hand < 1:
        raise RetentionError(f"hand {hand}: expected a hand number, 1 or more")
    if not reason.strip():
        raise RetentionError("a hold needs a reason (the dispute's reference)")
    dealt = journal_hands(directory)
    if hand not in dealt:  # a hold on no hand would keep nothing, and say it had
        where = f"hands {dealt[0]} to {dealt[-1]}" if dealt else "no hand yet"
        if len(dealt) == 1:
            where = f"hand {dealt[0]} only"
        raise RetentionError(f"no hand {hand} in the journal {directory}: it holds {where}")
    kept = [h for h in holds(directory) if h.hand != hand]
    kept.append(Hold(hand, reason, now.isoformat(timespec="seconds")))
    _write_holds(directory, sorted(kept, key=lambda h: h.hand))
    return kept


def journal_hands(directory: Path) -> list[int]:
    """The hands that start in the journal's files (those retention has not deleted), in
    order; RetentionError if a record cannot be read."""
    try:
        return sorted(
            hand for file in _scan(journal_files(directory), hands=True) for hand in file.hands
        )
    except JournalError as error:
        raise RetentionError(f"the journal cannot tell its hands: {error}") from None


def release(directory: Path, hand: int) -> Hold:
    """Release hand ``hand``'s hold; the hold released. RetentionError if it is not held."""
    current = holds(directory)
    found = next((h for h in current if h.hand == hand), None)
    if found is None:
        held = ", ".join(str(h.hand) for h in current) or "none"
        raise RetentionError(f"hand {hand} is not held (held: {held})")
    _write_holds(directory, [h for h in current if h.hand != hand])
    return found


@dataclass(frozen=True, slots=True)
class _File:
    number: int
    path: Path
    first: Record
    last: Record
    hands: frozenset[int]  #: the hands that start in it


def apply(
    directory: Path,
    *,
    keep_days: int,
    now: datetime,
    floor: bool,
    fsync: bool = True,
    stopping: Callable[[], bool] | None = None,
) -> list[Path]:
    """Delete the oldest rotated files retention allows (see the module); the files deleted.
    ``floor``: a floor is configured, so only what its stream acknowledged may go.
    ``stopping``, asked before each deletion: once it says so, the rest waits for the next
    pass (the keeper's, when the table stops: controller/journal/keeper.py)."""
    held = frozenset(h.hand for h in holds(directory))
    oldest_kept = now - timedelta(days=keep_days)
    files = _scan(journal_files(directory), hands=bool(held))
    current = next(files, None)
    journal = _journal_id(directory, current)
    acked = _acked(directory, journal) if floor else None
    deleted: list[Path] = []
    for following in files:  # the last file (in use) is only ever a ``following``
        assert current is not None
        if stopping is not None and stopping():
            break
        if not _may_delete(current, following, held, oldest_kept, acked):
            break
        first = following.first
        anchor = RetentionAnchor(following.number, first.seq, first.hash, journal)
        add_retention_anchor(directory, anchor, fsync=fsync)
        current.path.unlink()
        if fsync:
            fsync_directory(directory)
        deleted.append(current.path)
        current = following
    return deleted


def _may_delete(
    file: _File, following: _File, held: frozenset[int], oldest_kept: datetime, acked: int | None
) -> bool:
    """Whether ``file`` may go (``following`` is the file after it; ``acked``: the floor's
    last acknowledged seq, None without a floor)."""
    if _when(file.last) >= oldest_kept:
        return False
    if (file.hands | following.hands) & held:
        return False
    return acked is None or acked >= file.last.seq


def _acked(directory: Path, journal: str) -> int:
    """The last seq of this journal the floor acknowledged (0: none, or another journal's)."""
    forwarded = Forwarded.read(directory)
    if forwarded is None or forwarded.journal != journal:
        return 0
    return forwarded.acked


def _scan(numbered: list[tuple[int, Path]], *, hands: bool) -> Iterator[_File]:
    """The journal's files, each read once: its first and last record and (``hands``: a hold
    is in force) the hands that start in it. Only those records are parsed (a byte search finds
    the hands' first records): the keeper's pass shares the interpreter with the table's loop."""
    for number, path in numbered:
        lines = read_journal_file(path).split(b"\n")[:-1]  # the last: "" or a line being written
        if not lines:
            return  # an empty file: the last, just begun
        started = frozenset(
            hand
            for index, raw in enumerate(lines)
            if hands and _HAND_STARTED in raw
            for hand in _hands(path, index + 1, raw)
        )
        first, last = _parse(path, 1, lines[0]), _parse(path, len(lines), lines[-1])
        yield _File(number, path, first, last, started)


#: In every hand_started record's line (canonical JSON: no spaces); a prefilter only.
_HAND_STARTED: Final = b'"kind":"hand_started"'


def _hands(path: Path, line: int, raw: bytes) -> list[int]:
    record = _parse(path, line, raw)
    if record.kind != rec.HAND_STARTED:
        return []
    try:
        events = schema.decode_events(record)
    except schema.SchemaError as error:
        # Which hands it holds is unknown: nothing from here on is deleted (the pass stops).
        raise RetentionError(f"{path.name}:{line}: {error}") from None
    return [e.hand for e in events if isinstance(e, HandStarted)]


def _parse(path: Path, line: int, raw: bytes) -> Record:
    try:
        return parse_line(raw)
    except RecordError as error:
        raise JournalError(path, line, None, str(error)) from None


def _journal_id(directory: Path, first: _File | None) -> str:
    """The journal's id: the hash of seq 1, or as noted once its file was deleted."""
    if first is not None and first.first.seq == 1:
        return first.first.hash
    anchors = retention_anchors(directory)
    return anchors[0].journal if anchors else ""


def _when(record: Record) -> datetime:
    return datetime.fromisoformat(record.ts.replace("Z", "+00:00"))


def _write_holds(directory: Path, current: list[Hold]) -> None:
    body = [{"hand": h.hand, "reason": h.reason, "since": h.since} for h in current]
    _write_json(directory / HOLDS_FILE, {"version": 1, "holds": body})


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise RetentionError(f"{path}: unreadable ({error})") from None
    if not isinstance(data, dict) or data.get("version") != 1:
        raise RetentionError(f"{path}: not a version 1 state file")
    return data


def _write_json(path: Path, body: dict[str, object]) -> None:
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_all(descriptor, json.dumps(body, sort_keys=True).encode() + b"\n")
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, path)
    fsync_directory(path.parent)
