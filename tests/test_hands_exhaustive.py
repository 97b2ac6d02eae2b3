"""Every hand of every size, counted and ordered: the evaluators proved, not sampled.

The fast integer paths run over all hands; the HandValue paths are checked
against them on a seeded sample (and on every hand where it is cheap).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest

from controller.poker.cards import DECK, Card, Rank, parse_cards
from controller.poker.hand_tables import Category
from controller.poker.hands import (
    deuce_to_seven_category,
    deuce_to_seven_low,
    deuce_to_seven_strength,
    five_card_category,
    five_card_high,
    five_card_high_strength,
    mambo_high,
    mambo_high_strength,
    mambo_low,
    mambo_low_strength,
    partial_category,
    partial_high,
    partial_high_strength,
    six_or_better_low,
    six_or_better_low_strength,
    three_card_category,
    three_card_high,
    three_card_high_strength,
)

C = Category


def _strength_counts(evaluate: Callable[[Sequence[Card]], int], size: int) -> Counter[int]:
    """How many hands of ``size`` cards have each strength, over the whole deck."""
    return Counter(map(evaluate, combinations(DECK, size)))


def _category_counts(
    strengths: Counter[int], category: Callable[[int], Category]
) -> dict[Category, int]:
    counts: Counter[Category] = Counter()
    for strength, hands in strengths.items():
        counts[category(strength)] += hands
    return dict(counts)


@pytest.fixture(scope="module")
def five_card_high_strengths() -> Counter[int]:
    return _strength_counts(five_card_high_strength, 5)


@pytest.fixture(scope="module")
def deuce_to_seven_strengths() -> Counter[int]:
    return _strength_counts(deuce_to_seven_strength, 5)


def test_notes_high_hands_all_2598960_five_card_hands_fall_in_the_textbook_categories(
    five_card_high_strengths: Counter[int],
) -> None:
    """rules-interpretation.md, High hands (14.13(h)): the nine categories hold the combinatorial
    counts."""
    assert sum(five_card_high_strengths.values()) == 2_598_960
    assert _category_counts(five_card_high_strengths, five_card_category) == {
        C.STRAIGHT_FLUSH: 40,
        C.FOUR_OF_A_KIND: 624,
        C.FULL_HOUSE: 3_744,
        C.FLUSH: 5_108,
        C.STRAIGHT: 10_200,
        C.THREE_OF_A_KIND: 54_912,
        C.TWO_PAIR: 123_552,
        C.ONE_PAIR: 1_098_240,
        C.HIGH_CARD: 1_302_540,
    }


def test_notes_high_hands_five_card_strengths_are_7462_dense_classes_in_category_order(
    five_card_high_strengths: Counter[int],
) -> None:
    """rules-interpretation.md, High hands: 7,462 distinct values 1..7462; a better category is
    always stronger."""
    assert sorted(five_card_high_strengths) == list(range(1, 7_463))
    categories = [five_card_category(s) for s in range(1, 7_463)]
    assert categories == sorted(categories)  # Category values follow the five-card order
    per_category = Counter(categories)
    assert per_category[C.STRAIGHT_FLUSH] == 10
    assert per_category[C.STRAIGHT] == 10
    assert per_category[C.FLUSH] == per_category[C.HIGH_CARD] == 1_277


def test_notes_deuce_to_seven_all_2598960_hands_counted_with_a_2345_as_ace_high_14_12A_l(
    deuce_to_seven_strengths: Counter[int],
) -> None:
    """rules-interpretation.md, Deuce-to-seven low: A-2-3-4-5 is no straight, so its 1,020 offsuit
    hands become high cards and its 4 straight flushes flushes; every other count is the high
    one."""
    assert sum(deuce_to_seven_strengths.values()) == 2_598_960
    assert _category_counts(deuce_to_seven_strengths, deuce_to_seven_category) == {
        C.STRAIGHT_FLUSH: 40 - 4,
        C.FOUR_OF_A_KIND: 624,
        C.FULL_HOUSE: 3_744,
        C.FLUSH: 5_108 + 4,
        C.STRAIGHT: 10_200 - 1_020,
        C.THREE_OF_A_KIND: 54_912,
        C.TWO_PAIR: 123_552,
        C.ONE_PAIR: 1_098_240,
        C.HIGH_CARD: 1_302_540 + 1_020,
    }


def test_notes_deuce_to_seven_has_7462_distinct_strengths_made_hands_always_worse(
    deuce_to_seven_strengths: Counter[int],
) -> None:
    """rules-interpretation.md, Deuce-to-seven low (14.12A(l)): 7,462 distinct values, the better
    category by the high ranking is always the worse low."""
    assert sorted(deuce_to_seven_strengths) == list(range(1, 7_463))
    categories = [deuce_to_seven_category(s) for s in range(1, 7_463)]
    assert categories == sorted(categories, reverse=True)


def _best_lows_first() -> list[str]:
    """Every five distinct ranks as ``"75432"``, ordered by the deuce-to-seven strength."""
    by_strength: dict[int, str] = {}
    ranks = [Rank(r) for r in range(2, 15)]
    suits = [DECK[i].suit for i in range(4)]
    for five in combinations(ranks, 5):
        # Offsuit: the first card of a different suit from the rest.
        cards = [Card(rank, suits[min(i, 1)]) for i, rank in enumerate(five)]
        code = "".join(card.rank.char for card in sorted(cards, key=lambda c: -c.rank))
        by_strength[deuce_to_seven_strength(cards)] = code
    return [by_strength[s] for s in sorted(by_strength, reverse=True)]


def test_notes_deuce_to_seven_best_hands_in_order_7_5_4_3_2_first_14_12A_l() -> None:
    """rules-interpretation.md, Deuce-to-seven low: 7-5-4-3-2 offsuit is best, then 7-6-4-3-2,
    7-6-5-3-2, 7-6-5-4-2, 8-5-4-3-2, 8-6-4-3-2; 7-6-5-4-3 is a straight, not among the no-pair
    hands."""
    order = _best_lows_first()
    assert order[:6] == ["75432", "76432", "76532", "76542", "85432", "86432"]
    assert "76543" not in order[:1_277]  # a straight counts against the hand
    # Ace high, never low, and no straight: right after the worst king-high hand, behind
    # every no-pair hand of deuce to king (792 rank sets less 8 straights).
    assert order.index("KQJT8") == 783
    assert order.index("A5432") == 784
    assert order.index("A6432") == 785
    straights = ["65432", "76543", "87654", "98765", "T9876", "JT987", "QJT98", "KQJT9"]
    assert order[1_278:] == [*straights, "AKQJT"]


def test_notes_deuce_to_seven_royal_flush_is_the_worst_hand_14_12A_l() -> None:
    """rules-interpretation.md, Deuce-to-seven low: the best high hand, a royal flush, is the worst
    low."""
    assert deuce_to_seven_strength(parse_cards("As Ks Qs Js Ts")) == 1
    assert deuce_to_seven_strength(parse_cards("Ks Qs Js Ts 9s")) == 2
    assert deuce_to_seven_strength(parse_cards("7h 5d 4c 3s 2s")) == 7_462


def test_three_card_high_all_22100_hands_counted_notes_three_card_high() -> None:
    """rules-interpretation.md, Three-card high: straight flush 48 > trips 52 > straight 720 > flush
    1,096 > pair 3,744 > high card 16,440, and the categories never interleave."""
    strengths = _strength_counts(three_card_high_strength, 3)
    assert sum(strengths.values()) == 22_100
    assert _category_counts(strengths, three_card_category) == {
        C.STRAIGHT_FLUSH: 48,
        C.THREE_OF_A_KIND: 52,
        C.STRAIGHT: 720,
        C.FLUSH: 1_096,
        C.ONE_PAIR: 3_744,
        C.HIGH_CARD: 16_440,
    }
    order = [three_card_category(s) for s in sorted(strengths)]
    runs = [category for i, category in enumerate(order) if i == 0 or order[i - 1] != category]
    assert runs == [
        C.HIGH_CARD,
        C.ONE_PAIR,
        C.FLUSH,
        C.STRAIGHT,
        C.THREE_OF_A_KIND,
        C.STRAIGHT_FLUSH,
    ]
    assert len(strengths) == 274 + 156 + 274 + 12 + 13 + 12


def _qualifies_six_or_better(trio: Sequence[Card]) -> bool:
    """14.13A(k) read literally: no equal ranks, no seven through king (the ace is low)."""
    ranks = [card.rank for card in trio]
    too_high = {Rank.SEVEN, Rank.EIGHT, Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING}
    return len(set(ranks)) == 3 and not too_high.intersection(ranks)


def _low_call(trio: Sequence[Card]) -> tuple[int, ...]:
    """The low's ranks highest first with the ace as one; a smaller tuple is a better low."""
    return tuple(sorted((1 if c.rank == Rank.ACE else int(c.rank) for c in trio), reverse=True))


