"""What the table tells the controller: cards the shoe read and buttons the dealer pressed.

These are the engine's only inputs. The drivers turn device sentences into
them (an RFID tag is looked up in the active deck's enrollment file); hand
scripts and the journal replay them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from controller.poker.cards import Card


class ReadPoint(StrEnum):
    """Where the shoe read a card."""

    #: Every card that leaves the shoe passes the dealing slot's antenna.
    DEALING_SLOT = "slot"
    #: Draw discards and folded hands are passed over this reader into the muck.
    DISCARD_READER = "discard"


class Button(StrEnum):
    """The dealer panel's buttons, by the name the panel, scripts and journal use."""

    NEW_HAND = "new_hand"
    FOLD = "fold"
    CHECK_CALL = "check_call"
    BET_RAISE = "bet_raise"  # completing a bring-in included
    ALL_IN = "all_in"
    DRAW_DONE = "draw_done"  # with no discards passed over the reader: stand pat
    MISDEAL = "misdeal"
    UNDO = "undo"


@dataclass(frozen=True, slots=True)
class CardRead:
    """A card of the active deck read at one of the shoe's read points."""

    card: Card
    point: ReadPoint = ReadPoint.DEALING_SLOT


#: A ``ForeignTag``'s reason for a tag its reader listed together with another one: two
#: cards pitched at once, neither of which the table can place (rules-interpretation.md,
#: Integrity). The reason never names the card: its twin may be a hole card.
TOGETHER: Final = "read together with another card in the reader's field"


@dataclass(frozen=True, slots=True)
class ForeignTag:
    """A tag the shoe read that is not a card of the active deck, or not one alone.

    ``tag`` is the RFID UID as hex; ``reason`` says what it is instead ("not
    enrolled in either deck", "a card of the other deck, Kd"), or ``TOGETHER``: a tag read
    together with another one (two cards pitched at once).
    """

    tag: str
    reason: str
    point: ReadPoint = ReadPoint.DEALING_SLOT

    @property
    def together(self) -> bool:
        """Whether the tag was read together with another one (two cards at once), not a tag
        of no card in play: the journal's tag record says it by its reason, ``TOGETHER``."""
        return self.reason == TOGETHER


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """The dealer pressed a button on the panel."""

    button: Button


TableInput = CardRead | ForeignTag | ButtonPress
