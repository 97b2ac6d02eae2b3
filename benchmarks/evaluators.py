"""Evaluations per second: tablectl's hand evaluators beside treys and PokerKit.

Run from the repository root::

    python benchmarks/evaluators.py [--hands 50000] [--repeat 3] [--seed 2026]

Every side evaluates the same seeded random hands in the same run, each given
its own library's pre-parsed card objects, so parsing is never timed:

- five-card high: ``controller.hands.five_card_high_strength`` (tuple of
  ``Card``), treys ``Evaluator().evaluate(cards, [])`` (list of treys ints),
  PokerKit ``StandardHighHand(cards)`` (tuple of ``pokerkit.Card``).
- deuce-to-seven: ``deuce_to_seven_strength`` against PokerKit 0.7.7's
  deuce-to-seven hand, ``StandardLowHand`` (treys has none).
- Mambo best three of four, high: ``mambo_high_strength`` (four cards)
  against PokerKit ``RhodeIslandHoldemHand.from_game(three own, community)``.
  PokerKit has no Mambo game; RhodeIslandHoldemHand is its three-card hand,
  ranked in the NJ three-card order (straight flush > trips > straight > flush
  > pair > high card, NOTES.md, Three-card high), and ``from_game`` takes the
  best three-card combination of the four cards, as 14.13A(j) does. PokerKit
  has no three-card six-or-better low, so ``mambo_low_strength`` is timed alone.

A PokerKit hand is timed up to its construction, which already looks the hand
up in PokerKit's table; comparing two hands looks it up again, so PokerKit's
real cost per showdown is higher than shown. tablectl's and treys' figures are
integers ready to compare. The HandValue paths (with the dealer's call) are
timed too, for the engine's per-showdown cost.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

import pokerkit
import treys

from controller import hands
from controller.cards import DECK, Card


@dataclass(frozen=True)
class Entrant:
    """One evaluator in a race: what it is, what it is given, and its inputs."""

    label: str
    given: str
    evaluate: Callable[[Any], object]
    inputs: Sequence[Any]


def _race(entrants: Sequence[Entrant], repeat: int) -> list[float]:
    """Best evaluations per second of each entrant over ``repeat`` rounds.

    Each round times one pass of every entrant in turn, so a burst of load on
    the machine slows both sides of a ratio rather than one.
    """
    best = [float("inf")] * len(entrants)
    for _ in range(repeat):
        for i, entrant in enumerate(entrants):
            evaluate = entrant.evaluate
            start = time.perf_counter()
            for cards in entrant.inputs:
                evaluate(cards)
            best[i] = min(best[i], time.perf_counter() - start)
    return [len(entrant.inputs) / seconds for entrant, seconds in zip(entrants, best, strict=True)]


def _print_race(title: str, entrants: Sequence[Entrant], peers: int, repeat: int) -> list[float]:
    """Race the entrants; the first is tablectl's, the last ``peers`` are other libraries'.

    Prints one row each, and for the peers tablectl's rate divided by theirs.
    """
    print(title)
    rates = _race(entrants, repeat)
    ours = rates[0]
    for i, (entrant, rate) in enumerate(zip(entrants, rates, strict=True)):
        ratio = f"{ours / rate:7.1f}x" if i >= len(entrants) - peers else " " * 8
        print(f"  {entrant.label:<40} {rate:>11,.0f}/s {ratio}  given {entrant.given}")
    print()
    return rates


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000, help="random hands per game")
    parser.add_argument("--repeat", type=int, default=7, help="rounds; each one's best counts")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)

    rng = random.Random(args.seed)
    fives: list[tuple[Card, ...]] = [tuple(rng.sample(DECK, 5)) for _ in range(args.hands)]
    fours: list[tuple[Card, ...]] = [tuple(rng.sample(DECK, 4)) for _ in range(args.hands)]
    treys_card = {card: treys.Card.new(card.code) for card in DECK}
    pk_card = {card: next(pokerkit.Card.parse(card.code)) for card in DECK}
    treys_fives = [[treys_card[c] for c in hand] for hand in fives]
    pk_fives = [tuple(pk_card[c] for c in hand) for hand in fives]
    pk_fours = [(tuple(pk_card[c] for c in hand[:3]), (pk_card[hand[3]],)) for hand in fours]
    evaluator = treys.Evaluator()
    five, four = "tuple of 5 Card", "tuple of 4 Card"
    pk_five = "tuple of 5 pokerkit.Card"

    print(
        f"Hand evaluators: the same {args.hands:,} seeded random hands per game for every "
        f"entrant (seed {args.seed}), best of {args.repeat} interleaved rounds; "
        f"Python {platform.python_version()}, PokerKit {metadata.version('pokerkit')}, "
        f"treys {metadata.version('treys')}.\n"
        "ratio = tablectl's fast path's rate / that peer's rate (above 1: tablectl is faster)\n"
    )
    high = _print_race(
        "Five-card high (14.13(h))",
        [
            Entrant("tablectl five_card_high_strength", five, hands.five_card_high_strength, fives),
            Entrant("tablectl five_card_high (HandValue)", five, hands.five_card_high, fives),
            Entrant(
                "treys Evaluator.evaluate(cards, [])",
                "list of 5 treys ints",
                lambda cards: evaluator.evaluate(cards, []),
                treys_fives,
            ),
            Entrant(
                "PokerKit StandardHighHand(cards)", pk_five, pokerkit.StandardHighHand, pk_fives
            ),
        ],
        peers=2,
        repeat=args.repeat,
    )
    low = _print_race(
        "Deuce-to-seven low (14.12A(l))",
        [
            Entrant("tablectl deuce_to_seven_strength", five, hands.deuce_to_seven_strength, fives),
            Entrant(
                "tablectl deuce_to_seven_low (HandValue)", five, hands.deuce_to_seven_low, fives
            ),
            Entrant("PokerKit StandardLowHand(cards)", pk_five, pokerkit.StandardLowHand, pk_fives),
        ],
        peers=1,
        repeat=args.repeat,
    )
    mambo = _print_race(
        "Mambo best three of four (14.13A(j),(l))",
        [
            Entrant("tablectl mambo_high_strength", four, hands.mambo_high_strength, fours),
            Entrant("tablectl mambo_high (HandValue)", four, hands.mambo_high, fours),
            Entrant("tablectl mambo_low_strength (no peer)", four, hands.mambo_low_strength, fours),
            Entrant("tablectl mambo_low (HandValue, no peer)", four, hands.mambo_low, fours),
            Entrant(
                "PokerKit RhodeIslandHoldemHand.from_game",
                "3 own + 1 community pokerkit.Card",
                lambda split: pokerkit.RhodeIslandHoldemHand.from_game(*split),
                pk_fours,
            ),
        ],
        peers=1,
        repeat=args.repeat,
    )
    targets = [
        ("five-card high vs treys", high[0] / high[2], 1.0),
        ("deuce-to-seven vs PokerKit", low[0] / low[2], 10.0),
        ("Mambo best of four vs PokerKit", mambo[0] / mambo[4], 10.0),
    ]
    print("Targets")
    for name, ratio, target in targets:
        verdict = "met" if ratio >= target else "NOT MET"
        print(f"  {name:<32} {ratio:6.1f}x  (target {target:.0f}x or better: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
