"""The betting phase: the forced bets, each fixed-limit round, its options and its refusals.

``Betting`` owns the round under way (its bet, the seats still to act, who may
no longer raise, the opener's duty) and applies each betting button to the
shared ``HandState``. Rules: 14.13(b),(d),(e),(f), 14.13A(b),(d),(e),(f),(g),(h),
14.10(c),(d),(f), rules-interpretation.md, Betting structure and House rules; the open points
are settled in docs/rules-interpretation.md.
"""

from __future__ import annotations

from functools import cache
from typing import Final, NamedTuple

from controller.poker.cards import Card
from controller.poker.engine.events import (
    ActionRequired,
    ActionTaken,
    BlindPosted,
    Event,
    Option,
    RoundStarted,
    SeatAmount,
)
from controller.poker.engine.hand import HandState
from controller.poker.engine.tablesetup import HouseRules, ShortAllIn, Stakes
from controller.poker.games.spec import ForcedBet, GameSpec, OpenerDuty, SeatView, Street
from controller.poker.inputs import Button

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


class Facing(NamedTuple):
    """Everything the options of the seat to act depend on: ``work_out_options`` reads
    nothing else of the hand, so these fields are the whole key of a table's option cache."""

    forced: bool  # the bring-in is still to be made
    duty: OpenerDuty | None
    stack: int | None  # None: unknown, or deeper than anything this round can ask
    commit: int
    current: int
    unit: int
    raise_from: int | None
    bets: int
    no_raise: bool
    heads_up: bool


_new_facing: Final = tuple.__new__


def raise_to(unit: int, raise_from: int | None) -> int:
    """The level a full bet or raise takes the round to: one bet, or the completion of a
    bring-in, before any full bet; after one, a bet on top of it (rules-interpretation.md, Betting
    structure; the half-bet rule counts a large short all-in as one)."""
    return unit if raise_from is None else raise_from + unit


def _heads_up(hand: HandState) -> bool:
    """Only two players are in the pot (rules-interpretation.md, House rules: the cap may lift
    then)."""
    return len(hand.order) - len(hand.folded) == 2


def capped(bets: int, heads_up: bool, stakes: Stakes, rules: HouseRules) -> bool:
    """Whether the round's raises are capped now (rules-interpretation.md, Betting structure, House
    rules)."""
    return bets >= stakes.cap and not (rules.cap_lifts_heads_up and heads_up)


def work_out_options(
    facing: Facing, *, stakes: Stakes, rules: HouseRules, completes_bring_in: bool
) -> tuple[Option, ...]:
    """The legal buttons of the seat to act with their amounts (``facing.stack`` None:
    unlimited)."""
    stack = facing.stack
    unit = facing.unit
    if facing.forced:
        return _bring_in_options(unit, stack, stakes, completes_bring_in)
    if facing.duty is not None:
        return _opener_options(facing.duty, unit, stack)
    current, commit = facing.current, facing.commit
    to_call = current - commit
    options = [FOLD_OPTION]
    if to_call == 0:
        options.append(CHECK_OPTION)
    elif stack is None or stack >= to_call:
        options.append(option(_CHECK_CALL, to_call, "call"))
    level = raise_to(unit, facing.raise_from)
    can_raise = not facing.no_raise and not capped(facing.bets, facing.heads_up, stakes, rules)
    if can_raise and (stack is None or stack >= level - commit):
        word = (
            "bet" if current == 0 else ("complete to" if facing.raise_from is None else "raise to")
        )
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


def _duty(street: Street, rules: HouseRules) -> tuple[OpenerDuty, str]:
    """The opener's duty of a round and the rule that sets it: 14.13(f)'s "required to bet"
    is a house rule (rules-interpretation.md, House rules), which may let the opener check."""
    betting = street.betting
    if betting.opener_duty is OpenerDuty.BET and not rules.opener_must_bet:
        return OpenerDuty.BET_OR_CHECK, "rules-interpretation.md, House rules"
    return betting.opener_duty, betting.duty_rule


