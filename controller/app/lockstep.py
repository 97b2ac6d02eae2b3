"""The simulator's random bot dealing to a controller, one input at a time.

``LockstepDealer`` runs ``simulator.bots.RandomBot`` (the dealer bot: it keeps
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
from collections.abc import Iterator

from controller.app.loop import Controller
from controller.engine import TableConfig
from controller.engine.events import Event
from controller.games.spec import GameSpec
from simulator.bots import Act, RandomBot, Rebuy, table_input
from simulator.runner import BotRunner, Pace, RunnerError
from simulator.table import Simulator


class LockstepDealer:
    """Performs ``bot``'s acts on ``sim`` and waits, after each, for ``controller`` to take it.

    ``timeout`` is how long the controller may take an input before ``TimeoutError``.
    """

    def __init__(
        self,
        bot: RandomBot,
        sim: Simulator,
        controller: Controller,
        pace: Pace | None = None,
        *,
        timeout: float = 10.0,
    ) -> None:
        self.bot = bot
        self.timeout = timeout
        self.runner = BotRunner(bot, sim, pace, on_act=self._wait_taken, on_rebuy=self._rebuy)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self.follow(controller)

    @classmethod
    def for_table(
        cls,
        sim: Simulator,
        controller: Controller,
        spec: GameSpec,
        config: TableConfig,
        *,
        seed: int = 0,
        hands: int | None = None,
        pace: Pace | None = None,
        timeout: float = 10.0,
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
        return cls(bot, sim, controller, pace, timeout=timeout)

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

    def _listen(self, controller: Controller, _events: list[Event]) -> None:
        with self._cond:
            if controller is self.controller:
                self._taken = controller.inputs
                self._cond.notify_all()

    def _wait_taken(self, act: Act) -> None:
        if table_input(act) is None:
            return
        with self._cond:
            self.expected += 1
            taken = self._cond.wait_for(
                lambda: self._stop.is_set() or self._taken >= self.expected, self.timeout
            )
            if not taken:
                raise TimeoutError(
                    f"the controller took no input for {self.timeout} s after input "
                    f"{self._taken} (it waits for input {self.expected}); "
                    f"the table waits for: {self.controller.core.table.pending}"
                )

    def _rebuy(self, act: Rebuy) -> None:
        raise RunnerError(
            f"rebuy of {act.chips} chips for seat {act.seat}: the controller takes chips only "
            "from its configuration; expected a bot with no rebuy rule"
        )
