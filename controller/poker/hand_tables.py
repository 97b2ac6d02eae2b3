"""The hand tables: every rank multiset a deck can hold, classified and ranked once.

Built on first use, by ``tables`` (about 0.15 s of CPU, which a process that evaluates no hand
does not pay: docs/performance.md, Process start), and read by the evaluators of
``controller.poker.hands``:
a hand's ranks are keyed by the product of one prime per rank, which names the
rank multiset whatever the order of the cards; a five-card flush by the key's
sign, a three-card one by a second prime per suit. Each table numbers its
shapes weakest first, so a greater strength wins. Pure: no I/O.

Rules: rules-interpretation.md, High hands, Three-card high, Six-or-better low and
Deuce-to-seven low; 14.13(f),(h), 14.13A(k),(l), 14.12A(l).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import prod
from typing import Final

from controller.poker.cards import DECK, Rank


class Category(IntEnum):
    """Hand categories, valued in the five-card high order (rules-interpretation.md, High hands).

    Three-card hands rank them differently (rules-interpretation.md, Three-card high); each
    evaluator's own order is in its table, never in these values.
    """

    HIGH_CARD = 0
    ONE_PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8


# rules-interpretation.md, High hands: straight flush > quads > full house > flush > straight
# > trips > two pair > pair > high card.
_FIVE_CARD_ORDER: Final = tuple(Category)
# rules-interpretation.md, Three-card high (cf. 13:69F-20.3): straight flush > trips >
# straight > flush > pair > high card.
_THREE_CARD_ORDER: Final = (
    Category.HIGH_CARD,
    Category.ONE_PAIR,
    Category.FLUSH,
    Category.STRAIGHT,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
)
# rules-interpretation.md, High hands, partial hands (14.13(f)): no straight or flush among
# fewer than five cards, and a full house needs five.
_PARTIAL_ORDER: Final = (
    Category.HIGH_CARD,
    Category.ONE_PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.FOUR_OF_A_KIND,
)

ACE: Final = int(Rank.ACE)
#: The ace's value when it plays low: in a 5-4-3-2-A or 3-2-A straight and in
#: a six-or-better low (rules-interpretation.md, High hands; Six-or-better low).
ACE_LOW: Final = 1

_RANK_PRIMES: Final = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_SUIT_PRIMES: Final = (43, 47, 53, 59)
_RANK_PRIME: Final = {rank: _RANK_PRIMES[rank - 2] for rank in range(2, 15)}

# Per card, by Card.index: the rank prime, and rank prime times suit prime
# (three-card keys).
CARD_PRIME: Final = tuple(_RANK_PRIME[card.rank] for card in DECK)
CARD_SUIT_PRIME: Final = tuple(_RANK_PRIME[card.rank] * _SUIT_PRIMES[card.suit] for card in DECK)

# Ranks as called in a hand's name: "two", as in "pair of twos" and
# "three-two-ace low" (Rank.spoken says "deuce" for the card itself).
RANK_WORD: Final = {
    ACE_LOW: "ace",
    2: "two",
    3: "three",
    4: "four",
    5: "five",
    6: "six",
    7: "seven",
    8: "eight",
    9: "nine",
    10: "ten",
    11: "jack",
    12: "queen",
    13: "king",
    14: "ace",
}
RANK_PLURAL: Final = {
    rank: ("sixes" if rank == 6 else word + "s") for rank, word in RANK_WORD.items()
}


# --- classifying a rank multiset --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shape:
    """What a hand's ranks and suitedness make: its category and its ranks as called.

    ``called`` lists the ranks in the order they decide ties: the biggest group
    first (trips before the pair), then higher ranks; a straight is its top card.
    """

    category: Category
    called: tuple[int, ...]


def _straight_top(ranks: Sequence[int], count: int, wheel: bool) -> int | None:
    """The top card of a straight of ``count`` distinct ``ranks``, None if not a straight.

    ``wheel``: the ace may play low (5-4-3-2-A, 3-2-A; rules-interpretation.md, High hands and
    Three-card high); deuce-to-seven says it may not (rules-interpretation.md, Deuce-to-seven low).
    """
    distinct = sorted(set(ranks), reverse=True)
    if len(distinct) != count:
        return None
    if distinct[0] - distinct[-1] == count - 1:
        return distinct[0]
    if wheel and distinct[0] == ACE and distinct[1] == count and distinct[-1] == 2:
        return count
    return None


_MADE_BY_GROUPS: Final = {
    (4,): Category.FOUR_OF_A_KIND,
    (3, 2): Category.FULL_HOUSE,
    (3,): Category.THREE_OF_A_KIND,
    (2, 2): Category.TWO_PAIR,
    (2,): Category.ONE_PAIR,
}


def _shape(ranks: Sequence[int], suited: bool, straights: bool, wheel: bool) -> Shape:
    """Classify ranks (2..14) as a hand; ``straights`` says whether straights and flushes count."""
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    called = tuple(rank for _, rank in groups)
    top = _straight_top(ranks, len(ranks), wheel) if straights else None
    if top is not None:
        return Shape(Category.STRAIGHT_FLUSH if suited else Category.STRAIGHT, (top,))
    if suited and straights:
        return Shape(Category.FLUSH, called)
    made = tuple(size for size, _ in groups if size > 1)
    return Shape(_MADE_BY_GROUPS.get(made, Category.HIGH_CARD), called)


# --- tables -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Table:
    """A dense ranking: ``strength_of[key]`` is 1..len(shapes), ``shapes[strength]`` its shape."""

    strength_of: dict[int, int]
    shapes: tuple[Shape, ...]  # index 0 is unused: strengths start at 1


def _rank_multisets(size: int) -> Iterable[tuple[int, ...]]:
    """Every multiset of ``size`` ranks a deck can hold (no rank more than four times)."""
    for ranks in combinations_with_replacement(range(2, 15), size):
        if size < 5 or ranks[0] != ranks[4]:  # sorted, so five alike are first to last
            yield ranks


_SortKey = tuple[int, tuple[int, ...]]


def _rank_shapes(sizes: Iterable[int], straights: bool, wheel: bool) -> dict[int, Shape]:
    """Classify every hand of the given sizes, keyed by rank-prime product, negated when suited."""
    shapes: dict[int, Shape] = {}
    for size in sizes:
        for ranks in _rank_multisets(size):
            key = prod(_RANK_PRIME[rank] for rank in ranks)
            shapes[key] = _shape(ranks, False, straights, wheel)
            if straights and len(set(ranks)) == size:
                shapes[-key] = _shape(ranks, True, straights, wheel)
    return shapes


def _dense(shapes: dict[int, Shape], sort_key: Callable[[Shape], _SortKey]) -> _Table:
    """Number the distinct shapes 1..n, weakest first, and key each hand to its number."""
    ranked = sorted(set(shapes.values()), key=sort_key)
    strength = {shape: number for number, shape in enumerate(ranked, start=1)}
    return _Table(
        {key: strength[shape] for key, shape in shapes.items()},
        (Shape(Category.HIGH_CARD, ()), *ranked),
    )


def _reversed(table: _Table) -> _Table:
    """The same hands with the order turned round: the weakest becomes the strongest."""
    top = len(table.shapes)
    return _Table(
        {key: top - strength for key, strength in table.strength_of.items()},
        (table.shapes[0], *reversed(table.shapes[1:])),
    )


# Every multiset of three suits, with its prime product and whether it is one suit.
_SUIT_TRIOS: Final = tuple(
    (prod(_SUIT_PRIMES[suit] for suit in suits), suits[0] == suits[2])
    for suits in combinations_with_replacement(range(4), 3)
)


def _three_card_keys(ranked: _Table) -> dict[int, int]:
    """Re-key a three-card table by rank-and-suit prime products (no flush test at run time).

    The product names the multiset of ranks and the multiset of suits, which
    is all a three-card hand's strength depends on.
    """
    keyed: dict[int, int] = {}
    for ranks in _rank_multisets(3):
        rank_key = prod(_RANK_PRIME[rank] for rank in ranks)
        for suit_key, suited in _SUIT_TRIOS:
            strength = ranked.strength_of.get(-rank_key if suited else rank_key)
            if strength is not None:  # None: a suited pair or trips, which no deck holds
                keyed[rank_key * suit_key] = strength
    return keyed


def low_value(rank: int) -> int:
    """A rank as a six-or-better low counts it: the ace is one (rules-interpretation.md,
    Six-or-better low)."""
    return ACE_LOW if rank == ACE else rank


def _six_or_better_lows() -> tuple[dict[int, int], tuple[Shape, ...]]:
    """Every qualifying three-card low, keyed like the three-card table.

    14.13A(k): no two cards of equal rank and none above six (the ace counts
    low); straights and flushes do not count against it (14.13A(l)1-2), so
    every suit multiset keys the same strength. The highest card decides, then
    the next, then the last (rules-interpretation.md, Six-or-better low).
    """
    lows = sorted(combinations((6, 5, 4, 3, 2, ACE_LOW), 3), reverse=True)  # 6-5-4 worst first
    keyed: dict[int, int] = {}
    for strength, ranks in enumerate(lows, start=1):
        rank_key = prod(_RANK_PRIME[ACE if rank == ACE_LOW else rank] for rank in ranks)
        for suit_key, _ in _SUIT_TRIOS:
            keyed[rank_key * suit_key] = strength
    shapes = (Shape(Category.HIGH_CARD, ()), *(Shape(Category.HIGH_CARD, r) for r in lows))
    return keyed, shapes


def _by_order(order: Sequence[Category]) -> Callable[[Shape], _SortKey]:
    return lambda shape: (order.index(shape.category), shape.called)


# rules-interpretation.md, Deuce-to-seven low (14.12A(l)): the lowest hand by the five-card
# high ranking with the ace never low. That ranking differs from the high one
# only in A-5-4-3-2, ace-high and no straight, so only its two keys change.
_WHEEL: Final = (ACE, 5, 4, 3, 2)
_WHEEL_KEY: Final = prod(_RANK_PRIME[rank] for rank in _WHEEL)


@dataclass(frozen=True, slots=True)
class Tables:
    """Every evaluator's table."""

    five_high: _Table
    deuce_to_seven: _Table
    partial: _Table
    three_high: _Table
    #: ``three_high``'s strengths keyed by rank-and-suit prime products (``CARD_SUIT_PRIME``).
    three_high_of: dict[int, int]
    #: The six-or-better lows' strengths, keyed as ``three_high_of``, and their shapes.
    low_of: dict[int, int]
    low_shapes: tuple[Shape, ...]


