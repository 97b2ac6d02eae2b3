"""Hand evaluators for the three games' showdowns and the stud openers.

One convention for every evaluator: a ``HandValue`` whose greater ``strength``
wins and whose equal strengths tie, lows included (a better low has a greater
strength), so the engine takes the max. Strengths compare only within one
evaluator.

Speed comes from the tables of ``controller.poker.hand_tables``, built once, at the first
evaluation (about 0.15 s; ``_Unbuilt`` below): a hand's ranks are keyed by the product of one
prime per rank, and a flush is told apart by the key's sign (five cards) or by a second prime
per suit (three cards). Each evaluator has an integer fast path (``*_strength``) beside the
public function; both reject a wrong count or something that is not a card with HandError, and
the public functions also reject a card given twice.

Rules: rules-interpretation.md, Cards, High hands, Three-card high, Six-or-better low
and Deuce-to-seven low; 14.13(f),(h), 14.13A(j)-(l), 14.12A(l).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from operator import attrgetter
from typing import Final, TypeVar, overload

from controller.poker.cards import Card, format_cards
from controller.poker.hand_tables import (
    ACE,
    CARD_PRIME,
    CARD_SUIT_PRIME,
    RANK_PLURAL,
    RANK_WORD,
    Category,
    Shape,
    Tables,
    low_value,
    tables,
)

_T = TypeVar("_T")

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
    #: An ace in ``cards`` plays low: a 5-4-3-2-A or 3-2-A straight (rules-interpretation.md, High
    #: hands; Three-card high). The odd chip's highest card is then the top of the straight.
    ace_low: bool = False


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


# --- the tables the fast paths read ----------------------------------------------------------


class _Unbuilt(dict[int, int]):
    """A table the fast paths read, before the first evaluation: its first lookup builds every
    table (``hand_tables.tables``) and puts each in this module's globals in place of its
    ``_Unbuilt``, so the fast paths read plain dicts after it, as they would had the tables
    been built at import, and a process that evaluates no hand never builds them
    (docs/performance.md, Process start)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def _built(self) -> dict[int, int]:
        _use_built_tables()
        return _TABLES[self.name](tables())

    def __missing__(self, key: int) -> int:
        return self._built()[key]

    @overload
    def get(self, key: int, default: None = None, /) -> int | None: ...
    @overload
    def get(self, key: int, default: int, /) -> int: ...
    @overload
    def get(self, key: int, default: _T, /) -> int | _T: ...
    def get(self, key: int, default: object = None, /) -> object:
        return self._built().get(key, default)


#: The tables the fast paths read, by their name here, and where each is in the built tables.
_TABLES: Final[dict[str, Callable[[Tables], dict[int, int]]]] = {
    "FIVE_HIGH_OF": lambda built: built.five_high.strength_of,
    "DEUCE_TO_SEVEN_OF": lambda built: built.deuce_to_seven.strength_of,
    "PARTIAL_OF": lambda built: built.partial.strength_of,
    "THREE_HIGH_OF": lambda built: built.three_high_of,
    "LOW_OF": lambda built: built.low_of,
}
FIVE_HIGH_OF: dict[int, int] = _Unbuilt("FIVE_HIGH_OF")
DEUCE_TO_SEVEN_OF: dict[int, int] = _Unbuilt("DEUCE_TO_SEVEN_OF")
PARTIAL_OF: dict[int, int] = _Unbuilt("PARTIAL_OF")
THREE_HIGH_OF: dict[int, int] = _Unbuilt("THREE_HIGH_OF")
LOW_OF: dict[int, int] = _Unbuilt("LOW_OF")


def _use_built_tables() -> None:
    """The fast paths' tables, built, in this module's globals (where they read them)."""
    built = tables()
    globals().update({name: pick(built) for name, pick in _TABLES.items()})


# --- fast integer paths -----------------------------------------------------------------------
# Each returns its public function's strength and raises HandError for a wrong
# count or something that is not a card. Unlike the public functions they do
# not look for a card given twice: that check costs as much as the evaluation,
# a deck cannot deal a card twice, and a tag read twice is caught by the
# integrity checks (rules-interpretation.md, Integrity). The unpacking is spelled out because
# this is the hot path.


def five_card_high_strength(cards: Sequence[Card]) -> int:
    """Strength of five cards as a high hand (14.13(h); rules-interpretation.md, High hands)."""
    try:
        c1, c2, c3, c4, c5 = cards
        a, b, c, d, e = c1.index, c2.index, c3.index, c4.index, c5.index
        if a & 3 == b & 3 == c & 3 == d & 3 == e & 3:  # Card.index % 4 is the suit
            return FIVE_HIGH_OF[
                -CARD_PRIME[a] * CARD_PRIME[b] * CARD_PRIME[c] * CARD_PRIME[d] * CARD_PRIME[e]
            ]
        return FIVE_HIGH_OF[
            CARD_PRIME[a] * CARD_PRIME[b] * CARD_PRIME[c] * CARD_PRIME[d] * CARD_PRIME[e]
        ]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FIVE, _EXACTLY_5) from None


