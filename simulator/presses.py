"""What a controller decided for the dealer's last press, read from its journal.

A controller refuses every button pressed while a device pauses the table (a restarted one
until it has journaled both devices' hellos: docs/app.md, Devices lost and found), and says so
in the press's decision record. A dealer meets that by pressing again once the pause has
ended; a bot that restarts controllers (the crash tier's dealer, the floor lab's tables) reads
the decision here and presses again once the journal says both devices are up
(``simulator.waits.journaled_up``), waiting on the journal's records, never on time.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Final

#: How much of a journal file's end is read: the dealer's last press and what follows it (its
#: decision, a checkpoint, a restart's software and device records) are well within it, and a
#: file read whole after every press would slow a long run's dealer.
TAIL_BYTES: Final = 256 * 1024
#: How the refusal of a press taken while the table is paused begins
#: (controller/table/core.py, ``TableCore._paused_refusal``).
PAUSED_REASON: Final = "the table is paused"


class Decided(StrEnum):
    """The decision journaled for a press."""

    TAKEN = "taken"
    #: Refused because a device paused the table: press it again once the pause has ended.
    PAUSED = "paused"
    #: Refused for another reason (the engine's): pressing again changes nothing.
    REFUSED = "refused"


def last_press(directory: Path) -> Decided | None:
    """The decision of the last button journaled in ``directory``; None while it has none yet
    (the decision follows its input, and a restarted controller writes one its last run lost
    at the cut) or no button is journaled. Reads the ends of the last two plain files: a
    new hand's press is in the file before its decision's. A file closed at its size limit
    (``[journal] max_bytes``, 16 MiB) between another press and its decision, then compressed,
    is not read, and the press stays undecided here: the journals of the bots that read this
    rotate by hands long before that size."""
    files = sorted(directory.glob("journal-*.jsonl"))[-2:]
    pressed: int | None = None
    decided: dict[int, list[dict[str, object]]] = {}
    for path in files:
        try:
            lines = _tail(path)
        except FileNotFoundError:
            # Closed and compressed by the keeper since the listing: its new hand's press is
            # read from the newer file's hand_started, as when it was gone before.
            continue
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue  # the line being written
            kind, data = record["kind"], record["data"]
            if kind == "button":
                pressed = max(pressed or 0, record["seq"])
            elif kind in ("decision", "hand_started"):
                decided[data["input"]] = data["events"]
            if kind == "hand_started":
                # A new hand's press: its record may be in the file before, which the writer
                # closed as the hand began (docs/journal.md, Files and rotation) and the keeper
                # may have compressed since.
                pressed = max(pressed or 0, data["input"])
    events = decided.get(pressed) if pressed is not None else None
    if events is None:
        return None
    refused = [e for e in events if e.get("kind") == "refused"]
    if not refused:
        return Decided.TAKEN
    reason = str(refused[0].get("reason", ""))
    return Decided.PAUSED if reason.startswith(PAUSED_REASON) else Decided.REFUSED


def _tail(path: Path) -> list[str]:
    """The whole lines of the end of ``path`` (the first, maybe cut, dropped when not read
    from the start)."""
    with path.open("rb") as file:
        size = file.seek(0, 2)
        start = max(0, size - TAIL_BYTES)
        file.seek(start)
        lines = file.read().decode("utf-8", errors="replace").splitlines()
    return lines[1:] if start else lines
