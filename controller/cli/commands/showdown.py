"""``tablectl showdown``: deal a random showdown and call every hand as the dealer would.

A demonstration of the hand evaluators until the table controller exists: it
deals each seat its final cards from one shuffled deck (seeded, so a run is
reproducible), calls each hand and names the winners. No betting, draws or
folds are played: every seat reaches the showdown.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from controller.cli.registry import help_line
from controller.poker.cards import DECK, Card, format_cards
from controller.poker.games.five_card_stud import FIVE_CARD_STUD
from controller.poker.games.mambo import MAMBO
from controller.poker.games.spec import GameSpec
from controller.poker.games.triple_draw import TRIPLE_DRAW
from controller.poker.hands import (
    NO_QUALIFYING_LOW,
    HandValue,
    deuce_to_seven_low,
    five_card_high,
    mambo_high,
    mambo_low,
)

#: The seed of ``tablectl showdown`` without ``--seed``, so the README's demo
#: shows the same hands every time.
DEFAULT_SEED: Final = 2026
DEFAULT_SEATS: Final = 5


@dataclass(frozen=True)
class Game:
    """A game as the showdown deals it: its spec (the display name, the procedure, the seat
    limit of the procedure's (b): 14.13(b), 14.13A(b), 14.12A(b)) and how it is dealt."""

    spec: GameSpec
    show: Callable[[list[Card], int], list[str]]

    @property
    def name(self) -> str:
        """The game's display name (docs/display.md, The table's words)."""
        return self.spec.name

    @property
    def rule(self) -> str:
        """The procedure's section: ``14.13A``."""
        return self.spec.rule.rpartition("-")[2]

    @property
    def title(self) -> str:
        """``Mambo Stud (14.13A)``."""
        return f"{self.name} ({self.rule})"

    @property
    def max_seats(self) -> int:
        """The most seats the procedure allows."""
        return self.spec.max_seats


def _winners(values: Sequence[HandValue | None]) -> list[int]:
    """Seat numbers (from 1) holding the greatest strength; equal strengths split."""
    strengths = [value.strength for value in values if value is not None]
    if not strengths:
        return []
    best = max(strengths)
    return [seat for seat, value in enumerate(values, 1) if value and value.strength == best]


def _seats_text(seats: Sequence[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "split: seats " + ", ".join(map(str, seats[:-1])) + f" and {seats[-1]}"


def _award(label: str, values: Sequence[HandValue | None]) -> str:
    """The line naming the winners of one pot (or half), with their hand and cards."""
    seats = _winners(values)
    best = values[seats[0] - 1]
    assert best is not None  # _winners names only seats with a hand
    return f"  {label}: {_seats_text(seats)} with {best.description} ({format_cards(best.cards)})"


def _show_five_card_stud(deck: list[Card], seats: int) -> list[str]:
    """14.13: five cards each; the best five-card high hand wins (14.13(h))."""
    hands = [deck[seat * 5 : seat * 5 + 5] for seat in range(seats)]
    values = [five_card_high(hand) for hand in hands]
    lines = [
        f"  seat {seat:>2}  {format_cards(value.cards)}  {value.description}"
        for seat, value in enumerate(values, 1)
    ]
    return [*lines, _award("Winner", values)]


def _show_triple_draw(deck: list[Card], seats: int) -> list[str]:
    """14.12A: five cards each after the draws; the lowest deuce-to-seven hand wins (14.12A(l))."""
    hands = [deck[seat * 5 : seat * 5 + 5] for seat in range(seats)]
    values = [deuce_to_seven_low(hand) for hand in hands]
    lines = [
        f"  seat {seat:>2}  {format_cards(value.cards)}  {value.description}"
        for seat, value in enumerate(values, 1)
    ]
    return [*lines, _award("Winner", values)]


def _show_mambo(deck: list[Card], seats: int) -> list[str]:
    """14.13A: three cards each and one community card; best three of four split high and
    six-or-better low (14.13A(j)-(l)); with no qualifying low the high takes all (14.13A(k))."""
    community = deck[seats * 3]
    fours = [[*deck[seat * 3 : seat * 3 + 3], community] for seat in range(seats)]
    highs = [mambo_high(four) for four in fours]
    lows = [mambo_low(four) for four in fours]
    lines = [f"  community card {community.code}"]
    for seat, (four, high, low) in enumerate(zip(fours, highs, lows, strict=True), 1):
        low_call = low.description if low else NO_QUALIFYING_LOW
        lines.append(
            f"  seat {seat:>2}  {format_cards(four[:3])}  high: {high.description}; low: {low_call}"
        )
    lines.append(_award("High", highs))
    if any(lows):
        lines.append(_award("Low", lows))
    else:
        lines.append(f"  Low: {NO_QUALIFYING_LOW}; the high hand takes the whole pot")
    return lines


GAMES: Final = {
    game.spec.key: game
    for game in (
        Game(FIVE_CARD_STUD, _show_five_card_stud),
        Game(MAMBO, _show_mambo),
        Game(TRIPLE_DRAW, _show_triple_draw),
    )
}


def showdown(game: Game, seed: int, seats: int) -> list[str]:
    """The lines of one seeded showdown of ``game`` at ``seats`` seats."""
    deck = list(DECK)
    random.Random(f"{game.spec.key}/{seed}").shuffle(deck)  # a seed deals as it always did
    return [f"{game.title}: {seats} seats, seed {seed}", *game.show(deck, seats)]


def _seat_count(text: str) -> int:
    try:
        seats = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seats {text!r} is not a whole number") from None
    if seats < 2:
        raise argparse.ArgumentTypeError(f"--seats {seats}: a showdown needs at least 2 seats")
    return seats


def run(args: argparse.Namespace) -> int:
    """Print one showdown per chosen game; exit 2 if a game cannot seat that many."""
    games = [GAMES[args.game]] if args.game else list(GAMES.values())
    for game in games:
        if args.seats > game.max_seats:
            print(
                f"tablectl showdown: --seats {args.seats}: {game.name} seats at most "
                f"{game.max_seats} ({game.rule}(b))",
                file=sys.stderr,
            )
            return 2
    for number, game in enumerate(games):
        if number:
            print()
        print("\n".join(showdown(game, args.seed, args.seats)))
    return 0


def register(subparsers: Any) -> None:  # argparse's _SubParsersAction is private
    """Add ``showdown`` to the ``tablectl`` command line."""
    parser = subparsers.add_parser(
        "showdown",
        help=help_line("showdown"),
        description="Deal a random showdown and call every hand as the dealer would: each "
        "seat's final cards from one seeded shuffle, each hand called, the winners named. No "
        "betting, draws or folds are played. Exit status: 0 shown, 2 usage error (a bad "
        "option, or more seats than a game seats).",
    )
    parser.add_argument(
        "--game", choices=sorted(GAMES), help="one game (default: all three in turn)"
    )
    parser.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help=f"shuffle seed (default {DEFAULT_SEED})"
    )
    parser.add_argument(
        "--seats",
        type=_seat_count,
        default=DEFAULT_SEATS,
        help=f"seats at the showdown, 2 to the game's maximum (default {DEFAULT_SEATS})",
    )
    parser.set_defaults(run=run)