def deuce_to_seven_strength(cards: Sequence[Card]) -> int:
    """Strength of five cards as a deuce-to-seven low; greater is lower (14.12A(l))."""
    try:
        c1, c2, c3, c4, c5 = cards
        a, b, c, d, e = c1.index, c2.index, c3.index, c4.index, c5.index
        if a & 3 == b & 3 == c & 3 == d & 3 == e & 3:  # Card.index % 4 is the suit
            return DEUCE_TO_SEVEN_OF[
                -CARD_PRIME[a] * CARD_PRIME[b] * CARD_PRIME[c] * CARD_PRIME[d] * CARD_PRIME[e]
            ]
        return DEUCE_TO_SEVEN_OF[
            CARD_PRIME[a] * CARD_PRIME[b] * CARD_PRIME[c] * CARD_PRIME[d] * CARD_PRIME[e]
        ]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FIVE, _EXACTLY_5) from None


def three_card_high_strength(cards: Sequence[Card]) -> int:
    """Strength of three cards as a three-card high hand (rules-interpretation.md, Three-card
    high)."""
    try:
        c1, c2, c3 = cards
        return THREE_HIGH_OF[
            CARD_SUIT_PRIME[c1.index] * CARD_SUIT_PRIME[c2.index] * CARD_SUIT_PRIME[c3.index]
        ]
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _THREE, _EXACTLY_3) from None


def six_or_better_low_strength(cards: Sequence[Card]) -> int:
    """Strength of three cards as a six-or-better low, 0 if it does not qualify (14.13A(k))."""
    try:
        c1, c2, c3 = cards
        return LOW_OF.get(
            CARD_SUIT_PRIME[c1.index] * CARD_SUIT_PRIME[c2.index] * CARD_SUIT_PRIME[c3.index],
            0,
        )
    except (AttributeError, TypeError, ValueError, IndexError):
        raise _bad_hand(cards, _THREE, _EXACTLY_3) from None


def mambo_high_strength(cards: Sequence[Card]) -> int:
    """Strength of the best three-card high hand of four cards (14.13A(j),(l))."""
    try:
        c1, c2, c3, c4 = cards
        a = CARD_SUIT_PRIME[c1.index]
        b = CARD_SUIT_PRIME[c2.index]
        c = CARD_SUIT_PRIME[c3.index]
        d = CARD_SUIT_PRIME[c4.index]
        ab = a * b
        cd = c * d
        table = THREE_HIGH_OF
        return max(table[ab * c], table[ab * d], table[a * cd], table[b * cd])
    except (AttributeError, TypeError, ValueError, IndexError, KeyError):
        raise _bad_hand(cards, _FOUR, _EXACTLY_4) from None


def mambo_low_strength(cards: Sequence[Card]) -> int:
    """Strength of the best six-or-better low of four cards, 0 if none (14.13A(k),(l))."""
    try:
        c1, c2, c3, c4 = cards
        a = CARD_SUIT_PRIME[c1.index]
        b = CARD_SUIT_PRIME[c2.index]
        c = CARD_SUIT_PRIME[c3.index]
        d = CARD_SUIT_PRIME[c4.index]
        ab = a * b
        cd = c * d
        get = LOW_OF.get
        return max(get(ab * c, 0), get(ab * d, 0), get(a * cd, 0), get(b * cd, 0))
    except (AttributeError, TypeError, ValueError, IndexError):
        raise _bad_hand(cards, _FOUR, _EXACTLY_4) from None


def partial_high_strength(cards: Sequence[Card]) -> int:
    """Strength of 1-4 up-cards as a partial high hand (14.13(f); rules-interpretation.md, High
    hands)."""
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
            key *= CARD_PRIME[card.index]
    except (AttributeError, TypeError, IndexError):
        raise _bad_hand(cards, _PARTIAL_COUNT, _ONE_TO_4) from None
    return PARTIAL_OF[key]


# --- categories, for the engine's display and the tests --------------------------------------


def five_card_category(strength: int) -> Category:
    """The category of a five-card high strength."""
    return tables().five_high.shapes[strength].category


def deuce_to_seven_category(strength: int) -> Category:
    """The category (by the high ranking) of a deuce-to-seven strength."""
    return tables().deuce_to_seven.shapes[strength].category


def three_card_category(strength: int) -> Category:
    """The category of a three-card high strength."""
    return tables().three_high.shapes[strength].category


