"""PHH hand histories in, the stud games: five-card stud (``F5S``, 14.13) and Mambo
(``FMB/6``, 14.13A), as tablectl's export writes them, played through the engine.

``stud_hand`` walks the history with a real ``Table``: each card is given where the
table expects it (a burn where it burns), each action becomes the option the table
offers for it; an action the table would not offer is refused with PhhUnsupported
(``controller.history.phh.parse`` says what the conversion supplies and refuses).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from controller.history.phh.parse import (
    UNKNOWN,
    ConvertedHand,
    PhhError,
    PhhHand,
    PhhUnsupported,
    action_player,
    action_words,
    card_codes,
    known_stacks,
)
from controller.poker.announce import announce, option_text
from controller.poker.cards import DECK, Card, CardError
from controller.poker.engine import Table
from controller.poker.engine.events import (
    BURN,
    COMMUNITY,
    ActionRequired,
    ActionTaken,
    Alarm,
    CardExpected,
    HandSettled,
    Option,
    Refused,
    RoundStarted,
)
from controller.poker.engine.tablesetup import TableSetup
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress, CardRead, TableInput


def stud_hand(hand: PhhHand, game: str, seats: tuple[int, ...]) -> ConvertedHand:
    """A five-card stud or Mambo hand (as tablectl's export writes it) as its inputs: each
    card given where the table expects it, each action the option the table offers for it."""
    if len(set(hand.antes)) != 1:
        raise PhhUnsupported(f"antes {hand.antes}: expected one ante for every player")
    stakes = hand.stakes(bring_in=hand.bring_in)
    # p1 is dealt first (14.13(c), 14.13A(c)): the dealer sits just before its seat.
    config = TableSetup(
        seats=tuple(sorted(seats)),
        stakes=stakes,
        dealer=seats[0] - 1,
        stacks=known_stacks(hand, seats),
        rules=hand.rules,
    )
    walk = _StudWalk(Table(GAMES[game], config), hand, seats)
    walk.take(ButtonPress(Button.NEW_HAND), "the new hand")
    for action in hand.actions:
        walk.action(action)
    if not walk.settled:
        raise PhhError(
            f"the actions end before the hand does: the table waits for "
            f"{announce(walk.table.pending)!r}"
        )
    return ConvertedHand(game, config, tuple(walk.inputs))


#: The buttons a PHH betting action may be, in the order tried (a full action before all-in).
_STUD_BUTTONS: Final = {
    "f": ("fold",),
    "cc": ("check_call", "all_in"),
    "pb": ("check_call", "all_in"),  # the bring-in posted (14.13(d), 14.13A(d))
    "cbr": ("bet_raise", "all_in"),
}


class _StudWalk:
    """The engine dealt and played as the history tells it; the inputs it took."""

    def __init__(self, table: Table, hand: PhhHand, seats: tuple[int, ...]) -> None:
        self.table = table
        self.hand = hand
        self.seats = seats
        self.inputs: list[TableInput] = []
        self.settled = False
        #: Each seat's chips in the betting round so far (``cbr`` gives the round's total).
        self.round: dict[int, int] = {}
        named = {
            code for action in hand.actions for code in _named_cards(action) if code != UNKNOWN
        }
        self.spare: Iterator[Card] = iter([c for c in DECK if c.code not in named])

    def take(self, inp: TableInput, action: str) -> None:
        events = self.table.apply(inp)
        for event in events:
            if isinstance(event, Refused | Alarm):
                raise PhhUnsupported(f"action {action!r}: the table answers {announce(event)}")
            if isinstance(event, RoundStarted):
                self.round = {}
            elif isinstance(event, ActionTaken):
                self.round[event.seat] = event.round_total
            self.settled = self.settled or isinstance(event, HandSettled)
        self.inputs.append(inp)

    def action(self, action: str) -> None:
        words = action.split()
        if len(words) == 3 and words[:2] == ["#", "burn"]:  # tablectl's export writes burns
            self._burn(words[2], action)
            return
        words = action_words(action)
        if not words:
            return  # another comment
        if words[0] == "d":
            self._deal(words, action)
        elif words[1:2] == ["sm"]:
            return  # the table shows every hand left in itself (14.13(h), 14.13A(j))
        else:
            self._act(words, action)

    def _card(self, code: str) -> Card:
        if code == UNKNOWN:  # a card the history hides: one no one in it holds
            return next(self.spare)
        try:
            return Card.parse(code)
        except CardError as error:
            raise PhhError(f"a card dealt: {error}") from None

    def _burn(self, code: str, action: str) -> None:
        pending = self.table.pending
        if not (isinstance(pending, CardExpected) and pending.destination == BURN):
            raise PhhError(f"action {action!r}: the table waits for {announce(pending)!r}")
        self.take(CardRead(self._card(code)), action)

    def _deal(self, words: list[str], action: str) -> None:
        if words[1] == "dh" and len(words) == 4:
            where: str | int = self.seats[action_player(words[2], self.hand, action) - 1]
        elif words[1] == "db" and len(words) == 3:
            where = COMMUNITY
        else:
            raise PhhError(f"action {action!r}: expected 'd dh pN CARD' or 'd db CARD'")
        for code in card_codes(words[-1], action):  # one card an action, or a player's several
            pending = self.table.pending
            if isinstance(pending, CardExpected) and pending.destination == BURN:
                # PHH has no burns; the history does not name this one (14.13(e), 14.13A(f)).
                self.take(CardRead(next(self.spare)), action)
                pending = self.table.pending
            if not isinstance(pending, CardExpected) or where not in (
                pending.seat,
                pending.destination,
            ):
                raise PhhError(f"action {action!r}: the table waits for {announce(pending)!r}")
            self.take(CardRead(self._card(code)), action)

    def _act(self, words: list[str], action: str) -> None:
        seat = self.seats[action_player(words[0], self.hand, action) - 1]
        pending = self.table.pending
        if not isinstance(pending, ActionRequired) or pending.seat != seat:
            raise PhhError(
                f"action {action!r} (seat {seat}): the table waits for {announce(pending)!r}"
            )
        option = self._option(pending, words, action)
        self.take(ButtonPress(Button(option.button)), action)

    def _option(self, pending: ActionRequired, words: list[str], action: str) -> Option:
        """The option the table offers for the action: ``cbr`` the one to the round's total."""
        buttons = _STUD_BUTTONS.get(words[1])
        if buttons is None or len(words) != (3 if words[1] == "cbr" else 2):
            raise PhhError(f"action {action!r}: expected pb, f, cc, cbr AMOUNT or sm")
        offered = [o for button in buttons for o in pending.options if o.button == button]
        if words[1] == "cbr":
            if not words[2].isdigit():
                raise PhhError(f"action {action!r}: expected a whole amount to bet or raise to")
            adds = int(words[2]) - self.round.get(pending.seat, 0)
            offered = [o for o in offered if o.amount == adds]
        if not offered:
            choices = ", ".join(option_text(o) for o in pending.options)
            raise PhhUnsupported(f"action {action!r}: the table offers {choices}")
        return offered[0]


def _named_cards(action: str) -> list[str]:
    """The cards an action (or a ``# burn`` comment) names."""
    words = action.split()
    if len(words) == 3 and words[:2] == ["#", "burn"]:
        return [words[2]]
    words = action_words(action)
    if words[:1] == ["d"] or words[1:2] == ["sm"]:
        return card_codes(words[-1], action) if len(words) >= 3 else []
    return []
