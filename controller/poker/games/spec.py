"""A game, declared as data: the streets, the betting and the showdown of one poker game.

One engine (``controller.poker.engine``) interprets every ``GameSpec``; a game adds no
engine code. A spec says, street by street, which cards go to whom (face up,
face down, community), where the burns are, who opens each betting round and
at what bet size, whether players draw, and how the showdown divides a pot and
its odd chips. Openers are small pure functions (``controller.poker.games.openers``)
so a game whose opener rule is new brings its own without touching the engine.

Room is made for draw games (Triple Draw 2-7, 14.12A): a button that moves
after every hand, small and big blinds with the blinds' option, draws whose
discards are read on the discard reader and replaced from the shoe, a burn
before each draw, a reshuffle when the stub runs short, and the odd chip to
the first tied player clockwise from the button.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from controller.poker.cards import Card


class Face(StrEnum):
    """How a dealt card lies: face down (hole card) or face up."""

    DOWN = "down"
    UP = "up"


class BetSize(StrEnum):
    """The fixed-limit bet of a round: the small bet or the big bet of the stakes."""

    SMALL = "small"
    BIG = "big"


class ForcedBet(StrEnum):
    """How the first betting round is opened by force."""

    #: Stud: the lowest up-card brings in (14.13(d), 14.13A(d)); the next player may complete.
    BRING_IN = "bring-in"
    #: Button games: the small and big blinds post (14.10(c),(d)); the blinds keep their option.
    BLINDS = "blinds"


class OddChip(StrEnum):
    """Who receives the chips left over when tied hands cannot divide a share evenly."""

    #: The tied hand holding the highest card by rank, then suit (14.13A(j)2; five-card
    #: stud by rules-interpretation.md, Odd chips).
    HIGHEST_CARD_BY_SUIT = "highest card by suit"
    #: The tied low hand holding the lowest card, ace low, then suit, clubs lowest (14.13A(j)3).
    LOWEST_LOW_CARD_BY_SUIT = "lowest low card by suit"
    #: The first tied player clockwise from the button (rules-interpretation.md, Odd chips: triple
    #: draw).
    FIRST_LEFT_OF_BUTTON = "first tied player clockwise from the button"


class OpenerDuty(StrEnum):
    """What the seat that opens a betting round (other than by a forced bet) may do."""

    #: Bet, check or fold, like any player facing no bet.
    ANY = "bet, check or fold"
    #: Bet or check, not fold: "shall be required to bet or check" (14.13A(f),(h)).
    BET_OR_CHECK = "bet or check"
    #: Bet: "shall be required to bet" (14.13(f)); the others then fold, call or raise (14.13(e)).
    BET = "bet"


@dataclass(frozen=True, slots=True)
class SeatView:
    """What an opener rule may look at: one live seat and its cards, in dealing order."""

    seat: int
    up_cards: tuple[Card, ...]


#: Chooses the seat that opens a betting round and says why, in the dealer's words
#: ("lowest up-card 2 of clubs"). ``seats`` are the live seats in order from the
#: dealer's (or button's) left, so "ties to the player closest to the dealer's
#: left" is "the first best in ``seats``"; ``community`` are the board cards.
Opener = Callable[[Sequence[SeatView], Sequence[Card]], tuple[int, str]]


@dataclass(frozen=True, slots=True)
class BettingRound:
    """One fixed-limit betting round."""

    size: BetSize
    #: The rule that names the first seat to act; for the forced-bet round of a
    #: bring-in game it names the bring-in.
    opener: Opener
    #: Whether this round starts with the forced bet (bring-in or blinds).
    forced: bool = False
    #: What the opener may do, and the subsection that says so.
    opener_duty: OpenerDuty = OpenerDuty.ANY
    duty_rule: str = ""


@dataclass(frozen=True, slots=True)
class Draw:
    """A draw: each live player in turn discards over the discard reader and is dealt replacements.

    Triple Draw 2-7 (14.12A(f),(h),(j)): the players still in draw in turn from
    the button's left; each passes its discards over the discard reader and
    presses draw done, then is dealt as many cards face down.
    """

    #: Burn before the first replacement of the draw (14.12A(f); rules-interpretation.md, Burns and
    #: draws).
    burn: bool = True
    #: When the stub runs short, the discards of everyone but the drawing player are
    #: reshuffled (14.12A(f)).
    reshuffle_discards: bool = True


@dataclass(frozen=True, slots=True)
class Street:
    """One street: the burn, the cards dealt, then (optionally a draw and) a betting round."""

    name: str
    #: Burn the top card before the street's first card (14.13(f),(g), 14.13A(f),(h)).
    burn: bool
    #: One entry per round of cards dealt to every live player, in order, from the
    #: first live player left of the dealer (14.13(c), 14.13A(c),(f)).
    deal: tuple[Face, ...]
    betting: BettingRound
    #: Community cards dealt face up to the centre after the players' cards (14.13A(h)).
    community: int = 0
    draw: Draw | None = None


class Rated(Protocol):
    """What the engine reads from an evaluator's answer (``controller.poker.hands.HandValue``)."""

    @property
    def strength(self) -> int:
        """Greater wins, equal ties."""

    @property
    def cards(self) -> tuple[Card, ...]:
        """The cards that make the hand, best first."""

    @property
    def description(self) -> str:
        """The hand as a dealer calls it."""

    @property
    def ace_low(self) -> bool:
        """An ace among ``cards`` plays low (a 5-4-3-2-A or 3-2-A straight)."""


