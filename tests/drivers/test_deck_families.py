"""Tags of two families in deck files and enrollment (docs/hardware.md, Tags): ISO/IEC 15693
(16 hex digits, a protocol shoe's) and ISO/IEC 14443-A (8, 14 or 20, a PN532 shoe's); one
family a deck, and a tag of one family never the card of a tag of the other."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.poker.cards import DECK
from controller.poker.inputs import CardRead, ForeignTag, ReadPoint
from drivers.deck import Deck, DeckError, DeckFileError, DeckSet, Enrollment, EnrollmentError
from drivers.seam.events import TagRead
from drivers.seam.tags import TagFamily, TagUidError, parse_tag_uid, tag_family

pytestmark = pytest.mark.fast


def ntag_tags(base: int) -> list[str]:
    """52 seven-byte UIDs (NTAG213: NXP's manufacturer byte 04 first)."""
    return [f"04{base:04X}{n:08X}" for n in range(52)]


def vicinity_tags(base: int) -> list[str]:
    return [f"E0{base:06X}{n:08X}" for n in range(52)]


def test_each_family_and_neither() -> None:
    assert tag_family("E004015012345678") is TagFamily.ISO15693
    for uid in ("DEADBEEF", "0416C6C2D73881", "0102030405060708090A"):
        assert tag_family(uid) is TagFamily.ISO14443A
        assert parse_tag_uid(uid) == uid
    for text in ("0416c6c2d73881", "0416C6C2D738", "E00401501234567", "78563412500104E0X"):
        assert tag_family(text) is None
        with pytest.raises(TagUidError, match=r"ISO/IEC 15693.*or 8, 14 or 20 uppercase hex"):
            parse_tag_uid(text)


def test_a_deck_of_7_byte_uids_round_trips(tmp_path: Path) -> None:
    deck = Deck("red", dict(zip(ntag_tags(1), DECK, strict=True)))
    deck.save(tmp_path / "red.deck")
    assert Deck.load(tmp_path / "red.deck") == deck


def test_a_deck_file_mixing_families_names_the_line() -> None:
    lines = ["# tablectl deck file, format 1", "deck red"]
    uids = ntag_tags(1)
    uids[5] = vicinity_tags(1)[5]
    lines += [f"{card.code} {uid}" for card, uid in zip(DECK, uids, strict=True)]
    with pytest.raises(DeckFileError) as caught:
        Deck.loads("\n".join(lines), "red.deck")
    assert str(caught.value) == (
        f"deck file red.deck:8: tag {uids[5]} is ISO/IEC 15693, but the deck's first tag "
        f"{uids[0]} (line 3) is ISO/IEC 14443-A: a deck's tags are all of one family"
    )
    with pytest.raises(DeckError, match="tags of ISO/IEC 14443-A and ISO/IEC 15693"):
        Deck("red", dict(zip(uids, DECK, strict=True)))


def test_enrollment_takes_one_family() -> None:
    enrollment = Enrollment("red")
    enrollment.add("0416C6C2D73881")
    with pytest.raises(EnrollmentError, match=r"is ISO/IEC 15693, but deck red's tags so far"):
        enrollment.add("E004015012345678")
    for uid in ntag_tags(1)[1:]:
        enrollment.add(uid)
    assert len(enrollment.finish().cards) == 52


def test_a_tag_of_the_other_family_is_foreign() -> None:
    """A 14443-A deck in play: a 15693 tag (or the converse) is never a card of it."""
    red = Deck("red", dict(zip(ntag_tags(1), DECK, strict=True)))
    blue = Deck("blue", dict(zip(vicinity_tags(1), DECK, strict=True)))
    decks = DeckSet(red, blue)
    assert decks.lookup(TagRead(ntag_tags(1)[0], ReadPoint.DEALING_SLOT, 0, 0)) == CardRead(
        DECK[0], ReadPoint.DEALING_SLOT
    )
    foreign = decks.lookup(TagRead("DEADBEEF", ReadPoint.DEALING_SLOT, 1, 0))
    assert isinstance(foreign, ForeignTag)
    assert foreign.reason == "not enrolled in either deck"
