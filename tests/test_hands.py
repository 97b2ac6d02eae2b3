"""The rules of rules-interpretation.md's card and hand sections, one test each, and what the dealer
calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from controller.poker.cards import DECK, parse_cards
from controller.poker.hands import (
    NO_QUALIFYING_LOW,
    HandError,
    HandValue,
    deuce_to_seven_low,
    deuce_to_seven_strength,
    five_card_high,
    five_card_high_strength,
    mambo_high,
    mambo_high_strength,
    mambo_low,
    mambo_low_strength,
    partial_high,
    partial_high_strength,
    six_or_better_low,
    six_or_better_low_strength,
    three_card_high,
    three_card_high_strength,
)

pytestmark = pytest.mark.fast


def high(text: str) -> HandValue:
    return five_card_high(parse_cards(text))


def low27(text: str) -> HandValue:
    return deuce_to_seven_low(parse_cards(text))


def three(text: str) -> HandValue:
    return three_card_high(parse_cards(text))


def partial(text: str) -> HandValue:
    return partial_high(parse_cards(text))


def six(text: str) -> HandValue | None:
    return six_or_better_low(parse_cards(text))


def codes(value: HandValue | None) -> str:
    assert value is not None
    return " ".join(card.code for card in value.cards)


# --- rules-interpretation.md, Cards ---------------------------------------------------------------


def test_notes_cards_rank_order_ace_high_down_to_two() -> None:
    """rules-interpretation.md, Cards: A K Q J T 9 8 7 6 5 4 3 2, high to low, card by card."""
    ladder = ["Ad", "Kd", "Qd", "Jd", "Td", "9d", "8d", "7d", "6d", "5d", "4d", "3d", "2d"]
    strengths = [partial(code).strength for code in ladder]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == 13


def test_notes_cards_ten_may_be_read_as_10() -> None:
    """rules-interpretation.md, Cards: ``10d`` is accepted for ``Td`` and evaluates the same."""
    assert high("10d Jd Qd Kd Ad") == high("Td Jd Qd Kd Ad")


def test_notes_cards_suits_never_rank_hands_equal_hands_split() -> None:
    """rules-interpretation.md, Cards and High hands: the same ranks in other suits tie; a spade
    flush does not beat a club flush; equal hands split."""
    assert high("As Ks Qs Jd 9c").strength == high("Ac Kc Qh Js 9d").strength
    assert high("As Js 8s 6s 2s").strength == high("Ac Jc 8c 6c 2c").strength
    assert low27("7s 5h 4d 3c 2c").strength == low27("7c 5d 4h 3s 2s").strength
    assert three("Qs Qh 4c").strength == three("Qd Qc 4s").strength
    assert partial("As Kd").strength == partial("Ac Kh").strength


# --- rules-interpretation.md, High hands (14.13(h)) -----------------------------------------------


def test_notes_high_hands_category_order_straight_flush_down_to_high_card_14_13_h() -> None:
    """rules-interpretation.md, High hands: straight flush > four of a kind > full house > flush >
    straight > three of a kind > two pair > one pair > high card, each the weakest of its kind
    beating the best of the next."""
    ladder = [
        "6h 5h 4h 3h 2h",  # five-high straight flush, the lowest
        "As Ah Ad Ac Ks",  # four aces, king
        "Ks Kh Kd 2c 2s",
        "As Ks Qs Js 9s",  # ace-high flush, the best
        "5d 4c 3h 2s As",
        "As Ah Ad Ks Qh",
        "As Ah Ks Kh Qd",
        "As Ah Ks Qh Jd",
        "As Ks Qh Jd 9c",
    ]
    strengths = [high(text).strength for text in ladder]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(ladder)


def test_notes_high_hands_a_2_3_4_5_is_the_lowest_straight_and_no_straight_wraps() -> None:
    """rules-interpretation.md, High hands: ace high; A-2-3-4-5 is the lowest straight (below
    6-5-4-3-2, above trips); K-A-2-3-4 is no straight."""
    wheel = high("Ah 2c 3d 4s 5h")
    assert wheel.description == "five-high straight"
    assert codes(wheel) == "5h 4s 3d 2c Ah"  # the ace plays low, called last
    assert high("6h 2c 3d 4s 5h").strength > wheel.strength > high("Ah Ad As Kc Qd").strength
    assert high("Kh Ac 2d 3s 4h").description == "ace-king high"
    assert high("Ah Kc Qd Js Th").description == "ace-high straight"


def test_notes_high_hands_kickers_decide_in_order_and_equal_hands_split() -> None:
    """rules-interpretation.md, High hands: within a category the called ranks then kickers decide,
    in order; the same ranks split."""
    assert high("As Ah 9d 5c 3s").strength > high("Ad Ac 9h 5s 2s").strength
    assert high("Js Jh 8d 8c As").strength > high("Jd Jc 8h 8s Ks").strength
    assert high("Ks Kh Kd 2c 2s").strength > high("Qs Qh Qd Ac As").strength
    assert high("As Ah 9d 5c 3s").strength == high("Ad Ac 9h 5s 3c").strength


def test_notes_partial_hands_only_quads_trips_two_pair_pair_high_card_count_14_13_f() -> None:
    """rules-interpretation.md, High hands (partial, 14.13(f)): four of a kind > three of a kind >
    two pair > one pair > high card among up-cards showing."""
    ladder = ["2s 2h 2d 2c", "As Ah Ad", "3s 3h 2d 2c", "As Ah", "Ks Qh Jd 9c", "Kd Qs Jc 8h"]
    strengths = [partial(text).strength for text in ladder]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(ladder)


def test_notes_partial_hands_no_straight_or_flush_among_fewer_than_five_cards_14_13_f() -> None:
    """rules-interpretation.md, High hands (partial, 14.13(f)): four suited connectors are
    king-queen high, the same as offsuit, and lose to a pair of deuces."""
    suited_run = partial("Ks Qs Js Ts")
    assert suited_run.description == "king-queen high"
    assert suited_run.strength == partial("Kd Qs Jh Tc").strength
    assert suited_run.strength < partial("2s 2h 3d 4c").strength


def test_notes_partial_hands_kickers_in_order_ties_not_broken_by_suit_14_13_f() -> None:
    """rules-interpretation.md, High hands (partial): kickers decide in order; equal ranks tie
    whatever the suits (14.13(f) breaks that tie by seat, the engine's job)."""
    assert partial("As Ah Kd").strength > partial("Ad Ac Qh").strength
    assert partial("As 9h 4d").strength > partial("Ad 9c 3h").strength
    assert partial("Ks Kh").strength == partial("Kd Kc").strength
    assert partial("As").strength > partial("Kh").strength


# --- rules-interpretation.md, Three-card high (14.13A(j),(l)) -------------------------------------


def test_notes_three_card_high_order_straight_flush_trips_straight_flush_pair_high() -> None:
    """rules-interpretation.md, Three-card high (cf. 13:69F-20.3): straight flush > three of a kind
    > straight > flush > one pair > high card."""
    ladder = ["3s 2s As", "2s 2h 2d", "3s 2h Ad", "As Ks Js", "As Ah Kd", "As Kh Jd"]
    values = [three(text) for text in ladder]
    assert [v.description for v in values] == [
        "three-high straight flush",
        "three twos",
        "three-high straight",
        "ace-high flush",
        "pair of aces",
        "ace-king high",
    ]
    strengths = [v.strength for v in values]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(ladder)


def test_notes_three_card_high_2_3_4_is_a_straight_14_13A_l_1() -> None:
    """14.13A(l)1: a two, three and four is a straight for the high hand (and a low)."""
    value = three("2c 3d 4h")
    assert value.description == "four-high straight"
    assert value.strength > three("As Ks Js").strength  # beats the best flush
    assert six("2c 3d 4h") is not None


def test_notes_three_card_high_ace_plays_low_and_high_a_k_q_top_3_2_a_bottom_14_13A_l() -> None:
    """rules-interpretation.md, Three-card high: A-K-Q is the highest straight, 3-2-A the lowest;
    K-A-2 does not wrap."""
    top = three("Ad Kc Qh")
    bottom = three("3d 2c Ah")
    assert top.description == "ace-high straight"
    assert bottom.description == "three-high straight"
    assert codes(bottom) == "3d 2c Ah"
    assert top.strength > three("Kd Qc Jh").strength > bottom.strength
    assert bottom.strength < three("4d 3c 2h").strength
    assert three("Kd Ac 2h").description == "ace-king high"


def test_notes_three_card_high_best_three_of_four_own_cards_and_community_14_13A_j() -> None:
    """14.13A(j), rules-interpretation.md, Three-card high: each player plays the best three of
    four."""
    value = mambo_high(parse_cards("Qh Qd 9s Qc"))
    assert value.description == "three queens"
    assert codes(value) == "Qh Qd Qc"
    assert mambo_high(parse_cards("9h 2d Th Jh")).description == "jack-high straight flush"
    assert mambo_high(parse_cards("Kc 7d 2h 5s")).description == "king-seven high"


# --- rules-interpretation.md, Six-or-better low (14.13A(k),(l)) -----------------------------------


def test_notes_six_or_better_no_pair_none_above_six_ace_low_14_13A_k() -> None:
    """14.13A(k): no two cards of equal rank and no seven to king; the ace counts low."""
    assert six("6h 4d As") is not None
    assert six("7h 4d As") is None
    assert six("Kh 2d 3s") is None
    assert six("4h 4d As") is None
    assert six("6h 5d 4s") is not None


def test_notes_six_or_better_straights_and_flushes_do_not_count_14_13A_l_1_2() -> None:
    """14.13A(l)1-2: 2-3-4 and a suited A-4-5 are lows as good as their offsuit twins."""
    offsuit, suited = six("2c 3d 4h"), six("2h 3h 4h")
    assert offsuit is not None
    assert suited is not None
    assert offsuit.strength == suited.strength
    assert suited.description == "four-three-two low"
    flush_low = six("Ah 4h 5h")
    assert flush_low is not None
    assert flush_low.strength == six_or_better_low_strength(parse_cards("Ac 4d 5s"))
    assert flush_low.description == "five-four-ace low"


def test_notes_six_or_better_highest_card_first_3_2_a_best_6_5_4_worst() -> None:
    """rules-interpretation.md, Six-or-better low: compare the highest card, then the next, then the
    last."""
    ladder = ["3s 2h Ad", "4s 2h Ad", "4s 3h 2d", "5s 2h Ad", "6s 2h Ad", "6s 4h Ad", "6s 5h 4d"]
    values = [six(text) for text in ladder]
    strengths = [v.strength for v in values if v is not None]
    assert strengths == sorted(strengths, reverse=True)
    assert len(set(strengths)) == len(ladder)
    assert strengths[0] == 20
    assert strengths[-1] == 1


def test_notes_six_or_better_best_low_chosen_apart_from_high_same_cards_may_serve_14_13A_l() -> (
    None
):
    """14.13A(l): the low three of four are chosen independently of the high three; the ace
    serves as a high card in one and a low card in the other; one trio may serve both."""
    four = parse_cards("Ah Kh 2c 4d")
    assert mambo_high(four).description == "ace-king high"
    lo = mambo_low(four)
    assert lo is not None
    assert lo.description == "four-two-ace low"
    assert codes(lo) == "4d 2c Ah"
    same = parse_cards("Ah 4h 5h Kc")
    assert codes(mambo_high(same)) == "Ah 5h 4h"  # a flush
    assert codes(mambo_low(same)) == "5h 4h Ah"  # the same three cards as a low


def test_notes_six_or_better_no_qualifying_low_gives_none_14_13A_k() -> None:
    """14.13A(k): when no three of four qualify there is no low (the dealer says
    NO_QUALIFYING_LOW and the high hand takes the whole pot, the engine's job)."""
    assert mambo_low(parse_cards("Kh Kd 2s 3c")) is None
    assert mambo_low_strength(parse_cards("Kh Kd 2s 3c")) == 0
    assert mambo_low(parse_cards("2h 2d 3s 3c")) is None
    assert NO_QUALIFYING_LOW == "no qualifying low"


# --- rules-interpretation.md, Deuce-to-seven low (14.12A(l)) --------------------------------------


def test_notes_deuce_to_seven_best_hand_is_7_5_4_3_2_of_mixed_suits_14_12A_l() -> None:
    """rules-interpretation.md, Deuce-to-seven low: 7-5-4-3-2 offsuit wins; suited it is a flush."""
    best = low27("7h 5d 4s 3c 2s")
    assert best.description == "seven-five low"
    assert best.strength == 7_462
    suited = low27("7s 5s 4s 3s 2s")
    assert suited.description == "seven-high flush"
    assert suited.strength < low27("Ks Qh Jd 9c 8s").strength


def test_notes_deuce_to_seven_ace_is_always_high_a_2_3_4_5_is_ace_high_14_12A_l() -> None:
    """rules-interpretation.md, Deuce-to-seven low: A-2-3-4-5 is ace-five, not a straight; it loses
    to every king-high hand and beats A-6-4-3-2."""
    wheel = low27("Ah 2c 3d 4s 5h")
    assert wheel.description == "ace-five low"
    assert codes(wheel) == "Ah 5h 4s 3d 2c"
    assert wheel.strength < low27("Kh Qc Jd Ts 8h").strength
    assert wheel.strength > low27("Ah 6c 4d 3s 2h").strength


def test_notes_deuce_to_seven_pairs_straights_and_flushes_count_against_14_12A_l() -> None:
    """rules-interpretation.md, Deuce-to-seven low: 6-5-4-3-2 is a straight, worse than any pair; a
    pair of twos is worse than A-K-Q-J-9; the lowest hand by the high ranking wins."""
    straight = low27("6h 5c 4d 3s 2h")
    assert straight.description == "six-high straight"
    pair = low27("2h 2c 4d 3s 7h")
    assert pair.description == "pair of twos"
    assert straight.strength < pair.strength < low27("Ah Kc Qd Js 9h").strength
    for a, b in [("7h 5c 4d 3s 2h", "8h 6c 5d 4s 3h"), ("Kh Kc 4d 3s 2h", "Ah Kc Qd Js 9h")]:
        assert (low27(a).strength > low27(b).strength) == (high(a).strength < high(b).strength)


# --- what the dealer calls --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("evaluate", "text", "call"),
    [
        (high, "As Ks Qs Js Ts", "royal flush"),
        (high, "Kh Qh Jh Th 9h", "king-high straight flush"),
        (high, "Js Jh Jd Jc 4s", "four jacks"),
        (high, "Ks Kh Kd 4c 4s", "kings full of fours"),
        (high, "6s 6h 6d Kc Ks", "sixes full of kings"),
        (high, "Qd 9d 7d 4d 2d", "queen-high flush"),
        (high, "Tc 9d 8h 7s 6c", "ten-high straight"),
        (high, "7s 7h 7d Ac 2s", "three sevens"),
        (high, "As Ah 8d 8c 2s", "aces and eights"),
        (high, "Js Jh 8d 4c 2s", "pair of jacks"),
        (high, "As Kh 8d 4c 2s", "ace-king high"),
        (low27, "8h 6d 4s 3c 2s", "eight-six low"),
        (low27, "2h 2d 4s 3c 7s", "pair of twos"),
        (low27, "Ks Kh Kd 4c 4s", "kings full of fours"),
        (three, "As Ks Qs", "ace-high straight flush"),
        (three, "Qs Qh Qd", "three queens"),
        (three, "Ks Qh Jd", "king-high straight"),
        (three, "Js 8s 2s", "jack-high flush"),
        (three, "9s 9h 2d", "pair of nines"),
        (three, "Qs Th 4d", "queen-ten high"),
        (six, "6h 4d As", "six-four-ace low"),
        (six, "3h 2d As", "three-two-ace low"),
        (partial, "Jh Jd", "pair of jacks"),
        (partial, "Ah", "ace high"),
        (partial, "Ah Kd 3s", "ace-king high"),
        (partial, "9h 9d 5s 5c", "nines and fives"),
    ],
)
def test_each_hand_is_described_as_a_dealer_calls_it(
    evaluate: Callable[[str], HandValue | None], text: str, call: str
) -> None:
    """Every evaluator's description is what the dealer says at the showdown."""
    value = evaluate(text)
    assert value is not None
    assert value.description == call


