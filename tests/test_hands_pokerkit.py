"""Differential tests against PokerKit: the same winner on every pair of hands.

PokerKit 0.7.7 names its deuce-to-seven hand ``StandardLowHand`` (standard
ranking, straights do not wrap, lower wins); its ``RhodeIslandHoldemHand``
ranks three-card hands in the NJ order of rules-interpretation.md, Three-card high.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from itertools import combinations

import pokerkit

from controller.poker.cards import DECK, Card
from controller.poker.hands import (
    deuce_to_seven_strength,
    five_card_high_strength,
    three_card_high_strength,
)

PAIRS = 100_000
_PK_CARD = {card: next(pokerkit.Card.parse(card.code)) for card in DECK}


def _outcome(left: object, right: object) -> int:
    """+1 if ``left`` wins, -1 if ``right`` wins, 0 for a split, using only ``<`` and ``>``."""
    if left < right:  # type: ignore[operator]  # both sides' hands order with < and >
        return -1
    if left > right:  # type: ignore[operator]  # as above
        return 1
    return 0


def _differential(
    ours: Callable[[Sequence[Card]], int], theirs: type[pokerkit.Hand], seed: int
) -> tuple[int, int]:
    """Play PAIRS seeded random showdowns of two five-card hands from one deck; assert the
    same winner every time; return (splits, left wins) to show the sample is not trivial."""
    rng = random.Random(seed)
    splits = left_wins = 0
    for _ in range(PAIRS):
        cards = rng.sample(DECK, 10)
        left, right = cards[:5], cards[5:]
        expected = _outcome(ours(left), ours(right))
        actual = _outcome(theirs([_PK_CARD[c] for c in left]), theirs([_PK_CARD[c] for c in right]))
        assert expected == actual, (left, right)
        splits += expected == 0
        left_wins += expected > 0
    return splits, left_wins


def test_five_card_high_picks_pokerkits_winner_on_100000_random_pairs_14_13_h() -> None:
    """14.13(h), rules-interpretation.md, High hands: the same winner as pokerkit.StandardHighHand
    (< and >) on 100,000 seeded pairs, splits included."""
    splits, left_wins = _differential(five_card_high_strength, pokerkit.StandardHighHand, 1413)
    assert splits > 0
    assert 45_000 < left_wins < 55_000


def test_deuce_to_seven_picks_pokerkits_winner_on_100000_random_pairs_14_12A_l() -> None:
    """14.12A(l), rules-interpretation.md, Deuce-to-seven low: the same winner as PokerKit's
    deuce-to-seven hand (StandardLowHand in 0.7.7) on 100,000 seeded pairs, splits included."""
    splits, left_wins = _differential(deuce_to_seven_strength, pokerkit.StandardLowHand, 1412)
    assert splits > 0
    assert 45_000 < left_wins < 55_000


def test_three_card_high_orders_all_22100_hands_as_pokerkit_notes_three_card_high() -> None:
    """rules-interpretation.md, Three-card high: over every three-card hand our strengths and
    PokerKit's RhodeIslandHoldemHand entries define the same order (one strength per entry, and
    sorting by either sorts by the other)."""
    entry_of: dict[int, int] = {}
    for trio in combinations(DECK, 3):
        entry = pokerkit.RhodeIslandHoldemHand([_PK_CARD[c] for c in trio]).entry.index
        assert entry_of.setdefault(three_card_high_strength(trio), entry) == entry, trio
    entries = [entry_of[strength] for strength in sorted(entry_of)]
    assert entries == sorted(set(entries))
    assert len(entries) == 741
