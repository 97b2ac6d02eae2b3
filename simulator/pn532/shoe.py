"""The simulated table dealt through PN532 readers (``[devices.shoe] kind = "pn532"``).

The dealer's acts on the simulator (simulator/table_actions.py) move cards through the virtual
shoe (simulator/virtualshoe.py), which keeps the stub, the deck in play and what was dealt. On a
table whose shoe is PN532 readers (docs/hardware.md), a read the virtual shoe would send on
the protocol's line is instead a card pitched past a reader: its tag (an NTAG213, 7-byte UID,
the decks made with ``tags=TagFamily.ISO14443A``) is in the field of the dealing slot's reader
or the discard reader (simulator/pn532/serve.py) for ``pitch`` seconds of the simulator's
clock, and the PN532 driver polls it there as it polls a real card. What a reader never polled
in that time is gone (docs/hardware.md, What a PN532 shoe loses): the pitch is longer than a
few of the driver's polls (drivers/pn532/reader.py, ``ReaderTiming.poll_interval``).

A dealer pitches one card at a time: the bot's runner waits until the card has left the field
(``TableActions.pitched``) before its next act, so two tags are in a field together only when a
test puts them there (``Pn532Pitch.together``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.poker.inputs import ReadPoint
from drivers.pn532.backend import KIND, Pn532Settings
from drivers.seam.events import SHOE
from simulator.clock import ManualClock
from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers
from simulator.table import Simulator

#: The readers' names in simulator/pn532/serve.py for the protocol's read points.
POINTS: Final = {ReadPoint.DEALING_SLOT: "slot", ReadPoint.DISCARD_READER: "discard"}
#: How long a pitched card's tag is in a reader's field: a card leaving the slot crosses an
#: antenna of a few centimetres at a dealer's pitch (docs/hardware.md, Antenna placement);
#: seven of the driver's 20 ms polls.
PITCH: Final = 0.15
#: How often a dealer passes a card no reader listed over it before giving up (the
#: controller's patience then says so).
MAX_PITCHES: Final = 20
#: How long (wall clock) a dealer waits for the controller to show a card that has left the
#: field before pitching it again: a read the chip listed can still be lost when the host
#: dropped the poll's late answer (drivers/pn532/reader.py, two polls' bounds).
UNSHOWN_AFTER: Final = 1.0
#: The controller's RFID repeat window for a table dealt so: a card in a field is listed at
#: every poll while its pitch lasts, and the window slides from read to read (drivers/seam/
#: tags.py, RepeatFilter), so it must outlast the gap between two polls, a loaded host's
#: included; the same card comes back only a hand of the other deck later.
REPEAT_WINDOW: Final = 0.3


def tag_of(uid: str) -> Tag:
    """The ISO/IEC 14443-A tag carrying ``uid`` (hex, UID0 first): an NTAG213's for 7 bytes,
    a MIFARE Classic's for 4."""
    data = bytes.fromhex(uid)
    if len(data) == 4:
        return Tag.mifare_classic(data)
    return Tag.ntag213(data) if len(data) == 7 else Tag(data)


@dataclass(slots=True)
class Pitched:
    """A card pitched past a reader: its tag, and the targets the chip had listed before."""

    point: str
    tag: Tag
    listed_before: int
    times: int = 1


