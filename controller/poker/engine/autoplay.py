"""Play whole hands through a Table from a deck order and a chooser of actions.

The simulator, the property tests and the benchmark drive the engine with
this: it answers every ``CardExpected`` with the next card of ``deck`` at the
dealing slot and every ``ActionRequired`` with the option ``choose`` picks.
It adds no randomness of its own; the caller's deck order and chooser decide.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import chain

from controller.poker.cards import Card
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardExpected,
    DiscardsReshuffled,
    DrawExpected,
    Event,
    NewHandExpected,
    Option,
    Refused,
)
from controller.poker.engine.gametable import Table
from controller.poker.inputs import Button, ButtonPress, CardRead, ReadPoint, TableInput

Chooser = Callable[[ActionRequired], Option]
#: Picks the cards a drawing player discards, from the hand it holds now.
Discarder = Callable[[DrawExpected, tuple[Card, ...]], Sequence[Card]]


def stand_pat(pending: DrawExpected, hand: tuple[Card, ...]) -> Sequence[Card]:
    """The default draw: keep every card."""
    del pending, hand
    return ()


_NEW_HAND = ButtonPress(Button.NEW_HAND)
_STOPS = (Refused, Alarm)
_DRAW_DONE = ButtonPress(Button.DRAW_DONE)
_PRESS = {button.value: ButtonPress(button) for button in Button}
_DISCARD = ReadPoint.DISCARD_READER


def play_hand(
    table: Table,
    deck: Sequence[Card],
    choose: Chooser,
    record: list[TableInput] | None = None,
    discard: Discarder = stand_pat,
) -> list[Event]:
    """Play one hand from ``new_hand`` to its settlement; return every event.

    ``record`` (when given) receives the inputs, so a failing hand can be
    written out as a script. Raises RuntimeError if the table refuses an input
    or raises an alarm, or if the deck runs out: both mean a bug in the caller
    or in the engine. In a draw, ``discard`` picks the cards passed over the discard
    reader before draw done.
    """
    events: list[Event] = []
    cards: Iterator[Card] = iter(deck)
    inp: TableInput = _NEW_HAND
    apply = table.apply
    plan: list[Card] = []
    while True:
        if record is not None:
            record.append(inp)
        produced = apply(inp)
        events += produced
        if inp is _DRAW_DONE:  # only draw done can reshuffle the discards (14.12A(f))
            cards = _with_reshuffled(cards, produced)
        # The last event of an input says what the table waits for next (table.pending),
        # unless it is a refusal or an alarm.
        pending = produced[-1]
        kind = type(pending)
        if kind is CardExpected:
            card = next(cards, None)
            if card is None:
                raise RuntimeError("the deck ran out before the hand was over")
            inp = CardRead(card)
        elif kind is ActionRequired:
            inp = _PRESS[choose(pending).button]  # type: ignore[arg-type]  # kind checked above
        elif kind is NewHandExpected:
            return events
        elif isinstance(pending, DrawExpected):
            if not pending.discards:  # the player's turn begins: decide its discards
                plan = list(discard(pending, table.cards_of(pending.seat)))
            inp = CardRead(plan.pop(0), _DISCARD) if plan else _DRAW_DONE
        elif kind in _STOPS:
            raise RuntimeError(f"the table did not take {inp!r}: {produced!r}")
        else:
            raise RuntimeError(f"the table stopped on {pending!r} after {produced!r}")


def _with_reshuffled(cards: Iterator[Card], produced: list[Event]) -> Iterator[Card]:
    """The cards still to come, then any discards a short stub reshuffled (14.12A(f))."""
    for event in produced:
        if isinstance(event, DiscardsReshuffled):
            cards = chain(cards, [Card.parse(code) for code in event.cards])
    return cards