def test_six_or_better_1280_of_22100_three_card_hands_qualify_14_13A_k() -> None:
    """14.13A(k): counted by a brute-force reading of the rule, 1,280 three-card hands
    (20 rank sets from A-6, times 64 suit choices) qualify, and exactly those."""
    qualifying = 0
    for trio in combinations(DECK, 3):
        qualifies = _qualifies_six_or_better(trio)
        qualifying += qualifies
        assert (six_or_better_low_strength(trio) > 0) is qualifies, trio
    assert qualifying == 1_280


def test_six_or_better_orders_highest_card_first_3_2_A_best_6_5_4_worst_notes() -> None:
    """rules-interpretation.md, Six-or-better low: compare the highest card, then the next, then the
    last; straights and flushes do not count (14.13A(l)1-2); 20 distinct lows."""
    strength_of_call: dict[tuple[int, ...], set[int]] = {}
    for trio in combinations(DECK, 3):
        strength = six_or_better_low_strength(trio)
        if strength:
            strength_of_call.setdefault(_low_call(trio), set()).add(strength)
    assert all(len(strengths) == 1 for strengths in strength_of_call.values())
    calls_best_first = sorted(strength_of_call)
    strengths = [strength_of_call[call].pop() for call in calls_best_first]
    assert strengths == list(range(20, 0, -1))
    assert calls_best_first[0] == (3, 2, 1)
    assert calls_best_first[-1] == (6, 5, 4)


