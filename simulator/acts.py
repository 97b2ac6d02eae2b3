"""The dealer's acts and their words: what a bot does at the table, one act at a time.

An act is a frozen value (shuffle and cut, deal, discard, press, restock, rebuy, a foreign
tag); ``table_input`` is the engine input an act makes the devices report and ``feed``
performs an act on any ``Table`` directly. ``HandRecord`` is one hand as a bot produced it
and the settlement it expects; ``describe_act`` and ``describe_record`` say both in a
dealer's words. Pure: no I/O, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from controller.poker.cards import DECK, Card
from controller.poker.engine import Table
from controller.poker.engine.events import (
    Event,
    HandSettled,
    HandVoided,
    PotResult,
)
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput
from controller.poker.words import counted

# --- Acts: what the dealer does -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Shuffle:
    """Put ``deck`` in play shuffled from ``seed``, then cut ``cut`` cards off the top
    (13:69F-14.5; rules-interpretation.md, Shuffle, cut and decks: at least ten)."""

    deck: str
    seed: int
    cut: int


@dataclass(frozen=True, slots=True)
class Deal:
    """Deal a card through the shoe's slot: the top card, which is ``card``; or, when
    ``named``, ``card`` from wherever it is (a script names its cards, not their order)."""

    card: Card
    named: bool = False


@dataclass(frozen=True, slots=True)
class Discard:
    """Pass ``card`` over the discard reader into the muck (a draw's discard, a folded hand)."""

    card: Card


@dataclass(frozen=True, slots=True)
class Press:
    """Press a button on the dealer's panel."""

    button: Button


@dataclass(frozen=True, slots=True)
class Restock:
    """Put the reshuffled discards, in this order, under the stub (14.12A(f))."""

    cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class Rebuy:
    """Sell ``seat`` ``chips`` between hands (the engine learns it by ``Table.rebuy``)."""

    seat: int
    chips: int


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag that is no card of the active deck passes a reader (scripts of incidents)."""

    uid: str
    point: ReadPoint
    reason: str


Act = Shuffle | Deal | Discard | Press | Restock | Rebuy | Tag


# The inputs are frozen values: one of each, made once (a bot makes millions of them).
_SLOT_READS: Final = {card: CardRead(card, ReadPoint.DEALING_SLOT) for card in DECK}
_DISCARD_READS: Final = {card: CardRead(card, ReadPoint.DISCARD_READER) for card in DECK}
PRESSES: Final = {button: ButtonPress(button) for button in Button}


def table_input(act: Act) -> TableInput | None:
    """The engine input an act makes the devices report; None for acts the devices do not
    report (a shuffle, a restock, a rebuy)."""
    kind = type(act)
    if kind is Deal:
        return _SLOT_READS[act.card]  # type: ignore[union-attr]  # kind checked: a Deal
    if kind is Press:
        return PRESSES[act.button]  # type: ignore[union-attr]  # kind checked: a Press
    if kind is Discard:
        return _DISCARD_READS[act.card]  # type: ignore[union-attr]  # kind checked: a Discard
    if isinstance(act, Tag):
        return ForeignTag(act.uid, act.reason, act.point)
    return None


def feed(table: Table, act: Act) -> list[Event]:
    """Perform ``act`` on ``table`` as the controller would see it; return the events."""
    if isinstance(act, Rebuy):
        table.rebuy(act.seat, act.chips)
        return []
    inp = table_input(act)
    return [] if inp is None else table.apply(inp)


# --- The record of a hand -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One hand as the bot produced it and the settlement it expects.

    ``acts`` runs from the hand's shuffle (and the rebuys before it) to its last
    input; ``inputs`` are the engine inputs among them, in order; ``settlement``
    is the ``HandSettled`` (every seat's net, the pots, the rake) or ``HandVoided``
    the bot's own table computed.
    """

    hand: int
    game: str
    acts: tuple[Act, ...]
    inputs: tuple[TableInput, ...]
    settlement: HandSettled | HandVoided

    @property
    def net(self) -> dict[int, int]:
        """Every dealt seat's net result (0 for all in a voided hand)."""
        if isinstance(self.settlement, HandVoided):
            return {a.seat: 0 for a in self.settlement.returned}
        return {a.seat: a.amount for a in self.settlement.net}

    @property
    def pots(self) -> tuple[PotResult, ...]:
        """The pots as settled (none in a voided hand)."""
        return self.settlement.pots if isinstance(self.settlement, HandSettled) else ()

    @property
    def rake(self) -> int:
        """The chips the house took from this hand."""
        return self.settlement.rake if isinstance(self.settlement, HandSettled) else 0

    def differences(self, actual: HandSettled | HandVoided | None) -> list[str]:
        """What differs between the expected settlement and ``actual`` (empty: they match)."""
        expected = self.settlement
        if actual is None:
            return [f"hand {self.hand}: expected {expected.kind}, the controller settled nothing"]
        if type(actual) is not type(expected):
            return [f"hand {self.hand}: expected {expected.kind}, got {actual.kind}"]
        out = []
        for name in expected.__dataclass_fields__:
            want, got = getattr(expected, name), getattr(actual, name)
            if want != got:
                out.append(f"hand {self.hand}: {name} expected {want!r}, got {got!r}")
        return out


def describe_act(act: Act) -> str:
    """An act in a dealer's words, for a console or a log."""
    match act:
        case Shuffle():
            text = f"shuffle deck {act.deck} (seed {act.seed}), cut {act.cut}"
        case Deal():
            text = f"deal {act.card.code}" + (" (by name)" if act.named else "")
        case Discard():
            text = f"discard {act.card.code}"
        case Press():
            text = f"press {act.button.value}"
        case Restock():
            text = f"reshuffled discards under the stub: {' '.join(c.code for c in act.cards)}"
        case Rebuy():
            text = f"seat {act.seat} buys {counted(act.chips, 'chip')}"
        case Tag():
            text = f"tag {act.uid} at the {act.point.value} ({act.reason})"
    return text


def describe_record(record: HandRecord) -> str:
    """A hand's expected settlement in one line: every seat's net, the pots and the rake."""
    if isinstance(record.settlement, HandVoided):
        return f"hand {record.hand}: void, every bet returned"
    nets = " ".join(f"{seat}:{net:+d}" for seat, net in sorted(record.net.items()))
    pots = " ".join(f"{pot.name} {pot.amount}" for pot in record.pots)
    return f"hand {record.hand}: net {nets}; pots {pots}; rake {record.rake}"
