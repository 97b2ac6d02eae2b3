"""The bot runner: a dealer bot's acts performed on the simulator's devices.

The shoe deals the card (its tag goes out on the wire), the panel presses
the button, at a pace: as fast as the devices take them for tests, or with a
dealer's pauses for a demo. The controller on the other end of the wire
cannot tell the runner from a dealer at a real table.

    with Simulator(transport="memory", seed=3) as sim:
        bot = RandomBot("mambo", seats=6, seed=3, hands=100)
        BotRunner(bot, sim, pace=Pace.fast()).run()
        bot.records  # what the controller should have settled, hand by hand
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from controller.words import counted
from simulator.bots import (
    Act,
    Deal,
    Discard,
    Press,
    RandomBot,
    Rebuy,
    Restock,
    ScriptedBot,
    Shuffle,
    Tag,
    table_input,
)
from simulator.clock import pause
from simulator.devices import DeviceError
from simulator.table import DEVICES, Simulator

#: The host's RFID repeat window by default (drivers.shoe.ShoeDriver): a card read at
#: the same point again within it is taken for the same read, so a new shuffle (whose
#: first cards may have been read moments ago) must take longer than this.
DEFAULT_REPEAT_WINDOW = 0.5

#: How long an acknowledgement may take before the runner says it is waiting for one: a
#: controller acknowledges in milliseconds (docs/app.md), so a second means it is not there.
ACK_PATIENCE = 1.0

#: How often the runner looks again at a device it waits for.
_POLL = 0.001

_T = TypeVar("_T")


class RunnerError(RuntimeError):
    """The devices could not perform an act as the bot meant it (the shoe out of step)."""


class RunnerStopped(Exception):
    """``stop`` came while ``perform`` waited for the devices to take an act (a jam, a full
    store): the act was not done. ``acts`` and ``run`` hold it for ``resume``."""


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds before each kind of act.

    ``shuffle`` is how long a shuffle and cut (or reshuffling the discards)
    takes: it must exceed the host's RFID repeat window, or a card dealt again
    after the shuffle would be dropped as a repeat of its last read.
    ``repeat`` is the gap before a card already read at the slot is read there
    again (a script's card dealt twice), for the same reason.
    ``stall`` is how long the runner waits for a jammed feed (a full store: the
    host is not acknowledging) to clear before it gives up.
    """

    card: float = 0.0
    button: float = 0.0
    shuffle: float = DEFAULT_REPEAT_WINDOW + 0.1
    repeat: float = DEFAULT_REPEAT_WINDOW + 0.1
    stall: float = 10.0

    def __post_init__(self) -> None:
        for name in ("card", "button", "shuffle", "repeat", "stall"):
            if getattr(self, name) < 0:
                raise ValueError(f"pace: {name}={getattr(self, name)}; expected 0 or more seconds")

    @classmethod
    def fast(cls, repeat_window: float = DEFAULT_REPEAT_WINDOW) -> Pace:
        """As fast as the devices take it; shuffles just outlast the repeat window."""
        outlast = repeat_window * 1.2 + 0.01
        return cls(shuffle=outlast, repeat=outlast)

    @classmethod
    def human(cls) -> Pace:
        """A dealer's pace, to watch: a card in half a second, a decision in a second."""
        return cls(card=0.5, button=1.0, shuffle=3.0)

    def before(self, act: Act) -> float:
        """The pause before ``act``."""
        if isinstance(act, Shuffle | Restock):
            return self.shuffle
        if isinstance(act, Deal | Discard | Tag):
            return self.card
        if isinstance(act, Press):
            return self.button
        return 0.0


Bot = RandomBot | ScriptedBot


