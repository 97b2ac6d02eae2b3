"""Dealer training in ``tablectl demo``: keys that make the simulated table go wrong, so a
dealer practises each irregularity on the display the real table shows (docs/display.md,
Dealer training).

``Trainer`` does to the simulator what goes wrong at a real table, between two acts of the
demo's dealer (``BotRunner.between_acts``), and presses the dealer's undo and misdeal for
the trainee. The controller reacts as it does at a table: an integrity alarm holds the hand
(rules-interpretation.md, Integrity), a lost shoe or a jam pauses the table (docs/app.md, Devices
lost and found; The shoe's state); the dealer bot follows it (``simulator.follow``): it waits while
the table holds, and after an undo or a misdeal deals on from what the controller waits for.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from controller.poker.inputs import Button
from simulator.lockstep import LockstepDealer
from simulator.table import Simulator


@dataclass
class Trainer:
    """The training keys' actions on the demo's simulated table and its dealer."""

    sim: Simulator
    dealer: LockstepDealer
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    #: Whether the shoe's cable is out, and a card stuck, by the trainee's keys.
    unplugged: bool = field(default=False, init=False)
    jammed: bool = field(default=False, init=False)

    def alarm(self) -> str:
        """A card of the other deck passes the dealing slot (rules-interpretation.md, Integrity: a
        card not in the active deck is an alarm that holds the hand until the dealer resolves
        it)."""

        def stray_card() -> None:
            self.dealer.expect_input()  # the controller takes the read: the bot waits for it
            self.sim.other_deck()

        self._between_acts(stray_card)
        return (
            "A card of the other deck passed the slot: put it aside, then UNDO (u) or MISDEAL (m)"
        )

    def undo(self) -> str:
        """The dealer presses undo."""
        self.dealer.interject(Button.UNDO)
        return "UNDO pressed"

    def misdeal(self) -> str:
        """The dealer presses misdeal (rules-interpretation.md, Integrity: the hand is void)."""
        self.dealer.interject(Button.MISDEAL)
        return "MISDEAL pressed"

    def shoe(self) -> str:
        """Pull the shoe's cable, or plug it back in (docs/app.md, Devices lost and found)."""
        with self._lock:
            self.unplugged = not self.unplugged
            out = self.unplugged
        self._between_acts(lambda: (self.sim.unplug if out else self.sim.replug)("shoe"))
        return "Shoe unplugged: plug it back in (s)" if out else "Shoe plugged back in"

    def jam(self) -> str:
        """A card sticks in the shoe's slot, or is freed (docs/app.md, The shoe's state)."""
        with self._lock:
            self.jammed = not self.jammed
            stuck = self.jammed
        self._between_acts(lambda: self.sim.set_jam(stuck))
        return "A card is stuck in the shoe's slot: free it (j)" if stuck else "Shoe slot freed"

    def actions(self) -> dict[str, Callable[[], str]]:
        """Each training key's name and what it does."""
        return {
            "alarm": self.alarm,
            "undo": self.undo,
            "misdeal": self.misdeal,
            "shoe": self.shoe,
            "jam": self.jam,
        }

    def _between_acts(self, action: Callable[[], object]) -> None:
        if not self.dealer.runner.between_acts(action):
            action()  # no dealing under way: nothing to land between