def test_hand_cards_are_listed_best_first() -> None:
    """HandValue.cards lists the cards that make the hand, the deciding ones first."""
    assert codes(high("4c Ks 4s Kh Kd")) == "Ks Kh Kd 4s 4c"
    assert codes(high("2s 8d As 8c Ah")) == "As Ah 8d 8c 2s"
    assert codes(high("9h Jd 7s Tc 8c")) == "Jd Tc 9h 8c 7s"
    assert codes(six("As 6h 4d")) == "6h 4d As"


# --- bad input --------------------------------------------------------------------------------

_EVALUATORS: list[tuple[Callable[[Sequence[Any]], object], int]] = [
    (five_card_high, 5),
    (five_card_high_strength, 5),
    (deuce_to_seven_low, 5),
    (deuce_to_seven_strength, 5),
    (three_card_high, 3),
    (three_card_high_strength, 3),
    (six_or_better_low, 3),
    (six_or_better_low_strength, 3),
    (mambo_high, 4),
    (mambo_high_strength, 4),
    (mambo_low, 4),
    (mambo_low_strength, 4),
]
_HAND = parse_cards("As Kd Qh Jc Ts 9d")


@pytest.mark.parametrize(("evaluate", "count"), _EVALUATORS)
def test_wrong_count_raises_hand_error_naming_cards_and_expected_count(
    evaluate: Callable[[Sequence[Any]], object], count: int
) -> None:
    """One card too many or too few raises HandError naming the cards and the count."""
    for cards in (_HAND[: count - 1], _HAND[: count + 1]):
        with pytest.raises(HandError) as excinfo:
            evaluate(cards)
        message = str(excinfo.value)
        assert " ".join(card.code for card in cards) in message
        assert f"exactly {count} distinct cards" in message
        assert f"{len(cards)} cards" in message