class BotRunner:
    """Performs ``bot``'s acts on ``sim``'s shoe and panel, one at a time, at ``pace``.

    ``on_act`` (optional) hears every act after the devices performed it.
    ``on_rebuy`` hears the chips a seat buys between hands: no device reports
    them, so the controller must be told (``Table.rebuy``) before the next hand.
    ``on_wait`` hears, once each time, that the runner waits for the devices (a full
    store, a jammed feed, an acknowledgement, a host's welcome) and why, and that it
    goes on; without it a wait is silent.
    ``wait_for_acks``: once a host has welcomed the device that reports an act, wait
    until the host has acknowledged it before the next act. Cards and buttons travel on
    two links, so a press made at once after a deal could reach the controller before
    the card; a controller acknowledges only what it has taken (journal before ack), so
    this keeps it in step with the bot at any pace.
    """

    def __init__(
        self,
        bot: Bot,
        sim: Simulator,
        pace: Pace | None = None,
        *,
        on_act: Callable[[Act], None] | None = None,
        on_rebuy: Callable[[Rebuy], None] | None = None,
        on_wait: Callable[[str], None] | None = None,
        wait_for_acks: bool = False,
    ) -> None:
        self.bot = bot
        self.sim = sim
        self.pace = pace or Pace()
        self.on_act = on_act
        self.on_rebuy = on_rebuy
        self.on_wait = on_wait
        self.wait_for_acks = wait_for_acks
        self.performed = 0
        self._stop = threading.Event()
        #: An act the bot chose that a stop kept the devices from doing (done on resume).
        self._held: Act | None = None

    def stop(self) -> None:
        """Stop after the act in progress (from any thread)."""
        self._stop.set()

    def resume(self) -> None:
        """Let a stopped runner run again, from the act it had not yet performed."""
        self._stop.clear()

    @property
    def stopped(self) -> bool:
        """Whether ``stop`` was called."""
        return self._stop.is_set()

    def acts(self) -> Iterator[Act]:
        """Perform the bot's acts one by one, yielding each after the devices performed it."""
        while True:
            # The bot's table takes an act as the bot chooses it; one a stop interrupts
            # is held, so the devices never fall an act behind the bot.
            act, self._held = self._held or self.bot.next_act(), None
            if act is None:
                return
            if pause(self.sim.clock, self.pace.before(act), self._stop):
                self._held = act
                return
            try:
                self.perform(act)
            except RunnerStopped:  # stopped while the devices could not take it: nothing was done
                self._held = act
                return
            self.performed += 1
            self._acknowledged(act)
            if self.on_act is not None:
                self.on_act(act)
            yield act
            if self._stop.is_set():
                return

    def run(self, hands: int | None = None) -> int:
        """Perform acts until the bot is done, ``hands`` more hands are over, or ``stop``;
        return how many hands were over meanwhile."""
        start = len(self.bot.records)
        for _ in self.acts():
            if hands is not None and len(self.bot.records) - start >= hands:
                break
        return len(self.bot.records) - start

    def wait_for_host(self, devices: tuple[str, ...] = DEVICES) -> bool:
        """Wait until a host (the controller) has welcomed each of ``devices``, so that it
        sees the first act; False if ``stop`` came first."""

        def unwelcomed() -> list[str]:
            with self.sim.locked():
                return [d for d in devices if not self.sim.devices[d].core.link.welcomed]

        if not unwelcomed():
            return True
        names = " and the ".join(devices)
        self._say(f"waiting for a controller to welcome the {names} (is it running?)")
        while unwelcomed():
            if self._stop.wait(_POLL * 10):
                return False
        self._say(f"the controller welcomed the {names}: dealing")
        return True

    # --- one act on the devices -----------------------------------------------------------

    def perform(self, act: Act) -> None:
        """Make the devices do ``act``.

        Raises ``RunnerStopped`` if ``stop`` comes while the devices cannot take it (a jam,
        a full store); ``acts`` catches it and holds the act for ``resume``."""
        sim = self.sim
        if isinstance(act, Shuffle):
            sim.use_deck(act.deck, act.seed)
            sim.cut(act.cut)
        elif isinstance(act, Deal):
            self._deal(act)
        elif isinstance(act, Discard):
            self._unjammed(lambda: sim.discard(act.card))
        elif isinstance(act, Press):
            self._unjammed(lambda: sim.press(act.button))
        elif isinstance(act, Restock):
            with sim.locked():  # 14.12A(f): the reshuffled discards go under the stub
                sim.shoe.load([*sim.shoe.stub, *act.cards])
        elif isinstance(act, Tag):
            self._unjammed(lambda: self._read_tag(act))
        elif self.on_rebuy is not None:
            self.on_rebuy(act)

    def _read_tag(self, act: Tag) -> None:
        with self.sim.locked():
            self.sim.shoe.read_tag(act.uid, act.point, now=self.sim.clock())

    def _deal(self, act: Deal) -> None:
        sim = self.sim
        if not act.named:
            card = self._unjammed(sim.deal)
            if card is not act.card:
                raise RunnerError(
                    f"the shoe dealt {card.code} where the bot dealt {act.card.code}: the shoe "
                    "is out of step with the bot (was it shuffled or dealt from by hand?)"
                )
            return
        with sim.locked():
            in_shoe = act.card in sim.shoe.stub
        if in_shoe:
            self._unjammed(lambda: sim.deal(act.card))
        else:  # a script may deal a card twice (an integrity incident): it is read again,
            # later than the host's repeat window, or the host takes it for the same read
            pause(self.sim.clock, self.pace.repeat, self._stop)
            self._unjammed(lambda: sim.dealt_twice(act.card))

    def _unjammed(self, action: Callable[[], _T]) -> _T:
        """Do ``action``; while the shoe's feed is jammed or a device's store is full (the
        host not acknowledging), wait as a dealer waits, up to ``pace.stall`` seconds, and
        say so once (``on_wait``)."""
        deadline = time.monotonic() + self.pace.stall
        waited = False
        while True:
            try:
                done = action()
            except DeviceError as error:
                if "jam" not in str(error) and "full" not in str(error):
                    raise
                if not waited:
                    self._say(f"waiting: {self._why_stalled(error)}")
                    waited = True
                if time.monotonic() >= deadline:
                    raise RunnerError(
                        f"the devices stayed jammed for {self.pace.stall} s: {error}"
                    ) from error
                if self._stop.wait(_POLL * 10):
                    raise RunnerStopped from error
                continue
            if waited:
                self._say("going on: the devices take acts again")
            return done

    def _why_stalled(self, error: DeviceError) -> str:
        """The technician's words for a device that cannot take an act."""
        with self.sim.locked():
            if self.sim.shoe.jammed:
                return "the shoe's feed is jammed (a card is stuck in the slot: 'fault jam off')"
            device = "panel" if "panel" in str(error) else "shoe"
            backlog = self.sim.devices[device].core.sender.backlog
        return (
            f"the {device}'s store is full ({counted(backlog, 'sentence')} unacknowledged): "
            "is a controller attached?"
        )

    def _acknowledged(self, act: Act) -> None:
        """With ``wait_for_acks``: wait until the host has acknowledged what ``act`` made a
        device report, while a host is welcomed on it (none: nothing to wait for)."""
        if not self.wait_for_acks or table_input(act) is None:
            return
        device = "panel" if isinstance(act, Press) else "shoe"
        began = time.monotonic()
        waited = False
        while True:
            with self.sim.locked():
                core = self.sim.devices[device].core
                left = core.sender.backlog if core.link.welcomed else 0
            if not left:
                break
            if not waited and time.monotonic() - began >= ACK_PATIENCE:
                self._say(
                    f"waiting: the controller has not acknowledged the {device}'s last "
                    f"{counted(left, 'sentence')} for {ACK_PATIENCE:g} s: is it still running?"
                )
                waited = True
            if self._stop.wait(_POLL):
                return
        if waited:
            self._say("going on: the controller acknowledged")

    def _say(self, text: str) -> None:
        if self.on_wait is not None:
            self.on_wait(text)
