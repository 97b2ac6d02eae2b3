"""Deck files, enrollment, and mapping tags to the engine's inputs (rules-interpretation.md,
Integrity)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from controller.poker.cards import DECK, Card
from controller.poker.inputs import CardRead, ForeignTag, ReadPoint
from drivers.deck import Deck, DeckError, DeckFileError, DeckSet, Enrollment, EnrollmentError
from drivers.seam.events import TagRead

pytestmark = pytest.mark.fast


def tags(base: int) -> list[str]:
    return [f"E0{base:06X}{n:08X}" for n in range(52)]


def deck(name: str, base: int) -> Deck:
    return Deck(name, dict(zip(tags(base), DECK, strict=True)))


RED, BLUE = deck("red", 1), deck("blue", 2)


def test_a_deck_file_round_trips_in_new_deck_order(tmp_path: Path) -> None:
    """Saved and loaded, a deck is the same; the file lists cards 2c 2d 2h 2s ... As."""
    path = tmp_path / "red.deck"
    RED.save(path)
    assert Deck.load(path) == RED
    lines = path.read_text().splitlines()
    assert lines[:4] == [
        "# tablectl deck file, format 1",
        "deck red",
        f"2c {tags(1)[0]}",
        f"2d {tags(1)[1]}",
    ]
    assert lines[-1] == f"As {tags(1)[51]}"
    assert not (tmp_path / "red.deck.partial").exists()


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda t: t.replace("# tablectl deck file, format 1", "# something"), ":1: expected"),
        (lambda t: t.replace("2d E0", "2d e0"), ":4: tag UID"),
        (lambda t: t.replace("2d ", "2x "), ":4: not a card"),
        (lambda t: t.replace("2d ", "2c "), ":4: 2c has a tag already"),
        (lambda t: t.replace(tags(1)[1], tags(1)[0]), ":4: tag .* is already the 2c"),
        (
            lambda t: "\n".join(t.splitlines()[:-1]),
            "51 tags; expected one per card of 52; missing As",
        ),
        (lambda t: t.replace("deck red\n", ""), ":2: expected 'deck NAME'"),
        (lambda t: t.replace("2d E0", "2d  E0 extra E0"), ":4: .*expected a card code and a tag"),
    ],
)
def test_a_bad_deck_file_is_refused_naming_the_line(
    tmp_path: Path, edit: Callable[[str], str], match: str
) -> None:
    """A wrong header, bad UID, bad card, doubled card or tag, or missing card names its line."""
    path = tmp_path / "red.deck"
    path.write_text(edit(RED.dumps()))
    with pytest.raises(DeckFileError, match=match):
        Deck.load(path)


def test_a_missing_deck_file_is_named(tmp_path: Path) -> None:
    """A deck file that cannot be read is named in the error."""
    with pytest.raises(DeckFileError, match=r"nothing\.deck: cannot read"):
        Deck.load(tmp_path / "nothing.deck")


def test_a_tag_of_the_active_deck_is_a_card_read_at_its_point() -> None:
    """rules-interpretation.md, Integrity: every card is known by its tag; the active deck's tag is
    its card."""
    decks = DeckSet(RED, BLUE)
    read = TagRead(tags(1)[51], ReadPoint.DISCARD_READER, 0, 0)
    assert decks.lookup(read) == CardRead(Card.parse("As"), ReadPoint.DISCARD_READER)


def test_a_tag_of_the_other_deck_is_an_integrity_alarm_naming_the_card() -> None:
    """rules-interpretation.md, Integrity: a card not in the active deck is an alarm; the reason
    names it."""
    decks = DeckSet(RED, BLUE)
    alarm = decks.lookup(TagRead(tags(2)[0], ReadPoint.DEALING_SLOT, 0, 0))
    assert alarm == ForeignTag(
        tags(2)[0], "a card of the other deck (blue), 2c", ReadPoint.DEALING_SLOT
    )


def test_an_unknown_tag_is_an_integrity_alarm() -> None:
    """rules-interpretation.md, Integrity: a tag in neither deck is an alarm."""
    alarm = DeckSet(RED, BLUE).lookup(TagRead("E0FFFFFFFFFFFFFF", ReadPoint.DEALING_SLOT, 0, 0))
    assert isinstance(alarm, ForeignTag)
    assert alarm.reason == "not enrolled in either deck"


def test_switching_decks_makes_the_other_deck_active() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the decks alternate; after a switch blue is
    in play."""
    decks = DeckSet(RED, BLUE)
    assert decks.switch() is BLUE
    assert decks.lookup(TagRead(tags(2)[0], ReadPoint.DEALING_SLOT, 0, 0)) == CardRead(DECK[0])
    assert isinstance(decks.lookup(TagRead(tags(1)[0], ReadPoint.DEALING_SLOT, 0, 0)), ForeignTag)


def test_two_decks_sharing_a_tag_or_a_name_are_refused() -> None:
    """rules-interpretation.md, Integrity: a tag names one card of one deck; two decks need two
    names."""
    with pytest.raises(DeckError, match="share 52 tags"):
        DeckSet(RED, deck("blue", 1))
    with pytest.raises(DeckError, match="both decks are named"):
        DeckSet(RED, deck("red", 2))
    with pytest.raises(DeckError, match="active deck 'green'"):
        DeckSet(RED, BLUE, active="green")


