"""The simulator's decks: tags from a seed, enrollment files, shuffle and cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cards import DECK, Card
from drivers.shoe import parse_uid
from simulator.decks import (
    DeckError,
    cut,
    foreign_uid,
    format_deck_file,
    make_decks,
    parse_deck_file,
    read_deck_file,
    shuffled,
    write_deck_file,
)


def test_two_decks_of_52_distinct_iso15693_tags_msb_first() -> None:
    """Every tag is a valid protocol UID (E0 first) and no tag is in both decks."""
    a, b = make_decks(7)
    tags = [*a.uids.values(), *b.uids.values()]
    assert len(set(tags)) == 104
    assert all(parse_uid(uid) == uid for uid in tags)
    assert (a.name, b.name) == ("A", "B")


def test_the_same_seed_gives_the_same_tags_and_another_seed_others() -> None:
    """Decks are generated deterministically from the seed."""
    assert make_decks(7) == make_decks(7)
    assert make_decks(7)[0].uids != make_decks(8)[0].uids


def test_a_deck_maps_tags_to_cards_both_ways() -> None:
    """A tag of the deck names its card; a tag of the other deck is not in it."""
    a, b = make_decks(1)
    ace = Card.parse("As")
    assert a.card(a.uid(ace)) is ace
    assert a.card(b.uid(ace)) is None


def test_a_foreign_tag_is_in_neither_deck() -> None:
    """A stray tag is a valid UID that belongs to no deck of the table."""
    decks = make_decks(3)
    uid = foreign_uid(3, 0, decks)
    assert parse_uid(uid) == uid
    assert all(deck.card(uid) is None for deck in decks)
    assert foreign_uid(3, 1, decks) != uid


def test_enrollment_file_round_trips_in_new_deck_order(tmp_path: Path) -> None:
    """A written deck file reads back as the same deck; its lines are in new-deck order."""
    deck = make_decks(5)[1]
    path = tmp_path / "deck-B.txt"
    write_deck_file(path, deck, "seed 5")
    assert read_deck_file(path, "B") == deck
    lines = [ln for ln in path.read_text().splitlines() if not ln.startswith("#")]
    assert [ln.split()[0] for ln in lines] == [card.code for card in DECK]
    assert not list(tmp_path.glob("*.partial"))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda t: t.replace("As E0", "As E1"), "line 54"),
        (lambda t: t.replace("As E0", "Xs E0"), "not a card"),
        (lambda t: t.replace("2c E0", "As E0"), "enrolled twice"),
        (lambda t: "\n".join(t.splitlines()[:-1]), "no tag for As"),
    ],
)
def test_a_bad_enrollment_file_is_refused_naming_the_line(change, message) -> None:  # type: ignore[no-untyped-def]  # lambdas in a parametrize table
    """A deck file with a bad UID, a bad card, a duplicate or a missing card is refused."""
    text = change(format_deck_file(make_decks(5)[0]))
    with pytest.raises(DeckError, match=message):
        parse_deck_file("A", text)


def test_a_shuffle_from_a_seed_is_a_repeatable_permutation_of_the_deck() -> None:
    """The same seed shuffles the same way; every card is there once."""
    assert shuffled(11) == shuffled(11)
    assert sorted(shuffled(11), key=lambda c: c.index) == list(DECK)
    assert shuffled(11) != shuffled(12)


def test_cut_moves_at_least_ten_cards_from_the_top_beneath() -> None:
    """NOTES.md, Shuffle, cut and decks: the cut takes at least ten cards off the top."""
    cards = shuffled(2)
    assert cut(cards, 10) == cards[10:] + cards[:10]
    for bad in (9, 0, 52):
        with pytest.raises(DeckError, match="at least 10"):
            cut(cards, bad)