@cache
def tables() -> Tables:
    """Every table, built at the first call and the same object at every later one."""
    # rules-interpretation.md, High hands: A-2-3-4-5 is the lowest straight.
    five_shapes = _rank_shapes((5,), straights=True, wheel=True)
    wheel = {
        _WHEEL_KEY: _shape(_WHEEL, suited=False, straights=True, wheel=False),
        -_WHEEL_KEY: _shape(_WHEEL, suited=True, straights=True, wheel=False),
    }
    # rules-interpretation.md, Three-card high: 3-2-A is the lowest straight, 2-3-4 a straight
    # (14.13A(l)1).
    three_high = _dense(
        _rank_shapes((3,), straights=True, wheel=True), _by_order(_THREE_CARD_ORDER)
    )
    low_of, low_shapes = _six_or_better_lows()
    return Tables(
        five_high=_dense(five_shapes, _by_order(_FIVE_CARD_ORDER)),
        deuce_to_seven=_reversed(_dense({**five_shapes, **wheel}, _by_order(_FIVE_CARD_ORDER))),
        # rules-interpretation.md, High hands, partial hands (14.13(f)): no straights or flushes.
        partial=_dense(
            _rank_shapes((1, 2, 3, 4), straights=False, wheel=False), _by_order(_PARTIAL_ORDER)
        ),
        three_high=three_high,
        three_high_of=_three_card_keys(three_high),
        low_of=low_of,
        low_shapes=low_shapes,
    )