def partial_category(strength: int) -> Category:
    """The category of a partial-hand strength."""
    return tables().partial.shapes[strength].category


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
def _describe(shape: Shape, royal: bool) -> str:
    """A hand as a dealer calls it: "kings full of fours", "ten-high straight", "ace-king high".

    ``royal``: an ace-high straight flush of five cards is a "royal flush".
    """
    ranks = shape.called
    if shape.category is Category.HIGH_CARD:
        return "-".join(RANK_WORD[rank] for rank in ranks[:2]) + " high"
    if royal and shape.category is Category.STRAIGHT_FLUSH and ranks[0] == ACE:
        return "royal flush"
    second = ranks[1] if len(ranks) > 1 else ranks[0]
    return _CALLS[shape.category].format(
        top=RANK_WORD[ranks[0]],
        tops=RANK_PLURAL[ranks[0]],
        next=RANK_WORD[second],
        nexts=RANK_PLURAL[second],
    )


_STRAIGHTS: Final = (Category.STRAIGHT, Category.STRAIGHT_FLUSH)
_BY_INDEX: Final = attrgetter("index")  # rank-major, so descending is rank then suit


def _ace_low_index(card: Card) -> int:
    """Card.index with the ace moved below the two, for a straight the ace starts."""
    return card.index - 52 if card.rank == ACE else card.index


def _in_called_order(cards: Sequence[Card], shape: Shape) -> tuple[Card, ...]:
    """The cards best first: bigger groups, then higher ranks, then higher suits.

    In a straight whose top is not the ace, the ace plays low and goes last.
    """
    if shape.category in _STRAIGHTS and shape.called[0] != ACE:
        return tuple(sorted(cards, key=_ace_low_index, reverse=True))
    if shape.category in _STRAIGHTS or len(shape.called) == len(cards):
        return tuple(sorted(cards, key=_BY_INDEX, reverse=True))  # no two cards share a rank
    place = {rank: position for position, rank in enumerate(shape.called)}
    return tuple(sorted(cards, key=lambda card: (place[card.rank], -card.suit)))


def _plays_ace_low(cards: Sequence[Card], shape: Shape) -> bool:
    """A straight topped by something else than the ace holds its ace, if any, low."""
    return (
        shape.category in _STRAIGHTS
        and shape.called[0] != ACE
        and any(card.rank == ACE for card in cards)
    )


def _low_order(cards: Iterable[Card]) -> tuple[Card, ...]:
    """A low's cards as the dealer calls them, highest first, the ace last (6-4-A)."""
    return tuple(sorted(cards, key=lambda card: (low_value(card.rank), card.suit), reverse=True))


def _describe_low(strength: int) -> str:
    """A six-or-better low as called: "six-four-ace low" (rules-interpretation.md, Six-or-better
    low)."""
    return "-".join(RANK_WORD[rank] for rank in tables().low_shapes[strength].called) + " low"


# --- the public evaluators --------------------------------------------------------------------


def five_card_high(cards: Sequence[Card]) -> HandValue:
    """Five cards as a high hand: five-card stud's showdown (14.13(h); rules-interpretation.md, High
    hands)."""
    strength = five_card_high_strength(cards)
    _require_distinct(cards, _FIVE, _EXACTLY_5)
    shape = tables().five_high.shapes[strength]
    called = _in_called_order(cards, shape)
    return HandValue(strength, called, _describe(shape, royal=True), _plays_ace_low(cards, shape))


def partial_high(cards: Sequence[Card]) -> HandValue:
    """One to four up-cards as a partial high hand, for who opens (14.13(f)).

    rules-interpretation.md, High hands: quads > trips > two pair > pair > high card, then
    kickers; no straight or flush counts among fewer than five cards.
    """
    strength = partial_high_strength(cards)
    shape = tables().partial.shapes[strength]
    return HandValue(strength, _in_called_order(cards, shape), _describe(shape, royal=False))


def deuce_to_seven_low(cards: Sequence[Card]) -> HandValue:
    """Five cards as a deuce-to-seven low; greater strength is the lower hand (14.12A(l)).

    A hand without a pair, straight or flush is called by its top two cards
    ("seven-five low"); any other is called as the made hand it is.
    """
    strength = deuce_to_seven_strength(cards)
    _require_distinct(cards, _FIVE, _EXACTLY_5)
    shape = tables().deuce_to_seven.shapes[strength]
    if shape.category is Category.HIGH_CARD:
        description = "-".join(RANK_WORD[rank] for rank in shape.called[:2]) + " low"
    else:
        description = _describe(shape, royal=True)
    return HandValue(strength, _in_called_order(cards, shape), description)


def three_card_high(cards: Sequence[Card]) -> HandValue:
    """Three cards as a three-card high hand (rules-interpretation.md, Three-card high;
    14.13A(l)1)."""
    strength = three_card_high_strength(cards)
    _require_distinct(cards, _THREE, _EXACTLY_3)
    shape = tables().three_high.shapes[strength]
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
