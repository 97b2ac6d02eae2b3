"""Fixed-limit betting, side pots and the rake, as rules-interpretation.md, Betting structure and
14.13(e), 14.13A(e),(g) set them, played through the engine.
"""

from __future__ import annotations

import dataclasses

import pytest
from tablehelp import STAKES, net, of_kind, play, settlement, table

from controller.poker.engine import Table, TableSetup
from controller.poker.engine.events import ActionRequired, ActionTaken, Event, Refused, Showdown
from controller.poker.engine.tablesetup import HouseRules, ShortAllIn
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress

pytestmark = pytest.mark.fast

DEAL_TWO = "new_hand Ah Kd Qc 9s 2c 2h"  # seat 2's 2c brings in; order 2, 3, 1


def _options(t: Table) -> dict[str, str]:
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    return {o.button: o.meaning for o in pending.options}


def test_14_13a_g_check_only_when_no_bet_is_faced() -> None:
    """14.13A(g): the opener may check; after a bet, check/call means call, never check."""
    t = table("mambo", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d")
    assert _options(t)["check_call"] == "check"
    events = play(t, "bet_raise")
    assert _options(t)["check_call"] == "call 5"
    events = play(t, "check_call")
    assert [(a.seat, a.action, a.amount) for a in of_kind(events, ActionTaken)] == [(2, "calls", 5)]


def test_14_13a_g_round_ends_when_every_player_has_checked() -> None:
    """14.13A(g): two checks end the round; the next street's burn is expected."""
    t = table("mambo", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d check_call check_call")
    assert t.pending.destination == "burn"


def test_notes_betting_structure_the_raise_cap_holds() -> None:
    """rules-interpretation.md, Betting structure: a bet and three raises cap the round; a fifth is
    refused, with the reason, and nothing changes.
    """
    t = table("five-card-stud", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d")
    play(t, "bet_raise bet_raise bet_raise bet_raise")  # bet 5, raise 10, 15, 20
    assert "bet_raise" not in _options(t)
    before = t.state
    refused = t.apply(ButtonPress(Button.BET_RAISE))
    assert isinstance(refused[0], Refused)
    assert "cap of 4 bets" in refused[0].reason
    assert t.state == before


def test_notes_betting_structure_bet_sizes_small_then_big() -> None:
    """rules-interpretation.md, Betting structure: five-card stud bets 5 on rounds 1-2 and 10 on
    rounds 3-4."""
    t = table("five-card-stud", seats=(1, 2))
    play(t, "new_hand 2h 3d Kh 2c check_call bet_raise")  # bring-in 2, seat 1 completes to 5
    play(t, "check_call 5d 6d 7d bet_raise check_call 8d 9d Td")
    assert _options(t)["bet_raise"] == "bet 10"


def test_notes_betting_structure_the_bring_in_may_be_completed_and_counts_as_the_first_bet() -> (
    None
):
    """rules-interpretation.md, Betting structure ("the next player may complete it to the small
    bet"; the cap is one bet and three raises): after the bring-in of 2 (14.13(d)) the next player
    completes to 5; three raises more reach the cap of four bets.
    """
    t = table("five-card-stud", seats=(1, 2, 3))
    play(t, DEAL_TWO + " check_call")
    assert _options(t)["bet_raise"] == "complete to 5"
    play(t, "bet_raise bet_raise bet_raise bet_raise")  # complete 5, raise 10, 15, 20
    assert "bet_raise" not in _options(t)


def _side_pot_hand(rake_percent: int = 0) -> list[Event]:
    stakes = dataclasses.replace(STAKES, rake_percent=rake_percent)
    t = table("five-card-stud", stacks={1: 100, 2: 4, 3: 100}, stakes=stakes)
    return play(
        t,
        DEAL_TWO + " check_call bet_raise check_call all_in"  # 2 brings in, 3 completes, 1 calls,
        # seat 2 calls all-in for 1 less than it owes
        " 5d 9d Kc 3h bet_raise check_call"  # seat 1 shows a pair, opens and bets (14.13(f))
        " 5s 4c Ks 7h check_call check_call"  # seat 2 (all-in) shows kings; seat 3 acts first
        " 5h 6c Js 8d check_call check_call",
    )


def test_notes_betting_structure_an_all_in_for_less_makes_a_side_pot() -> None:
    """rules-interpretation.md, Betting structure: seat 2 all-in for 4 in total wins the main pot of
    12 with three kings; the side pot of 14, which seat 2 cannot win, goes to seat 1's nines.
    """
    events = _side_pot_hand()
    pots = settlement(events).pots
    assert [(p.name, p.amount, p.eligible) for p in pots] == [
        ("main pot", 12, (1, 2, 3)),
        ("side pot 1", 14, (1, 3)),
    ]
    assert [a.seat for p in pots for a in p.awards] == [2, 1]
    assert net(events) == {1: 3, 2: 8, 3: -11}


def test_notes_betting_structure_the_rake_is_taken_before_division_from_the_main_pot() -> None:
    """rules-interpretation.md, Betting structure (14.19(c)): 10% of 26 is 2 chips, taken from the
    main pot before it is awarded; chips are conserved: nets plus rake sum to zero.
    """
    events = _side_pot_hand(rake_percent=10)
    settled = settlement(events)
    assert settled.rake == 2
    assert [(p.rake, p.amount) for p in settled.pots] == [(2, 12), (0, 14)]
    assert net(events) == {1: 3, 2: 6, 3: -11}
    assert sum(net(events).values()) + settled.rake == 0


def test_notes_betting_structure_rake_before_division_leaves_an_even_split() -> None:
    """rules-interpretation.md, Betting structure: Mambo pot 9 raked 20% (1 chip) leaves 8, split 4
    and 4 with no odd chip (without the rake, 14.13A(j)1 would give the high hand 5).
    """
    stakes = dataclasses.replace(STAKES, rake_percent=20)
    checks = " check_call check_call check_call"
    hand = "new_hand Kh Ad Qc Ks 2d 8c" + checks + " 7s 9d 4c 5s" + checks + " 7h Th" + checks
    events = play(table("mambo", stakes=stakes), hand)
    pot = settlement(events).pots[0]
    assert (pot.rake, [s.amount for s in pot.shares], pot.odd_chips) == (1, [4, 4], ())


def test_rules_interpretation_no_rake_on_a_pot_won_without_a_showdown() -> None:
    """docs/rules-interpretation.md, Rake: a pot won uncontested is not raked unless the stakes
    say rake_without_showdown; the uncalled bring-in is returned, never raked.
    """
    hand = DEAL_TWO + " check_call fold fold"
    stakes = dataclasses.replace(STAKES, rake_percent=50)
    events = play(table("five-card-stud", stakes=stakes), hand)
    assert settlement(events).rake == 0
    assert not of_kind(events, Showdown)
    raked = dataclasses.replace(stakes, rake_without_showdown=True)
    events = play(table("five-card-stud", stakes=raked), hand)
    settled = settlement(events)
    assert settled.rake == 1  # half of the 3 antes; the bring-in came back uncalled
    assert [p.returned for p in settled.pots] == [False, True]


def test_all_in_is_refused_when_the_stack_is_larger_than_the_limit_allows() -> None:
    """Fixed limit: seat 3 with 100 behind cannot go all-in facing a bring-in; refused, why."""
    t = table("five-card-stud", stacks={1: 100, 2: 100, 3: 100})
    play(t, DEAL_TWO + " check_call")
    refused = t.apply(ButtonPress(Button.ALL_IN))
    assert isinstance(refused[0], Refused)
    assert "more than the fixed limit" in refused[0].reason


# Five-card stud, three seats: 2 brings in, 3 and 1 call; the second street's up-cards give
# seat 1 K-9, and it opens with a bet of 5 (14.13(f)).
TO_SECOND_ROUND = DEAL_TWO + " check_call check_call check_call 5d Kc 3h 4h"


def test_notes_half_bet_rule_an_all_in_of_half_a_bet_or_more_reopens_and_is_raised_on_top() -> None:
    """rules-interpretation.md, Betting structure (the half-bet rule): over seat 1's bet of 5, seat
    3 goes all-in for 8, 3 more (half a bet or more): it counts as a raise, so seat 1, who already
    acted, may raise again, and the raise is a full bet on top of it: to 13.
    """
    t = table("five-card-stud", seats=(1, 2, 3), stacks={1: 100, 2: 100, 3: 11})
    play(t, TO_SECOND_ROUND + " bet_raise check_call all_in")  # 3 has 11 - 1 - 2 = 8
    assert t.pending.seat == 1
    assert _options(t) == {"fold": "fold", "check_call": "call 3", "bet_raise": "raise to 13"}
    events = play(t, "bet_raise")
    assert [(a.seat, a.amount, a.round_total) for a in of_kind(events, ActionTaken)] == [(1, 8, 13)]


def test_notes_half_bet_rule_an_all_in_bet_of_half_a_bet_is_raised_to_a_full_bet_on_top() -> None:
    """rules-interpretation.md, Betting structure ("a 15 all-in on a 20 round is raised to 35"):
    seat 1 opens all-in for 3 of a 5 round; the next raise goes to 3 + 5 = 8, not to a bet of 5."""
    t = table("five-card-stud", seats=(1, 2, 3), stacks={1: 6, 2: 100, 3: 100})
    play(t, TO_SECOND_ROUND + " all_in")  # seat 1 has 6 - 1 - 2 = 3
    assert _options(t) == {"fold": "fold", "check_call": "call 3", "bet_raise": "raise to 8"}


def test_notes_half_bet_rule_less_than_half_a_bet_does_not_reopen_for_a_player_who_acted() -> None:
    """rules-interpretation.md, Betting structure: seat 3's all-in for 7 over the bet of 5 adds 2,
    less than half a bet: seat 1, who bet, and seat 2, who called, may call or fold but not
    raise."""
    t = table("five-card-stud", seats=(1, 2, 3), stacks={1: 100, 2: 100, 3: 10})
    play(t, TO_SECOND_ROUND + " bet_raise check_call all_in")  # 3 has 10 - 1 - 2 = 7
    assert t.pending.seat == 1
    assert _options(t) == {"fold": "fold", "check_call": "call 2"}
    refused = t.apply(ButtonPress(Button.BET_RAISE))
    assert isinstance(refused[0], Refused)
    assert "does not reopen the betting" in refused[0].reason
    play(t, "check_call")
    assert _options(t) == {"fold": "fold", "check_call": "call 2"}


def test_notes_half_bet_rule_a_player_yet_to_act_may_complete_it() -> None:
    """rules-interpretation.md, Betting structure: seat 2 goes all-in for 7 over seat 1's bet of 5
    (less than half a bet more); seat 3, yet to act, may fold, call 7, or complete it to a full
    raise: to 10. That full raise reopens the betting for seat 1."""
    t = table("five-card-stud", seats=(1, 2, 3), stacks={1: 100, 2: 10, 3: 100})
    play(t, TO_SECOND_ROUND + " bet_raise all_in")  # 2 has 10 - 1 - 2 = 7
    assert t.pending.seat == 3
    assert _options(t) == {"fold": "fold", "check_call": "call 7", "bet_raise": "raise to 10"}
    play(t, "bet_raise")
    assert t.pending.seat == 1
    assert _options(t) == {"fold": "fold", "check_call": "call 5", "bet_raise": "raise to 15"}


def test_notes_house_rules_the_full_bet_rule_a_short_all_in_reopens_nothing() -> None:
    """rules-interpretation.md, House rules (the full-bet rule posted): seat 3's all-in for 8 over a
    bet of 5 is short of the raise to 10, so seat 1, who bet, may call or fold but not raise; the
    half-bet rule's raise to 13 (above) is not offered. A seat yet to act raises a bet on
    top of the all-in (to 12)."""
    rules = HouseRules(short_all_in=ShortAllIn.FULL_BET)
    config = TableSetup(seats=(1, 2, 3), stakes=STAKES, stacks={1: 100, 2: 100, 3: 11}, rules=rules)
    t = Table(GAMES["five-card-stud"], config)
    play(t, TO_SECOND_ROUND + " bet_raise check_call all_in")
    assert t.pending.seat == 1
    assert _options(t) == {"fold": "fold", "check_call": "call 3"}
    config = TableSetup(seats=(1, 2, 3), stakes=STAKES, stacks={1: 100, 2: 11, 3: 100}, rules=rules)
    t = Table(GAMES["five-card-stud"], config)
    play(t, TO_SECOND_ROUND + " bet_raise all_in")
    assert _options(t) == {"fold": "fold", "check_call": "call 8", "bet_raise": "raise to 13"}


def test_rules_interpretation_the_bring_in_has_no_option_when_everyone_just_calls() -> None:
    """docs/rules-interpretation.md, Bring-in (HouseRules.bring_in_has_option off): bring-in, call,
    call ends the round; the bring-in is not asked again.
    """
    t = table("five-card-stud")
    events = play(t, DEAL_TWO + " check_call check_call check_call")
    assert [a.seat for a in of_kind(events, ActionTaken)] == [2, 3, 1]
    assert t.pending.destination == "burn"
