"""Evaluations per second: tablectl's hand evaluators beside treys and PokerKit.

Run from the repository root::

    python benchmarks/evaluators.py [--hands 20000] [--repeat 5] [--seed 2026]

Every entrant evaluates the same seeded random hands in the same run, each
given its own library's pre-parsed card objects, so parsing is never timed.
Like is compared with like: each peer is timed from its cards to a value
that ranks the hand against another, as tablectl's strength does.

- five-card high: ``controller.poker.hands.five_card_high_strength`` (tuple of 5
  ``Card``) against treys ``Evaluator().evaluate(cards, [])`` (list of 5 treys
  ints; its result is the rank) and PokerKit ``StandardHighHand(cards).entry``
  (tuple of 5 ``pokerkit.Card``).
- deuce-to-seven: ``deuce_to_seven_strength`` against
  ``StandardLowHand(cards).entry``, PokerKit 0.7.7's deuce-to-seven hand
  (straights do not wrap, lower wins); treys has none.
- Mambo best three of four, high: ``mambo_high_strength`` (4 cards) against
  ``RhodeIslandHoldemHand.from_game(three own, (community,)).entry``. PokerKit
  has no Mambo; RhodeIslandHoldemHand is its three-card hand, ranked in the NJ
  three-card order (straight flush > trips > straight > flush > pair > high
  card; rules-interpretation.md, Three-card high), and ``from_game`` keeps the best of the
  four three-card combinations, as 14.13A(j) does. PokerKit has no three-card
  six-or-better low, so ``mambo_low_strength`` is timed without a peer.

Why ``.entry``: a PokerKit hand object holds its cards, not its rank. Its
constructor checks the hand is in PokerKit's table, and ``entry`` (which every
``<`` between two hands calls on both) looks the rank up again. Constructor
plus ``entry`` is therefore the least PokerKit does per hand at a showdown;
the constructor alone is timed too and shown with its own ratio, so both
readings are on the page. The targets are judged on the ``entry`` rows.

Timing: CPU time of the process (not wall time, which counts the other
engineers' jobs on a shared machine), per slice of CHUNK hands, each slice
at its best over the interleaved rounds. The HandValue paths (strength, cards
and the dealer's call) are timed too: that is the engine's cost per hand.
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

from controller.poker import hands
from controller.poker.cards import DECK, Card


@dataclass(frozen=True)
class Entrant:
    """One evaluator in a race: what it is, what it is given, and its inputs."""

    label: str
    given: str
    evaluate: Callable[[Any], object]
    inputs: Sequence[Any]


CHUNK = 5_000  # hands per timed slice


def _race(entrants: Sequence[Entrant], repeat: int) -> list[float]:
    """Evaluations per second of each entrant: its hands over the sum of best slice times.

    The hands are cut in slices of CHUNK; each round times slice k of every
    entrant in turn before slice k + 1, and each slice keeps its best time over
    the rounds. On a shared machine a burst of load then hits both sides of a
    ratio alike, and a slice slowed in one round counts at its quiet time.
    """
    size = len(entrants[0].inputs)
    starts = range(0, size, CHUNK)
    best = [[float("inf")] * len(starts) for _ in entrants]
    for _ in range(repeat):
        for k, start in enumerate(starts):
            for i, entrant in enumerate(entrants):
                evaluate = entrant.evaluate
                inputs = entrant.inputs[start : start + CHUNK]
                began = time.process_time()
                for cards in inputs:
                    evaluate(cards)
                best[i][k] = min(best[i][k], time.process_time() - began)
    return [size / sum(times) for times in best]


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
    parser.add_argument("--repeat", type=int, default=5, help="rounds; each one's best counts")
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
        f"entrant (seed {args.seed}), each {CHUNK:,}-hand slice timed at its best of "
        f"{args.repeat} interleaved rounds; "
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
                "PokerKit StandardHighHand(cards).entry",
                pk_five,
                lambda cards: pokerkit.StandardHighHand(cards).entry,
                pk_fives,
            ),
            Entrant(
                "PokerKit StandardHighHand(cards) only",
                pk_five,
                pokerkit.StandardHighHand,
                pk_fives,
            ),
        ],
        peers=3,
        repeat=args.repeat,
    )
    low = _print_race(
        "Deuce-to-seven low (14.12A(l))",
        [
            Entrant("tablectl deuce_to_seven_strength", five, hands.deuce_to_seven_strength, fives),
            Entrant(
                "tablectl deuce_to_seven_low (HandValue)", five, hands.deuce_to_seven_low, fives
            ),
            Entrant(
                "PokerKit StandardLowHand(cards).entry",
                pk_five,
                lambda cards: pokerkit.StandardLowHand(cards).entry,
                pk_fives,
            ),
            Entrant(
                "PokerKit StandardLowHand(cards) only", pk_five, pokerkit.StandardLowHand, pk_fives
            ),
        ],
        peers=2,
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
                "PokerKit RhodeIsland...from_game().entry",
                "3 own + 1 community pokerkit.Card",
                lambda split: pokerkit.RhodeIslandHoldemHand.from_game(*split).entry,
                pk_fours,
            ),
            Entrant(
                "PokerKit RhodeIsland...from_game() only",
                "3 own + 1 community pokerkit.Card",
                lambda split: pokerkit.RhodeIslandHoldemHand.from_game(*split),
                pk_fours,
            ),
        ],
        peers=2,
        repeat=args.repeat,
    )
    targets = [
        ("five-card high vs treys", high[0] / high[2], 1.0),
        ("deuce-to-seven vs PokerKit", low[0] / low[2], 10.0),
        ("Mambo best of four vs PokerKit", mambo[0] / mambo[4], 10.0),
        ("(deuce-to-seven vs PokerKit constructor only)", low[0] / low[3], 10.0),
    ]
    print("Targets")
    for name, ratio, target in targets:
        verdict = "met" if ratio >= target else "NOT MET"
        print(f"  {name:<46} {ratio:6.1f}x  (target {target:.0f}x or better: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
