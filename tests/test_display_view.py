"""The dealer's display view model: what it accepts, what it refuses, what it derives."""

from __future__ import annotations

import pytest

from controller.display.demo import SCENES, bring_in, showdown
from controller.display.view import (
    FACE_DOWN,
    ActionOption,
    ActionPrompt,
    Award,
    Destination,
    DeviceState,
    NextCard,
    PotView,
    SeatView,
    ShowdownView,
    ShownHand,
    TableView,
    ViewError,
    device_lost,
    posted_stakes,
)
from controller.poker.cards import SUIT_ORDER, Card, parse_cards
from controller.poker.engine.tablesetup import Stakes
from controller.poker.games.spec import ForcedBet
from controller.poker.hands import NO_QUALIFYING_LOW, mambo_high, mambo_low
from controller.poker.inputs import Button

pytestmark = pytest.mark.fast


def _seats(*numbers: int) -> tuple[SeatView, ...]:
    return tuple(SeatView(number) for number in numbers)


def test_a_table_of_two_to_eleven_seats_is_accepted() -> None:
    """Two seats is the smallest game; eleven is Mambo stud's limit (14.13A(b))."""
    assert len(TableView("Mambo Stud", "T1", _seats(1, 2)).seats) == 2
    assert len(TableView("Mambo Stud", "T1", _seats(*range(1, 12))).seats) == 11


@pytest.mark.parametrize("numbers", [(1,), tuple(range(1, 13))])
def test_fewer_than_two_or_more_than_eleven_seats_is_refused(numbers: tuple[int, ...]) -> None:
    """The error names the count and the range expected (14.13A(b): at most 11 players)."""
    with pytest.raises(ViewError, match=rf"{len(numbers)} seats: expected 2 to 11"):
        TableView("Mambo Stud", "T1", tuple(SeatView(min(n, 11)) for n in numbers))


@pytest.mark.parametrize("number", [0, 12])
def test_a_seat_number_outside_one_to_eleven_is_refused(number: int) -> None:
    """The error names the seat number."""
    with pytest.raises(ViewError, match=f"seat number {number}: expected 1 to 11"):
        SeatView(number)


def test_seats_twice_or_out_of_order_are_refused() -> None:
    """Seats come once each, in seat order, so the screen can lay them out clockwise."""
    with pytest.raises(ViewError, match="each seat number once"):
        TableView("g", "t", _seats(1, 2, 2))
    with pytest.raises(ViewError, match="seat order"):
        TableView("g", "t", _seats(2, 1))


def test_a_seat_to_act_or_a_card_destination_not_at_the_table_is_refused() -> None:
    """An adapter naming a seat that is not there fails where it builds the view."""
    prompt = ActionPrompt(5, "opens", (ActionOption(Button.FOLD, "fold"),))
    with pytest.raises(ViewError, match="seat to act 5"):
        TableView("g", "t", _seats(1, 2), to_act=prompt)
    with pytest.raises(ViewError, match="next card to seat 5"):
        TableView("g", "t", _seats(1, 2), next_card=NextCard(Destination.FACE_UP, 5))
    with pytest.raises(ViewError, match=r"eligible seats \[7\]"):
        TableView("g", "t", _seats(1, 2), pots=(PotView("Main pot", 4, (1, 7)),))


def test_negative_chips_and_non_cards_are_refused() -> None:
    """Stacks, bets and pots are never negative; a seat's cards are Cards or FACE_DOWN."""
    with pytest.raises(ViewError, match="seat 3 stack -1"):
        SeatView(3, stack=-1)
    with pytest.raises(ViewError, match="seat 3 bet -5"):
        SeatView(3, bet=-5)
    with pytest.raises(ViewError, match="Main pot amount -2"):
        PotView("Main pot", -2, (1,))
    with pytest.raises(ViewError, match="seat 3 card 'As'"):
        SeatView(3, cards=("As",))  # type: ignore[arg-type]  # the wrong type is the test


def test_a_prompt_without_options_is_refused() -> None:
    """A seat to act always has at least one legal option."""
    with pytest.raises(ViewError, match="seat 4 to act: expected at least one legal option"):
        ActionPrompt(4, "opens", ())


def test_option_text_reads_as_the_dealer_says_it() -> None:
    """``call 5``, ``raise to 10``; an option without chips is its word alone."""
    assert ActionOption(Button.CHECK_CALL, "call", 5).text == "call 5"
    assert ActionOption(Button.BET_RAISE, "raise to", 10).text == "raise to 10"
    assert ActionOption(Button.FOLD, "fold").text == "fold"


@pytest.mark.parametrize(
    ("next_card", "sentence"),
    [
        (NextCard(Destination.FACE_DOWN, 3), "Seat 3, face down"),
        (NextCard(Destination.FACE_UP, 4), "Seat 4, face up"),
        (NextCard(Destination.BURN), "Burn card"),
        (NextCard(Destination.COMMUNITY), "Community card, face up"),
        (NextCard(Destination.REPLACEMENT, 2), "Replacement for seat 2"),
        (NextCard(Destination.DISCARDS, 6), "Seat 6's discards over the discard reader"),
        (NextCard(), "No card expected"),
    ],
)
def test_the_next_card_says_where_it_goes(next_card: NextCard, sentence: str) -> None:
    """Every destination of the procedures (burn 14.13(f), replacement 14.12A(f)) reads plainly."""
    assert next_card.sentence == sentence