def test_enrollment_in_new_deck_order_gives_each_tag_the_next_card() -> None:
    """In new-deck order the tags become 2c 2d 2h 2s 3c ... As."""
    enrollment = Enrollment("red")
    assigned = [enrollment.add(uid) for uid in tags(1)]
    assert assigned == list(DECK)
    assert enrollment.finish() == RED


def test_enrollment_refuses_a_duplicate_tag() -> None:
    """A tag read twice is refused, naming the card it already is."""
    enrollment = Enrollment("red")
    enrollment.add(tags(1)[0])
    with pytest.raises(EnrollmentError, match="already the 2c of deck red"):
        enrollment.add(tags(1)[0])


def test_enrollment_refuses_a_tag_of_the_other_deck() -> None:
    """A tag of the other deck cannot join this one."""
    enrollment = Enrollment("red", other_tags=BLUE.cards)
    with pytest.raises(EnrollmentError, match="other deck"):
        enrollment.add(tags(2)[5])


def test_enrollment_refuses_a_missing_card_naming_it() -> None:
    """Fewer than 52 tags: finish names every card without one."""
    enrollment = Enrollment("red")
    for uid in tags(1)[:50]:
        enrollment.add(uid)
    with pytest.raises(EnrollmentError, match="2 cards have no tag: Ah As"):
        enrollment.finish()


def test_enrollment_missing_one_card_says_so_in_the_singular() -> None:
    """One card without a tag: "1 card has no tag", not "1 cards have"."""
    enrollment = Enrollment("red")
    for uid in tags(1)[:51]:
        enrollment.add(uid)
    with pytest.raises(EnrollmentError, match="1 card has no tag: As"):
        enrollment.finish()


def test_enrollment_in_any_order_takes_the_named_card_and_refuses_it_twice() -> None:
    """In any order the technician names each card; naming one twice is refused."""
    enrollment = Enrollment("red")
    assert enrollment.add(tags(1)[0], Card.parse("As")) == Card.parse("As")
    assert enrollment.next_card == DECK[0]
    with pytest.raises(EnrollmentError, match="As is already enrolled"):
        enrollment.add(tags(1)[1], Card.parse("As"))


@pytest.mark.parametrize(
    ("uid", "hint"),
    [("E00401ZZZZ", False), ("0000000100000001", False), ("01000000010000E0", True)],
)
def test_a_deck_file_uid_gets_the_byte_order_hint_only_when_it_is_a_reversed_uid(
    tmp_path: Path, uid: str, hint: bool
) -> None:
    """docs/protocol.md 2, ``uid``: a deck file's bad UID is told what a UID is; the
    least-significant-byte-first hint only when the UID reads as a valid one reversed."""
    path = tmp_path / "red.deck"
    path.write_text(RED.dumps().replace(tags(1)[1], uid))
    with pytest.raises(DeckFileError, match=":4: tag UID") as caught:
        Deck.load(path)
    assert ("sent least significant byte first" in str(caught.value)) is hint


def test_a_tag_shared_by_two_deck_files_names_both_files_lines_and_cards(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: a tag belongs to one card of one deck. The error names
    the tag, each deck's card and where each file says so (red's 2c on line 3, blue's Ks on line
    50)."""
    red, blue = tmp_path / "red.deck", tmp_path / "blue.deck"
    RED.save(red)
    blue_tags = tags(2)
    blue_tags[DECK.index(Card.parse("Ks"))] = tags(1)[0]
    Deck("blue", dict(zip(blue_tags, DECK, strict=True))).save(blue)
    with pytest.raises(DeckError) as caught:
        DeckSet(Deck.load(red), Deck.load(blue))
    assert str(caught.value) == (
        f"decks red and blue share 1 tag; a tag belongs to one card of one deck: "
        f"{tags(1)[0]} is red's 2c ({red}:3) and blue's Ks ({blue}:50)"
    )


def test_a_deck_copied_whole_names_the_first_shared_tags_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    """rules-interpretation.md, Integrity: deck red copied as blue shares all 52 tags; the error
    names the first three (cards, files and lines) and counts the other 49, not a wall of 52
    UIDs."""
    red, blue = tmp_path / "red.deck", tmp_path / "blue.deck"
    RED.save(red)
    blue.write_text(RED.dumps().replace("deck red", "deck blue"))
    with pytest.raises(DeckError) as caught:
        DeckSet(Deck.load(red), Deck.load(blue))
    message = str(caught.value)
    assert message.startswith("decks red and blue share 52 tags; a tag belongs to one card")
    assert f"{tags(1)[0]} is red's 2c ({red}:3) and blue's 2c ({blue}:3)" in message
    assert f"{tags(1)[2]} is red's 2h ({red}:5) and blue's 2h ({blue}:5)" in message
    assert message.endswith("; and 49 more")
    assert tags(1)[3] not in message