def test_mambo_best_three_of_four_equals_brute_force_over_all_270725_sets_14_13A_j_l() -> None:
    """14.13A(j),(l): for all 270,725 four-card sets, the Mambo high and low are the max of
    the four three-card hands, evaluated one by one (low: 0 when none qualifies)."""
    # Every three-card hand once; a four's sub-trios come out in deck order, as these keys.
    high = {trio: three_card_high_strength(trio) for trio in combinations(DECK, 3)}
    low = {trio: six_or_better_low_strength(trio) for trio in combinations(DECK, 3)}
    for four in combinations(DECK, 4):
        t1, t2, t3, t4 = combinations(four, 3)
        assert mambo_high_strength(four) == max(high[t1], high[t2], high[t3], high[t4]), four
        assert mambo_low_strength(four) == max(low[t1], low[t2], low[t3], low[t4]), four


def test_mambo_rich_path_matches_the_fast_path_and_names_its_three_cards() -> None:
    """14.13A(l): mambo_high/mambo_low return one of the four's three-card hands with the
    brute-force best strength; None exactly when no three qualify (14.13A(k))."""
    rng = random.Random(14_13)
    for _ in range(10_000):
        four = rng.sample(DECK, 4)
        high = mambo_high(four)
        assert high.strength == mambo_high_strength(four)
        assert set(high.cards) <= set(four)
        assert high == three_card_high(high.cards)
        low = mambo_low(four)
        if mambo_low_strength(four) == 0:
            assert low is None
        else:
            assert low is not None
            assert low.strength == mambo_low_strength(four)
            assert set(low.cards) <= set(four)
            assert low == six_or_better_low(low.cards)