#: An evaluator of ``controller.poker.hands``: a player's cards (own and community) to a
#: value, or None when the hand does not qualify (six-or-better low).
Evaluator = Callable[[Sequence[Card]], Rated | None]


@dataclass(frozen=True, slots=True)
class ShowdownShare:
    """One share of the pot at the showdown: high, or low."""

    name: str
    evaluate: Evaluator
    odd_chip: OddChip
    #: The subsection the odd-chip rule comes from, for the settlement record.
    odd_chip_rule: str
    #: Whether this share's evaluator may find no qualifying hand (six or better, 14.13A(k)).
    may_not_qualify: bool = False
    #: More than one odd chip (three or more tied hands): one at a time in the rule's order,
    #: no player receiving more than one (rules-interpretation.md, Odd chips: five-card stud, triple
    #: draw); False gives the share's whole excess to the one player the rule names (Mambo,
    #: 14.13A(j)1-3).
    odd_chips_one_at_a_time: bool = True


@dataclass(frozen=True, slots=True)
class Showdown:
    """How the pot is divided at the showdown.

    With two shares the pot is split in halves; the chip the halves cannot share
    goes to the first share (the high hand, 14.13A(j)1), and a share nobody
    qualifies for goes to the other (14.13A(k)).
    """

    shares: tuple[ShowdownShare, ...]
    #: The subsection that gives the split's odd chip to the first share (14.13A(j)1).
    split_rule: str = ""

    def __post_init__(self) -> None:
        if not 1 <= len(self.shares) <= 2:
            raise ValueError(
                f"a showdown has one share or two (high and low), not {len(self.shares)}"
            )
        if self.shares[0].may_not_qualify:
            raise ValueError("the first share (high) must always have a winner")


@dataclass(frozen=True, slots=True)
class GameSpec:
    """A whole game, as the procedures declare it."""

    key: str
    #: The game's one display name, in title case ("Five-Card Stud"): every screen, command
    #: and page that names the game shows this (docs/display.md, The table's words).
    name: str
    #: The procedure the spec follows, for the record ("N.J.A.C. 13:69F-14.13").
    rule: str
    max_seats: int
    forced_bet: ForcedBet
    streets: tuple[Street, ...]
    showdown: Showdown
    #: Button games move the button one occupied seat clockwise after every hand (14.10(c)).
    button_moves: bool = False
    #: A hand voided by a misdeal is dealt again with the button where it was, so the same
    #: players post the same blinds (docs/rules-interpretation.md, Misdeal; rules-interpretation.md,
    #: Integrity, says only that the hand is void). False moves it as after any hand.
    button_stays_after_void: bool = True
    #: Whether the bring-in may be answered by completing it to the small bet.
    completes_bring_in: bool = True

    def __post_init__(self) -> None:
        if not self.streets:
            raise ValueError(f"game {self.key!r}: a game needs at least one street")
        if not self.streets[0].deal:
            raise ValueError(f"game {self.key!r}: the first street must deal cards")
        if self.streets[0].burn:
            raise ValueError(f"game {self.key!r}: the first street is not burned")
        for street in self.streets[1:]:
            if street.betting.forced:
                raise ValueError(f"game {self.key!r}: only the first round has the forced bet")

    @property
    def has_draws(self) -> bool:
        """Whether any street of the game is a draw."""
        return any(street.draw is not None for street in self.streets)