class Pn532Pitch:
    """The virtual shoe's reads made cards pitched past the readers' fields."""

    def __init__(self, readers: Pn532Readers, pitch: float = PITCH) -> None:
        if not pitch > 0:
            raise ValueError(f"pitch {pitch} s: expected more than 0 seconds in the field")
        self.readers = readers
        self.pitch = pitch
        #: Cards pitched again because their reader never listed them.
        self.repitched = 0
        #: When the last card put in each field leaves it (the readers' clock).
        self._leaves: dict[str, float] = {}
        #: The cards pitched whose reader has not been seen to list them yet.
        self._unheard: list[Pitched] = []
        #: The card pitched last (``again``).
        self.last: Pitched | None = None
        #: ``together``: the next reads join the card still in the field instead of waiting.
        self._together = False

    def __call__(self, point: ReadPoint, uid: str, at: float) -> None:
        """The virtual shoe read ``uid`` at ``point``: the card enters that reader's field now
        (``at``, the virtual shoe's time of a later re-read, has come already)."""
        del at
        name = POINTS[point]
        self._pitch(Pitched(name, tag_of(uid), self.listed(name)))

    def _pitch(self, pitched: Pitched, *, watched: bool = True) -> None:
        self.readers.place(pitched.point, pitched.tag, self.pitch)
        self._leaves[pitched.point] = self.readers.clock() + self.pitch
        if watched:
            self._unheard.append(pitched)
        self.last = pitched

    def in_field(self, point: str) -> bool:
        """Whether the card pitched last at ``point`` is still in its field."""
        return self.readers.clock() < self._leaves.get(point, 0.0)

    def listed(self, point: str) -> int:
        """How many targets ``point``'s chip has listed in its answers so far (an int read
        without the readers' lock: a watcher's look, not a state to act on under it)."""
        return self.readers.chips[point].counters.listed

    def left(self) -> float:
        """Seconds until every card pitched so far has left its field (0: the fields are
        clear, every card listed by its reader); the runner waits them out before its next
        act, as a dealer pitches one card at a time. A card its reader never listed while it
        was in the field (a host kept off the CPU past its poll: docs/hardware.md, What a PN532
        shoe loses) is pitched again, as a dealer passes a card the screen does not show back
        over the reader."""
        if self._together:
            return 0.0
        now = self.readers.clock()
        left = max((leaves - now for leaves in self._leaves.values()), default=0.0)
        if left > 0:
            return left
        unheard, self._unheard = self._unheard, []
        for pitched in unheard:
            listed = self.listed(pitched.point)
            if listed == pitched.listed_before and pitched.times < MAX_PITCHES:
                self.repitched += 1
                self._pitch(Pitched(pitched.point, pitched.tag, listed, pitched.times + 1))
        return self.pitch if self._unheard else 0.0

    def again(self) -> None:
        """Pitch the last card again: the controller never showed its read (the lockstep
        dealer), or it never reached the journal of a controller killed meanwhile (the crash
        test's dealer). Whoever calls it watches for the read; ``left`` waits this pitch out
        before the next card, so two cards are never in a field together."""
        if self.last is None:
            raise ValueError("no card was pitched yet: nothing to pitch again")
        point, tag = self.last.point, self.last.tag
        self.repitched += 1
        self._pitch(Pitched(point, tag, self.listed(point)), watched=False)

    @contextmanager
    def together(self) -> Iterator[None]:
        """Acts made inside the block pitch their cards at once: two tags in one field (two
        cards pitched together, docs/hardware.md)."""
        self._together = True
        try:
            yield
        finally:
            self._together = False


def fit_pn532(sim: Simulator, readers: Pn532Readers, pitch: float = PITCH) -> Pn532Pitch:
    """From now on the dealer's cards on ``sim`` (the bot's, the trainer's, the console's) are
    pitched past ``readers``' fields instead of being read by the protocol shoe."""
    if isinstance(readers.clock, ManualClock):
        # The driver's reader threads poll on the clock; a manual clock moved by a pitch at
        # once would pass the card by before any poll (tests/drivers/pn532_bench.py steps it).
        raise ValueError(
            "a PN532 shoe in the simulator's table runs on the wall clock: expected no ManualClock"
        )
    pitched = Pn532Pitch(readers, pitch)
    with sim.locked():
        sim.shoe.reads = pitched
    sim.pitched = pitched.left
    sim.pitch_again = pitched.again
    return pitched


@contextmanager
def pn532_readers(
    directory: Path, clock: Callable[[], float] = time.monotonic
) -> Iterator[tuple[Pn532Readers, Pn532Settings]]:
    """Simulated PN532 readers at the dealing slot and the discard reader, their ptys linked
    from ``directory/slot`` and ``directory/discard``, and the ``[devices.shoe]`` settings
    that reach them (``port``, ``discard_port``); closed after the block."""
    with Pn532Readers(directory, tuple(POINTS.values()), clock) as readers:
        slot, discard = (readers.address(point) for point in POINTS.values())
        yield readers, Pn532Settings(SHOE, KIND, slot, discard)