class Betting:
    """The betting round under way, and the forced bets that open a hand."""

    __slots__ = (
        "_completes",
        "_forced_bet",
        "_option_sets",
        "_rules",
        "_stakes",
        "acted",
        "actor",
        "bets",
        "current_bet",
        "duty",
        "duty_rule",
        "forced_pending",
        "no_raise",
        "raise_from",
        "to_act",
        "unit",
    )

    def __init__(self, spec: GameSpec, stakes: Stakes, rules: HouseRules) -> None:
        self._stakes = stakes
        self._rules = rules
        self._forced_bet = spec.forced_bet
        self._completes = spec.completes_bring_in
        # The option sets seen so far, by their whole input (Facing).
        self._option_sets: dict[Facing, tuple[Option, ...]] = {}
        self.unit = 0
        self.current_bet = 0
        # The level the last full bet or raise reached (None: no full bet yet this round).
        self.raise_from: int | None = None
        self.bets = 0
        self.to_act: set[int] = set()
        self.acted: set[int] = set()
        self.no_raise: set[int] = set()
        self.actor: int | None = None
        self.forced_pending = False
        # The opener's duty while it has not acted (None: no duty beyond the options).
        self.duty: OpenerDuty | None = None
        self.duty_rule = ""

    # ----------------------------------------------------------------- forced bets
    def post_antes(self, hand: HandState, stacks: dict[int, int | None]) -> tuple[SeatAmount, ...]:
        """14.13(b), 14.13A(b): the posted ante from every seat dealt in; dead money, not part
        of the first round's bets."""
        ante = self._stakes.ante
        if not ante:
            return ()
        antes = []
        for seat in hand.order:
            antes.append(SeatAmount(seat, hand.put(stacks, seat, ante)))
            hand.round_commit[seat] = 0
        return tuple(antes)

    def post_blinds(self, hand: HandState, stacks: dict[int, int | None], out: list[Event]) -> None:
        """Small blind left of the button, big blind next; heads-up the button posts the small
        blind (14.10(c),(d); rules-interpretation.md, Forced bets). Blinds are live bets of the
        first round.
        """
        if self._forced_bet is not ForcedBet.BLINDS:
            return
        order = hand.order
        small, big = (order[1], order[0]) if len(order) == 2 else (order[0], order[1])
        for seat, blind, amount in (
            (small, "small", self._stakes.small_blind),
            (big, "big", self._stakes.big_blind),
        ):
            posted = hand.put(stacks, seat, amount)
            out.append(BlindPosted(seat, blind, posted, seat in hand.all_in))

    # ----------------------------------------------------------------- a round
    def has_round(self, hand: HandState, street: Street) -> bool:
        """Whether the street's cards (or draw) lead to a betting round: two can still bet, or
        one still owes the big blind of a blinds round (14.10(d)). The big blind is the round's
        live bet even when the big blind is all-in for less, so a seat that posted less
        (heads-up: the small blind) must call or fold although no one else can still bet.
        """
        able = hand.able()
        if len(able) >= 2:
            return True
        return (
            len(able) == 1
            and street.betting.forced
            and self._forced_bet is ForcedBet.BLINDS
            and hand.round_commit[able[0]] < self._stakes.big_blind
        )

    def begin(
        self,
        hand: HandState,
        street: Street,
        stacks: dict[int, int | None],
        out: list[Event],
    ) -> ActionRequired:
        """Open the street's betting round; the first prompt."""
        betting = street.betting
        stakes = self._stakes
        self.unit = unit = stakes.bet(betting.size)
        blinds = betting.forced and self._forced_bet is ForcedBet.BLINDS
        if blinds:
            # The blinds are the round's live opening bet (14.10(d)); the big blind counts
            # as its first bet toward the cap.
            self.current_bet = stakes.big_blind
            self.raise_from = stakes.big_blind if stakes.big_blind >= unit else None
            self.bets = 1
        else:
            self.current_bet = 0
            self.raise_from = None
            self.bets = 0
            for seat in hand.order:
                hand.round_commit[seat] = 0
        able = hand.able()
        self.to_act = set(able)
        self.acted = set()
        # A lone seat that can still bet only settles what it owes: no one could answer a raise.
        self.no_raise = set(able) if len(able) == 1 else set()
        views = [SeatView(s, tuple(hand.up[s])) for s in hand.live()]
        community: list[Card] = hand.community
        opener, reason = betting.opener(views, community)
        opens = opener in self.to_act
        self.forced_pending = betting.forced and self._forced_bet is ForcedBet.BRING_IN and opens
        self.actor = opener if opens else self._next_to_act(hand, opener)
        self.duty = None
        if not betting.forced and opens and betting.opener_duty is not OpenerDuty.ANY:
            self.duty, self.duty_rule = _duty(street, self._rules)
        out.append(RoundStarted(street.name, unit, opener, reason, betting.forced))
        if self.actor != opener:
            # The opener is all-in: the next seat acts, not for the opener's reason
            # (docs/rules-interpretation.md, Who opens a later round).
            reason = f"seat {opener}, {reason}, is all-in"
        return self.prompt(hand, stacks, reason)

    def _next_to_act(self, hand: HandState, after: int) -> int | None:
        to_act = self.to_act
        for seat in hand.clockwise[after]:
            if seat in to_act:
                return seat
        return None

    def _facing(self, hand: HandState, seat: int, stack: int | None) -> Facing:
        current = self.current_bet
        if stack is not None and stack > current + 2 * self.unit:
            stack = None  # deeper than any amount this round can ask: as good as unlimited
        # tuple.__new__, not Facing(...): a NamedTuple's own constructor is a Python call, and
        # this runs at every prompt. Heads-up matters only where the cap lifts then (a key
        # that held it otherwise would only split the cache).
        return _new_facing(
            Facing,
            (
                self.forced_pending,
                self.duty,
                stack,
                hand.round_commit[seat],
                current,
                self.unit,
                self.raise_from,
                self.bets,
                seat in self.no_raise,
                self._rules.cap_lifts_heads_up and _heads_up(hand),
            ),
        )

    def prompt(
        self, hand: HandState, stacks: dict[int, int | None], reason: str = ""
    ) -> ActionRequired:
        """What the seat to act must do now, with its legal buttons."""
        seat = self.actor
        assert seat is not None
        facing = self._facing(hand, seat, stacks[seat])
        options = self._option_sets.get(facing)
        if options is None:
            options = self._option_sets[facing] = work_out_options(
                facing, stakes=self._stakes, rules=self._rules, completes_bring_in=self._completes
            )
        to_call = facing.current - facing.commit
        return ActionRequired(seat, reason or to_call_reason(to_call), to_call, options)

    def refusal(self, hand: HandState, button: Button, seat: int, stack: int | None) -> str:
        """Why ``button`` is not legal for the seat to act (it is not among its options)."""
        if self.forced_pending:
            return _forced_refusal(button, seat, stack)
        if self.duty is not None and button in {Button.FOLD, Button.CHECK_CALL}:
            return f"seat {seat} opens this round and must {self.duty.value} ({self.duty_rule})"
        if button is Button.CHECK_CALL:
            to_call = self.current_bet - hand.round_commit[seat]
            return f"seat {seat} has {stack}, less than the {to_call} to call; press all-in"
        if button is Button.BET_RAISE:
            return self._raise_refusal(hand, seat, stack)
        return _all_in_refusal(seat, stack)

    def _raise_refusal(self, hand: HandState, seat: int, stack: int | None) -> str:
        if capped(self.bets, _heads_up(hand), self._stakes, self._rules):
            return (
                f"the cap of {self._stakes.cap} bets this round is reached "
                "(rules-interpretation.md, Betting structure); call or fold"
            )
        if seat in self.no_raise:
            return (
                f"seat {seat} already acted and a short all-in does not reopen the betting; "
                "call or fold"
            )
        cost = raise_to(self.unit, self.raise_from) - hand.round_commit[seat]
        return f"seat {seat} has {stack}, not enough for the {cost} a raise costs; press all-in"

    # ----------------------------------------------------------------- an action
    def act(
        self,
        hand: HandState,
        button: Button,
        amount: int,
        stacks: dict[int, int | None],
        out: list[Event],
    ) -> ActionRequired | None:
        """Apply the seat to act's legal ``button`` for ``amount``; the next prompt, or None
        when the round is over (or everyone else folded: ``hand.live()`` says)."""
        seat = self.actor
        assert seat is not None
        self.to_act.discard(seat)
        self.duty = None  # whatever the opener did, its duty is done
        if button is Button.FOLD:
            hand.folded.add(seat)
            out.append(ActionTaken(seat, "folds", 0, hand.round_commit[seat], False))
            if len(hand.folded) == len(hand.order) - 1:  # everyone else folded: the hand ends
                self.actor = None
                return None
        else:
            was_forced = self.forced_pending
            self.forced_pending = False
            hand.put(stacks, seat, amount)
            level = hand.round_commit[seat]
            if level > self.current_bet:
                word = self._raise(hand, seat, level, was_forced)
                self.current_bet = level
            else:
                word = "checks" if amount == 0 else "calls"
                self.acted.add(seat)
            out.append(ActionTaken(seat, word, amount, level, seat in hand.all_in))
        next_seat = self._next_to_act(hand, seat) if self.to_act else None
        self.actor = next_seat
        return None if next_seat is None else self.prompt(hand, stacks)

    def _raise(self, hand: HandState, seat: int, level: int, was_forced: bool) -> str:
        """The round goes up to ``level``: who must answer and whether it reopens; the word."""
        unit = self.unit
        full = raise_to(unit, self.raise_from)
        if was_forced and level < unit:
            # The bring-in is not a bet: it does not count to the cap.
            self.acted = {seat}
            self.to_act = set(hand.able())
            if not self._rules.bring_in_has_option:  # posting it was the bring-in's action
                self.to_act.discard(seat)
            return "brings in"
        current = self.current_bet
        half_bet = self._rules.short_all_in is ShortAllIn.HALF_BET
        # rules-interpretation.md, Betting structure: under the half-bet rule an all-in that adds
        # half of what a full bet (raise, completion) would add or more counts as a full one.
        if level >= full or (half_bet and 2 * (level - current) >= full - current):
            word = (
                bet_word(current, unit, self.raise_from, was_forced)
                if level >= full
                else ("raises all-in (short)")
            )
            self.bets += 1
            self.raise_from = level
            self.acted = {seat}
            self.no_raise = set()
            self.to_act = set(hand.able()) - {seat}
            return word
        # A short all-in: others must match it, but it reopens nothing for those who acted;
        # a seat yet to act may complete it to a full bet (rules-interpretation.md, Betting
        # structure).
        self.no_raise |= self.acted
        self.acted.add(seat)
        self.to_act |= {s for s in hand.able() if hand.round_commit[s] < level}
        if not half_bet and level >= unit:
            self.raise_from = level  # full-bet rule: the next raise is a bet on top of it
        return "raises all-in (short)"


def bet_word(current: int, unit: int, raise_from: int | None, was_forced: bool) -> str:
    """What the dealer calls a full bet or raise made now."""
    if was_forced:
        return "brings in for a full bet"
    if current == 0:
        return "bets"
    return "completes" if raise_from is None else "raises"
