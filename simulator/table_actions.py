"""The dealer's and the technician's actions on the simulated table, each one whole.

Dealing, discarding, shuffling, cutting and pressing; the line faults (drop, garble,
delay, noise, silence), unplugging and power cycles; the shoe's own faults (lid, reader,
jam, lingering and re-read tags, a foreign tag, the other deck's card, a card dealt
twice). Each runs under the ``Simulator``'s lock (``simulator.table``), which serves the
devices and writes what an action made them say at once.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Protocol, TypeVar

from controller.poker.cards import DECK, Card
from controller.poker.engine import Table
from controller.poker.inputs import Button
from drivers.seam.events import Lid, Reader
from simulator.decks import TagDeck, foreign_uid
from simulator.devices import DeviceError
from simulator.faults import LineFaults
from simulator.sim_device import SimDevice, boot_id
from simulator.virtualpanel import VirtualPanel
from simulator.virtualshoe import VirtualShoe

_T = TypeVar("_T")


class PressWitness(Protocol):
    """What a bench reads of a controller that takes presses without acknowledging them (a
    keypad): each answer is why not yet, or None."""

    def ready(self) -> str | None:
        """Why a press now would reach no controller."""

    def taken(self, table: Table) -> str | None:
        """Why the controller does not yet show what ``table`` (the bot's) waits for."""


class Cable(Protocol):
    """A panel's cable that is not the protocol panel's (a keypad's: ``panel_cable``)."""

    plugged: bool

    @property
    def address(self) -> str:
        """Where the controller reaches the panel."""

    def unplug(self) -> None:
        """Pull it (DeviceError if it is out already)."""

    def replug(self) -> None:
        """Plug it back in (DeviceError if it is in)."""


class TableActions(ABC):
    """The actions of ``Simulator``, which keeps the devices, their lines and the clock."""

    seed: int
    clock: Callable[[], float]
    decks: tuple[TagDeck, TagDeck]
    #: How many foreign tags have passed so far: each one a new UID.
    _foreign_tags: int
    #: Where the dealer's presses go when the table's panel is not the simulator's protocol
    #: panel: a keypad's keys (simulator/keypad.py, ``fit_keypad``); None: the panel.
    presses: Callable[[Button], None] | None = None
    #: With ``presses``, on a bench whose controller is another process: what says whether
    #: it holds the keypad and has taken a press (simulator/keypad_testbed.py); None: the
    #: presses need no witness (the demo's keypad, in this process, is followed in lockstep).
    press_witness: PressWitness | None = None
    #: With ``presses``, on a keypad bench: the keypad's cable, which ``unplug`` and
    #: ``replug`` of the panel pull and plug; None: the protocol panel's.
    panel_cable: Cable | None = None
    #: On a table whose shoe is PN532 readers (simulator/pn532/shoe.py, ``fit_pn532``): the
    #: seconds until the cards pitched last have left the readers' fields, which the bot's
    #: runner waits out before its next act; None: the protocol shoe, whose reads are
    #: sentences on its line.
    pitched: Callable[[], float] | None = None
    #: With ``pitched``: pass the card pitched last over its reader again (its read never
    #: reached the controller: a poll's answer the host dropped late, a reader down).
    pitch_again: Callable[[], None] | None = None

    @property
    @abstractmethod
    def shoe(self) -> VirtualShoe:
        """The shoe's core."""

    @property
    @abstractmethod
    def panel(self) -> VirtualPanel:
        """The panel's core."""

    @abstractmethod
    def _act(self, action: Callable[[], _T]) -> _T:
        """Run ``action`` under the lock; write what it made the devices say and wake the
        serving thread (a port came or went, a timer moved)."""

    @abstractmethod
    def _device(self, name: str) -> SimDevice:
        """The device called ``name``, or a ``DeviceError`` naming the devices."""

    # --- the dealer's and the technician's actions ------------------------------------------

    def deal(self, card: Card | None = None, burn: bool = False) -> Card:
        """Deal the top card (or a named card) through the shoe's slot; returns it."""
        return self._act(lambda: self.shoe.deal(card, burn, now=self.clock()).card)

    def burn(self) -> Card:
        """Burn the top card: it leaves through the slot, read like any other."""
        return self.deal(burn=True)

    def discard(self, card: Card) -> None:
        """Pass a card over the discard reader into the muck."""
        self._act(lambda: self.shoe.discard(card, now=self.clock()))

    def shuffle(self, seed: int) -> None:
        """Load the deck in play, shuffled from ``seed``."""
        self._act(lambda: self.shoe.shuffle(seed))

    def new_deck_order(self) -> None:
        """Load the deck in play unshuffled, 2c 2d 2h 2s 3c ... As (to enroll it)."""
        self._act(lambda: self.shoe.load(DECK))

    def cut(self, count: int) -> None:
        """Cut the stub (at least ten cards off the top: rules-interpretation.md, Shuffle, cut and
        decks)."""
        self._act(lambda: self.shoe.cut(count))

    def use_deck(self, name: str, seed: int) -> None:
        """Put a deck in play, shuffled (rules-interpretation.md, Shuffle, cut and decks: decks
        alternate)."""

        def switch() -> None:
            self.shoe.use_deck(name)
            self.shoe.shuffle(seed)

        self._act(switch)

    def press(self, button: Button) -> None:
        """Press a button on the panel (or its key, on a keypad panel: ``presses``)."""
        if self.presses is not None:
            self.presses(button)
            return
        self._act(lambda: self.panel.press(button))

    # --- faults -----------------------------------------------------------------------------

    def line(self, device: str) -> LineFaults:
        """The fault line of ``device``; arm faults with ``with sim.locked(): ...`` or below."""
        return self._device(device).line

    def drop(self, device: str, count: int = 1) -> None:
        """Lose the next ``count`` sentences ``device`` writes."""
        self._act(lambda: self.line(device).drop(count))

    def garble(self, device: str, count: int = 1) -> None:
        """Flip a bit in each of the next ``count`` sentences ``device`` writes."""
        self._act(lambda: self.line(device).garble(count))

    def delay(self, device: str, seconds: float, count: int = 1) -> None:
        """Hold ``device``'s next ``count`` sentences for ``seconds`` (the line keeps order)."""
        self._act(lambda: self.line(device).delay(seconds, count))

    def noise(self, device: str, length: int) -> None:
        """A burst of ``length`` random bytes on ``device``'s line."""
        self._act(lambda: self.line(device).noise(length))

    def silence(self, device: str, seconds: float | None = None) -> None:
        """``device`` hangs: silent and deaf for ``seconds`` (None: until ``speak``)."""
        self._act(lambda: self.line(device).silence(self.clock(), seconds))

    def speak(self, device: str) -> None:
        """The hung ``device`` recovers."""
        self._act(lambda: self.line(device).speak())

    def clear_faults(self, device: str) -> None:
        """Disarm every line fault of ``device``."""
        self._act(lambda: self.line(device).clear())

    def unplug(self, device: str) -> None:
        """Pull ``device``'s USB cable: its port fails and goes; the device keeps its state."""
        if device == "panel" and self.panel_cable is not None:
            self.panel_cable.unplug()
            return

        def pull() -> None:
            sim_device = self._device(device)
            if not sim_device.endpoint.plugged:
                raise DeviceError(f"the {device} is unplugged already")
            sim_device.endpoint.unplug()
            sim_device.core.link_lost()

        self._act(pull)

    def replug(self, device: str) -> None:
        """Plug ``device`` back in: the same path or URL; it says hello again."""
        if device == "panel" and self.panel_cable is not None:
            self.panel_cable.replug()
            return

        def plug() -> None:
            sim_device = self._device(device)
            if sim_device.endpoint.plugged:
                raise DeviceError(f"the {device} is plugged in already")
            sim_device.endpoint.plug()
            sim_device.core.link_back(self.clock())

        self._act(plug)

    def power_cycle(self, device: str) -> None:
        """Switch ``device`` off and on: a new boot id; what it had not sent is lost."""

        def cycle() -> None:
            sim_device = self._device(device)
            sim_device.power_ups += 1
            boot = boot_id(self.seed, device, sim_device.power_ups)
            sim_device.core.power_cycle(boot, self.clock())

        self._act(cycle)

    def set_lid(self, lid: Lid) -> None:
        """Open or close the shoe's lid."""
        self._act(lambda: self.shoe.set_lid(lid))

    def set_reader(self, reader: Reader) -> None:
        """The shoe's RFID reader fails (no card is read while it does) or recovers."""
        self._act(lambda: self.shoe.set_reader(reader))

    def set_jam(self, jammed: bool) -> None:
        """A card sticks in the shoe's slot, or is freed."""
        self._act(lambda: self.shoe.set_jam(jammed))

    def duplicate_reads(self, extra: int) -> None:
        """The next card dealt lingers in the field: read ``extra`` more times, 50 ms apart on
        the shoe's clock, inside the host's repeat window (repeats, dropped)."""
        if not 1 <= extra <= 20:
            raise DeviceError(f"duplicate reads {extra}: expected 1 to 20 extra reads")

        def arm() -> None:
            self.shoe.extra_reads = extra

        self._act(arm)

    def reread(self, after: float = 1.0) -> None:
        """The next card dealt passes the slot again ``after`` seconds later on the shoe's
        clock: past the host's repeat window, a second read (a card seen twice)."""
        self._act(lambda: self.shoe.reread_next(after))

    def set_uptime(self, ms: int) -> None:
        """Run the shoe's clock on to read ``ms`` now (near 4294967295 it wraps soon)."""
        self._act(lambda: self.shoe.set_uptime(ms, self.clock()))

    def foreign_tag(self) -> str:
        """A tag enrolled in neither deck passes the slot; returns its UID."""

        def read() -> str:
            uid = foreign_uid(self.seed, self._foreign_tags, self.decks)
            self._foreign_tags += 1
            self.shoe.read_tag(uid, now=self.clock())
            return uid

        return self._act(read)

    def other_deck(self, card: Card | None = None) -> Card:
        """A card of the deck not in play passes the slot (default: the top card's twin)."""
        return self._act(lambda: self.shoe.read_other_deck(card, now=self.clock()))

    def dealt_twice(self, card: Card | None = None) -> Card:
        """A card already dealt passes the slot again (default: the first one dealt)."""
        return self._act(lambda: self.shoe.read_again(card, now=self.clock()))
