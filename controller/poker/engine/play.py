"""A hand in play, driven by the game's phase machine: the machine's model.

``Play`` holds what the table deals with (the seats, their stacks, the dealer
or button, the hand's number) and the hand under way: its phase (the model
attribute of ``controller.poker.engine.machine``), the shared ``HandState``, what the
table expects next and the open alarm. It routes each input to the phase
module it belongs to (``dealing``, ``drawing``, ``betting``) and fires the
machine's trigger when a phase ends; entering a phase runs that phase's work
(the ``_enter_*`` callbacks, ``machine.ENTER``), the showdown and settlement
included (``showdown``). ``controller.poker.engine.gametable.Table`` is the façade
around it: the public surface, undo and checkpoints.
"""

from __future__ import annotations

from typing import Final

from controller.poker.engine.betting import BETTING_BUTTONS, Betting
from controller.poker.engine.dealing import Dealing
from controller.poker.engine.drawing import Drawing
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardExpected,
    DrawExpected,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    NewHandExpected,
    Refused,
    RoundCompleted,
    StreetStarted,
)
from controller.poker.engine.hand import (
    FOLDED_HANDS_ONLY,
    HandState,
    Irregularity,
    describe_destination,
)
from controller.poker.engine.machine import (
    BETTING,
    DEALING,
    DRAWING,
    IN_HAND,
    VOID,
    WAITING,
    fire,
    machine_for,
)
from controller.poker.engine.showdown import Ratings, settle, showdown, void
from controller.poker.engine.tablesetup import HouseRules, Stakes
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import (
    Button,
    ButtonPress,
    CardRead,
    ForeignTag,
    ReadPoint,
    TableInput,
)

_DISCARD: Final = ReadPoint.DISCARD_READER
_MISDEAL: Final = Button.MISDEAL
_NEW_HAND: Final = Button.NEW_HAND
_FOLD: Final = Button.FOLD
_DRAW_DONE: Final = Button.DRAW_DONE

#: A hand's start: every seat's stack before it, the dealer (button) and the hand's number
#: before it (undo and checkpoints rebuild a hand from it).
Start = tuple[dict[int, int | None], int, int]


