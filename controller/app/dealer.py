"""A random dealer for the simulator: deals what the procedure expects and presses random
legal buttons, one input at a time, waiting for the controller to take each.

It reads the table only through what the controller announces (a listener), and acts
only through the simulated shoe and panel, as a dealer does: the controller cannot
tell it from a person at a real table.
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field

from controller.app.loop import Controller
from controller.cards import Card
from controller.engine.events import (
    ActionRequired,
    Alarm,
    CardExpected,
    DiscardsReshuffled,
    DrawExpected,
    Event,
    NewHandExpected,
)
from controller.inputs import Button
from simulator.table import Simulator

#: The weight of fold against the other options: low, so most hands reach a showdown.
FOLD_WEIGHT = 0.15


@dataclass
class Snapshot:
    """What the dealer saw after the controller's last input."""

    inputs: int
    pending: Event
    hand: int
    seat_cards: dict[int, tuple[str, ...]]


@dataclass
class RandomDealer:
    """Plays ``hands`` hands on ``sim`` for ``controller``; ``run`` on its own thread."""

    sim: Simulator
    seed: int = 0
    hands: int = 10
    #: Seconds between two actions (0: as fast as the controller takes them).
    pace: float = 0.0
    timeout: float = 10.0
    #: Seconds the shuffle takes: longer than the host's RFID repeat window, or the first
    #: cards of the next hand, read moments ago, would be dropped as repeats.
    shuffle_pause: float = 0.6
    rng: random.Random = field(init=False)
    actions: int = field(default=0, init=False)
    _cond: threading.Condition = field(default_factory=threading.Condition, init=False)
    _seen: Snapshot | None = field(default=None, init=False)
    _stop: threading.Event = field(default_factory=threading.Event, init=False)
    #: Discards the engine reshuffled (14.12A(f)) that the dealer must put under the stub.
    _restock: list[Card] = field(default_factory=list, init=False)
    #: The discards still to pass over the reader in the seat's draw (None: not decided yet).
    _discards: list[Card] | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(f"tablectl-dealer-{self.seed}")

    def attach(self, controller: Controller) -> None:
        """Follow ``controller``'s announcements (call before it starts)."""
        controller.listeners.append(self._listen)
        self._listen(controller, [])

    def stop(self) -> None:
        """Stop at the next action."""
        self._stop.set()
        with self._cond:
            self._cond.notify_all()

    def _listen(self, controller: Controller, events: list[Event]) -> None:
        state = controller.core.table.state
        snap = Snapshot(
            controller.inputs,
            controller.core.table.pending,
            state.hand,
            {s.seat: s.down + s.up for s in state.seats},
        )
        reshuffled = [
            Card.parse(code)
            for e in events
            if isinstance(e, DiscardsReshuffled)
            for code in e.cards
        ]
        with self._cond:
            self._restock.extend(reshuffled)
            self._seen = snap
            self._cond.notify_all()

    def _wait(self, after: int) -> Snapshot | None:
        """The first snapshot taken after input number ``after``; None when stopped."""
        with self._cond:
            ok = self._cond.wait_for(
                lambda: (
                    self._stop.is_set() or (self._seen is not None and self._seen.inputs > after)
                ),
                timeout=self.timeout,
            )
            if self._stop.is_set():
                return None
            if not ok:
                raise TimeoutError(
                    f"the controller took no input for {self.timeout} s after input {after}; "
                    f"it waits for: {self._seen.pending if self._seen else None}"
                )
            return self._seen

    def run(self) -> int:
        """Deal until ``hands`` hands are finished; returns the number of actions taken."""
        with self._cond:
            self._cond.wait_for(lambda: self._seen is not None, timeout=self.timeout)
            snap = self._seen
        while snap is not None and not self._stop.is_set():
            pending = snap.pending
            if isinstance(pending, NewHandExpected) and pending.hand > self.hands:
                break
            steps = self._act(snap)
            self.actions += steps
            if self.pace:
                self._stop.wait(self.pace)
            snap = self._wait(snap.inputs + steps - 1)
        return self.actions

    def _act(self, snap: Snapshot) -> int:
        """Do what the table waits for; returns how many inputs it makes."""
        pending = snap.pending
        sim = self.sim
        if isinstance(pending, NewHandExpected):
            # NOTES.md, Shuffle, cut and decks: the deck is shuffled before every hand.
            sim.shuffle(self.rng.randrange(1 << 30))
            self._stop.wait(self.shuffle_pause)
            sim.press(Button.NEW_HAND)
        elif isinstance(pending, CardExpected):
            with self._cond:
                restock, self._restock = self._restock, []
            if restock:
                # 14.12A(f): the short stub's reshuffled discards go under what is left.
                with sim.locked():
                    sim.shoe.load([*sim.shoe.stub, *restock])
            sim.deal()
        elif isinstance(pending, ActionRequired):
            weights = [
                FOLD_WEIGHT if o.button == Button.FOLD.value else 1.0 for o in pending.options
            ]
            option = self.rng.choices(pending.options, weights)[0]
            sim.press(Button(option.button))
        elif isinstance(pending, DrawExpected):
            # One input at a time: a discard (shoe) and draw done (panel) on two devices could
            # otherwise arrive in either order.
            if self._discards is None:
                cards = list(snap.seat_cards.get(pending.seat, ()))
                count = self.rng.randint(0, min(3, len(cards)))
                self._discards = [Card.parse(c) for c in self.rng.sample(cards, count)]
            if self._discards:
                sim.discard(self._discards.pop(0))
            else:
                self._discards = None
                sim.press(Button.DRAW_DONE)
        elif isinstance(pending, Alarm):
            sim.press(Button.UNDO)
        return 1
