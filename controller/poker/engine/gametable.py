"""The table: one game's hands, input by input, as the procedures say.

``Table(spec, config).apply(input)`` takes one ``TableInput`` (a card the
shoe read, a tag it could not map, a button the dealer pressed) and returns the
events it causes. The table is a façade: the game's phase machine
(``controller.poker.engine.machine``) moves the hand from phase to phase and each
phase's module does its work (``dealing``, ``drawing``, ``betting``,
``showdown``), on the hand all of them share (``hand.HandState``). Nothing
here reads a clock, does I/O or draws a random number: the same inputs always
give the same events, so a journal replays exactly. Undo is event-sourced: the
hand is rebuilt from its start without the last accepted input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from controller.poker.cards import Card
from controller.poker.engine.checkpoint import TableCheckpoint
from controller.poker.engine.events import (
    Event,
    HandSettled,
    HandVoided,
    NewHandExpected,
    Refused,
    Undone,
)
from controller.poker.engine.hand import SeatState, TableState
from controller.poker.engine.machine import IN_HAND
from controller.poker.engine.play import Play, Start
from controller.poker.engine.tablesetup import ConfigError, TableSetup
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, TableInput

_UNDO: Final = Button.UNDO
_MISDEAL: Final = Button.MISDEAL
_NEW_HAND: Final = Button.NEW_HAND


def describe_input(inp: TableInput) -> str:
    """An input as the scripts write it: ``Kd slot``, ``tag 04a1 (reason)``, ``fold``."""
    if isinstance(inp, CardRead):
        return f"{inp.card.code} {inp.point.value}"
    if isinstance(inp, ForeignTag):
        return f"tag {inp.tag} {inp.point.value} ({inp.reason})"
    return inp.button.value


class Table:
    """One table dealing one game; see the package docstring for the public surface."""

    def __init__(self, spec: GameSpec, config: TableSetup) -> None:
        config.validate(spec)
        if spec.forced_bet is ForcedBet.BLINDS and not config.stakes.big_blind:
            raise ConfigError(
                f"stakes: big_blind=0; {spec.name} opens with blinds, expected a big blind",
                "stakes.big_blind",
            )
        self.spec = spec
        self.config = config
        self.stakes = config.stakes
        self.rules = rules = config.rules
        seats = tuple(sorted(config.seats))
        stacks = {s: config.stacks.get(s) for s in seats}
        self._play = Play(
            spec, config.stakes, rules, seats=seats, stacks=stacks, dealer=config.dealer
        )
        self._inputs: list[TableInput] = []
        self._start: Start = self._play.start
        # The last hand's start and inputs once a seat change or rebuy closed it (checkpoints).
        self._closed: tuple[Start, tuple[TableInput, ...]] | None = None

    # ----------------------------------------------------------------- public surface
    @property
    def phase(self) -> str:
        """The machine's phase: waiting, dealing, betting, drawing, showdown, settled or void."""
        return self._play.phase

    @property
    def pending(self) -> Event:
        """What the table waits for now: CardExpected, ActionRequired, NewHandExpected or Alarm."""
        return self._play.alarm if self._play.alarm is not None else self._play.pending

    @property
    def hand_number(self) -> int:
        """The number of the current (or last) hand at this table, from 1."""
        return self._play.number

    @property
    def stacks(self) -> dict[int, int | None]:
        """Every seat's chips behind (None when unknown)."""
        return dict(self._play.stacks)

    @property
    def last_settlement(self) -> HandSettled | HandVoided | None:
        """How the last finished hand ended."""
        return self._play.last_settlement

    def reseat(self, seats: tuple[int, ...], stacks: Mapping[int, int] | None = None) -> None:
        """Between hands, players leave and sit down: the occupied seats become ``seats``.

        A seat staying keeps its chips unless ``stacks`` gives them; a new seat's stack is
        ``stacks``' or unknown. In a button game the button stays where it is and the next
        hand moves it one occupied seat clockwise among the seats occupied then, so a seat
        just filled left of the button is next, and an emptied button seat passes it on
        (14.12A(c), 14.10(c)). The last hand is closed: undo no longer reaches into it.
        ConfigError (naming the setting) if a hand is in play or the seats cannot be dealt.
        """
        if self.phase in IN_HAND:
            raise ConfigError(
                f"seats {seats}: hand {self._play.number} is in play; change seats between hands"
            )
        kept = {s: st for s in seats if (st := self._play.stacks.get(s)) is not None}
        known = {**kept, **(stacks or {})}
        config = replace(self.config, seats=seats, dealer=self._play.dealer, stacks=known)
        config.validate(self.spec)
        self.config = config
        self._play.seats = tuple(sorted(seats))
        self._play.stacks = {s: known.get(s) for s in self._play.seats}
        self._close_hand()

    def cards_of(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds in the hand now, down then up (none between hands).

        In a draw game this is the hand exactly, discard by discard and replacement by
        replacement (14.12A(f)); cheaper than the whole ``state`` snapshot.
        """
        hand = self._play.hand
        if hand is None or seat not in hand.down:
            return ()
        return (*hand.down[seat], *hand.up[seat])

    @property
    def state(self) -> TableState:
        """A snapshot of the whole table."""
        hand = self._play.hand
        seats = []
        for seat in self._play.seats:
            in_hand = hand is not None and seat in hand.order
            seats.append(
                SeatState(
                    seat=seat,
                    stack=self._play.stacks[seat],
                    down=tuple(c.code for c in hand.down[seat]) if hand and in_hand else (),
                    up=tuple(c.code for c in hand.up[seat]) if hand and in_hand else (),
                    committed=hand.committed[seat] if hand and in_hand else 0,
                    folded=bool(hand and in_hand and seat in hand.folded),
                    all_in=bool(hand and in_hand and seat in hand.all_in),
                    dealt_in=in_hand,
                )
            )
        street = None
        if hand is not None and self.phase in IN_HAND:
            street = self.spec.streets[min(hand.street, len(self.spec.streets) - 1)].name
        return TableState(
            game=self.spec.key,
            phase=self.phase,
            hand=self._play.number,
            street=street,
            dealer=self._play.dealer,
            pot=hand.pot() if hand else 0,
            community=tuple(c.code for c in hand.community) if hand else (),
            seats=tuple(seats),
            pending=self.pending,
            alarm=self._play.alarm,
        )

    def apply(self, inp: TableInput) -> list[Event]:
        """Apply one input; return the events it causes (a Refused event if it is refused)."""
        out: list[Event] = []
        pressed = inp.button if isinstance(inp, ButtonPress) else None
        if pressed is _UNDO:
            self._undo(out)
        elif (alarm := self._play.alarm) is not None and pressed is not _MISDEAL:
            out.append(
                Refused(
                    describe_input(inp),
                    f"the hand is held by an alarm ({alarm.read}: {alarm.reason}); "
                    "press undo to dismiss the read, or misdeal",
                )
            )
        elif self._play.step(inp, out):
            if pressed is _NEW_HAND:
                self._inputs = []
                self._start = self._play.start
                self._closed = None
            else:
                self._inputs.append(inp)
        return out

    # ----------------------------------------------------------------- between hands
    def rebuy(self, seat: int, chips: int) -> None:
        """A player buys ``chips`` more between hands (table stakes: never during a hand).

        Only a known stack can grow; a ValueError names the seat, the amount and
        what was expected. The chips close the last hand: undo no longer reaches into it
        (its settlement paid the stacks the chips are added to).
        """
        if seat not in self._play.stacks:
            raise ValueError(f"rebuy: seat {seat} is not an occupied seat {self._play.seats}")
        stack = self._play.stacks[seat]
        if stack is None:
            raise ValueError(f"rebuy: seat {seat}'s stack is unknown; expected a known stack")
        if chips <= 0 or chips % self.stakes.chip:
            raise ValueError(
                f"rebuy: {chips} chips for seat {seat}; expected a positive multiple of the "
                f"smallest chip {self.stakes.chip}"
            )
        if self.phase in IN_HAND:
            raise ValueError(
                f"rebuy: hand {self._play.number} is in play; expected chips only between hands"
            )
        self._play.stacks[seat] = stack + chips
        self._close_hand()

    def _close_hand(self) -> None:
        """A seat change or rebuy closes the last hand: undo no longer reaches into it."""
        if self._inputs:
            self._closed = (self._start, tuple(self._inputs))
        self._inputs = []

    # ----------------------------------------------------------------- checkpoints
    def checkpoint(self) -> TableCheckpoint:
        """The table between hands as a value a new table continues from exactly.

        ValueError (naming what was expected) while a hand is in play or an alarm is open:
        a checkpoint is taken when a hand has ended (docs/journal.md, Checkpoints).
        """
        if self.phase in IN_HAND or self._play.alarm is not None:
            held = f"alarm {self._play.alarm.read}" if self._play.alarm else f"phase {self.phase}"
            raise ValueError(
                f"checkpoint: hand {self._play.number} is held ({held}); expected a table "
                "between hands with no open alarm"
            )
        closed = self._closed is not None
        if self._closed is not None:
            (start_stacks, start_dealer, _), inputs = self._closed
        elif self._inputs:
            (start_stacks, start_dealer, _), inputs = self._start, tuple(self._inputs)
        else:
            start_stacks, start_dealer, inputs = {}, 0, ()
        return TableCheckpoint(
            hand=self._play.number,
            phase=self.phase,
            dealer=self._play.dealer,
            seats=self._play.seats,
            stacks=tuple(self._play.stacks.items()),
            start_stacks=tuple(start_stacks.items()),
            start_dealer=start_dealer,
            inputs=inputs,
            closed=closed,
            after=tuple(self._inputs) if closed else (),
        )

    @classmethod
    def from_checkpoint(
        cls,
        spec: GameSpec,
        config: TableSetup,
        cp: TableCheckpoint,
    ) -> Table:
        """A table continuing from ``cp``, with ``config``'s stakes and rules and ``cp``'s seats.

        The last hand is rebuilt from its start as undo rebuilds it, so its cards, its
        settlement and undo into it are all there; a seat change that closed it is applied
        after it. ConfigError if the checkpoint does not hold together: the hand it carries
        does not end at the stacks, dealer and phase it records (a tampered checkpoint, or
        an engine that now plays the hand otherwise).
        """
        stacks = dict(cp.stacks)
        if cp.inputs:
            start = dict(cp.start_stacks)
            seats = tuple(start) if cp.closed else cp.seats
            table = cls(spec, _config_at(config, seats, cp.start_dealer, start))
            table._start = (dict(start), cp.start_dealer, cp.hand - 1)
            table._replay_hand(table._start, list(cp.inputs))
            table._inputs = list(cp.inputs)
            if cp.closed:
                table._close_hand()
                table.config = _config_at(config, cp.seats, cp.dealer, stacks)
                # The changed seats and stacks come from the checkpoint, not from play: they
                # meet the table's rules (a stack in whole chips, rules-interpretation.md, Betting
                # structure).
                table.config.validate(spec)
                table._play.seats, table._play.stacks = cp.seats, stacks
                silent: list[Event] = []
                for inp in cp.after:
                    table._play.step(inp, silent)
                table._inputs = list(cp.after)
        else:
            table = cls(spec, _config_at(config, cp.seats, cp.dealer, stacks))
            table._play.number = cp.hand
            table._play.phase = cp.phase
            table._play.pending = NewHandExpected(cp.hand + 1)
            table._start = (dict(stacks), cp.dealer, cp.hand)
        try:
            again = table.checkpoint()
        except ValueError as exc:
            raise ConfigError(f"checkpoint of hand {cp.hand}: its hand ends held: {exc}") from None
        if again != cp:
            raise ConfigError(
                f"checkpoint of hand {cp.hand}: its hand replays to hand {again.hand}, phase "
                f"{again.phase}, dealer {again.dealer}, stacks {dict(again.stacks)}; the "
                f"checkpoint says hand {cp.hand}, phase {cp.phase}, dealer {cp.dealer}, stacks "
                f"{dict(cp.stacks)}"
            )
        return table

    # ----------------------------------------------------------------- undo
    def _undo(self, out: list[Event]) -> None:
        if not self._inputs:
            out.append(Refused("undo", "nothing to undo since the hand began"))
            return
        undone = self._inputs.pop()
        replay = self._inputs
        closed = self._closed
        if closed is None:
            self._replay_hand(self._start, replay)
        else:
            # A seat change or rebuy closed the last hand: only the inputs since then are
            # undone; the hand is rebuilt as it ended, then the change is put back.
            config, seats, stacks = self.config, self._play.seats, dict(self._play.stacks)
            self._replay_hand(closed[0], list(closed[1]))
            self._closed = closed
            self.config, self._play.seats, self._play.stacks = config, seats, stacks
            silent: list[Event] = []
            for inp in replay:
                self._play.step(inp, silent)
        self._inputs = replay
        what = describe_input(undone)
        out.append(Undone(what, f"undid {what}; the hand is as it was before it"))
        out.append(self.pending)

    def _replay_hand(self, start: Start, inputs: list[TableInput]) -> None:
        self._play.replay(start, inputs)


def _config_at(
    config: TableSetup, seats: tuple[int, ...], dealer: int, stacks: Mapping[int, int | None]
) -> TableSetup:
    """``config``'s stakes and rules with these seats, dealer and (known) stacks."""
    known = {seat: stack for seat, stack in stacks.items() if stack is not None}
    return replace(config, seats=seats, dealer=dealer, stacks=known)
