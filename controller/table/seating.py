"""Seat changes between hands: a player sits down, leaves, or rebuys. Pure.

The floor asks through the running controller's control socket (``tablectl
seat``, docs/app.md); the loop journals the request as a ``seating`` record and
the core applies it here, so a replay applies the same record the same way
(docs/journal.md, Seat changes). Table stakes: never while a hand is in play.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.journal import JsonObject
from controller.poker.engine import ConfigError, Table
from controller.poker.engine.events import Event, Refused, SeatAmount, SeatsChanged
from controller.poker.engine.machine import IN_HAND

SIT: Final = "sit"
LEAVE: Final = "leave"
REBUY: Final = "rebuy"
CHANGES: Final = (SIT, LEAVE, REBUY)


class SeatingError(ValueError):
    """A seat change request that is not well formed; the message says what was expected."""


@dataclass(frozen=True, slots=True)
class SeatChange:
    """Sit down at ``seat`` with ``chips``, leave ``seat``, or rebuy ``chips`` at ``seat``."""

    change: str
    seat: int
    chips: int = 0

    def describe(self) -> str:
        """The change as the floor types it: ``sit 3 --chips 500``."""
        chips = f" --chips {self.chips}" if self.change != LEAVE else ""
        return f"{self.change} {self.seat}{chips}"

    def fields(self) -> JsonObject:
        """The ``seating`` record's data."""
        data: JsonObject = {"change": self.change, "seat": self.seat}
        if self.change != LEAVE:
            data["chips"] = self.chips
        return data


def seat_change_of(data: object) -> SeatChange:
    """The change a request or a ``seating`` record holds; SeatingError naming what is wrong."""
    if not isinstance(data, dict):
        raise SeatingError(f"seat change {data!r}: expected an object with change and seat")
    change, seat, chips = data.get("change"), data.get("seat"), data.get("chips")
    if change not in CHANGES:
        raise SeatingError(f"change {change!r}: expected one of {', '.join(CHANGES)}")
    if not isinstance(seat, int) or isinstance(seat, bool) or seat < 1:
        raise SeatingError(f"seat {seat!r}: expected a seat number from 1")
    if change == LEAVE:
        if chips is not None:
            raise SeatingError(f"chips {chips!r}: a player leaving takes no chips; expected none")
        return SeatChange(LEAVE, seat)
    if not isinstance(chips, int) or isinstance(chips, bool) or chips <= 0:
        raise SeatingError(f"chips {chips!r}: {change} expects a positive number of chips")
    return SeatChange(str(change), seat, chips)


def apply_change(table: Table, change: SeatChange) -> list[Event]:
    """Apply ``change`` to ``table``: ``SeatsChanged``, or ``Refused`` with the engine's reason.

    Sitting down or leaving reseats the table; the button moves among the seats occupied
    at the next hand, so it passes an empty seat (14.10(c), 14.12A(c)).
    """
    seats = table.state.seats
    occupied = tuple(s.seat for s in seats)
    try:
        if table.phase in IN_HAND:
            raise ValueError(
                f"hand {table.hand_number} is in play; expected a change between hands"
            )
        if change.change == SIT:
            if change.seat in occupied:
                raise ValueError(f"seat {change.seat} is taken; expected an empty seat")
            table.reseat((*occupied, change.seat), {change.seat: change.chips})
        elif change.change == LEAVE:
            if change.seat not in occupied:
                raise ValueError(f"seat {change.seat} is empty; expected one of {occupied}")
            table.reseat(tuple(s for s in occupied if s != change.seat))
        else:
            table.rebuy(change.seat, change.chips)
    except (ConfigError, ValueError) as exc:
        return [Refused(change.describe(), str(exc))]
    stacks = table.stacks
    return [
        SeatsChanged(
            change.change,
            change.seat,
            change.chips,
            tuple(sorted(stacks)),
            tuple(SeatAmount(s, st) for s, st in sorted(stacks.items()) if st is not None),
        )
    ]


def seats_fields(table: Table) -> JsonObject:
    """The seats and stacks ``seats_text`` tells, as data (``tablectl seat show --json``): the
    hand (None before the first), whether it is in play, each seat's chips (None: unknown)."""
    return {
        "hand": table.hand_number or None,
        "in_hand": table.phase in IN_HAND,
        "seats": [{"seat": seat, "chips": chips} for seat, chips in table.stacks.items()],
    }


def seats_text(table: Table) -> str:
    """The occupied seats and their stacks, for ``tablectl seat show``."""
    stacks = table.stacks
    seats = ", ".join(
        f"seat {seat} {'unknown' if stack is None else stack}" for seat, stack in stacks.items()
    )
    where = "a hand is in play" if table.phase in IN_HAND else "between hands"
    return f"hand {table.hand_number} ({where}): {seats}"
