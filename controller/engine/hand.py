"""The state of the hand in play and the table's snapshot.

``HandState`` is the engine's working record of one hand, mutated input by
input by ``Table`` and read by the betting rules (``controller.engine.betting``);
``TableState`` is the frozen snapshot a display or a test reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.cards import Card
from controller.engine.events import Alarm, CardExpected, Event
from controller.games.spec import OpenerDuty


class HandState:
    """Everything about the hand in play; the Table mutates it input by input."""

    __slots__ = (
        "acted",
        "actor",
        "all_in",
        "bets",
        "burned_draw",
        "burns",
        "clockwise",
        "committed",
        "community",
        "current_bet",
        "discarded",
        "discards",
        "down",
        "drawer_pos",
        "drawers",
        "duty",
        "duty_rule",
        "folded",
        "forced_pending",
        "holder",
        "mucked",
        "no_raise",
        "order",
        "queue",
        "queue_pos",
        "replacing",
        "reshuffled",
        "reshuffled_for",
        "round_commit",
        "street",
        "to_act",
        "unit",
        "up",
    )

    def __init__(self, order: tuple[int, ...]) -> None:
        self.order = order
        # Seat -> every other seat in clockwise order after it, itself last.
        self.clockwise: dict[int, tuple[int, ...]] = {
            seat: order[i + 1 :] + order[: i + 1] for i, seat in enumerate(order)
        }
        self.folded: set[int] = set()
        self.all_in: set[int] = set()
        self.down: dict[int, list[Card]] = {seat: [] for seat in order}
        self.up: dict[int, list[Card]] = {seat: [] for seat in order}
        self.community: list[Card] = []
        self.burns: list[Card] = []
        # Card index -> the seat holding it (None: burn or board): what this hand has seen.
        self.holder: dict[int, int | None] = {}
        self.mucked: set[int] = set()
        self.committed: dict[int, int] = dict.fromkeys(order, 0)
        self.street = 0
        self.queue: list[CardExpected] = []
        self.queue_pos = 0
        # Betting round
        self.unit = 0
        self.current_bet = 0
        self.bets = 0
        self.round_commit: dict[int, int] = dict.fromkeys(order, 0)
        self.to_act: set[int] = set()
        self.acted: set[int] = set()
        self.no_raise: set[int] = set()
        self.actor: int | None = None
        self.forced_pending = False
        # The opener's duty while it has not acted (None: no duty beyond the options).
        self.duty: OpenerDuty | None = None
        self.duty_rule = ""
        # Draws (14.12A(f),(h),(j))
        self.drawers: list[int] = []
        self.drawer_pos = 0
        self.discards: list[Card] = []
        self.replacing = False
        self.burned_draw = False
        # Card index -> the seat that discarded it; cards reshuffled back into the stub.
        self.discarded: dict[int, int] = {}
        self.reshuffled: set[int] = set()
        # The seat whose short draw brought the last reshuffle: its own discards stay out.
        self.reshuffled_for: int | None = None

    def live(self) -> list[int]:
        return [seat for seat in self.order if seat not in self.folded]

    def able(self) -> list[int]:
        """Seats still in that can still bet (not all-in)."""
        return [s for s in self.order if s not in self.folded and s not in self.all_in]

    def pot(self) -> int:
        return sum(self.committed.values())


@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat in the table's snapshot."""

    seat: int
    stack: int | None
    down: tuple[str, ...]
    up: tuple[str, ...]
    committed: int
    folded: bool
    all_in: bool


@dataclass(frozen=True, slots=True)
class TableState:
    """A snapshot of the table for displays and tests."""

    game: str
    phase: str
    hand: int
    street: str | None
    dealer: int
    pot: int
    community: tuple[str, ...]
    seats: tuple[SeatState, ...]
    pending: Event
    alarm: Alarm | None
