"""Fixed-limit betting: the legal buttons of the seat to act, and why a button is refused.

Pure functions of the hand (``HandState``) and the stakes; the Table applies
the chosen action. Rules: 14.13(d),(e), 14.13A(d),(e),(g), 14.10(f) and
NOTES.md, Betting structure; the open points are settled in
docs/rules-interpretation.md.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from controller.engine.config import Stakes
from controller.engine.events import Option
from controller.engine.hand import HandState
from controller.games.spec import OpenerDuty
from controller.inputs import Button

#: The bring-in seat does not get to act again when every other player only calls
#: the bring-in: posting it was its action (docs/rules-interpretation.md, Bring-in).
BRING_IN_HAS_OPTION: Final = False
#: An all-in that is less than a full raise does not reopen the betting for the
#: seats that already acted (docs/rules-interpretation.md, Short all-in).
SHORT_ALL_IN_REOPENS: Final = False

BETTING_BUTTONS: Final = frozenset(
    (Button.FOLD, Button.CHECK_CALL, Button.BET_RAISE, Button.ALL_IN)
)
# Button names as plain strings for the options (the hot path avoids enum look-ups).
_FOLD: Final = Button.FOLD.value
_CHECK_CALL: Final = Button.CHECK_CALL.value
_BET_RAISE: Final = Button.BET_RAISE.value
_ALL_IN: Final = Button.ALL_IN.value


@cache
def option(button: str, amount: int, word: str, shown: int | None = None) -> Option:
    """An option, shared: options are immutable and the same few recur all through a hand."""
    return Option(button, amount, f"{word} {amount if shown is None else shown}")


@cache
def to_call_reason(to_call: int) -> str:
    """Why the seat is prompted, when no opener rule says so."""
    return f"to call {to_call}" if to_call else "no bet to call"


FOLD_OPTION: Final = Option(_FOLD, 0, "fold")
CHECK_OPTION: Final = Option(_CHECK_CALL, 0, "check")


def raise_to(hand: HandState) -> int:
    """The level a bet or raise takes the round to: a bet, or the completion of a bring-in,
    is one bet; a raise adds one bet (NOTES.md, Betting structure)."""
    return hand.unit if hand.current_bet < hand.unit else hand.current_bet + hand.unit


def work_out_options(
    hand: HandState,
    seat: int,
    stack: int | None,
    commit: int,
    *,
    stakes: Stakes,
    completes_bring_in: bool,
) -> tuple[Option, ...]:
    """The legal buttons of ``seat`` with their amounts (``stack`` None: unlimited)."""
    if hand.forced_pending:
        return _bring_in_options(hand.unit, stack, stakes, completes_bring_in)
    if hand.duty is not None:
        return _opener_options(hand.duty, hand.unit, stack)
    unit = hand.unit
    current = hand.current_bet
    to_call = current - commit
    options = [FOLD_OPTION]
    if to_call == 0:
        options.append(CHECK_OPTION)
    elif stack is None or stack >= to_call:
        options.append(option(_CHECK_CALL, to_call, "call"))
    level = unit if current < unit else current + unit
    can_raise = hand.bets < stakes.cap and seat not in hand.no_raise
    if can_raise and (stack is None or stack >= level - commit):
        word = "bet" if current == 0 else ("complete to" if current < unit else "raise to")
        options.append(option(_BET_RAISE, level - commit, word, level))
    limit = level - commit if can_raise else to_call
    if stack is not None and 0 < stack <= max(limit, to_call):
        options.append(option(_ALL_IN, stack, "all-in for"))
    return tuple(options)


def _bring_in_options(
    unit: int, stack: int | None, stakes: Stakes, completes_bring_in: bool
) -> tuple[Option, ...]:
    # 14.13(d), 14.13A(d): the lowest up-card must bring in; no fold, no check.
    bring_in = stakes.forced_bring_in  # on the first street, where the unit is the small bet
    options = []
    if stack is None or stack >= bring_in:
        if bring_in < unit:
            options.append(option(_CHECK_CALL, bring_in, "bring in"))
        else:
            options.append(option(_BET_RAISE, bring_in, "bet"))
    if bring_in < unit and completes_bring_in and (stack is None or stack >= unit):
        options.append(option(_BET_RAISE, unit, "bring in for"))
    if stack is not None and 0 < stack <= unit:
        options.append(option(_ALL_IN, stack, "all-in for"))
    return tuple(options)


def _opener_options(duty: OpenerDuty, unit: int, stack: int | None) -> tuple[Option, ...]:
    # 14.13(f): the opener "shall be required to bet"; 14.13A(f),(h): "to bet or check".
    options = [CHECK_OPTION] if duty is OpenerDuty.BET_OR_CHECK else []
    if stack is None or stack >= unit:
        options.append(option(_BET_RAISE, unit, "bet"))
    if stack is not None and 0 < stack <= unit:
        options.append(option(_ALL_IN, stack, "all-in for"))
    return tuple(options)


def refusal(hand: HandState, button: Button, seat: int, stack: int | None, stakes: Stakes) -> str:
    """Why ``button`` is not legal for the seat to act (it is not among its options)."""
    if hand.forced_pending:
        return _forced_refusal(button, seat, stack)
    if hand.duty is not None and button in {Button.FOLD, Button.CHECK_CALL}:
        return f"seat {seat} opens this round and must {hand.duty.value} ({hand.duty_rule})"
    if button is Button.CHECK_CALL:
        to_call = hand.current_bet - hand.round_commit[seat]
        return f"seat {seat} has {stack}, less than the {to_call} to call; press all-in"
    if button is Button.BET_RAISE:
        return _raise_refusal(hand, seat, stack, stakes)
    return _all_in_refusal(seat, stack)


def _all_in_refusal(seat: int, stack: int | None) -> str:
    if stack is None:
        return f"seat {seat}'s stack is not known; all-in needs the stack"
    if stack == 0:
        return f"seat {seat} has no chips left"
    return (
        f"seat {seat} has {stack}, more than the fixed limit lets it put in now; "
        "call, raise or fold"
    )


def _forced_refusal(button: Button, seat: int, stack: int | None) -> str:
    if button is Button.FOLD:
        return f"seat {seat} must make the forced bet (14.13(d), 14.13A(d)); it cannot fold"
    if button is Button.ALL_IN:
        return (
            f"seat {seat} has {'an unknown stack' if stack is None else stack}; all-in "
            "is only for a stack no larger than the bet"
        )
    return f"seat {seat} has {stack}, not enough to bring in; press all-in"


def _raise_refusal(hand: HandState, seat: int, stack: int | None, stakes: Stakes) -> str:
    if hand.bets >= stakes.cap:
        return (
            f"the cap of {stakes.cap} bets this round is reached "
            "(NOTES.md, Betting structure); call or fold"
        )
    if seat in hand.no_raise:
        return (
            f"seat {seat} already acted and a short all-in does not reopen the betting; "
            "call or fold"
        )
    cost = raise_to(hand) - hand.round_commit[seat]
    return f"seat {seat} has {stack}, not enough for the {cost} a raise costs; press all-in"


def bet_word(hand: HandState, was_forced: bool) -> str:
    """What the dealer calls a full bet or raise made now."""
    if was_forced:
        return "brings in for a full bet"
    if hand.current_bet == 0:
        return "bets"
    return "completes" if hand.current_bet < hand.unit else "raises"