class Play:
    """The seats and the hand in play; see the module docstring."""

    def __init__(
        self,
        spec: GameSpec,
        stakes: Stakes,
        rules: HouseRules,
        *,
        seats: tuple[int, ...],
        stacks: dict[int, int | None],
        dealer: int,
    ) -> None:
        self.spec = spec
        self.stakes = stakes
        self._has_draws = spec.has_draws  # read on every fold and draw done
        self._machine = machine_for(spec)
        self.phase: str = WAITING  # the machine's model attribute (machine.MODEL_ATTRIBUTE)
        self._dealing = Dealing()
        self._drawing = Drawing(rules)
        self._betting = Betting(spec, stakes, rules)
        self.seats = seats
        self.stacks = stacks
        self.dealer = dealer
        self.number = 0
        self.start: Start = (dict(stacks), dealer, 0)
        self.hand: HandState | None = None
        self.alarm: Alarm | None = None
        self.pending: Event = NewHandExpected(1)
        self.last_settlement: HandSettled | HandVoided | None = None

    # ----------------------------------------------------------------- dispatch
    def step(self, inp: TableInput, out: list[Event]) -> bool:
        """Apply ``inp``; return whether it was accepted (an alarm is: it holds the hand)."""
        if isinstance(inp, CardRead):
            if inp.point is _DISCARD:
                return self._muck(inp, out)
            return self._deal(inp, out)
        if isinstance(inp, ForeignTag):
            # rules-interpretation.md, Integrity: two cards at once, or a tag of no card in play.
            reason = (
                f"two cards at once: {inp.reason}"
                if inp.together
                else f"not a card of the active deck: {inp.reason}"
            )
            return self._raise_alarm(inp, f"tag {inp.tag}", self.expectation(), reason, out)
        return self._press(inp.button, out)

    def _press(self, button: Button, out: list[Event]) -> bool:
        if button in BETTING_BUTTONS:
            return self._act(button, out)
        if button is _DRAW_DONE and self._has_draws:
            return self._draw_done(out)
        if button is _NEW_HAND:
            return self._new_hand(out)
        if button is _MISDEAL:
            return self._misdeal(out)
        out.append(Refused(button.value, f"{self.spec.name} has no draws; {self.expectation()}"))
        return False

    def _expect(self, pending: Event, out: list[Event]) -> None:
        self.pending = pending
        out.append(pending)

    def expectation(self) -> str:
        """What the table expects now, in words, for refusals and alarms."""
        pending = self.pending
        if isinstance(pending, CardExpected):
            return "expected " + describe_destination(pending)
        if isinstance(pending, ActionRequired):
            return f"expected seat {pending.seat} to act, no card"
        if isinstance(pending, DrawExpected):
            return f"expected seat {pending.seat}'s discards at the discard reader, or draw done"
        return "expected no card: the hand is over; press new hand"

    def _raise_alarm(
        self, inp: TableInput, read: str, expected: str, reason: str, out: list[Event]
    ) -> bool:
        point = inp.point.value if isinstance(inp, CardRead | ForeignTag) else ""
        alarm = Alarm(read=read, point=point, expected=expected, reason=reason)
        out.append(alarm)
        if self.phase == WAITING:  # no hand to hold yet
            return False
        self.alarm = alarm
        return True

    # ----------------------------------------------------------------- inputs in a phase
    def _deal(self, inp: CardRead, out: list[Event]) -> bool:
        """A card at the dealing slot: the street's next card, or a replacement of a draw."""
        hand, phase = self.hand, self.phase
        try:
            if phase == DEALING and hand is not None:
                after: Event | None = self._dealing.card(hand, inp.card, out)
            elif phase == DRAWING and hand is not None:
                after = self._drawing.card(hand, inp.card, out)
            else:
                raise Irregularity("a card when none is expected")
        except Irregularity as irr:
            expected = irr.expected or self.expectation()
            return self._raise_alarm(inp, inp.card.code, expected, irr.reason, out)
        if after is not None:
            self._expect(after, out)
        else:
            self._cards_out(out)
        return True

    def _muck(self, inp: CardRead, out: list[Event]) -> bool:
        """A card over the discard reader: a drawing player's discard, or into the muck."""
        card, hand, drawing = inp.card, self.hand, self._drawing
        if hand is None:
            expected = "no card: no hand has been dealt"
            return self._raise_alarm(inp, card.code, expected, "a card when none is expected", out)
        in_draw = self.phase == DRAWING
        try:
            if in_draw and card.index in hand.holder and drawing.takes_discard(hand, card):
                self._expect(drawing.discard(hand, card, out), out)
            else:
                out.append(hand.muck(card, in_play=self.phase in IN_HAND))
        except Irregularity as irr:
            reason = irr.reason
            if in_draw and drawing.replacing and irr.expected == FOLDED_HANDS_ONLY:
                reason = f"{drawing.owed_reason()}; {reason}"
            return self._raise_alarm(inp, card.code, irr.expected, reason, out)
        return True

    def _draw_done(self, out: list[Event]) -> bool:
        hand = self.hand
        if self.phase != DRAWING or hand is None:
            out.append(Refused("draw_done", f"no one is drawing; {self.expectation()}"))
            return False
        try:
            after = self._drawing.done(hand, self.spec.streets[hand.street], out)
        except Irregularity as irr:
            press = ButtonPress(Button.DRAW_DONE)
            return self._raise_alarm(press, "draw_done", self.expectation(), irr.reason, out)
        if after is not None:
            self._expect(after, out)
        else:
            self._cards_out(out)
        return True

    def _act(self, button: Button, out: list[Event]) -> bool:
        hand, betting, stacks = self.hand, self._betting, self.stacks
        if self.phase != BETTING or hand is None or betting.actor is None:
            out.append(Refused(button.value, f"no one is to act; {self.expectation()}"))
            return False
        seat = betting.actor
        pending = self.pending
        # The options were worked out when the seat was prompted; nothing has changed since.
        if not isinstance(pending, ActionRequired):
            pending = betting.prompt(hand, stacks)
        for option in pending.options:
            if option.button == button:
                break
        else:
            out.append(Refused(button.value, betting.refusal(hand, button, seat, stacks[seat])))
            return False
        after = betting.act(hand, button, option.amount, stacks, out)
        if button is _FOLD and self._has_draws:
            self._drawing.folded(hand, seat)
        if after is not None:
            self._expect(after, out)
        elif len(hand.folded) == len(hand.order) - 1:  # everyone else folded: the hand ends
            fire(self._machine, "everyone_folded", self, out, None)
        else:
            out.append(RoundCompleted(self.spec.streets[hand.street].name, hand.pot()))
            self._next_street(out)
        return True

    # ----------------------------------------------------------------- phase changes
    def _cards_out(self, out: list[Event]) -> None:
        """The street's cards (or its draw) are out: bet, or deal on when no one can."""
        hand = self.hand
        assert hand is not None
        street = self.spec.streets[hand.street]
        if self._betting.has_round(hand, street):
            trigger = "cards_dealt" if self.phase == DEALING else "draw_complete"
            fire(self._machine, trigger, self, out)
            return
        # Fewer than two can bet (the rest all-in) and none owes a blind: no round; the
        # cards run out.
        out.append(RoundCompleted(street.name, hand.pot(), skipped=True))
        self._next_street(out)

    def _next_street(self, out: list[Event]) -> None:
        hand = self.hand
        assert hand is not None
        streets = self.spec.streets
        if hand.street + 1 < len(streets):
            hand.street += 1
            trigger = "draw_street" if streets[hand.street].draw else "deal_street"
            fire(self._machine, trigger, self, out)
        else:
            fire(self._machine, "to_showdown", self, out)

    def _new_hand(self, out: list[Event]) -> bool:
        if self.phase in IN_HAND:
            out.append(Refused("new_hand", f"hand {self.number} is in play; finish it or misdeal"))
            return False
        dealt = [s for s in self.seats if self.stacks[s] != 0]
        if len(dealt) < 2:
            out.append(Refused("new_hand", f"fewer than two seats have chips: {dealt}"))
            return False
        if self.spec.button_moves and self.number and not self._redeal_at_button():
            # 14.10(c): the button moves one occupied seat clockwise after every hand.
            self.dealer = self._next_occupied(self.dealer)
        self.start = (dict(self.stacks), self.dealer, self.number)
        fire(self._machine, "new_hand", self, out)
        return True

    def _redeal_at_button(self) -> bool:
        """The last hand was voided and is dealt again with the button where it was
        (``GameSpec.button_stays_after_void``; docs/rules-interpretation.md, Misdeal), unless
        its seat has since emptied: then the button passes on as after any hand.
        """
        return (
            self.phase == VOID
            and self.spec.button_stays_after_void
            and self.stacks.get(self.dealer, 0) != 0  # still a seat dealt in (None: unknown)
        )

    def _next_occupied(self, position: int) -> int:
        # A seat with no chips is not dealt in: the button passes it like an empty seat.
        occupied = [s for s in self.seats if self.stacks[s] != 0]
        later = [s for s in occupied if s > position]
        return later[0] if later else occupied[0]

    def _misdeal(self, out: list[Event]) -> bool:
        if self.phase not in IN_HAND or self.hand is None:
            out.append(Refused("misdeal", f"no hand is in play to void; {self.expectation()}"))
            return False
        fire(self._machine, "misdeal", self, out)
        return True

    # The machine's callbacks (machine.ENTER, machine.BEFORE_NEW_HAND): each phase's work.
    def _open_hand(self, out: list[Event]) -> None:
        self.number += 1
        dealt = [s for s in self.seats if self.stacks[s] != 0]
        # 14.13(c), 14.13A(c): dealing starts with the first player left of the dealer.
        first = [s for s in dealt if s > self.dealer]
        hand = self.hand = HandState(tuple(first + [s for s in dealt if s <= self.dealer]))
        self.alarm = None
        self._drawing.new_hand()
        antes = self._betting.post_antes(hand, self.stacks)
        out.append(HandStarted(self.number, self.spec.key, hand.order, self.dealer, antes))
        self._betting.post_blinds(hand, self.stacks, out)

    def _street_started(self, out: list[Event]) -> HandState:
        hand = self.hand
        assert hand is not None
        out.append(StreetStarted(self.spec.streets[hand.street].name, hand.street + 1))
        return hand

    def _enter_dealing(self, out: list[Event]) -> None:
        hand = self._street_started(out)
        self._expect(self._dealing.start(hand, self.spec.streets[hand.street]), out)

    def _enter_drawing(self, out: list[Event]) -> None:
        first = self._drawing.start(self._street_started(out))
        if first is not None:
            self._expect(first, out)
        else:
            self._cards_out(out)

    def _enter_betting(self, out: list[Event]) -> None:
        hand = self.hand
        assert hand is not None
        street = self.spec.streets[hand.street]
        self._expect(self._betting.begin(hand, street, self.stacks, out), out)

    def _enter_showdown(self, out: list[Event]) -> None:
        assert self.hand is not None
        shown, rated = showdown(self.hand, self.spec)
        out.append(shown)
        fire(self._machine, "settle", self, out, rated)

    def _enter_settled(self, out: list[Event], rated: Ratings | None) -> None:
        assert self.hand is not None
        settled = settle(
            self.hand,
            self.number,
            self.stacks,
            spec=self.spec,
            stakes=self.stakes,
            rated=rated,
        )
        self.last_settlement = settled
        out.append(settled)
        self._expect(NewHandExpected(self.number + 1), out)

    def _enter_void(self, out: list[Event]) -> None:
        assert self.hand is not None
        voided = void(self.hand, self.number, self.stacks)
        self.alarm = None
        self.last_settlement = voided
        out.append(voided)
        self._expect(NewHandExpected(self.number + 1), out)

    def replay(self, start: Start, inputs: list[TableInput]) -> None:
        """Rebuild the hand that began at ``start`` from ``inputs`` (undo, checkpoints): back
        to before its new hand, then every input again, silently."""
        stacks, dealer, number = start
        self.seats = tuple(stacks)
        self.stacks = dict(stacks)
        self.dealer = dealer
        self.number = number
        self.alarm = None
        if self.phase != WAITING:
            fire(self._machine, "rewind", self)
        silent: list[Event] = []
        fire(self._machine, "new_hand", self, silent)
        for inp in inputs:
            self.step(inp, silent)
