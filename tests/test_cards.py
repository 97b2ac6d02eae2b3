"""Cards, the deck and card codes (rules-interpretation.md, Cards; 14.13A(d))."""

from __future__ import annotations

import pickle

import pytest

from controller.poker.cards import (
    DECK,
    SUIT_ORDER,
    Card,
    CardError,
    Rank,
    Suit,
    format_cards,
    parse_cards,
)

pytestmark = pytest.mark.fast


def test_deck_has_52_distinct_cards_in_new_deck_order() -> None:
    """The deck holds each rank-suit pair once, indexed 0..51 from 2c to As."""
    assert len(DECK) == 52
    assert len(set(DECK)) == 52
    assert [card.index for card in DECK] == list(range(52))
    assert (DECK[0].code, DECK[-1].code) == ("2c", "As")


def test_14_13A_d_suit_order_is_spades_hearts_diamonds_clubs() -> None:
    """14.13A(d), (j)4: spades > hearts > diamonds > clubs, and Suit values follow it."""
    assert SUIT_ORDER == (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
    assert sorted(Suit, reverse=True) == list(SUIT_ORDER)


def test_rank_order_is_ace_high() -> None:
    """rules-interpretation.md, Cards: A K Q J T 9 8 7 6 5 4 3 2, high to low."""
    assert "".join(r.char for r in sorted(Rank, reverse=True)) == "AKQJT98765432"


@pytest.mark.parametrize(
    ("text", "code"),
    [("As", "As"), ("Td", "Td"), ("10d", "Td"), ("2c", "2c"), ("kh", "Kh"), (" QS ", "Qs")],
)
def test_card_codes_parse_to_canonical_form(text: str, code: str) -> None:
    """Card text parses to one interned card that prints as rank then suit."""
    card = Card.parse(text)
    assert card.code == code
    assert str(card) == code
    assert Card.parse(code) is card


@pytest.mark.parametrize("text", ["", "A", "1s", "Ax", "11d", "AsK", "T", "10", "Zz"])
def test_bad_card_text_names_the_text_and_the_expected_form(text: str) -> None:
    """Bad card text raises CardError quoting the text and showing the expected form."""
    with pytest.raises(CardError) as excinfo:
        Card.parse(text)
    message = str(excinfo.value)
    assert repr(text) in message
    assert "'As'" in message
    assert excinfo.value.text == text


def test_parse_and_format_a_list_of_cards() -> None:
    """A list of codes separated by spaces or commas round-trips through format_cards."""
    cards = parse_cards("As Td,2c 10h")
    assert format_cards(cards) == "As Td 2c Th"


def test_cards_are_interned_immutable_and_picklable() -> None:
    """Equal cards are the same object, cannot be changed, and survive pickling."""
    card = Card(Rank.ACE, Suit.SPADES)
    assert card is DECK[-1]
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]  # the assignment itself is the behaviour under test
    assert pickle.loads(pickle.dumps(card)) is card


def test_spoken_card_names_as_a_dealer_says_them() -> None:
    """Dealer announcements say '2 of clubs', '10 of hearts', 'ace of spades'."""
    assert Card.parse("2c").spoken == "2 of clubs"
    assert Card.parse("Th").spoken == "10 of hearts"
    assert Card.parse("As").spoken == "ace of spades"
