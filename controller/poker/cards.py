"""Playing cards: ranks, suits, the 52-card deck and the card codes a dealer reads.

Card codes are rank then suit, ``As Kh Td 2c`` (rules-interpretation.md, Cards); ``10d`` is
accepted as input for ``Td``. Every card is one of 52 interned objects, so
identity, equality and hashing are cheap and each card carries a dense
``index`` (0..51) that evaluators use for table look-ups.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final


class Rank(IntEnum):
    """Card rank, valued by its pips; the ace is high (14) by default (rules-interpretation.md,
    Cards)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def char(self) -> str:
        """The one-character code of the rank (``A``, ``T``, ``2``)."""
        return _RANK_CHARS[self]

    @property
    def printed(self) -> str:
        """The rank as the card's corner prints it, as every screen shows it: ``10`` for the
        ten, else the code's character (``A``, ``9``). A dealer and a camera read ``10``
        as on the card; ``T`` is only the code's (docs/display.md, The table's words)."""
        return "10" if self is Rank.TEN else _RANK_CHARS[self]

    @property
    def spoken(self) -> str:
        """The rank as a dealer says it (``ace``, ``ten``, ``deuce``)."""
        return _RANK_WORDS[self]

    @property
    def spoken_plural(self) -> str:
        """The plural a dealer says (``aces``, ``sixes``, ``deuces``)."""
        return "sixes" if self is Rank.SIX else self.spoken + "s"


class Suit(IntEnum):
    """Card suit, valued by its rank in SUIT_ORDER: clubs lowest, spades highest."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        """The one-character code of the suit (``s``, ``h``, ``d``, ``c``)."""
        return _SUIT_CHARS[self]

    @property
    def symbol(self) -> str:
        """The suit's symbol as a screen shows it (``♠``, ``♥``, ``♦``, ``♣``)."""
        return _SUIT_SYMBOLS[self]

    @property
    def spoken(self) -> str:
        """The suit as a dealer says it (``spades``)."""
        return self.name.lower()


#: Suits from highest to lowest: spades, hearts, diamonds, clubs. 14.13A(d) and
#: 14.13A(j)4 state it for Mambo; five-card stud's 14.13(d) points to 14.9(d),
#: which rules-interpretation.md, Cards settles to the same order. Suits never rank hands;
#: they only break the ties the procedures name (forced bet, openers, odd chips).
SUIT_ORDER: Final[tuple[Suit, ...]] = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)

_RANK_CHARS: Final[dict[Rank, str]] = {
    Rank.TWO: "2",
    Rank.THREE: "3",
    Rank.FOUR: "4",
    Rank.FIVE: "5",
    Rank.SIX: "6",
    Rank.SEVEN: "7",
    Rank.EIGHT: "8",
    Rank.NINE: "9",
    Rank.TEN: "T",
    Rank.JACK: "J",
    Rank.QUEEN: "Q",
    Rank.KING: "K",
    Rank.ACE: "A",
}
_RANK_WORDS: Final[dict[Rank, str]] = {
    Rank.TWO: "deuce",
    Rank.THREE: "three",
    Rank.FOUR: "four",
    Rank.FIVE: "five",
    Rank.SIX: "six",
    Rank.SEVEN: "seven",
    Rank.EIGHT: "eight",
    Rank.NINE: "nine",
    Rank.TEN: "ten",
    Rank.JACK: "jack",
    Rank.QUEEN: "queen",
    Rank.KING: "king",
    Rank.ACE: "ace",
}
_SUIT_CHARS: Final[dict[Suit, str]] = {
    Suit.SPADES: "s",
    Suit.HEARTS: "h",
    Suit.DIAMONDS: "d",
    Suit.CLUBS: "c",
}
_SUIT_SYMBOLS: Final[dict[Suit, str]] = {
    Suit.SPADES: "♠",
    Suit.HEARTS: "♥",
    Suit.DIAMONDS: "♦",
    Suit.CLUBS: "♣",
}
_RANK_BY_TEXT: Final[dict[str, Rank]] = {
    **{char: rank for rank, char in _RANK_CHARS.items()},
    **{char.lower(): rank for rank, char in _RANK_CHARS.items()},
    "10": Rank.TEN,
}
_SUIT_BY_TEXT: Final[dict[str, Suit]] = {
    **{char: suit for suit, char in _SUIT_CHARS.items()},
    **{char.upper(): suit for suit, char in _SUIT_CHARS.items()},
}

