"""Triple Draw 2-7 (N.J.A.C. 13:69F-14.12A, ``controller/poker/games/triple_draw.py``): each rule
of the procedure and of docs/rules-interpretation.md tested by the subsection it comes from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tablehelp import net, of_kind, play, settlement

from controller.poker.announce import announce
from controller.poker.cards import DECK, Card, format_cards
from controller.poker.engine import ConfigError, Stakes, Table, TableSetup
from controller.poker.engine.autoplay import play_hand
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    BlindPosted,
    CardDealt,
    CardExpected,
    DiscardsReshuffled,
    DrawDeclared,
    DrawExpected,
    HandStarted,
    RoundStarted,
    Showdown,
)
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress, CardRead, ReadPoint

pytestmark = pytest.mark.fast

TRIPLE_DRAW = GAMES["triple-draw"]
STAKES = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)
DRAW_EXAMPLES = 30  # x 5 hands; the slow soak below plays 1500 x 5


def _table(seats: tuple[int, ...] = (1, 2, 3), button: int = 3) -> Table:
    return Table(TRIPLE_DRAW, TableSetup(seats=seats, stakes=STAKES, dealer=button))


def _deal(t: Table, cards: Sequence[Card]) -> None:
    for card in cards:
        assert not of_kind(t.apply(CardRead(card)), Alarm)


def test_14_12a_d_five_down_from_the_buttons_left_blinds_posted_left_of_the_button() -> None:
    """14.12A(c),(d), 14.10: button 3: seat 1 posts the small blind, seat 2 the big blind;
    five rounds face down from seat 1, the button last; seat 3 acts first.
    """
    t = _table()
    events = t.apply(ButtonPress(Button.NEW_HAND))
    assert [(b.seat, b.blind, b.amount) for b in of_kind(events, BlindPosted)] == [
        (1, "small", 2),
        (2, "big", 5),
    ]
    for card in DECK[:15]:
        events += t.apply(CardRead(card))
    seats = [e.seat for e in of_kind(events, CardDealt)]
    assert seats == [1, 2, 3] * 5
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.reason) == (3, "first player left of the big blind")


def test_14_10_f_the_big_blind_keeps_its_option_when_everyone_calls() -> None:
    """14.10(f) via 14.12A(e): button calls, small blind completes; the big blind may still
    check or raise.
    """
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    _deal(t, DECK[:15])
    play(t, "check_call check_call")
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    assert pending.seat == 2
    assert {o.button: o.meaning for o in pending.options} == {
        "fold": "fold",
        "check_call": "check",
        "bet_raise": "raise to 10",
    }


def test_notes_forced_bets_heads_up_the_button_posts_the_small_blind_and_acts_first() -> None:
    """rules-interpretation.md, Forced bets: heads-up, the button (seat 2) posts the small blind and
    opens."""
    t = _table(seats=(1, 2), button=2)
    events = t.apply(ButtonPress(Button.NEW_HAND))
    assert [(b.seat, b.blind) for b in of_kind(events, BlindPosted)] == [(2, "small"), (1, "big")]
    for card in DECK[:10]:
        events += t.apply(CardRead(card))
    assert of_kind(events, RoundStarted)[0].opener == 2


def test_14_10_c_the_button_moves_one_seat_clockwise_after_every_hand() -> None:
    """14.12A(c), 14.10(c): after hand 1 (button 3) the button is on seat 1."""
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    _deal(t, DECK[:15])
    play(t, "fold fold")  # the button and the small blind fold to the big blind
    events = t.apply(ButtonPress(Button.NEW_HAND))
    started = of_kind(events, HandStarted)[0]
    assert (started.dealer, started.seats) == (1, (2, 3, 1))


def _to_first_draw() -> Table:
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    # Dealt round by round from a new deck: seat 1 gets DECK[0], DECK[3], ...
    _deal(t, DECK[:15])
    play(t, "check_call check_call check_call")  # call, complete, big blind checks
    return t


def test_14_12a_f_discards_at_the_reader_then_a_burn_then_the_replacements() -> None:
    """14.12A(f): seat 1 discards two cards over the discard reader and presses draw done; the
    burn comes before the first new card, then two cards face down to seat 1; seat 2 stands
    pat; seat 3's one new card comes without another burn.
    """
    t = _to_first_draw()
    pending = t.pending
    assert isinstance(pending, DrawExpected)
    assert (pending.seat, pending.discards) == (1, ())
    hand1 = t.state.seats[0].down
    events = t.apply(CardRead(Card.parse(hand1[0]), ReadPoint.DISCARD_READER))
    events += t.apply(CardRead(Card.parse(hand1[1]), ReadPoint.DISCARD_READER))
    events += t.apply(ButtonPress(Button.DRAW_DONE))
    assert of_kind(events, DrawDeclared) == [DrawDeclared(1, hand1[:2])]
    assert [(e.destination, e.seat) for e in of_kind(events, CardExpected)] == [("burn", None)]
    _deal(t, DECK[15:18])  # burn, two replacements
    assert len(t.state.seats[0].down) == 5
    events = t.apply(ButtonPress(Button.DRAW_DONE))  # seat 2 stands pat
    assert announce(of_kind(events, DrawDeclared)[0]) == "Seat 2 stands pat."
    hand3 = t.state.seats[2].down
    t.apply(CardRead(Card.parse(hand3[4]), ReadPoint.DISCARD_READER))
    events = t.apply(ButtonPress(Button.DRAW_DONE))
    assert [(e.destination, e.seat) for e in of_kind(events, CardExpected)] == [("seat", 3)]
    events = t.apply(CardRead(DECK[18]))
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.bet) == (1, 5)  # 14.12A(g), (k): left of the button


def test_14_12a_f_a_card_before_draw_done_or_a_discard_the_player_does_not_hold_alarms() -> None:
    """rules-interpretation.md, Integrity: while seat 1 discards, a card at the dealing slot is an
    alarm, and so is a card of seat 2's hand at the discard reader.
    """
    t = _to_first_draw()
    alarm = of_kind(t.apply(CardRead(DECK[20])), Alarm)[0]
    assert "discards at the discard reader, or draw done" in alarm.expected
    t.apply(ButtonPress(Button.UNDO))
    seat2 = Card.parse(t.state.seats[1].down[0])
    alarm = of_kind(t.apply(CardRead(seat2, ReadPoint.DISCARD_READER)), Alarm)[0]
    assert alarm.reason == "the card belongs to seat 2, still in the hand"


def test_14_12a_f_a_short_stub_reshuffles_every_discard_but_the_drawing_players() -> None:
    """14.12A(f), rules-interpretation.md, Burns and draws: seven players each throw five; seat 4
    finds one card left in the stub, the fifteen discards of seats 1-3 are reshuffled, and seat 4's
    own discards are not among them. Seat 4 then takes the stub's last card and four reshuffled
    discards; its own discard, or a card seat 1 holds, is an alarm naming the card.
    """
    seats = (1, 2, 3, 4, 5, 6, 7)
    t = Table(TRIPLE_DRAW, TableSetup(seats=seats, stakes=STAKES, dealer=7))
    t.apply(ButtonPress(Button.NEW_HAND))
    deck = list(DECK)
    _deal(t, deck[:35])
    play(t, "check_call " * 6 + "check_call")  # six calls and the big blind's check
    stub = deck[35:]
    reshuffled: list[str] = []
    for seat in (1, 2, 3, 4):
        hand = t.state.seats[seat - 1].down
        for code in hand:
            t.apply(CardRead(Card.parse(code), ReadPoint.DISCARD_READER))
        events = t.apply(ButtonPress(Button.DRAW_DONE))
        if seat == 4:
            shuffled = of_kind(events, DiscardsReshuffled)[0]
            reshuffled = list(shuffled.cards)
            assert len(reshuffled) == 15
            assert not set(reshuffled) & set(hand)
            own = Card.parse(hand[0])
            alarm = of_kind(t.apply(CardRead(own)), Alarm)[0]
            assert alarm.reason == (
                "the card is a discard of seat 4, the player drawing, not among the "
                "reshuffled discards or the stub (14.12A(f))"
            )
            t.apply(ButtonPress(Button.UNDO))
            held = t.state.seats[0].down  # a card seat 1 holds is no replacement for seat 4
            alarm = of_kind(t.apply(CardRead(Card.parse(held[0]))), Alarm)[0]
            assert alarm.reason == "the card was already seen this hand (seat 1)"
            t.apply(ButtonPress(Button.UNDO))
            # The last card of the stub, then four of the reshuffled discards.
            _deal(t, [stub[0], *(Card.parse(code) for code in reshuffled[:4])])
        else:
            needed = (1 if seat == 1 else 0) + 5
            _deal(t, stub[:needed])
            stub = stub[needed:]
    assert format_cards(t.cards_of(4)) == " ".join([stub[0].code, *reshuffled[:4]])


@settings(max_examples=DRAW_EXAMPLES)
@given(st.integers(2, 7), st.integers(0, 2**32))
def test_random_triple_draw_hands_conserve_chips_and_keep_five_cards(
    players: int, seed: int
) -> None:
    """Random legal triple-draw hands with random discards (reshuffles included): chips are
    conserved and every hand at the showdown holds five distinct cards.
    """
    _random_draw_hands(players, seed)


@pytest.mark.slow
@settings(max_examples=1500)
@given(st.integers(2, 7), st.integers(0, 2**32))
def test_soak_random_triple_draw_hands(players: int, seed: int) -> None:
    """The same over 7500 random hands (run with -m slow)."""
    _random_draw_hands(players, seed)


def _random_draw_hands(players: int, seed: int) -> None:
    rng = random.Random(seed)
    seats = tuple(range(1, players + 1))
    t = Table(TRIPLE_DRAW, TableSetup(seats=seats, stakes=STAKES, dealer=players))

    def discard(pending: DrawExpected, hand: tuple[Card, ...]) -> list[Card]:
        return rng.sample(list(hand), rng.randint(0, len(hand)))

    for _ in range(5):
        deck = list(DECK)
        rng.shuffle(deck)
        events = play_hand(t, deck, lambda p: rng.choice(p.options), discard=discard)
        settled = settlement(events)
        assert sum(n.amount for n in settled.net) + settled.rake == 0
        for seat in t.state.seats:
            if not seat.folded and not settled.uncontested:
                assert len(set(seat.down)) == 5


def test_14_12a_b_at_most_seven_players() -> None:
    """14.12A(b): seven seats deal; an eighth seat is refused, naming the rule."""
    TableSetup(seats=tuple(range(1, 8)), stakes=STAKES).validate(TRIPLE_DRAW)
    with pytest.raises(ConfigError, match=r"at most 7 players.*14\.12A"):
        TableSetup(seats=(1, 8), stakes=STAKES).validate(TRIPLE_DRAW)


def test_14_10_c_the_button_passes_a_seat_left_without_chips() -> None:
    """14.12A(c), 14.10(c): seat 1 loses its whole stack in hand 1 (button 3); in hand 2 the
    button moves one occupied seat clockwise, past the empty seat 1, to seat 2.
    """
    t = Table(TRIPLE_DRAW, TableSetup(seats=(1, 2, 3), stakes=STAKES, dealer=3, stacks={1: 2}))
    events = t.apply(ButtonPress(Button.NEW_HAND))
    assert of_kind(events, BlindPosted)[0].all_in  # seat 1's small blind is its whole stack
    # Seat 1 holds the worst hand (pairs), seats 2 and 3 a seven-five and an eight.
    s1, s2, s3 = "Kc Kd Qc Qd Jc", "7s 5s 4s 3s 2h", "8d 6d 4d 3d 2c"
    for cards in zip(s1.split(), s2.split(), s3.split(), strict=True):
        _deal(t, [Card.parse(c) for c in cards])
    play(t, "check_call check_call")  # seat 3 calls, the big blind checks
    for _ in range(3):  # seats 2 and 3 stand pat and check three times
        play(t, "draw_done draw_done draw_done check_call check_call")
    assert t.stacks[1] == 0
    started = of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0]
    assert (started.dealer, started.seats) == (2, (3, 2))


def test_14_12a_f_a_replacement_too_few_is_an_alarm() -> None:
    """14.12A(f): seat 1 discards two and gets one; draw done, or the next player's discard,
    before the second replacement is an alarm naming what seat 1 is still owed.
    """
    t = _to_first_draw()
    hand1 = t.state.seats[0].down
    for code in hand1[:2]:
        t.apply(CardRead(Card.parse(code), ReadPoint.DISCARD_READER))
    t.apply(ButtonPress(Button.DRAW_DONE))
    _deal(t, DECK[15:17])  # the burn and one replacement of two
    alarm = of_kind(t.apply(ButtonPress(Button.DRAW_DONE)), Alarm)[0]
    assert alarm.reason == "seat 1 is still owed 1 card (a replacement too few, 14.12A(f))"
    t.apply(ButtonPress(Button.UNDO))
    seat2 = Card.parse(t.state.seats[1].down[0])
    alarm = of_kind(t.apply(CardRead(seat2, ReadPoint.DISCARD_READER)), Alarm)[0]
    assert alarm.reason.startswith("seat 1 is still owed 1 new card (a replacement too few")


def test_14_12a_f_a_replacement_too_many_is_an_alarm() -> None:
    """14.12A(f): seat 1 discards one and is dealt it (after the burn); a second card at the
    slot before seat 2 draws is an alarm, and undo leaves seat 1 with exactly five cards.
    """
    t = _to_first_draw()
    t.apply(CardRead(Card.parse(t.state.seats[0].down[0]), ReadPoint.DISCARD_READER))
    t.apply(ButtonPress(Button.DRAW_DONE))
    _deal(t, DECK[15:17])
    alarm = of_kind(t.apply(CardRead(DECK[17])), Alarm)[0]
    assert alarm.reason == "a replacement too many, or a card dealt before draw done"
    assert alarm.expected == "expected seat 2's discards at the discard reader, or draw done"
    t.apply(ButtonPress(Button.UNDO))
    assert len(t.state.seats[0].down) == 5


def test_14_12a_f_the_engine_knows_each_hand_exactly_through_the_draw() -> None:
    """14.12A(f): after seat 1 throws Xx and Yy and is dealt two new cards, its hand is the
    three it kept and the two new ones, in the order received.
    """
    t = _to_first_draw()
    before = t.cards_of(1)
    for card in before[:2]:
        t.apply(CardRead(card, ReadPoint.DISCARD_READER))
    assert t.cards_of(1) == before[2:]
    t.apply(ButtonPress(Button.DRAW_DONE))
    _deal(t, DECK[15:18])  # the burn, then two new cards
    assert t.cards_of(1) == (*before[2:], DECK[16], DECK[17])


def test_14_12a_k_later_rounds_open_with_the_first_live_player_left_of_the_button() -> None:
    """14.12A(g),(i),(k): seat 1 (left of the button) folds before the draw; the round after
    the draw opens with seat 2, the first live player left of the button, at the small bet;
    the rounds after the second and third draws are at the big bet (rules-interpretation.md, Betting
    structure).
    """
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    _deal(t, DECK[:15])
    play(t, "check_call fold check_call")  # the button calls, the small blind folds
    events = play(t, "draw_done draw_done")  # seats 2 and 3 stand pat
    started = of_kind(events, RoundStarted)[0]
    assert (started.opener, started.reason, started.bet) == (
        2,
        "first player left of the button",
        5,
    )
    events = play(t, "check_call check_call draw_done draw_done")
    assert of_kind(events, RoundStarted)[0].bet == 10
    events = play(t, "check_call check_call draw_done draw_done")
    assert (of_kind(events, RoundStarted)[0].opener, of_kind(events, RoundStarted)[0].bet) == (
        2,
        10,
    )


def test_14_12a_k_heads_up_the_big_blind_opens_the_rounds_after_the_draws() -> None:
    """14.12A(k), rules-interpretation.md, Forced bets: heads-up (button 2 is the small blind and
    acts first before the draw), the first player left of the button, seat 1 the big blind, opens
    after it.
    """
    t = _table(seats=(1, 2), button=2)
    t.apply(ButtonPress(Button.NEW_HAND))
    _deal(t, DECK[:10])
    events = play(t, "check_call check_call draw_done draw_done")
    assert of_kind(events, RoundStarted)[0].opener == 1


def test_14_12a_l_the_lowest_hand_wins_and_a_tie_gives_the_odd_chip_left_of_the_button() -> None:
    """14.12A(l), rules-interpretation.md, Odd chips: seats 2 and 3 tie with seven-five lows (suits
    do not count); the pot of 11 splits 5 and 5 and the odd chip goes to seat 2, the first tied
    player clockwise from the button (seat 3).
    """
    stakes = Stakes(small_blind=1, big_blind=5, small_bet=5, big_bet=10)
    t = Table(TRIPLE_DRAW, TableSetup(seats=(1, 2, 3), stakes=stakes, dealer=3))
    t.apply(ButtonPress(Button.NEW_HAND))
    s1, s2, s3 = "Kc Kd Qc Qd Jc", "7s 5s 4s 3s 2h", "7d 5d 4d 3d 2c"
    for cards in zip(s1.split(), s2.split(), s3.split(), strict=True):
        _deal(t, [Card.parse(c) for c in cards])
    events = play(t, "check_call fold check_call")  # the button calls, the small blind folds
    for _ in range(3):
        events += play(t, "draw_done draw_done check_call check_call")
    shown = {h.seat: h.description for h in of_kind(events, Showdown)[0].hands}
    assert shown == {2: "seven-five low", 3: "seven-five low"}
    settled = settlement(events)
    assert [(o.seat, o.chips, o.rule) for o in settled.pots[0].odd_chips] == [
        (2, 1, "rules-interpretation.md, Odd chips")
    ]
    assert net(events) == {1: -1, 2: 1, 3: 0}


def test_14_12a_l_deuce_to_seven_an_ace_is_high_and_a_straight_counts_against_the_hand() -> None:
    """14.12A(l), rules-interpretation.md, Deuce-to-seven low: A-2-3-4-5 is ace high, not a wheel,
    and 8-7-6-5-4 is a straight; seat 3's K-Q-J-9-8 beats both.
    """
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    s1, s2, s3 = "As 2d 3c 4h 5s", "8c 7d 6h 5d 4c", "Kd Qh Jc 9s 8h"
    for cards in zip(s1.split(), s2.split(), s3.split(), strict=True):
        _deal(t, [Card.parse(c) for c in cards])
    events = play(t, "check_call check_call check_call")
    for _ in range(3):
        events += play(t, "draw_done draw_done draw_done check_call check_call check_call")
    assert settlement(events).pots[0].shares[0].winners == (3,)


def test_14_12a_everyone_else_folding_ends_the_hand_at_once() -> None:
    """A hand everyone else folds ends at once: no draw, the big blind takes the blinds."""
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    _deal(t, DECK[:15])
    events = play(t, "fold fold")
    assert not of_kind(events, DrawExpected)
    assert settlement(events).uncontested
    assert net(events) == {1: -2, 2: 2, 3: 0}


def _hand_folded_to_the_big_blind(t: Table, players: int) -> HandStarted:
    started = of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0]
    _deal(t, DECK[: 5 * players])
    play(t, " ".join(["fold"] * (players - 1)))
    return started


def test_14_10_c_a_seat_filled_left_of_the_button_gets_the_button_next() -> None:
    """14.12A(c), 14.10(c): seats 2, 3 and 5 play with the button on 3; seat 4 sits down
    between hands, and the button moves one occupied seat clockwise: to seat 4.
    """
    t = Table(TRIPLE_DRAW, TableSetup(seats=(2, 3, 5), stakes=STAKES, dealer=3))
    assert _hand_folded_to_the_big_blind(t, 3).dealer == 3
    t.reseat((2, 3, 4, 5), {4: 100})
    started = _hand_folded_to_the_big_blind(t, 4)
    assert (started.dealer, started.seats) == (4, (5, 2, 3, 4))
    assert t.stacks[4] == 100


def test_14_10_c_when_the_button_seat_empties_the_button_moves_to_the_next_occupied_seat() -> None:
    """14.12A(c), 14.10(c), rules-interpretation.md, Forced bets: seat 3 holds the button and
    leaves; seat 4 sits down; the button goes to seat 4, the next occupied seat clockwise; when
    seats 2 and 4 leave, heads-up, the button moves on to seat 5 and posts the small blind.
    """
    t = Table(TRIPLE_DRAW, TableSetup(seats=(2, 3, 5), stakes=STAKES, dealer=3))
    _hand_folded_to_the_big_blind(t, 3)
    t.reseat((2, 4, 5))
    assert _hand_folded_to_the_big_blind(t, 3).dealer == 4
    t.reseat((1, 5))
    events = t.apply(ButtonPress(Button.NEW_HAND))
    assert of_kind(events, HandStarted)[0].dealer == 5
    assert [(b.seat, b.blind) for b in of_kind(events, BlindPosted)] == [(5, "small"), (1, "big")]


def _misdeal_after_the_deal(t: Table) -> HandStarted:
    started = of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0]
    _deal(t, DECK[:7])
    t.apply(ButtonPress(Button.MISDEAL))
    return started


def test_rules_interpretation_misdeal_the_void_hand_is_dealt_again_at_the_same_button() -> None:
    """docs/rules-interpretation.md, Misdeal (rules-interpretation.md, Integrity: a misdeal voids
    the hand; GameSpec.button_stays_after_void): button 3, the hand is voided; the next hand keeps
    the button on seat 3 and the same blinds (seat 1 small, seat 2 big); after a hand that is
    played out, the button moves on to seat 1 (14.10(c)).
    """
    t = _table()
    assert _misdeal_after_the_deal(t).dealer == 3
    events = t.apply(ButtonPress(Button.NEW_HAND))
    assert of_kind(events, HandStarted)[0].dealer == 3
    assert [(b.seat, b.blind) for b in of_kind(events, BlindPosted)] == [(1, "small"), (2, "big")]
    _deal(t, DECK[:15])
    play(t, "fold fold")
    assert of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0].dealer == 1


def test_rules_interpretation_misdeal_a_spec_may_move_the_button_after_a_void_hand() -> None:
    """docs/rules-interpretation.md, Misdeal: with ``button_stays_after_void=False`` the button
    moves after a voided hand as after any hand (14.10(c)): from seat 3 to seat 1.
    """
    spec = replace(TRIPLE_DRAW, button_stays_after_void=False)
    t = Table(spec, TableSetup(seats=(1, 2, 3), stakes=STAKES, dealer=3))
    _misdeal_after_the_deal(t)
    assert of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0].dealer == 1


def test_rules_interpretation_misdeal_the_button_passes_on_if_its_seat_empties_after_it() -> None:
    """docs/rules-interpretation.md, Misdeal; 14.10(c): the hand at button 3 is voided and the
    button's player leaves; the button passes on to seat 4, the next occupied seat, as when a
    button seat empties after any hand.
    """
    t = Table(TRIPLE_DRAW, TableSetup(seats=(2, 3, 5), stakes=STAKES, dealer=3))
    _misdeal_after_the_deal(t)
    t.reseat((2, 4, 5))
    assert of_kind(t.apply(ButtonPress(Button.NEW_HAND)), HandStarted)[0].dealer == 4


def test_14_10_c_seats_change_only_between_hands() -> None:
    """A seat change while a hand is in play is refused, naming the hand; an eighth seat is
    refused as at setup (14.12A(b)).
    """
    t = _table()
    t.apply(ButtonPress(Button.NEW_HAND))
    with pytest.raises(ConfigError, match="hand 1 is in play"):
        t.reseat((1, 2, 3, 4))
    t.apply(ButtonPress(Button.MISDEAL))
    with pytest.raises(ConfigError, match="at most 7 players"):
        t.reseat((1, 2, 8))


def test_14_12a_an_all_in_for_less_makes_a_side_pot_as_in_the_stud_games() -> None:
    """rules-interpretation.md, Betting structure: the button (seat 3) is all-in for 3 against the
    big blind of 5 and holds the best hand; it wins the main pot of 9, and the side pot of 4 between
    the blinds goes to seat 1's better hand. Seat 3 still draws, though it cannot bet.
    """
    t = Table(TRIPLE_DRAW, TableSetup(seats=(1, 2, 3), stakes=STAKES, dealer=3, stacks={3: 3}))
    t.apply(ButtonPress(Button.NEW_HAND))
    s1, s2, s3 = "8s 6s 4s 3s 2h", "Kc Kd Qc Qd Jc", "7d 5d 4d 3d 2c"
    for cards in zip(s1.split(), s2.split(), s3.split(), strict=True):
        _deal(t, [Card.parse(c) for c in cards])
    events = play(t, "all_in check_call check_call")
    for _ in range(3):
        draws = play(t, "draw_done draw_done draw_done")
        assert [d.seat for d in of_kind(draws, DrawDeclared)] == [1, 2, 3]
        events += draws + play(t, "check_call check_call")
    pots = settlement(events).pots
    assert [(p.amount, p.eligible, p.shares[0].winners) for p in pots] == [
        (9, (1, 2, 3), (3,)),
        (4, (1, 2), (1,)),
    ]
    assert net(events) == {1: -1, 2: -5, 3: 6}


def test_notes_burns_and_draws_a_burn_before_each_of_the_three_draws_none_when_all_stand_pat() -> (
    None
):
    """14.12A(f),(h),(j), rules-interpretation.md, Burns and draws: seat 1 throws one card in each
    draw; each of the three draws burns a card right before seat 1's new card. A draw in which
    everyone stands pat deals no card at all, so burns nothing.
    """
    t = _to_first_draw()
    stub = iter(DECK[15:])
    for draw in range(3):
        t.apply(CardRead(t.cards_of(1)[0], ReadPoint.DISCARD_READER))
        events = t.apply(ButtonPress(Button.DRAW_DONE))
        events += t.apply(CardRead(next(stub)))
        events += t.apply(CardRead(next(stub)))
        dealt = [(e.destination, e.seat) for e in of_kind(events, CardDealt)]
        assert dealt == [("burn", None), ("seat", 1)], draw
        events = play(t, "draw_done draw_done check_call check_call check_call")
        assert not of_kind(events, CardDealt)
    t = _to_first_draw()
    events = play(t, "draw_done draw_done draw_done")
    assert not of_kind(events, CardDealt)
    assert of_kind(events, RoundStarted)


def test_14_10_d_heads_up_the_small_blind_must_call_a_short_all_in_big_blind_or_fold() -> None:
    """14.12A(e), 14.10(d): heads-up, the big blind (seat 1) is all-in for 3 of its 5. The
    small blind (the button, seat 2) still owes the big blind: it is asked to act although no
    one else can bet, may call or fold but not raise (no one could answer), and a call takes
    the hand to the showdown with no more betting; seat 2's seven-five wins the 3 matched.
    """
    stakes = Stakes(small_blind=2, big_blind=5, small_bet=5, big_bet=10)
    t = Table(TRIPLE_DRAW, TableSetup(seats=(1, 2), stakes=stakes, dealer=2, stacks={1: 3}))
    t.apply(ButtonPress(Button.NEW_HAND))
    s1, s2 = "Kc Kd Qc Qd Jc", "7d 5d 4d 3d 2c"
    for cards in zip(s1.split(), s2.split(), strict=True):
        _deal(t, [Card.parse(c) for c in cards])
    pending = t.pending
    assert isinstance(pending, ActionRequired)
    assert pending.seat == 2
    assert {o.button for o in pending.options} == {"fold", "check_call"}
    events = play(t, "check_call")
    for _ in range(3):
        events += play(t, "draw_done draw_done")
    assert not of_kind(events, ActionRequired)
    assert net(events) == {1: -3, 2: 3}  # the 2 the big blind could not cover go back
