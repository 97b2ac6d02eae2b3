"""The table's two decks of RFID-tagged cards, their enrollment files, shuffle and cut.

Every card carries an ISO/IEC 15693 tag: an 8-byte UID written, as
docs/protocol.md (Common field types, ``uid``) requires, most significant byte
first, so it always begins ``E0``; or, for a table whose shoe is PN532 readers, an
ISO/IEC 14443-A NTAG213 sticker: a 7-byte UID written UID0 first, which is 04 (NXP)
(docs/hardware.md, Tags). The simulator makes both decks' tags from a
seed, so a test or a technician gets the same tags, and the same enrollment
files, every time.

Pure: no I/O except ``write_deck_file`` and ``read_deck_file``; randomness only
from a ``random.Random`` seeded by the caller.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.poker.cards import DECK, Card
from controller.poker.words import counted
from drivers.deck import Deck
from drivers.seam.tags import TagFamily, tag_family

#: ISO/IEC 15693 UIDs begin with E0, then the manufacturer code (04: NXP) and the
#: chip type (01: ICODE SLIX); the last five bytes are the chip's serial.
UID_PREFIX: Final = "E00401"
#: An NTAG213's UID0 is its manufacturer, 04 (NXP); six bytes of serial follow (ISO/IEC
#: 14443-3, a double-size UID).
NTAG_PREFIX: Final = "04"
#: The two decks of a table (rules-interpretation.md, Integrity; Shuffle, cut and decks).
DECK_NAMES: Final = ("A", "B")
#: A cut takes at least ten cards off the top (rules-interpretation.md, Shuffle, cut and decks).
MIN_CUT: Final = 10


class DeckError(ValueError):
    """A deck, a deck file or a deck operation that is not what the table expects."""


@dataclass(frozen=True, slots=True)
class TagDeck:
    """One deck: a tag UID for each of the 52 cards."""

    name: str
    uids: Mapping[Card, str]

    def __post_init__(self) -> None:
        missing = [card.code for card in DECK if card not in self.uids]
        if missing:
            raise DeckError(f"deck {self.name} has no tag for {' '.join(missing)}")
        if len(set(self.uids.values())) != len(DECK):
            raise DeckError(f"deck {self.name} has two cards with the same tag")

    def uid(self, card: Card) -> str:
        """The tag UID of a card of this deck."""
        return self.uids[card]

    def card(self, uid: str) -> Card | None:
        """The card carrying this tag, or None if the tag is not in this deck."""
        for card, tag in self.uids.items():
            if tag == uid:
                return card
        return None


def _uid(rng: random.Random, family: TagFamily = TagFamily.ISO15693) -> str:
    if family is TagFamily.ISO14443A:
        return NTAG_PREFIX + "".join(f"{rng.randrange(256):02X}" for _ in range(6))
    return UID_PREFIX + "".join(f"{rng.randrange(256):02X}" for _ in range(5))


def make_decks(seed: int, family: TagFamily = TagFamily.ISO15693) -> tuple[TagDeck, TagDeck]:
    """The table's decks A and B, their tags of ``family`` drawn from ``seed``; no tag is in
    both. The ISO/IEC 15693 decks are those of every seed before the PN532 shoe (the same
    draws), so a deck file written for a seed before reads the same."""
    rng = random.Random(
        f"tablectl-decks-{seed}"
        if family is TagFamily.ISO15693
        else f"tablectl-decks-{seed}-{family.name}"
    )
    seen: set[str] = set()
    decks = []
    for name in DECK_NAMES:
        uids: dict[Card, str] = {}
        for card in DECK:
            uid = _uid(rng, family)
            while uid in seen:
                uid = _uid(rng, family)
            seen.add(uid)
            uids[card] = uid
        decks.append(TagDeck(name, uids))
    return decks[0], decks[1]


def foreign_uid(seed: int, number: int, decks: Iterable[TagDeck]) -> str:
    """The ``number``-th tag that belongs to no deck of the table (a stray tag), of the decks'
    family (a reader hears no other)."""
    known = {uid for deck in decks for uid in deck.uids.values()}
    family = deck_family(known)
    rng = random.Random(f"tablectl-foreign-{seed}-{number}")
    uid = _uid(rng, family)
    while uid in known:
        uid = _uid(rng, family)
    return uid


def deck_family(uids: Iterable[str]) -> TagFamily:
    """The family of the tags ``uids`` (the first one's; a deck holds one family:
    drivers/deck.py); ISO/IEC 15693 when there are none."""
    for uid in uids:
        return tag_family(uid) or TagFamily.ISO15693
    return TagFamily.ISO15693


def shuffled(seed: int) -> list[Card]:
    """The 52 cards in the order a shuffle from ``seed`` leaves them, top card first."""
    cards = list(DECK)
    random.Random(f"tablectl-shuffle-{seed}").shuffle(cards)
    return cards


def cut(cards: Sequence[Card], count: int) -> list[Card]:
    """The stack after cutting ``count`` cards off the top and putting them beneath.

    rules-interpretation.md, Shuffle, cut and decks: at least ten cards off the top; and a cut
    must leave a card on the cover card, so at most all but one.
    """
    if not MIN_CUT <= count <= len(cards) - 1:
        raise DeckError(
            f"cut of {counted(count, 'card')}: expected at least {MIN_CUT} off the top "
            f"(rules-interpretation.md, Shuffle, cut and decks) and at most {len(cards) - 1} "
            f"of {len(cards)}"
        )
    return [*cards[count:], *cards[:count]]


# --- Enrollment files ---------------------------------------------------------------------
#
# Written and read in the drivers' deck file format (drivers.deck), so the controller loads
# the simulator's decks exactly as it loads decks enrolled through a real shoe.


def enrolled(deck: TagDeck) -> Deck:
    """The deck as the drivers hold an enrolled deck."""
    return Deck(deck.name, {uid: card for card, uid in deck.uids.items()})


def write_deck_file(path: Path, deck: TagDeck) -> None:
    """Write a deck's enrollment file (whole or not at all: ``drivers.deck.Deck.save``)."""
    enrolled(deck).save(path)


def read_deck_file(path: Path) -> TagDeck:
    """Read an enrollment file back into the simulator's deck."""
    loaded = Deck.load(path)
    return TagDeck(loaded.name, {card: uid for uid, card in loaded.cards.items()})
