"""Hand evaluators for the three games' showdowns and the stud openers.

One convention for every evaluator: a ``HandValue`` whose greater ``strength``
wins and whose equal strengths tie, lows included (a better low has a greater
strength), so the engine takes the max. Strengths compare only within one
evaluator.

Speed comes from tables built once at import (about 0.15 s): a hand's ranks
are keyed by the product of one prime per rank, which names the rank multiset
whatever the order of the cards, and a flush is told apart by the key's sign
(five cards) or by a second prime per suit (three cards). Each evaluator has
an integer fast path (``*_strength``) beside the public function; both reject
a wrong count or something that is not a card with HandError, and the public
functions also reject a card given twice.

Rules: NOTES.md, sections Cards, High hands, Three-card high, Six-or-better
low and Deuce-to-seven low; 14.13(f),(h), 14.13A(j)-(l), 14.12A(l).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import prod
from operator import attrgetter
from typing import Final

from controller.cards import DECK, Card, Rank, format_cards

#: What a dealer says when no hand makes a six-or-better low (14.13A(k)).
NO_QUALIFYING_LOW: Final = "no qualifying low"


class HandError(ValueError):
    """Cards that cannot be evaluated: wrong count, a card twice, or not a card."""

    def __init__(self, cards: object, expected: str, reason: str) -> None:
        self.cards = cards
        shown = _show(cards)
        super().__init__(f"cannot evaluate {shown}: {reason}; expected {expected}")


@dataclass(frozen=True, slots=True)
class HandValue:
    """A hand as one evaluator values it; greater ``strength`` wins, equal ties."""

    strength: int
    cards: tuple[Card, ...]
    description: str
    #: An ace in ``cards`` plays low: a 5-4-3-2-A or 3-2-A straight (NOTES.md, High hands;
    #: Three-card high). The odd chip's highest card is then the top of the straight.
    ace_low: bool = False


class Category(IntEnum):
    """Hand categories, valued in the five-card high order (NOTES.md, High hands).

    Three-card hands rank them differently (NOTES.md, Three-card high); each
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


# NOTES.md, High hands: straight flush > quads > full house > flush > straight
# > trips > two pair > pair > high card.
_FIVE_CARD_ORDER: Final = tuple(Category)
# NOTES.md, Three-card high (cf. 13:69F-20.3): straight flush > trips >
# straight > flush > pair > high card.
_THREE_CARD_ORDER: Final = (
    Category.HIGH_CARD,
    Category.ONE_PAIR,
    Category.FLUSH,
    Category.STRAIGHT,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
)
# NOTES.md, High hands, partial hands (14.13(f)): no straight or flush among
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
#: a six-or-better low (NOTES.md, High hands; Six-or-better low).
ACE_LOW: Final = 1

_RANK_PRIMES: Final = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_SUIT_PRIMES: Final = (43, 47, 53, 59)
_RANK_PRIME: Final = {rank: _RANK_PRIMES[rank - 2] for rank in range(2, 15)}

# Per card, by Card.index: the rank prime, and rank prime times suit prime
# (three-card keys).
_PRIME: Final = tuple(_RANK_PRIME[card.rank] for card in DECK)
_RANK_SUIT_PRIME: Final = tuple(_RANK_PRIME[card.rank] * _SUIT_PRIMES[card.suit] for card in DECK)

