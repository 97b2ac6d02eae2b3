"""The house rules as data (rules-interpretation.md, House rules; 13:69F-8.3: posted at the table):
every switch of ``HouseRules`` flipped once, each seen to change the play it names.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from tablehelp import STAKES, of_kind, play

from controller.poker.cards import DECK
from controller.poker.engine import ConfigError, Stakes, Table, TableSetup
from controller.poker.engine.events import ActionRequired, CardDealt, CardExpected, Refused
from controller.poker.engine.tablesetup import HouseRules, ShortAllIn
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress, CardRead, ReadPoint

pytestmark = pytest.mark.fast

DEAL_TWO = "new_hand Ah Kd Qc 9s 2c 2h"  # seat 2's 2c brings in; order 2, 3, 1
# Heads-up five-card stud to the second round: seat 1 shows K-6 and opens (14.13(f)).
TO_SECOND_ROUND = "new_hand 2h 3d Kh 2c check_call check_call 5d 6d 7d"


def _table(
    game: str,
    rules: HouseRules,
    seats: tuple[int, ...] = (1, 2),
    stakes: Stakes = STAKES,
    **config: object,
) -> Table:
    return Table(GAMES[game], TableSetup(seats=seats, stakes=stakes, rules=rules, **config))  # type: ignore[arg-type]


def _options(t: Table) -> dict[str, str]:
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    return {o.button: o.meaning for o in pending.options}


def test_house_rules_defaults_are_notes_md() -> None:
    """rules-interpretation.md, House rules: the default of each choice is the one written there."""
    assert HouseRules() == HouseRules(
        opener_must_bet=True,  # 14.13(f) read literally
        short_all_in=ShortAllIn.HALF_BET,  # rules-interpretation.md, Betting structure
        cap_lifts_heads_up=False,
        bring_in_has_option=False,
        burn_before_each_draw=True,  # rules-interpretation.md, Burns and draws
    )


def test_14_13_f_the_opener_must_bet_by_default_and_may_check_under_the_house_rule() -> None:
    """14.13(f): "shall be required to bet"; a room may post that the opener may check."""
    must = _table("five-card-stud", HouseRules())
    play(must, TO_SECOND_ROUND)
    assert "check_call" not in _options(must)
    refused = must.apply(ButtonPress(Button.CHECK_CALL))
    assert isinstance(refused[0], Refused)
    assert "must bet (14.13(f))" in refused[0].reason
    may = _table("five-card-stud", HouseRules(opener_must_bet=False))
    play(may, TO_SECOND_ROUND)
    assert _options(may)["check_call"] == "check"
    refused = may.apply(ButtonPress(Button.FOLD))
    assert isinstance(refused[0], Refused)
    assert "must bet or check (rules-interpretation.md, House rules)" in refused[0].reason
    play(may, "check_call")
    assert may.pending.seat == 2


def test_14_13a_f_the_mambo_opener_may_check_whatever_the_opener_rule_says() -> None:
    """14.13A(f): Mambo's opener is "required to bet or check" by the text: the house rule
    for five-card stud's opener changes nothing here."""
    for rules in (HouseRules(), HouseRules(opener_must_bet=False)):
        t = _table("mambo", rules)
        play(t, TO_SECOND_ROUND)
        assert _options(t)["check_call"] == "check"
        assert "fold" not in _options(t)


def test_notes_house_rules_the_cap_lifts_heads_up_only_when_posted() -> None:
    """rules-interpretation.md, House rules: the cap of four bets holds heads-up by default; a room
    that lifts it heads-up offers a fifth bet."""
    capped = _table("five-card-stud", HouseRules())
    play(capped, TO_SECOND_ROUND + " bet_raise bet_raise bet_raise bet_raise")
    assert "bet_raise" not in _options(capped)
    lifted = _table("five-card-stud", HouseRules(cap_lifts_heads_up=True))
    play(lifted, TO_SECOND_ROUND + " bet_raise bet_raise bet_raise bet_raise")
    assert _options(lifted)["bet_raise"] == "raise to 25"


def test_notes_house_rules_the_cap_holds_with_three_in_the_pot_even_when_lifted_heads_up() -> None:
    t = _table("five-card-stud", HouseRules(cap_lifts_heads_up=True), seats=(1, 2, 3))
    play(t, DEAL_TWO + " check_call bet_raise bet_raise bet_raise bet_raise")
    assert "bet_raise" not in _options(t)