EXPECTED_CARD_FORM: Final = (
    "a rank (A K Q J T 9 8 7 6 5 4 3 2, or 10) followed by a suit (s h d c), e.g. 'As', 'Td', '10d'"
)


class CardError(ValueError):
    """Card text that is not a card code; the message names the text and the expected form."""

    def __init__(self, text: str, reason: str = "") -> None:
        self.text = text
        detail = f" ({reason})" if reason else ""
        super().__init__(f"not a card: {text!r}{detail}; expected {EXPECTED_CARD_FORM}")


class Card:
    """One of the 52 cards. Instances are interned: ``Card(Rank.ACE, Suit.SPADES) is AS``."""

    __slots__ = ("code", "index", "rank", "suit")
    _interned: dict[tuple[Rank, Suit], Card] = {}  # noqa: RUF012 -- the class-wide intern table

    rank: Rank
    suit: Suit
    index: int
    code: str

    def __new__(cls, rank: Rank, suit: Suit) -> Card:
        try:
            return cls._interned[(rank, suit)]
        except KeyError:
            pass
        card = super().__new__(cls)
        object.__setattr__(card, "rank", Rank(rank))
        object.__setattr__(card, "suit", Suit(suit))
        # Dense index: rank-major, so ``index // 4`` orders by rank and ``index % 4`` by suit.
        object.__setattr__(card, "index", (int(rank) - 2) * 4 + int(suit))
        object.__setattr__(card, "code", _RANK_CHARS[Rank(rank)] + _SUIT_CHARS[Suit(suit)])
        cls._interned[(Rank(rank), Suit(suit))] = card
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Card is immutable; cannot set {name}")

    def __reduce__(self) -> tuple[type[Card], tuple[Rank, Suit]]:
        return (Card, (self.rank, self.suit))

    def __repr__(self) -> str:
        return f"Card({self.code!r})"

    def __str__(self) -> str:
        return self.code

    @property
    def face(self) -> str:
        """The card as every screen and announcement shows it: the rank as printed on the
        card, then the suit's symbol (``A♠``, ``10♦``)."""
        return self.rank.printed + self.suit.symbol

    @property
    def spoken(self) -> str:
        """The card as a dealer says it (``2 of clubs``, ``ace of spades``)."""
        rank = str(int(self.rank)) if self.rank <= Rank.TEN else self.rank.spoken
        return f"{rank} of {self.suit.spoken}"

    @classmethod
    def parse(cls, text: str) -> Card:
        """Parse one card code (``As``, ``td``, ``10d``); raise CardError naming the text."""
        stripped = text.strip()
        if len(stripped) not in (2, 3):
            raise CardError(text, "wrong length")
        rank = _RANK_BY_TEXT.get(stripped[:-1])
        if rank is None:
            raise CardError(text, f"{stripped[:-1]!r} is not a rank")
        suit = _SUIT_BY_TEXT.get(stripped[-1])
        if suit is None:
            raise CardError(text, f"{stripped[-1]!r} is not a suit")
        return cls(rank, suit)


#: The 52-card deck in new-deck order by index: 2c 2d 2h 2s 3c ... As.
DECK: Final[tuple[Card, ...]] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)


def parse_cards(text: str) -> tuple[Card, ...]:
    """Parse whitespace- or comma-separated card codes (``"As Td 2c"``)."""
    return tuple(Card.parse(part) for part in text.replace(",", " ").split())


def format_cards(cards: Iterable[Card]) -> str:
    """Print cards as the codes a dealer reads, separated by spaces."""
    return " ".join(card.code for card in cards)
