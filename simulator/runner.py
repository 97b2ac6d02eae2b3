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
)
from simulator.devices import DeviceError
from simulator.table import Simulator

#: The host's RFID repeat window by default (drivers.shoe.ShoeDriver): a card read at
#: the same point again within it is taken for the same read, so a new shuffle (whose
#: first cards may have been read moments ago) must take longer than this.
DEFAULT_REPEAT_WINDOW = 0.5

_T = TypeVar("_T")


class RunnerError(RuntimeError):
    """The devices could not perform an act as the bot meant it (the shoe out of step)."""


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
    """

    def __init__(
        self,
        bot: Bot,
        sim: Simulator,
        pace: Pace | None = None,
        *,
        on_act: Callable[[Act], None] | None = None,
        on_rebuy: Callable[[Rebuy], None] | None = None,
    ) -> None:
        self.bot = bot
        self.sim = sim
        self.pace = pace or Pace()
        self.on_act = on_act
        self.on_rebuy = on_rebuy
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
            if self._stop.wait(self.pace.before(act)):
                self._held = act
                return
            self.perform(act)
            self.performed += 1
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

    # --- one act on the devices -----------------------------------------------------------

    def perform(self, act: Act) -> None:
        """Make the devices do ``act``."""
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
            self._stop.wait(self.pace.repeat)
            self._unjammed(lambda: sim.dealt_twice(act.card))

    def _unjammed(self, action: Callable[[], _T]) -> _T:
        """Do ``action``; while the shoe's feed is jammed or a device's store is full (the
        host not acknowledging), wait as a dealer waits, up to ``pace.stall`` seconds."""
        deadline = time.monotonic() + self.pace.stall
        while True:
            try:
                return action()
            except DeviceError as error:
                if "jam" not in str(error) and "full" not in str(error):
                    raise
                if time.monotonic() >= deadline:
                    raise RunnerError(
                        f"the devices stayed jammed for {self.pace.stall} s: {error}"
                    ) from error
                time.sleep(0.01)