def test_rules_interpretation_bring_in_the_option_when_only_called_is_a_house_rule() -> None:
    """docs/rules-interpretation.md, Bring-in: by default the bring-in, call, call ends the
    round; with the option posted the bring-in (seat 2) acts again and may check or complete.
    """
    default = _table("five-card-stud", HouseRules(), seats=(1, 2, 3))
    play(default, DEAL_TWO + " check_call check_call check_call")
    assert default.pending.destination == "burn"
    option = _table("five-card-stud", HouseRules(bring_in_has_option=True), seats=(1, 2, 3))
    play(option, DEAL_TWO + " check_call check_call check_call")
    assert option.pending.seat == 2
    assert _options(option) == {
        "fold": "fold",
        "check_call": "check",
        "bet_raise": "complete to 5",
    }
    play(option, "check_call")  # the bring-in checks: the round is over
    assert option.pending.destination == "burn"


def _first_two_draws(rules: HouseRules) -> list[list[tuple[str, int | None]]]:
    """Seat 1 throws one card in each of the first two draws; the cards dealt in each."""
    stakes = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)
    t = _table("triple-draw", rules, seats=(1, 2, 3), stakes=stakes, dealer=3)
    t.apply(ButtonPress(Button.NEW_HAND))
    for card in DECK[:15]:
        t.apply(CardRead(card))
    play(t, "check_call check_call check_call")
    stub = iter(DECK[15:])
    dealt = []
    for _ in range(2):
        t.apply(CardRead(t.cards_of(1)[0], ReadPoint.DISCARD_READER))
        events = t.apply(ButtonPress(Button.DRAW_DONE))
        while isinstance(t.pending, CardExpected):  # the burn (if any) and the new card
            events += t.apply(CardRead(next(stub)))
        dealt.append([(e.destination, e.seat) for e in of_kind(events, CardDealt)])
        play(t, "draw_done draw_done check_call check_call check_call")
    return dealt


def test_notes_burns_and_draws_a_burn_before_each_draw_or_only_the_first() -> None:
    """rules-interpretation.md, Burns and draws: tablectl burns before each draw; a room reading
    14.12A(f) as a burn before the first draw only posts that instead."""
    each = _first_two_draws(HouseRules())
    assert each == [[("burn", None), ("seat", 1)], [("burn", None), ("seat", 1)]]
    first = _first_two_draws(HouseRules(burn_before_each_draw=False))
    assert first == [[("burn", None), ("seat", 1)], [("seat", 1)]]


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("short_all_in", "half", "expected one of 'half-bet', 'full-bet'"),
        ("opener_must_bet", "yes", "expected true or false"),
        ("cap_lifts_heads_up", 1, "expected true or false"),
        ("bring_in_has_option", None, "expected true or false"),
        ("burn_before_each_draw", "no", "expected true or false"),
    ],
)
def test_a_house_rule_of_the_wrong_kind_is_refused_naming_it(
    field: str, value: object, expected: str
) -> None:
    with pytest.raises(ConfigError, match=f"rules: {field}=") as error:
        HouseRules(**{field: value})  # type: ignore[arg-type]
    assert expected in str(error.value)


def test_a_checkpoint_restored_under_other_house_rules_is_refused_not_replayed_otherwise() -> None:
    """A hand replays only under the rules it was dealt under (rules-interpretation.md, House
    rules): the bring-in's option let seat 2 complete after being called; restored under the
    defaults the same inputs do not finish the hand, and from_checkpoint says so."""
    rules = HouseRules(bring_in_has_option=True)
    t = _table("five-card-stud", rules, seats=(1, 2, 3))
    play(t, DEAL_TWO + " check_call check_call check_call bet_raise fold fold")
    assert t.phase == "settled"
    cp = t.checkpoint()
    assert Table.from_checkpoint(t.spec, t.config, cp).state == t.state
    defaults = replace(t.config, rules=HouseRules())
    with pytest.raises(ConfigError, match="checkpoint of hand 1: its hand ends held"):
        Table.from_checkpoint(t.spec, defaults, cp)
