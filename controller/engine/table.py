"""The table: one game's hands, input by input, as the procedures say.

``Table(spec, config).apply(input)`` takes one ``TableInput`` (a card the shoe
read, a tag it could not map, a button the dealer pressed) and returns the
events it causes. Nothing here reads a clock, does I/O or draws a random
number: the same inputs always give the same events, so a journal replays
exactly. Undo is event-sourced: the hand is rebuilt from its start without
the last accepted input.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from functools import cache
from typing import Final

from controller.cards import DECK, Card
from controller.engine.betting import (
    BETTING_BUTTONS,
    BRING_IN_HAS_OPTION,
    SHORT_ALL_IN_REOPENS,
    bet_word,
    raise_to,
    refusal,
    to_call_reason,
    work_out_options,
)
from controller.engine.checkpoint import TableCheckpoint
from controller.engine.config import ConfigError, TableConfig
from controller.engine.events import (
    BURN,
    COMMUNITY,
    SEAT,
    ActionRequired,
    ActionTaken,
    Alarm,
    BlindPosted,
    CardDealt,
    CardDiscarded,
    CardExpected,
    CardMucked,
    DiscardsReshuffled,
    DrawDeclared,
    DrawExpected,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    NewHandExpected,
    Option,
    Refused,
    RoundCompleted,
    RoundStarted,
    SeatAmount,
    ShownHand,
    StreetStarted,
    Undone,
)
from controller.engine.events import Showdown as ShowdownEvent
from controller.engine.hand import HandState, SeatState, TableState
from controller.engine.machine import (
    BETTING,
    DEALING,
    DRAWING,
    IN_HAND,
    VOID,
    WAITING,
    Phase,
    move,
    moves_for,
)
from controller.engine.pots import settle_pots
from controller.games.spec import Face, ForcedBet, GameSpec, OpenerDuty, Rated, SeatView
from controller.hands import NO_QUALIFYING_LOW
from controller.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput

_UP: Final = Face.UP.value
_DOWN: Final = Face.DOWN.value
_SLOT: Final = ReadPoint.DEALING_SLOT
_DISCARD: Final = ReadPoint.DISCARD_READER
_DRAW_DONE: Final = Button.DRAW_DONE
_FOLD: Final = Button.FOLD


def describe_input(inp: TableInput) -> str:
    """An input as the scripts write it: ``Kd slot``, ``tag 04a1 (reason)``, ``fold``."""
    if isinstance(inp, CardRead):
        return f"{inp.card.code} {inp.point.value}"
    if isinstance(inp, ForeignTag):
        return f"tag {inp.tag} {inp.point.value} ({inp.reason})"
    return inp.button.value


def _describe_destination(expected: CardExpected) -> str:
    if expected.destination == BURN:
        return "a burn"
    if expected.destination == COMMUNITY:
        return "the community card"
    return f"a card face {expected.face} to seat {expected.seat}"


@cache
def _seat_expected(seat: int, face: str) -> CardExpected:
    return CardExpected(SEAT, seat, face)


_DRAW_REASON: Final = "discards over the discard reader, then draw done (none: stands pat)"
_BURN_EXPECTED: Final = CardExpected(BURN, None, None)
_COMMUNITY_EXPECTED: Final = CardExpected(COMMUNITY, None, Face.UP.value)


class Table:
    """One table dealing one game; see the package docstring for the public surface."""

    def __init__(self, spec: GameSpec, config: TableConfig) -> None:
        config.validate(spec)
        if spec.forced_bet is ForcedBet.BLINDS and not config.stakes.big_blind:
            raise ConfigError(
                f"stakes: big_blind=0; {spec.name} opens with blinds, expected a big blind"
            )
        self.spec = spec
        self._has_draws = spec.has_draws
        self.config = config
        self.stakes = config.stakes
        self._moves = moves_for(spec)
        # The option sets seen so far, by everything they depend on (see _options).
        self._option_sets: dict[
            tuple[bool, OpenerDuty | None, int | None, int, int, int, int, bool],
            tuple[Option, ...],
        ] = {}
        self._phase = Phase()
        self._seats = tuple(sorted(config.seats))
        self._stacks: dict[int, int | None] = {s: config.stacks.get(s) for s in self._seats}
        self._dealer = config.dealer
        self._hand_number = 0
        self._hand: HandState | None = None
        self._inputs: list[TableInput] = []
        self._start: tuple[dict[int, int | None], int, int] = (dict(self._stacks), self._dealer, 0)
        # The last hand's start and inputs once a seat change or rebuy closed it (checkpoints).
        self._closed: (
            tuple[tuple[dict[int, int | None], int, int], tuple[TableInput, ...]] | None
        ) = None
        self._alarm: Alarm | None = None
        self._pending: Event = NewHandExpected(1)
        self._last_settlement: HandSettled | HandVoided | None = None

    # ----------------------------------------------------------------- public surface
    @property
    def phase(self) -> str:
        """The machine's phase: waiting, dealing, betting, showdown, settled or void."""
        return self._phase.state

    @property
    def pending(self) -> Event:
        """What the table waits for now: CardExpected, ActionRequired, NewHandExpected or Alarm."""
        return self._alarm if self._alarm is not None else self._pending

    @property
    def hand_number(self) -> int:
        """The number of the current (or last) hand at this table, from 1."""
        return self._hand_number

    @property
    def stacks(self) -> dict[int, int | None]:
        """Every seat's chips behind (None when unknown)."""
        return dict(self._stacks)

    @property
    def last_settlement(self) -> HandSettled | HandVoided | None:
        """How the last finished hand ended."""
        return self._last_settlement

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
                f"seats {seats}: hand {self._hand_number} is in play; change seats between hands"
            )
        kept = {s: st for s in seats if (st := self._stacks.get(s)) is not None}
        known = {**kept, **(stacks or {})}
        config = replace(self.config, seats=seats, dealer=self._dealer, stacks=known)
        config.validate(self.spec)
        self.config = config
        self._seats = tuple(sorted(seats))
        self._stacks = {s: known.get(s) for s in self._seats}
        self._close_hand()

    def cards_of(self, seat: int) -> tuple[Card, ...]:
        """The cards ``seat`` holds in the hand now, down then up (none between hands).

        In a draw game this is the hand exactly, discard by discard and replacement by
        replacement (14.12A(f)); cheaper than the whole ``state`` snapshot.
        """
        hand = self._hand
        if hand is None or seat not in hand.down:
            return ()
        return (*hand.down[seat], *hand.up[seat])

    @property
    def state(self) -> TableState:
        """A snapshot of the whole table."""
        hand = self._hand
        seats = []
        for seat in self._seats:
            in_hand = hand is not None and seat in hand.order
            seats.append(
                SeatState(
                    seat=seat,
                    stack=self._stacks[seat],
                    down=tuple(c.code for c in hand.down[seat]) if hand and in_hand else (),
                    up=tuple(c.code for c in hand.up[seat]) if hand and in_hand else (),
                    committed=hand.committed[seat] if hand and in_hand else 0,
                    folded=bool(hand and in_hand and seat in hand.folded),
                    all_in=bool(hand and in_hand and seat in hand.all_in),
                )
            )
        street = None
        if hand is not None and self.phase in IN_HAND:
            street = self.spec.streets[min(hand.street, len(self.spec.streets) - 1)].name
        return TableState(
            game=self.spec.key,
            phase=self.phase,
            hand=self._hand_number,
            street=street,
            dealer=self._dealer,
            pot=hand.pot() if hand else 0,
            community=tuple(c.code for c in hand.community) if hand else (),
            seats=tuple(seats),
            pending=self.pending,
            alarm=self._alarm,
        )

    def apply(self, inp: TableInput) -> list[Event]:
        """Apply one input; return the events it causes (a Refused event if it is refused)."""
        out: list[Event] = []
        if self._alarm is None:
            taken = self._usual(inp, out)
            if taken is not None:
                if taken:
                    self._inputs.append(inp)
                return out
        if isinstance(inp, ButtonPress) and inp.button is Button.UNDO:
            self._undo(out)
            return out
        if self._alarm is not None and not (
            isinstance(inp, ButtonPress) and inp.button is Button.MISDEAL
        ):
            out.append(
                Refused(
                    describe_input(inp),
                    f"the hand is held by an alarm ({self._alarm.read}: {self._alarm.reason}); "
                    "press undo to dismiss the read, or misdeal",
                )
            )
            return out
        if self._step(inp, out):
            if isinstance(inp, ButtonPress) and inp.button is Button.NEW_HAND:
                self._inputs = []
            else:
                self._inputs.append(inp)
        return out

    def _usual(self, inp: TableInput, out: list[Event]) -> bool | None:
        """The inputs of every hand, on a short path: a card at the slot, a betting button;
        in a draw game a discard at the reader and draw done. Whether the input was accepted;
        None when it is not one of these.
        """
        if isinstance(inp, CardRead):
            point = inp.point
            if point is _SLOT:
                return self._deal(inp, out)
            if point is _DISCARD:
                return self._muck(inp, out)
        elif isinstance(inp, ButtonPress):
            button = inp.button
            if button in BETTING_BUTTONS:
                return self._act(button, out)
            if button is _DRAW_DONE and self._has_draws:
                return self._draw_done(out)
        return None

    def _move(self, trigger: str) -> None:
        """Fire a trigger of the game's machine on this table's phase."""
        self._phase.state = move(self._moves, trigger, self._phase.state)

    # ----------------------------------------------------------------- dispatch
    def _step(self, inp: TableInput, out: list[Event]) -> bool:
        """Apply ``inp``; return whether it was accepted (an alarm is: it holds the hand)."""
        if isinstance(inp, CardRead):
            if inp.point is ReadPoint.DISCARD_READER:
                return self._muck(inp, out)
            return self._deal(inp, out)
        if isinstance(inp, ForeignTag):
            reason = f"not a card of the active deck: {inp.reason}"
            return self._raise_alarm(inp, f"tag {inp.tag}", self._expectation(), reason, out)
        return self._press(inp.button, out)

    def _press(self, button: Button, out: list[Event]) -> bool:
        if button is Button.NEW_HAND:
            return self._new_hand(out)
        if button is Button.MISDEAL:
            return self._misdeal(out)
        if button in BETTING_BUTTONS:
            return self._act(button, out)
        if button is _DRAW_DONE and self._has_draws:
            return self._draw_done(out)
        out.append(Refused(button.value, f"{self.spec.name} has no draws; {self._expectation()}"))
        return False

    def _expectation(self) -> str:
        """What the table expects now, in words, for refusals and alarms."""
        pending = self._pending
        if isinstance(pending, CardExpected):
            return "expected " + _describe_destination(pending)
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
        self._alarm = alarm
        return True

    # ----------------------------------------------------------------- hands
    def _new_hand(self, out: list[Event]) -> bool:
        if self.phase in IN_HAND:
            out.append(
                Refused("new_hand", f"hand {self._hand_number} is in play; finish it or misdeal")
            )
            return False
        dealt = [s for s in self._seats if self._stacks[s] != 0]
        if len(dealt) < 2:
            out.append(Refused("new_hand", f"fewer than two seats have chips: {dealt}"))
            return False
        if self.spec.button_moves and self._hand_number and not self._redeal_at_button():
            # 14.10(c): the button moves one occupied seat clockwise after every hand.
            self._dealer = self._next_occupied(self._dealer)
        self._start = (dict(self._stacks), self._dealer, self._hand_number)
        self._closed = None
        self._begin(out)
        return True

    def _redeal_at_button(self) -> bool:
        """The last hand was voided and is dealt again with the button where it was
        (``GameSpec.button_stays_after_void``; docs/rules-interpretation.md, Misdeal), unless
        its seat has since emptied: then the button passes on as after any hand.
        """
        return (
            self.phase == VOID
            and self.spec.button_stays_after_void
            and self._stacks.get(self._dealer, 0) != 0  # still a seat dealt in (None: unknown)
        )

    def _next_occupied(self, position: int) -> int:
        # A seat with no chips is not dealt in: the button passes it like an empty seat.
        occupied = [s for s in self._seats if self._stacks[s] != 0]
        later = [s for s in occupied if s > position]
        return later[0] if later else occupied[0]

    def _begin(self, out: list[Event]) -> None:
        self._hand_number += 1
        dealt = [s for s in self._seats if self._stacks[s] != 0]
        # 14.13(c), 14.13A(c): dealing starts with the first player left of the dealer.
        first = [s for s in dealt if s > self._dealer]
        order = tuple(first + [s for s in dealt if s <= self._dealer])
        hand = self._hand = HandState(order)
        self._alarm = None
        self._move("new_hand")
        antes = []
        if self.stakes.ante:  # 14.13(b), 14.13A(b): the posted ante
            for seat in order:
                antes.append(SeatAmount(seat, self._put(hand, seat, self.stakes.ante)))
                hand.round_commit[seat] = 0  # antes are dead money, not part of the first round
        out.append(HandStarted(self._hand_number, self.spec.key, order, self._dealer, tuple(antes)))
        if self.spec.forced_bet is ForcedBet.BLINDS:
            self._post_blinds(hand, out)
        self._start_street(out)

    def _post_blinds(self, hand: HandState, out: list[Event]) -> None:
        """Small blind left of the button, big blind next; heads-up the button posts the small
        blind (14.10(c),(d); NOTES.md, Forced bets). Blinds are live bets of the first round.
        """
        order = hand.order
        small, big = (order[1], order[0]) if len(order) == 2 else (order[0], order[1])
        for seat, blind, amount in (
            (small, "small", self.stakes.small_blind),
            (big, "big", self.stakes.big_blind),
        ):
            posted = self._put(hand, seat, amount)
            out.append(BlindPosted(seat, blind, posted, seat in hand.all_in))

    def _put(self, hand: HandState, seat: int, amount: int) -> int:
        """Move up to ``amount`` chips from the seat's stack to the pot; mark an all-in."""
        stack = self._stacks[seat]
        if stack is not None:
            if amount >= stack:
                amount = stack
                hand.all_in.add(seat)
            self._stacks[seat] = stack - amount
        hand.committed[seat] += amount
        hand.round_commit[seat] += amount
        return amount

    # ----------------------------------------------------------------- dealing
    def _start_street(self, out: list[Event]) -> None:
        hand = self._hand
        assert hand is not None
        street = self.spec.streets[hand.street]
        out.append(StreetStarted(street.name, hand.street + 1))
        if street.draw is not None:
            # 14.12A(f),(h),(j): every player still in draws in turn from the button's left.
            hand.drawers = hand.live()
            hand.drawer_pos = 0
            hand.burned_draw = False
            self._expect_draw(out)
            return
        queue: list[CardExpected] = []
        if street.burn:  # 14.13(f),(g), 14.13A(f),(h): burn before every later street
            queue.append(_BURN_EXPECTED)
        live = hand.live()
        for face in street.deal:  # 14.13(f),(g): only to players still in
            value = face.value
            queue.extend([_seat_expected(seat, value) for seat in live])
        queue.extend(_COMMUNITY_EXPECTED for _ in range(street.community))
        hand.queue = queue
        hand.queue_pos = 0
        self._pending = queue[0]
        out.append(queue[0])

    def _deal(self, inp: CardRead, out: list[Event]) -> bool:
        card = inp.card
        hand = self._hand
        phase = self._phase.state
        if hand is None or not (phase == DEALING or (phase == DRAWING and hand.replacing)):
            reason = "a card when none is expected"
            if phase == DRAWING and hand is not None:
                # 14.12A(f): one new card per discard, and only after draw done.
                reason = "a replacement too many, or a card dealt before draw done"
            return self._raise_alarm(inp, card.code, self._expectation(), reason, out)
        expected = hand.queue[hand.queue_pos]
        holder = hand.holder
        if hand.reshuffled and card.index in hand.reshuffled:  # 14.12A(f): back in play
            hand.reshuffled.discard(card.index)
            del hand.discarded[card.index]
        elif hand.reshuffled_for is not None and (
            hand.discarded.get(card.index) == hand.reshuffled_for
        ):
            # 14.12A(f): the drawing player's own discards are not reshuffled for it.
            return self._raise_alarm(
                inp,
                card.code,
                "expected " + _describe_destination(expected),
                f"{card.code} is a discard of seat {hand.reshuffled_for}, the player drawing, "
                "not among the reshuffled discards or the stub (14.12A(f))",
                out,
            )
        elif card.index in holder:
            where = (
                "a burn or the board"
                if holder[card.index] is None
                else f"seat {holder[card.index]}"
            )
            return self._raise_alarm(
                inp,
                card.code,
                "expected " + _describe_destination(expected),
                f"{card.code} was already seen this hand ({where})",
                out,
            )
        kind, seat, face = expected.destination, expected.seat, expected.face
        # A card where a burn is expected is the burn (integrity rules of the issue).
        holder[card.index] = seat
        if seat is not None:
            (hand.up if face == _UP else hand.down)[seat].append(card)
        elif kind == BURN:
            hand.burns.append(card)
        else:
            hand.community.append(card)
        out.append(CardDealt(card.code, kind, seat, face))
        hand.queue_pos += 1
        if hand.queue_pos < len(hand.queue):
            self._pending = hand.queue[hand.queue_pos]
            out.append(self._pending)
        elif phase == DRAWING:  # the drawing player's replacements are all out
            hand.drawer_pos += 1
            self._expect_draw(out)
        else:
            self._street_dealt(out)
        return True

    # ----------------------------------------------------------------- draws
    def _expect_draw(self, out: list[Event]) -> None:
        hand = self._hand
        assert hand is not None
        if hand.drawer_pos >= len(hand.drawers):
            self._street_dealt(out)
            return
        hand.discards = []
        hand.replacing = False
        hand.reshuffled_for = None
        self._pending = DrawExpected(hand.drawers[hand.drawer_pos], (), _DRAW_REASON)
        out.append(self._pending)

    def _discard(self, hand: HandState, card: Card, out: list[Event]) -> bool:
        """A card of the drawing player's hand over the discard reader: a discard (14.12A(f))."""
        seat = hand.drawers[hand.drawer_pos]
        cards = hand.down[seat] if card in hand.down[seat] else hand.up[seat]
        cards.remove(card)
        hand.discards.append(card)
        hand.discarded[card.index] = seat
        out.append(CardDiscarded(card.code, seat))
        codes = tuple(c.code for c in hand.discards)
        self._pending = DrawExpected(seat, codes, _DRAW_REASON)
        out.append(self._pending)
        return True

    def _draw_done(self, out: list[Event]) -> bool:
        hand = self._hand
        if self._phase.state == DRAWING and hand is not None and hand.replacing:
            # 14.12A(f): each discarded card is replaced; draw done before the last is too few.
            owed = len(hand.queue) - hand.queue_pos
            seat = hand.drawers[hand.drawer_pos]
            return self._raise_alarm(
                ButtonPress(Button.DRAW_DONE),
                "draw_done",
                self._expectation(),
                f"seat {seat} is still owed {owed} card{'s' if owed > 1 else ''} "
                "(a replacement too few, 14.12A(f))",
                out,
            )
        if self._phase.state != DRAWING or hand is None:
            out.append(Refused("draw_done", f"no one is drawing; {self._expectation()}"))
            return False
        street = self.spec.streets[hand.street]
        assert street.draw is not None
        seat = hand.drawers[hand.drawer_pos]
        count = len(hand.discards)
        out.append(DrawDeclared(seat, tuple(c.code for c in hand.discards)))
        if not count:  # stands pat
            hand.drawer_pos += 1
            self._expect_draw(out)
            return True
        queue: list[CardExpected] = []
        if street.draw.burn and not hand.burned_draw:
            # 14.12A(f): burn before the first player of the draw receives any new card.
            queue.append(_BURN_EXPECTED)
            hand.burned_draw = True
        queue.extend([_seat_expected(seat, _DOWN)] * count)
        stub = len(DECK) - len(hand.holder) + len(hand.reshuffled)
        if stub < len(queue) and street.draw.reshuffle_discards:
            # 14.12A(f): the stub is short; every discard but the ones the drawing player
            # just made is reshuffled (folded hands are discards too; docs/rules-interpretation.md).
            pool = set(hand.discarded) - hand.reshuffled - {c.index for c in hand.discards}
            hand.reshuffled |= pool
            hand.reshuffled_for = seat
            out.append(DiscardsReshuffled(seat, tuple(DECK[i].code for i in sorted(pool))))
        hand.replacing = True
        hand.queue = queue
        hand.queue_pos = 0
        self._pending = queue[0]
        out.append(queue[0])
        return True

    def _muck(self, inp: CardRead, out: list[Event]) -> bool:
        """A card passed over the discard reader into the muck: a folded or finished hand's."""
        card = inp.card
        hand = self._hand
        if hand is None:
            return self._raise_alarm(
                inp,
                card.code,
                "no card: no hand has been dealt",
                "a card when none is expected",
                out,
            )
        if card.index not in hand.holder:
            return self._raise_alarm(
                inp,
                card.code,
                "only cards dealt this hand at the discard reader",
                f"{card.code} was not dealt this hand",
                out,
            )
        holder = hand.holder[card.index]
        drawing = self._phase.state == DRAWING and not hand.replacing
        if drawing and holder == hand.drawers[hand.drawer_pos] and card.index not in hand.discarded:
            return self._discard(hand, card, out)
        if card.index in hand.discarded:  # a discard passed over the reader again: muck
            out.append(CardMucked(card.code, hand.discarded[card.index]))
            return True
        if self.phase in IN_HAND and holder is not None and holder not in hand.folded:
            reason = f"{card.code} belongs to seat {holder}, still in the hand"
            if hand.replacing and self._phase.state == DRAWING:
                owed = len(hand.queue) - hand.queue_pos
                reason = (
                    f"seat {hand.drawers[hand.drawer_pos]} is still owed {owed} new "
                    f"card{'s' if owed > 1 else ''} (a replacement too few, 14.12A(f)); {reason}"
                )
            expected = "only folded hands at the discard reader"
            return self._raise_alarm(inp, card.code, expected, reason, out)
        hand.mucked.add(card.index)
        out.append(CardMucked(card.code, holder))
        return True

    def _street_dealt(self, out: list[Event]) -> None:
        """The street's cards (or its draw) are out: bet, or deal on when no one can."""
        hand = self._hand
        assert hand is not None
        able = hand.able()
        if len(able) >= 2 or (len(able) == 1 and self._owes_blind(able[0])):
            self._move("cards_dealt" if self._phase.state == DEALING else "draw_complete")
            self._begin_round(out)
            return
        # Fewer than two can bet (the rest all-in) and none owes a blind: no round; the
        # cards run out.
        street = self.spec.streets[hand.street]
        out.append(RoundCompleted(street.name, hand.pot(), skipped=True))
        self._next_street(out)

    def _next_street(self, out: list[Event]) -> None:
        hand = self._hand
        assert hand is not None
        if hand.street + 1 < len(self.spec.streets):
            hand.street += 1
            self._move("draw_street" if self.spec.streets[hand.street].draw else "deal_street")
            self._start_street(out)
        else:
            self._move("to_showdown")
            self._showdown(out)

    # ----------------------------------------------------------------- betting
    def _begin_round(self, out: list[Event]) -> None:
        hand = self._hand
        assert hand is not None
        street = self.spec.streets[hand.street]
        betting = street.betting
        hand.unit = self.stakes.bet(betting.size)
        if betting.forced and self.spec.forced_bet is ForcedBet.BLINDS:
            # The blinds are the round's live opening bet (14.10(d)); the big blind counts
            # as its first bet toward the cap.
            hand.current_bet = self.stakes.big_blind
            hand.bets = 1
        else:
            hand.current_bet = 0
            hand.bets = 0
            for seat in hand.order:
                hand.round_commit[seat] = 0
        able = hand.able()
        hand.to_act = set(able)
        hand.acted = set()
        # A lone seat that can still bet only settles what it owes: no one could answer a raise.
        hand.no_raise = set(able) if len(able) == 1 else set()
        views = [SeatView(s, tuple(hand.up[s])) for s in hand.live()]
        opener, reason = betting.opener(views, hand.community)
        hand.forced_pending = (
            betting.forced and self.spec.forced_bet is ForcedBet.BRING_IN and opener in hand.to_act
        )
        hand.actor = opener if opener in hand.to_act else self._next_to_act(opener)
        duty = betting.opener_duty
        if not betting.forced and opener in hand.to_act and duty is not OpenerDuty.ANY:
            hand.duty, hand.duty_rule = duty, betting.duty_rule
        out.append(RoundStarted(street.name, hand.unit, opener, reason, betting.forced))
        if hand.actor != opener:
            # The opener is all-in: the next seat acts, not for the opener's reason
            # (docs/rules-interpretation.md, Who opens a later round).
            reason = f"seat {opener}, {reason}, is all-in"
        self._prompt(out, reason)

    def _owes_blind(self, seat: int) -> bool:
        """Whether the seat has not yet matched the big blind of a blinds round (14.10(d)).

        The big blind is the round's live bet even when the big blind is all-in for less, so
        a seat that posted less (heads-up: the small blind) must call or fold although no one
        else can still bet.
        """
        hand = self._hand
        assert hand is not None
        betting = self.spec.streets[hand.street].betting
        return (
            betting is not None
            and betting.forced
            and self.spec.forced_bet is ForcedBet.BLINDS
            and hand.round_commit[seat] < self.stakes.big_blind
        )

    def _next_to_act(self, after: int) -> int | None:
        hand = self._hand
        assert hand is not None
        to_act = hand.to_act
        for seat in hand.clockwise[after]:
            if seat in to_act:
                return seat
        return None

    def _options(self, seat: int) -> tuple[int, tuple[Option, ...]]:
        """The legal buttons for the seat to act, with their amounts, and what it owes."""
        hand = self._hand
        assert hand is not None
        stack = self._stacks[seat]
        commit = hand.round_commit[seat]
        current = hand.current_bet
        unit = hand.unit
        if stack is not None and stack > current + 2 * unit:
            stack = None  # deeper than any amount this round can ask: as good as unlimited
        key = (
            hand.forced_pending,
            hand.duty,
            stack,
            commit,
            current,
            unit,
            hand.bets,
            seat in hand.no_raise,
        )
        known = self._option_sets.get(key)
        if known is None:
            known = self._option_sets[key] = work_out_options(
                hand,
                seat,
                stack,
                commit,
                stakes=self.stakes,
                completes_bring_in=self.spec.completes_bring_in,
            )
        return current - commit, known

    def _prompt(self, out: list[Event], reason: str = "") -> None:
        hand = self._hand
        assert hand is not None
        assert hand.actor is not None
        seat = hand.actor
        to_call, options = self._options(seat)
        if not reason:
            reason = to_call_reason(to_call)
        self._pending = ActionRequired(seat, reason, to_call, options)
        out.append(self._pending)

    def _act(self, button: Button, out: list[Event]) -> bool:
        hand = self._hand
        if self._phase.state != BETTING or hand is None or hand.actor is None:
            out.append(Refused(button.value, f"no one is to act; {self._expectation()}"))
            return False
        seat = hand.actor
        pending = self._pending
        # The options were worked out when the seat was prompted; nothing has changed since.
        options = pending.options if isinstance(pending, ActionRequired) else self._options(seat)[1]
        option = None
        for candidate in options:
            if candidate.button == button:
                option = candidate
                break
        if option is None:
            out.append(
                Refused(button.value, refusal(hand, button, seat, self._stacks[seat], self.stakes))
            )
            return False
        self._apply_action(hand, seat, button, option.amount, out)
        return True

    def _apply_action(
        self, hand: HandState, seat: int, button: Button, amount: int, out: list[Event]
    ) -> None:
        hand.to_act.discard(seat)
        hand.duty = None  # whatever the opener did, its duty is done
        if button is _FOLD:
            hand.folded.add(seat)
            if self._has_draws:  # a folded hand joins the discards a short stub reshuffles
                for card in hand.down[seat] + hand.up[seat]:
                    hand.discarded[card.index] = seat
            out.append(ActionTaken(seat, "folds", 0, hand.round_commit[seat], False))
            if len(hand.folded) == len(hand.order) - 1:  # everyone else folded: the hand ends now
                self._move("everyone_folded")
                self._settle(out, showdown=False)
                return
        else:
            was_forced = hand.forced_pending
            hand.forced_pending = False
            self._put(hand, seat, amount)
            level = hand.round_commit[seat]
            is_all_in = seat in hand.all_in
            if level > hand.current_bet:
                level_to = raise_to(hand)
                if was_forced and level < hand.unit:
                    word = "brings in"  # the bring-in is not a bet: it does not count to the cap
                    hand.acted = {seat}
                    hand.to_act = set(hand.able())
                    if not BRING_IN_HAS_OPTION:  # posting it was the bring-in's action
                        hand.to_act.discard(seat)
                elif level >= level_to:
                    word = bet_word(hand, was_forced)
                    hand.bets += 1
                    hand.acted = {seat}
                    hand.no_raise = set()
                    hand.to_act = set(hand.able()) - {seat}
                else:  # a short all-in: others must match it, but it reopens nothing
                    word = "raises all-in (short)"
                    if not SHORT_ALL_IN_REOPENS:
                        hand.no_raise |= hand.acted
                    hand.acted.add(seat)
                    hand.to_act |= {s for s in hand.able() if hand.round_commit[s] < level}
                hand.current_bet = level
            else:
                word = "checks" if amount == 0 else "calls"
                hand.acted.add(seat)
            hand.to_act.discard(seat)
            out.append(ActionTaken(seat, word, amount, level, is_all_in))
        self._after_action(hand, seat, out)

    def _after_action(self, hand: HandState, seat: int, out: list[Event]) -> None:
        next_seat = self._next_to_act(seat) if hand.to_act else None
        if next_seat is not None:
            hand.actor = next_seat
            self._prompt(out)
            return
        hand.actor = None
        street = self.spec.streets[hand.street]
        out.append(RoundCompleted(street.name, hand.pot()))
        self._next_street(out)

    # ----------------------------------------------------------------- the end of a hand
    def _showdown(self, out: list[Event]) -> None:
        hand = self._hand
        assert hand is not None
        rated: dict[str, dict[int, Rated | None]] = {}
        shown: list[ShownHand] = []
        for share in self.spec.showdown.shares:
            values: dict[int, Rated | None] = {}
            for seat in hand.live():
                value = share.evaluate(hand.down[seat] + hand.up[seat] + hand.community)
                values[seat] = value
                shown.append(
                    ShownHand(
                        seat=seat,
                        share=share.name,
                        cards=tuple(c.code for c in value.cards) if value else (),
                        description=value.description if value else NO_QUALIFYING_LOW,
                        qualifies=value is not None,
                    )
                )
            rated[share.name] = values
        out.append(ShowdownEvent(tuple(shown)))
        self._move("settle")
        self._settle(out, showdown=True, rated=rated)

    def _settle(
        self,
        out: list[Event],
        showdown: bool,
        rated: dict[str, dict[int, Rated | None]] | None = None,
    ) -> None:
        hand = self._hand
        assert hand is not None
        pots, rake = settle_pots(
            committed=hand.committed,
            live=hand.live(),
            order=hand.order,
            stakes=self.stakes,
            showdown=self.spec.showdown,
            rated=rated or {},
        )
        won: dict[int, int] = dict.fromkeys(hand.order, 0)
        for pot in pots:
            for award in pot.awards:
                won[award.seat] += award.amount
        for seat in hand.order:
            stack = self._stacks[seat]
            if stack is not None:
                self._stacks[seat] = stack + won[seat]
        settled = HandSettled(
            hand=self._hand_number,
            uncontested=not showdown,
            pots=tuple(pots),
            rake=rake,
            net=tuple(SeatAmount(s, won[s] - hand.committed[s]) for s in hand.order),
            stacks=tuple(
                SeatAmount(s, st) for s in self._seats if (st := self._stacks[s]) is not None
            ),
        )
        self._last_settlement = settled
        out.append(settled)
        self._pending = NewHandExpected(self._hand_number + 1)
        out.append(self._pending)

    def _misdeal(self, out: list[Event]) -> bool:
        hand = self._hand
        if self.phase not in IN_HAND or hand is None:
            out.append(Refused("misdeal", f"no hand is in play to void; {self._expectation()}"))
            return False
        self._move("misdeal")
        for seat in hand.order:  # every bet and ante goes back
            stack = self._stacks[seat]
            if stack is not None:
                self._stacks[seat] = stack + hand.committed[seat]
        voided = HandVoided(
            self._hand_number, tuple(SeatAmount(s, hand.committed[s]) for s in hand.order)
        )
        self._alarm = None
        self._last_settlement = voided
        out.append(voided)
        self._pending = NewHandExpected(self._hand_number + 1)
        out.append(self._pending)
        return True

    # ----------------------------------------------------------------- between hands
    def rebuy(self, seat: int, chips: int) -> None:
        """A player buys ``chips`` more between hands (table stakes: never during a hand).

        Only a known stack can grow; a ValueError names the seat, the amount and
        what was expected. The chips close the last hand: undo no longer reaches into it
        (its settlement paid the stacks the chips are added to).
        """
        if seat not in self._stacks:
            raise ValueError(f"rebuy: seat {seat} is not an occupied seat {self._seats}")
        stack = self._stacks[seat]
        if stack is None:
            raise ValueError(f"rebuy: seat {seat}'s stack is unknown; expected a known stack")
        if chips <= 0 or chips % self.stakes.chip:
            raise ValueError(
                f"rebuy: {chips} chips for seat {seat}; expected a positive multiple of the "
                f"smallest chip {self.stakes.chip}"
            )
        if self.phase in IN_HAND:
            raise ValueError(
                f"rebuy: hand {self._hand_number} is in play; expected chips only between hands"
            )
        self._stacks[seat] = stack + chips
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
        if self.phase in IN_HAND or self._alarm is not None:
            held = f"alarm {self._alarm.read}" if self._alarm else f"phase {self.phase}"
            raise ValueError(
                f"checkpoint: hand {self._hand_number} is held ({held}); expected a table "
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
            hand=self._hand_number,
            phase=self.phase,
            dealer=self._dealer,
            seats=self._seats,
            stacks=tuple(self._stacks.items()),
            start_stacks=tuple(start_stacks.items()),
            start_dealer=start_dealer,
            inputs=inputs,
            closed=closed,
            after=tuple(self._inputs) if closed else (),
        )

    @classmethod
    def from_checkpoint(cls, spec: GameSpec, config: TableConfig, cp: TableCheckpoint) -> Table:
        """A table continuing from ``cp``, with ``config``'s stakes and ``cp``'s seats.

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
                # meet the table's rules (a stack in whole chips, NOTES.md, Betting structure).
                table.config.validate(spec)
                table._seats, table._stacks = cp.seats, stacks
                silent: list[Event] = []
                for inp in cp.after:
                    table._step(inp, silent)
                table._inputs = list(cp.after)
        else:
            table = cls(spec, _config_at(config, cp.seats, cp.dealer, stacks))
            table._hand_number = cp.hand
            table._phase.state = cp.phase
            table._pending = NewHandExpected(cp.hand + 1)
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
            config, seats, stacks = self.config, self._seats, dict(self._stacks)
            self._replay_hand(closed[0], list(closed[1]))
            self._closed = closed
            self.config, self._seats, self._stacks = config, seats, stacks
            silent: list[Event] = []
            for inp in replay:
                self._step(inp, silent)
        self._inputs = replay
        what = describe_input(undone)
        out.append(Undone(what, f"undid {what}; the hand is as it was before it"))
        out.append(self.pending)

    def _replay_hand(
        self, start: tuple[dict[int, int | None], int, int], inputs: list[TableInput]
    ) -> None:
        """Rebuild the hand that began at ``start`` (stacks, dealer, number) from ``inputs``."""
        stacks, dealer, number = start
        self._seats = tuple(stacks)
        self._stacks = dict(stacks)
        self._dealer = dealer
        self._hand_number = number
        self._alarm = None
        if self.phase != WAITING:
            self._move("rewind")
        silent: list[Event] = []
        self._begin(silent)
        for inp in inputs:
            self._step(inp, silent)


def _config_at(
    config: TableConfig, seats: tuple[int, ...], dealer: int, stacks: Mapping[int, int | None]
) -> TableConfig:
    """``config``'s stakes with these seats, dealer and (known) stacks."""
    known = {seat: stack for seat, stack in stacks.items() if stack is not None}
    return replace(config, seats=seats, dealer=dealer, stacks=known)