def test_rich_paths_match_fast_paths_on_a_seeded_sample_of_five_card_hands() -> None:
    """five_card_high and deuce_to_seven_low give the fast path's strength and list the same
    five cards best first (bigger groups, higher ranks, higher suits), on 20,000 seeded
    random hands."""
    rng = random.Random(2_598_960)
    for _ in range(20_000):
        hand = rng.sample(DECK, 5)
        high = five_card_high(hand)
        low = deuce_to_seven_low(hand)
        assert high.strength == five_card_high_strength(hand)
        assert low.strength == deuce_to_seven_strength(hand)
        assert sorted(high.cards, key=id) == sorted(low.cards, key=id) == sorted(hand, key=id)
        for value in (high, low):
            ranks = [card.rank for card in value.cards]
            if ranks[0] == Rank.FIVE and ranks[-1] == Rank.ACE and "straight" in value.description:
                continue  # 5-4-3-2-A: the ace plays low and is called last
            called = [(ranks.count(card.rank), card.rank, card.suit) for card in value.cards]
            assert called == sorted(called, reverse=True), value  # groups, ranks, suits: best first


def test_three_card_rich_path_matches_the_fast_path_on_every_hand() -> None:
    """three_card_high and six_or_better_low agree with their fast paths on all 22,100 hands."""
    for trio in combinations(DECK, 3):
        assert three_card_high(trio).strength == three_card_high_strength(trio)
        low = six_or_better_low(trio)
        assert (low.strength if low else 0) == six_or_better_low_strength(trio)


_PARTIAL_COUNTS = {
    1: {C.HIGH_CARD: 52},
    2: {C.HIGH_CARD: 78 * 16, C.ONE_PAIR: 13 * 6},
    3: {C.HIGH_CARD: 286 * 64, C.ONE_PAIR: 13 * 6 * 12 * 4, C.THREE_OF_A_KIND: 13 * 4},
    4: {
        C.HIGH_CARD: 715 * 256,
        C.ONE_PAIR: 13 * 6 * 66 * 16,
        C.TWO_PAIR: 78 * 36,
        C.THREE_OF_A_KIND: 13 * 4 * 48,
        C.FOUR_OF_A_KIND: 13,
    },
}


def _partial_reference(ranks: Sequence[Rank]) -> tuple[int, tuple[int, ...]]:
    """rules-interpretation.md, High hands, partial hands, written out: the made hand (high card,
    pair, two pair, trips, quads) then the ranks by group, biggest group first, higher rank
    first."""
    counts = Counter(ranks)
    groups = sorted(((n, int(rank)) for rank, n in counts.items()), reverse=True)
    made = tuple(n for n, _ in groups if n > 1)
    category = [(), (2,), (2, 2), (3,), (4,)].index(made)
    return category, tuple(rank for _, rank in groups)


def _cards_of(ranks: Sequence[Rank], suited: bool) -> list[Card]:
    """One hand with these ranks: all one suit when ``suited``, else a new suit per repeat."""
    seen: Counter[Rank] = Counter()
    cards = []
    for rank in ranks:
        cards.append(Card(rank, DECK[0 if suited else seen[rank] % 4].suit))
        seen[rank] += 1
    return cards


@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_partial_hands_every_1_to_4_card_hand_counted_and_ordered_14_13_f(size: int) -> None:
    """14.13(f), rules-interpretation.md, High hands, partial hands: over every hand of 1-4 up-cards
    the categories hold their counts, each strength holds exactly the hands of its ranks, suited or
    not (no straight or flush counts), and strengths order the rank sets as the written-out rule."""
    strengths = _strength_counts(partial_high_strength, size)
    expected: Counter[int] = Counter()
    reference_of: dict[int, tuple[int, tuple[int, ...]]] = {}
    for ranks in combinations_with_replacement(Rank, size):
        strength = partial_high_strength(_cards_of(ranks, suited=False))
        if len(set(ranks)) == size:  # four suited connectors are still no hand
            assert partial_high_strength(_cards_of(ranks, suited=True)) == strength
        assert reference_of.setdefault(strength, _partial_reference(ranks)) == (
            _partial_reference(ranks)
        )
        expected[strength] += prod(comb(4, n) for n in Counter(ranks).values())
    assert strengths == expected
    assert _category_counts(strengths, partial_category) == _PARTIAL_COUNTS[size]
    references = [reference_of[s] for s in sorted(reference_of)]
    assert references == sorted(set(references))


def test_partial_rich_path_matches_the_fast_path_on_every_two_card_hand() -> None:
    """partial_high carries the fast path's strength and the hand's cards."""
    for hand in combinations(DECK, 2):
        value = partial_high(hand)
        assert value.strength == partial_high_strength(hand)
        assert set(value.cards) == set(hand)
