"""Play whole hands through a Table from a deck order and a chooser of actions.

The simulator, the property tests and the benchmark drive the engine with
this: it answers every ``CardExpected`` with the next card of ``deck`` at the
dealing slot and every ``ActionRequired`` with the option ``choose`` picks.
It adds no randomness of its own; the caller's deck order and chooser decide.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from controller.cards import Card
from controller.engine.events import (
    ActionRequired,
    Alarm,
    CardExpected,
    Event,
    NewHandExpected,
    Option,
    Refused,
)
from controller.engine.table import Table
from controller.inputs import Button, ButtonPress, CardRead, TableInput

Chooser = Callable[[ActionRequired], Option]

_NEW_HAND = ButtonPress(Button.NEW_HAND)
_STOPS = (Refused, Alarm)
_PRESS = {button.value: ButtonPress(button) for button in Button}


def play_hand(
    table: Table,
    deck: Sequence[Card],
    choose: Chooser,
    record: list[TableInput] | None = None,
) -> list[Event]:
    """Play one hand from ``new_hand`` to its settlement; return every event.

    ``record`` (when given) receives the inputs, so a failing hand can be
    written out as a script. Raises RuntimeError if the table refuses an input
    or raises an alarm, or if the deck runs out: both mean a bug in the caller
    or in the engine.
    """
    events: list[Event] = []
    cards = iter(deck)
    inp: TableInput = _NEW_HAND
    apply = table.apply
    while True:
        if record is not None:
            record.append(inp)
        produced = apply(inp)
        events += produced
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
        elif kind in _STOPS:
            raise RuntimeError(f"the table did not take {inp!r}: {produced!r}")
        else:
            raise RuntimeError(f"the table stopped on {pending!r} after {produced!r}")
