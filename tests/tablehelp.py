"""Helpers the engine tests share: a table at the test stakes and a way to play a line of inputs."""

from __future__ import annotations

from typing import TypeVar

from controller.history.script import parse_inputs
from controller.poker.engine import Stakes, Table, TableSetup
from controller.poker.engine.events import Alarm, Event, HandSettled, Refused
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec

#: The brief's test stakes: ante 1, bring-in 2, small bet 5, big bet 10, cap 4, chip 1, no rake.
E = TypeVar("E", bound=Event)

STAKES = Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10, cap=4, chip=1)


def table(
    game: str | GameSpec,
    seats: tuple[int, ...] = (1, 2, 3),
    dealer: int = 0,
    stacks: dict[int, int] | None = None,
    stakes: Stakes = STAKES,
) -> Table:
    """A table of ``game`` at the test stakes."""
    spec = GAMES[game] if isinstance(game, str) else game
    return Table(spec, TableSetup(seats=seats, stakes=stakes, dealer=dealer, stacks=stacks or {}))


def play(t: Table, text: str, strict: bool = True) -> list[Event]:
    """Apply the inputs written in ``text`` (``parse_inputs`` form); with ``strict``, fail on
    the first refusal or alarm.
    """
    events: list[Event] = []
    for inp in parse_inputs(text):
        produced = t.apply(inp)
        if strict:
            bad = [e for e in produced if isinstance(e, Refused | Alarm)]
            assert not bad, f"{inp} gave {bad}"
        events.extend(produced)
    return events


def of_kind(events: list[Event], kind: type[E]) -> list[E]:
    """The events of one class, in order."""
    return [e for e in events if isinstance(e, kind)]


def settlement(events: list[Event]) -> HandSettled:
    """The hand's settlement event (exactly one)."""
    settled = of_kind(events, HandSettled)
    assert len(settled) == 1, settled
    return settled[0]


def net(events: list[Event]) -> dict[int, int]:
    """Each seat's net result of the settled hand."""
    return {entry.seat: entry.amount for entry in settlement(events).net}