# Ranks as called in a hand's name: "two", as in "pair of twos" and
# "three-two-ace low" (Rank.spoken says "deuce" for the card itself).
_WORD: Final = {
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
_PLURAL: Final = {rank: ("sixes" if rank == 6 else word + "s") for rank, word in _WORD.items()}


# --- classifying a rank multiset --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Shape:
    """What a hand's ranks and suitedness make: its category and its ranks as called.

    ``called`` lists the ranks in the order they decide ties: the biggest group
    first (trips before the pair), then higher ranks; a straight is its top card.
    """

    category: Category
    called: tuple[int, ...]


def _straight_top(ranks: Sequence[int], count: int, wheel: bool) -> int | None:
    """The top card of a straight of ``count`` distinct ``ranks``, None if not a straight.

    ``wheel``: the ace may play low (5-4-3-2-A, 3-2-A; NOTES.md, High hands and
    Three-card high); deuce-to-seven says it may not (NOTES.md, Deuce-to-seven low).
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


def _shape(ranks: Sequence[int], suited: bool, straights: bool, wheel: bool) -> _Shape:
    """Classify ranks (2..14) as a hand; ``straights`` says whether straights and flushes count."""
    groups = sorted(((ranks.count(rank), rank) for rank in set(ranks)), reverse=True)
    called = tuple(rank for _, rank in groups)
    top = _straight_top(ranks, len(ranks), wheel) if straights else None
    if top is not None:
        return _Shape(Category.STRAIGHT_FLUSH if suited else Category.STRAIGHT, (top,))
    if suited and straights:
        return _Shape(Category.FLUSH, called)
    made = tuple(size for size, _ in groups if size > 1)
    return _Shape(_MADE_BY_GROUPS.get(made, Category.HIGH_CARD), called)


# --- tables -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Table:
    """A dense ranking: ``strength_of[key]`` is 1..len(shapes), ``shapes[strength]`` its shape."""

    strength_of: dict[int, int]
    shapes: tuple[_Shape, ...]  # index 0 is unused: strengths start at 1


def _rank_multisets(size: int) -> Iterable[tuple[int, ...]]:
    """Every multiset of ``size`` ranks a deck can hold (no rank more than four times)."""
    for ranks in combinations_with_replacement(range(2, 15), size):
        if size < 5 or ranks[0] != ranks[4]:  # sorted, so five alike are first to last
            yield ranks


_SortKey = tuple[int, tuple[int, ...]]


def _rank_shapes(sizes: Iterable[int], straights: bool, wheel: bool) -> dict[int, _Shape]:
    """Classify every hand of the given sizes, keyed by rank-prime product, negated when suited."""
    shapes: dict[int, _Shape] = {}
    for size in sizes:
        for ranks in _rank_multisets(size):
            key = prod(_RANK_PRIME[rank] for rank in ranks)
            shapes[key] = _shape(ranks, False, straights, wheel)
            if straights and len(set(ranks)) == size:
                shapes[-key] = _shape(ranks, True, straights, wheel)
    return shapes


def _dense(shapes: dict[int, _Shape], sort_key: Callable[[_Shape], _SortKey]) -> _Table:
    """Number the distinct shapes 1..n, weakest first, and key each hand to its number."""
    ranked = sorted(set(shapes.values()), key=sort_key)
    strength = {shape: number for number, shape in enumerate(ranked, start=1)}
    return _Table(
        {key: strength[shape] for key, shape in shapes.items()},
        (_Shape(Category.HIGH_CARD, ()), *ranked),
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


def _low_value(rank: int) -> int:
    """A rank as a six-or-better low counts it: the ace is one (NOTES.md, Six-or-better low)."""
    return ACE_LOW if rank == ACE else rank


def _six_or_better_lows() -> tuple[dict[int, int], tuple[_Shape, ...]]:
    """Every qualifying three-card low, keyed like the three-card table.

    14.13A(k): no two cards of equal rank and none above six (the ace counts
    low); straights and flushes do not count against it (14.13A(l)1-2), so
    every suit multiset keys the same strength. The highest card decides, then
    the next, then the last (NOTES.md, Six-or-better low).
    """
    lows = sorted(combinations((6, 5, 4, 3, 2, ACE_LOW), 3), reverse=True)  # 6-5-4 worst first
    keyed: dict[int, int] = {}
    for strength, ranks in enumerate(lows, start=1):
        rank_key = prod(_RANK_PRIME[ACE if rank == ACE_LOW else rank] for rank in ranks)
        for suit_key, _ in _SUIT_TRIOS:
            keyed[rank_key * suit_key] = strength
    shapes = (_Shape(Category.HIGH_CARD, ()), *(_Shape(Category.HIGH_CARD, r) for r in lows))
    return keyed, shapes


def _by_order(order: Sequence[Category]) -> Callable[[_Shape], _SortKey]:
    return lambda shape: (order.index(shape.category), shape.called)


# NOTES.md, High hands: A-2-3-4-5 is the lowest straight.
_FIVE_SHAPES: Final = _rank_shapes((5,), straights=True, wheel=True)
_FIVE_HIGH: Final = _dense(_FIVE_SHAPES, _by_order(_FIVE_CARD_ORDER))
# NOTES.md, Deuce-to-seven low (14.12A(l)): the lowest hand by the five-card
# high ranking with the ace never low. That ranking differs from the high one
# only in A-5-4-3-2, ace-high and no straight, so only its two keys change.
_WHEEL: Final = (ACE, 5, 4, 3, 2)
_WHEEL_KEY: Final = prod(_RANK_PRIME[rank] for rank in _WHEEL)
_DEUCE_TO_SEVEN: Final = _reversed(
    _dense(
        {
            **_FIVE_SHAPES,
            _WHEEL_KEY: _shape(_WHEEL, suited=False, straights=True, wheel=False),
            -_WHEEL_KEY: _shape(_WHEEL, suited=True, straights=True, wheel=False),
        },
        _by_order(_FIVE_CARD_ORDER),
    )
)
# NOTES.md, High hands, partial hands (14.13(f)): no straights or flushes.
_PARTIAL: Final = _dense(
    _rank_shapes((1, 2, 3, 4), straights=False, wheel=False), _by_order(_PARTIAL_ORDER)
)
# NOTES.md, Three-card high: 3-2-A is the lowest straight, 2-3-4 a straight (14.13A(l)1).
_THREE_HIGH: Final = _dense(
    _rank_shapes((3,), straights=True, wheel=True), _by_order(_THREE_CARD_ORDER)
)
_THREE_HIGH_OF: Final = _three_card_keys(_THREE_HIGH)
_LOW_OF, _LOW_SHAPES = _six_or_better_lows()

_FIVE_HIGH_OF: Final = _FIVE_HIGH.strength_of
_DEUCE_TO_SEVEN_OF: Final = _DEUCE_TO_SEVEN.strength_of
_PARTIAL_OF: Final = _PARTIAL.strength_of


# --- checking the input -----------------------------------------------------------------------


def _show(cards: object) -> str:
    """Cards as codes when they are cards, else as Python shows them."""
    if isinstance(cards, Sequence) and all(isinstance(card, Card) for card in cards):
        return repr(format_cards(cards))
    return repr(cards)


def _bad_hand(cards: object, expected: str, counts: range) -> HandError:
    """The HandError for cards that failed the checks: says which check."""
    if not isinstance(cards, Sequence):
        return HandError(cards, expected, f"{type(cards).__name__} is not a sequence of cards")
    strangers = [card for card in cards if not isinstance(card, Card)]
    if strangers:
        return HandError(cards, expected, f"{strangers[0]!r} is not a card")
    if len(cards) not in counts:
        return HandError(cards, expected, f"{len(cards)} cards")
    twice = [card.code for card, times in Counter(cards).items() if times > 1]
    return HandError(cards, expected, f"{', '.join(twice) or 'a card'} more than once")


def _require_distinct(cards: Sequence[Card], expected: str, counts: range) -> None:
    """Raise HandError if a card is given twice (the fast paths leave this to the caller)."""
    if len(set(cards)) != len(cards):
        raise _bad_hand(cards, expected, counts)


_FIVE: Final = "exactly 5 distinct cards"
_THREE: Final = "exactly 3 distinct cards"
_FOUR: Final = "exactly 4 distinct cards (three own cards and the community card)"
_PARTIAL_COUNT: Final = "1 to 4 distinct up-cards"
_EXACTLY_5: Final = range(5, 6)
_EXACTLY_4: Final = range(4, 5)
_EXACTLY_3: Final = range(3, 4)
_ONE_TO_4: Final = range(1, 5)


# --- fast integer paths -----------------------------------------------------------------------
# Each returns its public function's strength and raises HandError for a wrong
# count or something that is not a card. Unlike the public functions they do
# not look for a card given twice: that check costs as much as the evaluation,
# a deck cannot deal a card twice, and a tag read twice is caught by the
# integrity checks (NOTES.md, Integrity). The unpacking is spelled out because
# this is the hot path.


def five_card_high_strength(cards: Sequence[Card]) -> int:
    """Strength of five cards as a high hand (14.13(h); NOTES.md, High hands)."""
    try:
        c1, c2, c3, c4, c5 = cards
        a, b, c, d, e = c1.index, c2.index, c3.index, c4.index, c5.index
        if a & 3 == b & 3 == c & 3 == d & 3 == e & 3:  # Card.index % 4 is the suit
            return _FIVE_HIGH_OF[-_PRIME[a] * _PRIME[b] * _PRIME[c] * _PRIME[d] * _PRIME[e]]
        return _FIVE_HIGH_OF[_PRIME[a] * _PRIME[b] * _PRIME[c] * _PRIME[d] * _PRIME[e]]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FIVE, _EXACTLY_5) from None


def deuce_to_seven_strength(cards: Sequence[Card]) -> int:
    """Strength of five cards as a deuce-to-seven low; greater is lower (14.12A(l))."""
    try:
        c1, c2, c3, c4, c5 = cards
        a, b, c, d, e = c1.index, c2.index, c3.index, c4.index, c5.index
        if a & 3 == b & 3 == c & 3 == d & 3 == e & 3:  # Card.index % 4 is the suit
            return _DEUCE_TO_SEVEN_OF[-_PRIME[a] * _PRIME[b] * _PRIME[c] * _PRIME[d] * _PRIME[e]]
        return _DEUCE_TO_SEVEN_OF[_PRIME[a] * _PRIME[b] * _PRIME[c] * _PRIME[d] * _PRIME[e]]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FIVE, _EXACTLY_5) from None


def three_card_high_strength(cards: Sequence[Card]) -> int:
    """Strength of three cards as a three-card high hand (NOTES.md, Three-card high)."""
    try:
        c1, c2, c3 = cards
        return _THREE_HIGH_OF[
            _RANK_SUIT_PRIME[c1.index] * _RANK_SUIT_PRIME[c2.index] * _RANK_SUIT_PRIME[c3.index]
        ]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _THREE, _EXACTLY_3) from None


def six_or_better_low_strength(cards: Sequence[Card]) -> int:
    """Strength of three cards as a six-or-better low, 0 if it does not qualify (14.13A(k))."""
    try:
        c1, c2, c3 = cards
        return _LOW_OF.get(
            _RANK_SUIT_PRIME[c1.index] * _RANK_SUIT_PRIME[c2.index] * _RANK_SUIT_PRIME[c3.index],
            0,
        )
    except (AttributeError, TypeError, ValueError, IndexError):
        raise _bad_hand(cards, _THREE, _EXACTLY_3) from None


def mambo_high_strength(cards: Sequence[Card]) -> int:
    """Strength of the best three-card high hand of four cards (14.13A(j),(l))."""
    try:
        c1, c2, c3, c4 = cards
        a = _RANK_SUIT_PRIME[c1.index]
        b = _RANK_SUIT_PRIME[c2.index]
        c = _RANK_SUIT_PRIME[c3.index]
        d = _RANK_SUIT_PRIME[c4.index]
        ab = a * b
        cd = c * d
        table = _THREE_HIGH_OF
        return max(table[ab * c], table[ab * d], table[a * cd], table[b * cd])
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FOUR, _EXACTLY_4) from None


def mambo_low_strength(cards: Sequence[Card]) -> int:
    """Strength of the best six-or-better low of four cards, 0 if none (14.13A(k),(l))."""
    try:
        c1, c2, c3, c4 = cards
        a = _RANK_SUIT_PRIME[c1.index]
        b = _RANK_SUIT_PRIME[c2.index]
        c = _RANK_SUIT_PRIME[c3.index]
        d = _RANK_SUIT_PRIME[c4.index]
        ab = a * b
        cd = c * d
        get = _LOW_OF.get
        return max(get(ab * c, 0), get(ab * d, 0), get(a * cd, 0), get(b * cd, 0))
    except (AttributeError, TypeError, ValueError, IndexError):
        raise _bad_hand(cards, _FOUR, _EXACTLY_4) from None


def partial_high_strength(cards: Sequence[Card]) -> int:
    """Strength of 1-4 up-cards as a partial high hand (14.13(f); NOTES.md, High hands)."""
    key = 1
    seen = 0
    try:
        if not 1 <= len(cards) <= 4:
            raise _bad_hand(cards, _PARTIAL_COUNT, _ONE_TO_4)
        for card in cards:
            bit = 1 << card.index
            if seen & bit:
                raise _bad_hand(cards, _PARTIAL_COUNT, _ONE_TO_4)
            seen |= bit
            key *= _PRIME[card.index]
    except (AttributeError, TypeError, IndexError):
        raise _bad_hand(cards, _PARTIAL_COUNT, _ONE_TO_4) from None
    return _PARTIAL_OF[key]


# --- categories, for the engine's display and the tests --------------------------------------


def five_card_category(strength: int) -> Category:
    """The category of a five-card high strength."""
    return _FIVE_HIGH.shapes[strength].category


def deuce_to_seven_category(strength: int) -> Category:
    """The category (by the high ranking) of a deuce-to-seven strength."""
    return _DEUCE_TO_SEVEN.shapes[strength].category


def three_card_category(strength: int) -> Category:
    """The category of a three-card high strength."""
    return _THREE_HIGH.shapes[strength].category


def partial_category(strength: int) -> Category:
    """The category of a partial-hand strength."""
    return _PARTIAL.shapes[strength].category


# --- what the dealer calls --------------------------------------------------------------------


# How a dealer calls each made hand; {top} is the first called rank, {tops}
# its plural, {next}/{nexts} the second.
_CALLS: Final = {
    Category.STRAIGHT_FLUSH: "{top}-high straight flush",
    Category.FOUR_OF_A_KIND: "four {tops}",
    Category.FULL_HOUSE: "{tops} full of {nexts}",
    Category.FLUSH: "{top}-high flush",
    Category.STRAIGHT: "{top}-high straight",
    Category.THREE_OF_A_KIND: "three {tops}",
    Category.TWO_PAIR: "{tops} and {nexts}",
    Category.ONE_PAIR: "pair of {tops}",
}


@cache  # a few thousand shapes, each called the same way every time
def _describe(shape: _Shape, royal: bool) -> str:
    """A hand as a dealer calls it: "kings full of fours", "ten-high straight", "ace-king high".

    ``royal``: an ace-high straight flush of five cards is a "royal flush".
    """
    ranks = shape.called
    if shape.category is Category.HIGH_CARD:
        return "-".join(_WORD[rank] for rank in ranks[:2]) + " high"
    if royal and shape.category is Category.STRAIGHT_FLUSH and ranks[0] == ACE:
        return "royal flush"
    second = ranks[1] if len(ranks) > 1 else ranks[0]
    return _CALLS[shape.category].format(
        top=_WORD[ranks[0]], tops=_PLURAL[ranks[0]], next=_WORD[second], nexts=_PLURAL[second]
    )


_STRAIGHTS: Final = (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
_BY_INDEX: Final = attrgetter("index")  # rank-major, so descending is rank then suit


def _ace_low_index(card: Card) -> int:
    """Card.index with the ace moved below the two, for a straight the ace starts."""
    return card.index - 52 if card.rank == ACE else card.index


def _in_called_order(cards: Sequence[Card], shape: _Shape) -> tuple[Card, ...]:
    """The cards best first: bigger groups, then higher ranks, then higher suits.

    In a straight whose top is not the ace, the ace plays low and goes last.
    """
    if shape.category in _STRAIGHTS and shape.called[0] != ACE:
        return tuple(sorted(cards, key=_ace_low_index, reverse=True))
    if shape.category in _STRAIGHTS or len(shape.called) == len(cards):
        return tuple(sorted(cards, key=_BY_INDEX, reverse=True))  # no two cards share a rank
    place = {rank: position for position, rank in enumerate(shape.called)}
    return tuple(sorted(cards, key=lambda card: (place[card.rank], -card.suit)))


def _plays_ace_low(cards: Sequence[Card], shape: _Shape) -> bool:
    """A straight topped by something else than the ace holds its ace, if any, low."""
    return (
        shape.category in _STRAIGHTS
        and shape.called[0] != ACE
        and any(card.rank == ACE for card in cards)
    )


def _low_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A low's cards as the dealer calls them, highest first, the ace last (6-4-A)."""
    return tuple(sorted(cards, key=lambda card: (_low_value(card.rank), card.suit), reverse=True))


def _describe_low(strength: int) -> str:
    """A six-or-better low as called: "six-four-ace low" (NOTES.md, Six-or-better low)."""
    return "-".join(_WORD[rank] for rank in _LOW_SHAPES[strength].called) + " low"


# --- the public evaluators --------------------------------------------------------------------


def five_card_high(cards: Sequence[Card]) -> HandValue:
    """Five cards as a high hand: five-card stud's showdown (14.13(h); NOTES.md, High hands)."""
    strength = five_card_high_strength(cards)
    _require_distinct(cards, _FIVE, _EXACTLY_5)
    shape = _FIVE_HIGH.shapes[strength]
    called = _in_called_order(cards, shape)
    return HandValue(strength, called, _describe(shape, royal=True), _plays_ace_low(cards, shape))


def partial_high(cards: Sequence[Card]) -> HandValue:
    """One to four up-cards as a partial high hand, for who opens (14.13(f)).

    NOTES.md, High hands: quads > trips > two pair > pair > high card, then
    kickers; no straight or flush counts among fewer than five cards.
    """
    strength = partial_high_strength(cards)
    shape = _PARTIAL.shapes[strength]
    return HandValue(strength, _in_called_order(cards, shape), _describe(shape, royal=False))


def deuce_to_seven_low(cards: Sequence[Card]) -> HandValue:
    """Five cards as a deuce-to-seven low; greater strength is the lower hand (14.12A(l)).

    A hand without a pair, straight or flush is called by its top two cards
    ("seven-five low"); any other is called as the made hand it is.
    """
    strength = deuce_to_seven_strength(cards)
    _require_distinct(cards, _FIVE, _EXACTLY_5)
    shape = _DEUCE_TO_SEVEN.shapes[strength]
    if shape.category is Category.HIGH_CARD:
        description = "-".join(_WORD[rank] for rank in shape.called[:2]) + " low"
    else:
        description = _describe(shape, royal=True)
    return HandValue(strength, _in_called_order(cards, shape), description)


def three_card_high(cards: Sequence[Card]) -> HandValue:
    """Three cards as a three-card high hand (NOTES.md, Three-card high; 14.13A(l)1)."""
    strength = three_card_high_strength(cards)
    _require_distinct(cards, _THREE, _EXACTLY_3)
    shape = _THREE_HIGH.shapes[strength]
    called = _in_called_order(cards, shape)
    return HandValue(strength, called, _describe(shape, royal=False), _plays_ace_low(cards, shape))


def six_or_better_low(cards: Sequence[Card]) -> HandValue | None:
    """Three cards as a six-or-better low; None if they do not qualify (14.13A(k))."""
    strength = six_or_better_low_strength(cards)
    _require_distinct(cards, _THREE, _EXACTLY_3)
    if strength == 0:
        return None
    return HandValue(strength, _low_order(cards), _describe_low(strength))


def mambo_high(cards: Sequence[Card]) -> HandValue:
    """The best three-card high hand of a Mambo player's four cards (14.13A(j),(l))."""
    strength = mambo_high_strength(cards)
    _require_distinct(cards, _FOUR, _EXACTLY_4)
    best = next(
        trio for trio in combinations(cards, 3) if three_card_high_strength(trio) == strength
    )
    return three_card_high(best)


def mambo_low(cards: Sequence[Card]) -> HandValue | None:
    """The best six-or-better low three of four, chosen apart from the high (14.13A(l)).

    None when no three of the four qualify (14.13A(k)); the dealer then says
    NO_QUALIFYING_LOW.
    """
    strength = mambo_low_strength(cards)
    _require_distinct(cards, _FOUR, _EXACTLY_4)
    if strength == 0:
        return None
    best = next(
        trio for trio in combinations(cards, 3) if six_or_better_low_strength(trio) == strength
    )
    return six_or_better_low(best)
