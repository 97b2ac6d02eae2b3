"""Dealer bots: the core every bot shares, with no I/O.

A bot decides the dealer's next act (``simulator.acts``): shuffle and cut, deal the top
card (or a named card), pass a card over the discard reader, press a button, put
reshuffled discards back in the shoe, sell a player chips between hands. It keeps its own
engine ``Table`` to know what the procedure expects and what is legal, and a
``HandRecord`` of every hand: the inputs it produced and the settlement it expects, for
comparison with what the controller computes from the hardware path.
``simulator.runner.BotRunner`` performs the acts on the simulator's devices;
``simulator.acts.feed`` performs them on any ``Table`` directly.

- ``simulator.scripted_bot.ScriptedBot(script)`` plays a hand script
  (docs/hand-script.md) exactly.
- ``simulator.random_bot.RandomBot(game, seats, stakes, seed)`` plays whole hands of any
  game legally, dealing from the simulator's deck model: the deck shuffled anew from the
  seed before every hand and cut (13:69F-14.5; rules-interpretation.md, Shuffle, cut and decks).

Pure: the only randomness is a ``random.Random`` seeded by the caller.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from controller.poker.engine import Table, TableCheckpoint, TableSetup
from controller.poker.engine.events import (
    DiscardsReshuffled,
    Event,
    HandSettled,
    HandVoided,
    Refused,
    Undone,
)
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import Button, TableInput
from simulator.acts import (
    PRESSES,
    Act,
    HandRecord,
    Press,
    describe_act,
    feed,
    table_input,
)


class BotError(RuntimeError):
    """The bot's own table did not take an act the bot chose: a bug in the bot or engine."""


# --- The shared core ----------------------------------------------------------------------


class Bot:
    """A stream of acts, each performed on the bot's own table, with a record per hand."""

    def __init__(self, spec: GameSpec, config: TableSetup) -> None:
        self.spec = spec
        self.config = config
        self.table = Table(spec, config)
        self.records: list[HandRecord] = []
        self._acts: list[Act] = []
        self._inputs: list[TableInput] = []
        self._plan: deque[Act] = deque()
        #: Why the bot ended before its hands were played (``next_act`` gave None), in the
        #: technician's words; None while it plays on, or when it played all it was asked.
        self.ended: str | None = None
        #: The table as it stood before the last new hand, for ``rewind``.
        self._before_hand: TableCheckpoint | None = None

    def __iter__(self) -> Iterator[Act]:
        while (act := self.next_act()) is not None:
            yield act

    def next_act(self) -> Act | None:
        """The dealer's next act (already performed on the bot's own table); None when done."""
        act = self._plan.popleft() if self._plan else self._decide()
        if act is None:
            return None
        self._perform(act)
        return act

    def _decide(self) -> Act | None:
        raise NotImplementedError

    # --- following the controller (docs/simulator.md, The bot follows the controller) ------

    def rewind(self, act: Act) -> None:
        """Take back ``act``, the last one ``next_act`` gave, which the devices never did: the
        technician pressed a button first (``interject``). A card or a button is undone on the
        bot's table as the dealer's undo does it; a new hand goes back to the table before it.
        An act no device reports (a shuffle, a restock, a rebuy) is not taken back: the runner
        does it before the press."""
        inp = table_input(act)
        if inp is None:
            raise BotError(f"rewind {describe_act(act)}: the devices do it at once; not taken back")
        if isinstance(act, Press) and act.button is Button.NEW_HAND:
            if self._before_hand is None:
                raise BotError("rewind new_hand: no table kept from before the hand")
            self.table = Table.from_checkpoint(self.spec, self.config, self._before_hand)
        else:
            undone = self.table.apply(PRESSES[Button.UNDO])
            if not undone or not isinstance(undone[0], Undone):
                raise BotError(f"rewind {describe_act(act)}: the bot's table did not undo it")
        if not self._acts:  # the act ended a hand: its record goes, the hand is open again
            record = self.records.pop()
            self._acts, self._inputs = list(record.acts), list(record.inputs)
        self._acts.pop()
        self._inputs.pop()
        dropped = list(self._plan)  # what the act led the bot to plan (a folded hand's muck)
        self._plan.clear()
        self._rewound(act)
        self._replanned(dropped)

    def interject(self, act: Press) -> list[Event]:
        """The technician pressed ``act``'s button on the panel between the bot's acts (a
        misdeal, an undo): the bot's table takes it as the controller does, and the bot drops
        the acts it had planned, to decide again from what the table now waits for. A press the
        table refuses changes nothing there, and the plan stands."""
        inp = PRESSES[act.button]
        events = self.table.apply(inp)
        if any(isinstance(event, Refused) for event in events):
            return events
        self._acts.append(act)
        self._inputs.append(inp)
        for event in events:
            if isinstance(event, HandSettled | HandVoided):
                self._close(event)
        dropped = list(self._plan)
        self._plan.clear()
        self._replanned(dropped)
        return events

    def _rewound(self, act: Act) -> None:
        """What the bot keeps beside its table, put back as it was before ``act``."""
        del act

    def _replanned(self, dropped: list[Act]) -> None:
        """The bot's plan was dropped after a press of the technician's."""
        del dropped

    def _perform(self, act: Act) -> None:
        if isinstance(act, Press) and act.button is Button.NEW_HAND:
            self._keep_before_hand()
        self._acts.append(act)
        inp = table_input(act)
        if inp is not None:
            self._inputs.append(inp)
            events = self.table.apply(inp)
        else:
            events = feed(self.table, act)
        for event in events:
            self._seen(act, event)
            kind = type(event)
            if kind is HandSettled or kind is HandVoided:
                assert isinstance(event, HandSettled | HandVoided)
                self._close(event)
            elif kind is DiscardsReshuffled:
                assert isinstance(event, DiscardsReshuffled)
                self._reshuffled(event)

    def _keep_before_hand(self) -> None:
        try:
            self._before_hand = self.table.checkpoint()
        except ValueError:  # a hand still in play: the press is refused, nothing to take back
            self._before_hand = None

    def _seen(self, act: Act, event: Event) -> None:
        """Every event an act caused on the bot's table, in order."""
        del act, event

    def _reshuffled(self, event: DiscardsReshuffled) -> None:
        del event

    def _close(self, settlement: HandSettled | HandVoided) -> None:
        self.records.append(
            HandRecord(
                hand=settlement.hand,
                game=self.spec.key,
                acts=tuple(self._acts),
                inputs=tuple(self._inputs),
                settlement=settlement,
            )
        )
        self._acts = []
        self._inputs = []