@pytest.mark.parametrize(("evaluate", "count"), _EVALUATORS[::2])
def test_a_card_twice_raises_hand_error_naming_it(
    evaluate: Callable[[Sequence[Any]], object], count: int
) -> None:
    """A duplicated card (a tag read twice) raises HandError naming the repeated card from
    every public evaluator (the *_strength fast paths leave that check to the caller)."""
    cards = (*_HAND[: count - 1], _HAND[0])
    with pytest.raises(HandError, match=r"As more than once; expected exactly"):
        evaluate(cards)


@pytest.mark.parametrize(("evaluate", "count"), _EVALUATORS)
def test_something_not_a_card_raises_hand_error(
    evaluate: Callable[[Sequence[Any]], object], count: int
) -> None:
    """Text or numbers where cards belong raise HandError, which is a ValueError."""
    with pytest.raises(HandError, match=r"'As' is not a card"):
        evaluate(["As", *_HAND[1:count]])
    with pytest.raises(ValueError, match=r"int is not a sequence of cards"):
        evaluate(5)


def test_partial_high_takes_one_to_four_distinct_up_cards() -> None:
    """14.13(f): a partial hand is 1 to 4 up-cards; none, five or a repeat is a HandError."""
    with pytest.raises(HandError, match=r"0 cards; expected 1 to 4 distinct up-cards"):
        partial_high(())
    with pytest.raises(HandError, match=r"5 cards"):
        partial_high_strength(_HAND[:5])
    with pytest.raises(HandError, match=r"Kd more than once"):
        partial_high(parse_cards("Kd As Kd"))
    with pytest.raises(HandError, match=r"'Kd' is not a card"):
        partial_high(["Kd"])  # type: ignore[list-item]  # the wrong type is the point


def test_fast_paths_give_the_public_strengths() -> None:
    """Each *_strength function returns its public evaluator's strength."""
    five = parse_cards("Ks Kh 9d 4c 2s")
    assert five_card_high_strength(five) == five_card_high(five).strength
    assert deuce_to_seven_strength(five) == deuce_to_seven_low(five).strength
    assert three_card_high_strength(five[:3]) == three_card_high(five[:3]).strength
    assert mambo_high_strength(five[1:]) == mambo_high(five[1:]).strength
    assert partial_high_strength(five[:2]) == partial_high(five[:2]).strength


def test_fast_paths_rely_on_card_index_mod_4_being_the_suit() -> None:
    """The five-card fast paths test a flush by Card.index % 4; poker/cards.py promises that
    layout."""
    assert all(card.index % 4 == card.suit for card in DECK)
    assert all(card.index // 4 == card.rank - 2 for card in DECK)
