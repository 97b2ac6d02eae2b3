"""The simulator's decks: tags from a seed, enrollment files, shuffle and cut."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.poker.cards import DECK, Card
from controller.poker.inputs import CardRead, ForeignTag, ReadPoint
from drivers.deck import FORMAT_LINE, Deck, DeckSet
from drivers.seam.events import TagRead
from drivers.seam.tags import parse_uid
from simulator.decks import (
    DeckError,
    cut,
    enrolled,
    foreign_uid,
    make_decks,
    read_deck_file,
    shuffled,
    write_deck_file,
)

pytestmark = pytest.mark.fast


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


def test_enrollment_files_are_the_drivers_deck_files_in_new_deck_order(tmp_path: Path) -> None:
    """The simulator writes drivers.deck's format; it reads back as the same deck."""
    deck = make_decks(5)[1]
    path = tmp_path / "deck-B.txt"
    write_deck_file(path, deck)
    assert read_deck_file(path) == deck
    assert Deck.load(path) == enrolled(deck)
    lines = path.read_text().splitlines()
    assert lines[:2] == [FORMAT_LINE, "deck B"]
    assert [ln.split()[0] for ln in lines[2:]] == [card.code for card in DECK]
    assert not list(tmp_path.glob("*.partial"))


def test_the_controller_tells_the_decks_apart_by_their_files(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: loaded into a DeckSet, the other deck's card and a stray
    tag alarm."""
    a, b = make_decks(6)
    for deck in (a, b):
        write_deck_file(tmp_path / f"deck-{deck.name}.txt", deck)
    decks = DeckSet(Deck.load(tmp_path / "deck-A.txt"), Deck.load(tmp_path / "deck-B.txt"))
    king = Card.parse("Kd")
    slot = ReadPoint.DEALING_SLOT
    assert decks.lookup(TagRead(a.uid(king), slot, 0, 0)) == CardRead(king, slot)
    other = decks.lookup(TagRead(b.uid(king), slot, 1, 1000))
    assert isinstance(other, ForeignTag)
    assert "other deck (B), Kd" in other.reason
    stray = decks.lookup(TagRead(foreign_uid(6, 0, (a, b)), slot, 2, 2000))
    assert isinstance(stray, ForeignTag)
    assert stray.reason == "not enrolled in either deck"


def test_a_shuffle_from_a_seed_is_a_repeatable_permutation_of_the_deck() -> None:
    """The same seed shuffles the same way; every card is there once."""
    assert shuffled(11) == shuffled(11)
    assert sorted(shuffled(11), key=lambda c: c.index) == list(DECK)
    assert shuffled(11) != shuffled(12)


def test_cut_moves_at_least_ten_cards_from_the_top_beneath() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the cut takes at least ten cards off the
    top."""
    cards = shuffled(2)
    assert cut(cards, 10) == cards[10:] + cards[:10]
    for bad in (9, 0, 52):
        with pytest.raises(DeckError, match="at least 10"):
            cut(cards, bad)
