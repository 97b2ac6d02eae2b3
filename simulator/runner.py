"""The bot runner: a dealer bot's acts performed on the simulator's devices.

The shoe deals the card (its tag goes out on the wire), the panel presses
the button, at a pace: as fast as the devices take them for tests, or with a
dealer's pauses for a demo. The controller on the other end of the wire
cannot tell the runner from a dealer at a real table.

    with Simulator(transport="memory", seed=3) as sim:
        bot = RandomBot("mambo", seats=6, seed=3, hands=100)
        BotRunner(bot, sim, pace=Pace.fast()).run()
        bot.records  # what the controller should have settled, hand by hand

The pace is ``simulator.pace.Pace``; how the runner waits on the devices (a jam, a full
store, an acknowledgement, a host's welcome) is ``simulator.waits``.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeVar

from controller.poker.engine.events import Event
from controller.poker.inputs import Button
from simulator.acts import Act, Deal, Discard, Press, Rebuy, Restock, Shuffle, Tag, table_input
from simulator.bots import Bot
from simulator.clock import pause
from simulator.follow import (
    agrees,
    controller_line,
    expected_line,
    follows,
    foreign_alarm,
    table_hold,
    welcomed,
)
from simulator.pace import Pace
from simulator.table import DEVICES, Simulator
from simulator.waits import (
    ACK_PATIENCE,
    POLL,
    RunnerError,
    RunnerStopped,
    unjammed,
    until_acknowledged,
    until_welcomed,
    until_witnessed,
)

_T = TypeVar("_T")


@dataclass(slots=True)
class Interjection:
    """A press of the technician's handed to the runner's thread (``BotRunner.interject``):
    ``done`` is set once it is made, ``events`` what the bot's table made of it."""

    act: Press
    done: threading.Event = field(default_factory=threading.Event)
    events: list[Event] = field(default_factory=list)
    #: Why it was not made (the runner stopped first), or empty.
    error: str = ""


