"""The simulator's random bot dealing to a controller, one input at a time.

``LockstepDealer`` runs ``simulator.random_bot.RandomBot`` (the dealer bot: it keeps
its own engine table and a record of every hand's expected settlement) through
``simulator.runner.BotRunner`` on the simulator's shoe and panel, and after each
act that a device reports it waits until the controller has taken that input.
The bot never runs ahead of the controller: a card (shoe) and a button (panel)
travel on two links and could otherwise arrive in either order.

    with SimTable("mambo", options) as table:
        dealer = LockstepDealer.for_table(table.sim, table.controller, table.config, hands=5)
        dealer.run()
        dealer.bot.records  # what the controller should have settled, hand by hand
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Final

from controller.poker.engine import TableSetup
from controller.poker.engine.events import Event, Refused
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button
from controller.table.core import Cause
from controller.table.loop import Controller
from simulator.acts import Act, Press, Rebuy, table_input
from simulator.clock import ManualClock
from simulator.pace import Pace
from simulator.pn532.shoe import UNSHOWN_AFTER
from simulator.presses import PAUSED_REASON
from simulator.random_bot import RandomBot
from simulator.runner import BotRunner
from simulator.table import Simulator
from simulator.waits import RunnerError

#: How long (wall clock) the dealer waits for the controller before a ``tick`` passes.
TICK_AFTER: Final = 0.01


class LockstepDealer:
    """Performs ``bot``'s acts on ``sim`` and waits, after each, for ``controller`` to take it.

    ``timeout`` is how long the controller may take an input before ``TimeoutError``.

    ``tick``: on a simulator whose clock is a ``ManualClock`` (a test's), the devices' time
    stands still while the dealer waits, unless ``tick`` seconds of it pass each time the
    controller has not taken the input within ``TICK_AFTER``. A sentence a line fault lost
    comes again only once the device's resend timer has run (docs/protocol.md 5): a test that
    drops or garbles sentences while the bot deals lets the time pass so. How many ticks pass
    follows the machine's speed; what the controller takes cannot: the devices only do with
    the time what they do while a real dealer waits (heartbeats; resends of what is not yet
    acknowledged, which the host takes once by seq), and a tick no longer than a heartbeat
    period never lets the host find the line silent, as every heartbeat due by the new time
    is written before the time can be read (simulator.clock).
    """

    def __init__(
        self,
        bot: RandomBot,
        sim: Simulator,
        controller: Controller,
        pace: Pace | None = None,
        *,
        timeout: float = 10.0,
        tick: float = 0.0,
        follow_table: bool = False,
    ) -> None:
        if tick < 0:
            raise ValueError(f"tick {tick} s: expected 0 or more seconds")
        if tick and not isinstance(sim.clock, ManualClock):
            raise ValueError(f"tick {tick} s: expected a simulator on a ManualClock (a test's)")
        self.bot = bot
        self.timeout = timeout
        self._clock = sim.clock if isinstance(sim.clock, ManualClock) and tick else None
        self._tick = tick
        self.runner = BotRunner(
            bot,
            sim,
            pace,
            on_act=self._wait_taken,
            before_act=self._ready_for,
            on_rebuy=self._rebuy,
            follow_table=follow_table,
        )
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self.follow(controller)

    @classmethod
    def for_table(
        cls,
        sim: Simulator,
        controller: Controller,
        spec: GameSpec,
        config: TableSetup,
        *,
        seed: int = 0,
        hands: int | None = None,
        pace: Pace | None = None,
        timeout: float = 10.0,
        tick: float = 0.0,
        follow_table: bool = False,
    ) -> LockstepDealer:
        """A random bot playing ``hands`` hands (None: until stopped) at the controller's
        table: its seats, stakes, dealer and stacks, and its decks, alternating or not as
        the controller's. No rebuys: the controller learns of chips only from its
        configuration."""
        bot = RandomBot(
            spec,
            seed=seed,
            hands=hands,
            rebuy=None,
            config=config,
            alternate_decks=controller.alternate_decks,
            first_deck=controller.next_hand_deck,
        )
        return cls(
            bot, sim, controller, pace, timeout=timeout, tick=tick, follow_table=follow_table
        )

    def follow(self, controller: Controller) -> None:
        """Deal to ``controller`` from now on (a restarted one, rebuilt from the journal):
        every input the bot made so far must already be in its journal."""
        with self._cond:
            self.controller = controller
            self.expected = controller.inputs
            self._taken = controller.inputs
        controller.listeners.append(self._listen)

    def stop(self) -> None:
        """Stop after the act in progress, or during a wait for the controller (any thread)."""
        self._stop.set()
        self.runner.stop()
        with self._cond:
            self._cond.notify_all()

    def resume(self) -> None:
        """Let a stopped dealer deal on (``run`` again), from the act it held."""
        self._stop.clear()
        self.runner.resume()

    def run(self, hands: int | None = None) -> int:
        """Deal until the bot is done, ``hands`` more hands are over, or ``stop``; return how
        many hands were over meanwhile."""
        return self.runner.run(hands)

    def acts(self) -> Iterator[Act]:
        """Deal act by act, each yielded once the controller took what it made."""
        return self.runner.acts()

    def perform_now(self, act: Act) -> None:
        """Perform ``act`` without waiting for the controller to take it (a device unplugged
        keeps what it reads until it is plugged back)."""
        self.runner.perform(act)
        if table_input(act) is not None:
            with self._cond:
                self.expected += 1

    def interject(self, button: Button) -> None:
        """Press ``button`` for the dealer in training (undo, misdeal): the bot's runner makes
        the press between two of its acts and follows it (``BotRunner.interject``), and the
        press is waited for as the bot's own; with no dealing under way, pressed at once."""
        if self.runner.interject(button) is None:
            self.runner.sim.press(button)
            self.expect_input()

    def expect_input(self) -> None:
        """An input the devices report that the bot did not make (a fault injected for
        training: a card of the other deck): the controller takes it too, so the bot's next act
        waits until it has, and a press never overtakes a card."""
        with self._cond:
            self.expected += 1

    def _listen(self, controller: Controller, _events: list[Event]) -> None:
        with self._cond:
            if controller is self.controller:
                self._taken = controller.inputs
                self._cond.notify_all()

    def _wait_taken(self, act: Act) -> None:
        if table_input(act) is None:
            return
        self._wait_input()
        while isinstance(act, Press) and self._refused_as_paused():
            # Refused as the table was paused (docs/app.md, Devices lost and found): as a
            # dealer does, the bot presses again once the pause has ended.
            self._wait_unpaused()
            self.runner.sim.press(act.button)
            self._wait_input()

    def _refused_as_paused(self) -> bool:
        """Whether the controller refused the input it took last because a device paused the
        table (controller/table/core.py, ``TableCore._paused_refusal``)."""
        events = self.controller.core.last_events
        return any(isinstance(e, Refused) and e.reason.startswith(PAUSED_REASON) for e in events)

    def _wait_unpaused(self) -> None:
        """Until no device pauses the table, told by the controller's announcements; a device
        out on purpose (training) is waited for however long it is out."""
        deadline = time.monotonic() + self.timeout
        while True:
            with self._cond:
                if self._cond.wait_for(
                    lambda: self._stop.is_set() or not self.controller.core.pauses, TICK_AFTER
                ):
                    return
            if self.runner.holding() is not None:
                deadline = time.monotonic() + self.timeout
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"the table stayed paused ({self.controller.core.paused_by}) for "
                    f"{self.timeout} s after refusing the bot's press"
                )
            if self._clock is not None:  # the devices' time passes as while a dealer waits
                self._clock.advance(self._tick)

    def _wait_input(self) -> None:
        """Until the controller has taken one more input (the bot's last)."""
        deadline = time.monotonic() + self.timeout
        with self._cond:
            self.expected += 1
        again = time.monotonic() + UNSHOWN_AFTER
        while True:
            with self._cond:
                left = deadline - time.monotonic()
                wait = left if self._clock is None else min(left, TICK_AFTER)
                if self._cond.wait_for(self._done, max(wait, 0.0)):
                    return
            if self.runner.holding() is not None:
                # The table holds (a shoe unplugged in training): the controller takes the
                # input once it is back, however long that is; the patience starts again then.
                deadline = time.monotonic() + self.timeout
            with self._cond:
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"the controller took no input for {self.timeout} s after input "
                        f"{self._taken} (it waits for input {self.expected}); "
                        f"the table waits for: {self.controller.core.table.pending}"
                    )
            if self._clock is not None:  # not under the lock: the drivers' threads report
                self._clock.advance(self._tick)
            sim = self.runner.sim
            if sim.pitch_again is not None and time.monotonic() >= again:
                # A PN532 read the host never took is gone: the dealer passes the card the
                # screen does not show over the reader again (simulator/pn532/shoe.py).
                sim.pitch_again()
                again = time.monotonic() + UNSHOWN_AFTER

    def _ready_for(self, act: Act) -> None:
        """Before a press: wait until the controller has welcomed every device that is plugged
        in. A controller just started (or restarted) is paused until it has heard each device,
        and refuses every press meanwhile (docs/app.md, Devices lost and found); the bot would
        have made a press the table never took. A device unplugged on purpose is not waited
        for: the press goes, as a dealer's would, and once it is refused the bot presses again
        when the pause has ended (``_wait_taken``)."""
        if not isinstance(act, Press):
            return
        deadline = time.monotonic() + self.timeout
        while not self._stop.is_set() and (waiting := self._unwelcomed()):
            if time.monotonic() >= deadline:
                raise TimeoutError(
                    f"the controller has not welcomed the {' and the '.join(waiting)} for "
                    f"{self.timeout} s, though plugged in; the table waits for: "
                    f"{self.controller.core.table.pending}"
                )
            self._stop.wait(TICK_AFTER)
            if self._clock is not None:  # the devices' time passes as while a dealer waits
                self._clock.advance(self._tick)

    def _unwelcomed(self) -> list[str]:
        """The devices plugged in on the simulator that the controller holds for lost."""
        sim = self.runner.sim
        with sim.locked():
            plugged = {name for name, device in sim.devices.items() if device.endpoint.plugged}
        return [
            pause.device
            for pause in self.controller.core.pauses
            if pause.cause is Cause.LOST and pause.device in plugged
        ]

    def _done(self) -> bool:
        """The controller took what the bot made, or a stop came (under ``_cond``)."""
        return self._stop.is_set() or self._taken >= self.expected

    def _rebuy(self, act: Rebuy) -> None:
        raise RunnerError(
            f"rebuy of {act.chips} chips for seat {act.seat}: the controller takes chips only "
            "from its configuration; expected a bot with no rebuy rule"
        )