def test_a_seat_destination_needs_its_seat_and_the_others_take_none() -> None:
    """Face up / face down / replacement / discards name a seat; burn, community and none do not."""
    with pytest.raises(ViewError, match="next card face up: expected the seat"):
        NextCard(Destination.FACE_UP)
    with pytest.raises(ViewError, match="next card burn to seat 2"):
        NextCard(Destination.BURN, 2)


def test_a_lost_device_pauses_the_table_with_the_standard_message() -> None:
    """The dealer reads what stopped and that the hand resumes where it stopped."""
    shoe = device_lost("shoe")
    assert shoe.state is DeviceState.LOST
    assert shoe.message == (
        "Table paused: shoe lost. Reconnect the shoe; the hand resumes where it stopped."
    )
    view = TableView("g", "t", _seats(1, 2), devices=(shoe,))
    assert view.pausing_devices == (shoe,)


def test_the_showdown_totals_each_winner_and_lists_winners_in_seat_order() -> None:
    """A seat's winnings add its shares of every pot (14.13A(j): high and low divide)."""
    result = ShowdownView(
        hands=(ShownHand(5, parse_cards("Ks Kh 8c"), "pair of kings"),),
        awards=(
            Award("Main pot", 5, 38, "high"),
            Award("Main pot", 2, 37, "low"),
            Award("Side pot 1", 5, 10, "high"),
        ),
    )
    assert result.winners() == (2, 5)
    assert result.won_by(5) == 48
    assert result.won_by(7) == 0


def test_seat_lookup_names_a_missing_seat() -> None:
    """Asking for a seat that is not at the table says which seat and table."""
    with pytest.raises(KeyError, match="no seat 9 at table T1"):
        TableView("g", "T1", _seats(1, 2)).seat(9)


# The demonstration scenes are also the snapshot tests' subjects: they must be honest hands.


@pytest.mark.parametrize("name", sorted(SCENES))
def test_no_card_shows_twice_in_a_demo_scene(name: str) -> None:
    """rules-interpretation.md, Integrity: a card is in one place only (the alarm scene's repeat is
    its alarm)."""
    view = SCENES[name]()
    shown = [card for seat in view.seats for card in seat.cards if isinstance(card, Card)]
    shown += list(view.community)
    assert len(shown) == len(set(shown))


def test_the_bring_in_scene_names_the_lowest_up_card_by_suit() -> None:
    """14.13A(d): lowest up-card brings in; equal ranks are broken by suit, clubs lowest."""
    view = bring_in()
    assert all(seat.cards[0] is FACE_DOWN for seat in view.seats)
    ups = {seat.number: up for seat in view.seats if isinstance(up := seat.cards[1], Card)}
    lowest = min(ups, key=lambda n: (ups[n].rank, -SUIT_ORDER.index(ups[n].suit)))
    assert view.to_act is not None
    assert view.to_act.seat == lowest == 6


def test_the_showdown_scene_divides_every_pot_to_the_chip() -> None:
    """14.13A(j)1: halves of the odd pot, the excess chip to the best high hand."""
    view = showdown()
    result = view.showdown
    assert result is not None
    for pot in view.pots:
        assert sum(a.amount for a in result.awards if a.pot == pot.name) == pot.amount
        assert {a.seat for a in result.awards if a.pot == pot.name} <= set(pot.eligible)
    main = {a.seat: a.amount for a in result.awards if a.pot == "Main pot"}
    assert main == {5: 38, 2: 37}
    assert [(o.seat, o.amount) for o in result.odd_chips] == [(5, 1)]


def test_the_showdown_scene_calls_the_hands_as_the_evaluators_do() -> None:
    """14.13A(j), (k), (l): best high and best qualifying low of three own cards plus the board.

    The demo's descriptions and winners are those of controller.poker.hands, so the
    snapshot shows what the engine will say.
    """
    view = showdown()
    result = view.showdown
    assert result is not None
    highs = {h.seat: mambo_high((*h.cards, *view.community)) for h in result.hands}
    lows = {h.seat: mambo_low((*h.cards, *view.community)) for h in result.hands}
    for hand in result.hands:
        low = lows[hand.seat]
        assert hand.high == highs[hand.seat].description
        assert hand.low == (NO_QUALIFYING_LOW if low is None else low.description)
    best_high = max(highs, key=lambda seat: highs[seat].strength)
    qualified = {seat: low for seat, low in lows.items() if low is not None}
    best_low = max(qualified, key=lambda seat: qualified[seat].strength)
    main = {a.seat: a.share for a in result.awards if a.pot == "Main pot"}
    assert main[best_high].startswith("high")
    assert main[best_low] == "low"


@pytest.mark.parametrize(
    ("stakes", "forced", "posted"),
    [
        (Stakes(5, 10, ante=1, bring_in=2), ForcedBet.BRING_IN, "Limit 5/10 · ante 1 · bring-in 2"),
        # No ante posted; no bring-in set: the low card brings in for the small bet.
        (Stakes(5, 10), ForcedBet.BRING_IN, "Limit 5/10 · bring-in 5"),
        (
            Stakes(10, 20, small_blind=5, big_blind=10),
            ForcedBet.BLINDS,
            "Limit 10/20 · blinds 5/10",
        ),
        (
            Stakes(1000, 2000, ante=100, small_blind=500, big_blind=1000),
            ForcedBet.BLINDS,
            "Limit 1,000/2,000 · ante 100 · blinds 500/1,000",
        ),
    ],
)
def test_the_posted_stakes_name_the_limit_and_the_forced_bets(
    stakes: Stakes, forced: ForcedBet, posted: str
) -> None:
    """N.J.A.C. 13:69F-8.3: the posted stakes; the live header and the scenes both read them
    from posted_stakes."""
    assert posted_stakes(stakes, forced) == posted