class BotRunner:
    """Performs ``bot``'s acts on ``sim``'s shoe and panel, one at a time, at ``pace``.

    ``on_act`` (optional) hears every act after the devices performed it; ``before_act``
    each of the bot's acts just before the devices perform it.
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
        before_act: Callable[[Act], None] | None = None,
        on_rebuy: Callable[[Rebuy], None] | None = None,
        on_wait: Callable[[str], None] | None = None,
        wait_for_acks: bool = False,
        follow_table: bool = False,
    ) -> None:
        self.bot = bot
        self.sim = sim
        self.pace = pace or Pace()
        self.on_act = on_act
        self.before_act = before_act
        self.on_rebuy = on_rebuy
        self.on_wait = on_wait
        self.wait_for_acks = wait_for_acks
        self.follow_table = follow_table
        self.performed = 0
        self._stop = threading.Event()
        #: Set by ``stop`` and by ``interject``: ends the runner's waits to see to either.
        self._wake = threading.Event()
        #: ``pause``: no act until ``unpause``.
        self._paused = threading.Event()
        #: An act the bot chose that the devices have not done yet: a stop holds it for
        #: ``resume``; a press of the technician's first takes it back (``interject``).
        self._held: Act | None = None
        self._presses: deque[Interjection] = deque()
        self._actions: deque[Callable[[], object]] = deque()
        self._presses_lock = threading.Lock()
        #: While ``acts`` runs on some thread: ``interject`` hands presses to it.
        self._running = False
        #: The devices a controller has welcomed so far (``follow_table``).
        self._hosted: set[str] = set()

    def stop(self) -> None:
        """Stop after the act in progress (from any thread)."""
        self._stop.set()
        self._wake.set()

    def resume(self) -> None:
        """Let a stopped runner run again, from the act it had not yet performed."""
        self._stop.clear()

    @property
    def stopped(self) -> bool:
        """Whether ``stop`` was called."""
        return self._stop.is_set()

    def pause(self) -> None:
        """Make no act until ``unpause`` (the console's ``bot pause``); the act in progress
        is finished first. From any thread."""
        self._paused.set()

    def unpause(self) -> None:
        """Go on after ``pause`` (the console's ``bot resume``)."""
        self._paused.clear()

    @property
    def paused(self) -> bool:
        """Whether ``pause`` holds the runner."""
        return self._paused.is_set()

    def holding(self) -> str | None:
        """Why the runner holds now (``pause``, or the table with ``follow_table``), in the
        technician's words; None when it would act. From any thread."""
        return self._why_held()

    def interject(self, button: Button) -> Interjection | None:
        """Press ``button`` on the panel for the technician while ``acts`` runs on another
        thread (a misdeal, an undo), and let the bot follow: the runner's thread presses it
        between two acts of the bot, taking back an act the bot chose but the devices have not
        done (``RandomBot.rewind``), and the bot's table takes the press as the controller
        does. Returns what the runner's thread sets once pressed; None when no ``acts`` runs
        (the caller presses it itself). From any thread."""
        press = Interjection(Press(button))
        with self._presses_lock:
            if not self._running:
                return None
            self._presses.append(press)
        self._wake.set()
        return press

    def between_acts(self, action: Callable[[], object]) -> bool:
        """Run ``action`` on the runner's thread before the bot's next act (a fault injected
        for a dealer's training: an unplug, a jam, a stray card), so it never lands between a
        card the bot chose and the controller's taking it; an act already chosen waits as
        usual if the table then holds. False when no ``acts`` runs (the caller runs it)."""
        with self._presses_lock:
            if not self._running:
                return False
            self._actions.append(action)
        self._wake.set()
        return True

    def acts(self) -> Iterator[Act]:
        """Perform the bot's acts one by one, yielding each after the devices performed it.

        With ``follow_table`` the runner makes no act while the table holds
        (``simulator.follow.table_hold``: a device unplugged or in a fault, the controller's
        panel saying PAUSED or showing an alarm the bot did not cause), as a dealer waits."""
        with self._presses_lock:
            self._running = True
        try:
            yield from self._acts()
        finally:
            with self._presses_lock:
                self._running = False
            self._interjected()  # a press handed over as the runner ended is still made

    def _acts(self) -> Iterator[Act]:
        while True:
            if not self._wait_while_held(chosen=self._held is not None):
                return
            # The bot's table takes an act as the bot chooses it; one a stop interrupts
            # is held, so the devices never fall an act behind the bot.
            act = self._held = self._held or self.bot.next_act()
            if act is None:
                return
            if pause(self.sim.clock, self.pace.before(act), self._wake):
                if self._stop.is_set():
                    return
                continue  # a press of the technician's came first: the bot sees to it
            if not self._wait_while_held(chosen=True) or self._held is not act:
                if self._stop.is_set():
                    return
                continue
            if self.before_act is not None:
                self.before_act(act)
            try:
                self.perform(act)
            except RunnerStopped:  # stopped while the devices could not take it: nothing was done
                if self._stop.is_set():
                    return
                continue  # a press came while the devices could not take it: seen to first
            self._held = None
            self.performed += 1
            self._acknowledged(act)
            if self.on_act is not None:
                self.on_act(act)
            yield act
            if self._stop.is_set():
                return

    # --- following the table and the technician ------------------------------------------

    def _wait_while_held(self, chosen: bool = False) -> bool:
        """See to the technician's presses; wait while ``pause`` or the table holds the bot,
        saying once why and once that it goes on. False if ``stop`` came first.

        Before the bot chooses (not ``chosen``), with ``follow_table``, it also waits until the
        controller's panel shows what the bot's table waits for: the controller has taken all
        the bot did (and a press of the technician's) as the bot's table did. A line still on
        its way is waited for in silence; one that disagrees for ACK_PATIENCE is said."""
        said: str | None = None
        began = time.monotonic()
        while True:
            self._interjected()
            if self._stop.is_set():
                return False
            why = self._why_held()
            if why is None and not chosen:
                why = self._disagreement()
                if why is not None and time.monotonic() - began < ACK_PATIENCE:
                    why = ""  # the controller's line may be on its way: not worth a word yet
            if why is None:
                break
            if why and why != said:
                self._say(f"waiting: {why}")
                said = why
            self._wake.wait(POLL)
        if said is not None:
            self._say("going on: the table takes acts again")
        return True

    def _why_held(self) -> str | None:
        if self.follow_table:
            self._hosted |= welcomed(self.sim)
        if self._paused.is_set():
            return "paused ('bot resume' goes on)"
        if not self.follow_table:
            return None
        return table_hold(self.sim, self.bot, self._hosted)

    def _disagreement(self) -> str | None:
        """With ``follow_table``: how the controller's panel line differs from what the bot's
        table waits for; None when they agree, or no controller shows a line."""
        if not self.follow_table:
            return None
        shown = controller_line(self.sim)
        wanted = expected_line(self.bot)
        if not shown or agrees(shown, wanted):
            return None
        return f"the controller shows {shown!r}; the bot's table waits for {wanted!r}"

    def _interjected(self) -> None:
        """Make the presses handed over by ``interject``, on the runner's thread."""
        while True:
            with self._presses_lock:
                action = self._actions.popleft() if self._actions else None
                press = self._presses.popleft() if action is None and self._presses else None
                if action is None and press is None:
                    self._wake.clear()
                    if self._stop.is_set():
                        self._wake.set()
                    return
            if action is not None:
                action()
                continue
            assert press is not None
            self._make(press)
            press.done.set()

    def _make(self, press: Interjection) -> None:
        self._take_back_held()
        button = press.act.button
        # An alarm on the controller that the bot's table does not hold came from a read the
        # bot did not make (a fault from the console): undo dismisses that read, not the
        # bot's last act (rules-interpretation.md, Integrity).
        theirs = button is Button.UNDO and foreign_alarm(self.sim, self.bot)
        try:
            self._unjammed(lambda: self.sim.press(button))
        except RunnerStopped:
            press.error = "the bot stopped before the panel could take it"
            return
        self.performed += 1
        if theirs:
            self._say(
                "the technician pressed undo: it dismisses the read the bot did not make; "
                "the bot goes on as it was"
            )
        else:
            press.events = self.bot.interject(press.act)
            self._say(f"the technician pressed {button.value}: {follows(press.events, self.bot)}")
        self._acknowledged(press.act)
        if self.on_act is not None:
            self.on_act(press.act)

    def _take_back_held(self) -> None:
        """Before a press of the technician's: the act the bot chose but the devices have not
        done is taken back on the bot's table (a card, a button); one no device reports (a
        shuffle, a restock, a rebuy) is done now, as a dealer finishes it before the press."""
        act, self._held = self._held, None
        if act is None:
            return
        if table_input(act) is None:
            self.perform(act)
            self.performed += 1
            if self.on_act is not None:
                self.on_act(act)
            return
        self.bot.rewind(act)

    def run(self, hands: int | None = None) -> int:
        """Perform acts until the bot is done, ``hands`` more hands are over, or ``stop``;
        return how many hands were over meanwhile."""
        start = len(self.bot.records)
        for _ in self.acts():
            if hands is not None and len(self.bot.records) - start >= hands:
                break
        return len(self.bot.records) - start

    def wait_for_host(self, devices: tuple[str, ...] | None = None) -> bool:
        """Wait until a host (the controller) has welcomed each of ``devices``, so that it
        sees the first act; False if ``stop`` came first. By default, each protocol device
        the table uses: not the shoe when PN532 readers read the cards (``Simulator.pitched``),
        nor the panel when a keypad takes the presses, which no host welcomes."""
        if devices is None:
            devices = tuple(
                name
                for name in DEVICES
                if not (name == "shoe" and self.sim.pitched is not None)
                and not (name == "panel" and self.sim.presses is not None)
            )
        if not until_welcomed(self.sim, devices, stop=self._stop, say=self._say):
            return False
        witness = self.sim.press_witness
        # A keypad's controller says nothing to it: the bench reads whether it holds it.
        if witness is not None and not until_witnessed(
            witness.ready, stop=self._stop, say=self._say, patience=0.0
        ):
            return False
        self._hosted.update(devices)
        return True

    # --- one act on the devices -----------------------------------------------------------

    def perform(self, act: Act) -> None:
        """Make the devices do ``act``.

        Raises ``RunnerStopped`` if ``stop`` comes while the devices cannot take it (a jam,
        a full store); ``acts`` catches it and holds the act for ``resume``."""
        sim = self.sim
        if isinstance(act, Deal | Discard | Tag):
            self._pitched()  # a card pitched again meanwhile leaves the field first
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
        if isinstance(act, Deal | Discard | Tag):
            self._pitched()

    def _pitched(self) -> None:
        """On PN532 readers (``Simulator.pitched``): wait on the simulator's clock until the
        card has left the reader's field, as a dealer pitches one card at a time; a press made
        sooner could reach the controller before the card's read (simulator/pn532/shoe.py)."""
        if self.sim.pitched is None:
            return
        while (left := self.sim.pitched()) > 0:
            if pause(self.sim.clock, left, self._stop):
                return

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
        return unjammed(self.sim, action, stall=self.pace.stall, wake=self._wake, say=self._say)

    def _acknowledged(self, act: Act) -> None:
        """With ``wait_for_acks``: wait until the host has acknowledged what ``act`` made a
        device report, while a host is welcomed on it (none: nothing to wait for)."""
        if not self.wait_for_acks or table_input(act) is None:
            return
        witness = self.sim.press_witness
        if isinstance(act, Press) and witness is not None:
            # A keypad acknowledges nothing: the next card must not overtake the press.
            table = self.bot.table
            until_witnessed(lambda: witness.taken(table), stop=self._stop, say=self._say)
            return
        device = "panel" if isinstance(act, Press) else "shoe"
        until_acknowledged(self.sim, device, stop=self._stop, say=self._say)

    def _say(self, text: str) -> None:
        if self.on_wait is not None:
            self.on_wait(text)
