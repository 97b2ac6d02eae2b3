"""Decks of RFID-tagged cards: the enrollment file, enrollment itself, and the table's two decks.

Each table keeps two decks (rules-interpretation.md, Integrity; 13:69F-14.5(d)), and every
card is known by its tag. A deck file maps the 52 tag UIDs of one deck to its
cards. ``DeckSet`` turns what the shoe read (a ``TagRead``) into the engine's
input: a ``CardRead`` for a card of the active deck, a ``ForeignTag`` (an
integrity alarm) for any other tag, naming the card when it is the other deck's.

The file is plain text, one card a line in new-deck order, so a technician
can read it and a regulator can diff it. Its tags are all of one family: ISO/IEC 15693 (a
protocol shoe's, 16 hex digits) or ISO/IEC 14443-A (a PN532 shoe's, 8, 14 or 20: docs/hardware.md,
Tags)::

    # tablectl deck file, format 1
    deck red
    2c E004015012345678
    2d E0040150123456A9
    ...
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from controller.poker.cards import DECK, Card, CardError
from controller.poker.inputs import TOGETHER, CardRead, ForeignTag
from controller.poker.words import counted
from drivers.seam.events import TagRead
from drivers.seam.tags import UidError, parse_tag_uid, tag_family

FORMAT_LINE: Final = "# tablectl deck file, format 1"
#: How many shared tags an error names one by one; the rest it counts.
SHARED_TAGS_NAMED: Final = 3


class DeckError(ValueError):
    """A deck that is not 52 distinct cards with 52 distinct tags; the message says why."""


class DeckFileError(DeckError):
    """A deck file that cannot be read; the message names the file and the line."""

    def __init__(self, path: Path | str, line: int | None, reason: str) -> None:
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else str(path)
        super().__init__(f"deck file {where}: {reason}")


@dataclass(frozen=True)
class Deck:
    """One deck's tags: ``cards`` maps each UID to its card; exactly 52 of each."""

    name: str
    cards: Mapping[str, Card]
    #: The file it was loaded from and each tag's line there, for errors (None: not a file).
    path: Path | str | None = field(default=None, compare=False)
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.name or any(c.isspace() for c in self.name):
            raise DeckError(f"deck name {self.name!r}: expected one word")
        for uid in self.cards:
            parse_tag_uid(uid)
        families = {tag_family(uid) for uid in self.cards}
        if len(families) > 1:
            raise DeckError(
                f"deck {self.name}: tags of {' and '.join(sorted(str(f) for f in families))}; "
                "a deck's tags are all of one family (one shoe reads them)"
            )
        missing = set(DECK) - set(self.cards.values())
        if missing or len(self.cards) != len(DECK):
            doubled = sorted(
                {c for c in self.cards.values() if list(self.cards.values()).count(c) > 1},
                key=lambda c: c.index,
            )
            raise DeckError(
                f"deck {self.name}: {len(self.cards)} tags; expected one per card of 52"
                + (f"; missing {_codes(missing)}" if missing else "")
                + (f"; more than one tag for {_codes(doubled)}" if doubled else "")
            )

    def where(self, uid: str) -> str:
        """A tag of this deck as an error names it: the deck's card, and its file and line."""
        card = f"{self.name}'s {self.cards[uid].code}"
        line = self.lines.get(uid)
        if self.path is None or line is None:
            return card
        return f"{card} ({self.path}:{line})"

    def dumps(self) -> str:
        """The deck file's text, cards in new-deck order."""
        by_card = {card: uid for uid, card in self.cards.items()}
        lines = [FORMAT_LINE, f"deck {self.name}"]
        lines += [f"{card.code} {by_card[card]}" for card in DECK]
        return "\n".join(lines) + "\n"

    def save(self, path: Path) -> None:
        """Write the file whole or not at all (a temporary file renamed over it)."""
        temporary = path.with_name(path.name + ".partial")
        with temporary.open("w", encoding="ascii") as out:
            out.write(self.dumps())
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)

    @classmethod
    def loads(cls, text: str, path: Path | str = "<text>") -> Deck:
        """Parse a deck file's text; DeckFileError names the line that is wrong."""
        name: str | None = None
        cards: dict[str, Card] = {}
        at: dict[str, int] = {}
        lines = text.splitlines()
        if not lines or lines[0].strip() != FORMAT_LINE:
            raise DeckFileError(path, 1, f"expected the first line {FORMAT_LINE!r}")
        for number, line in enumerate(lines[1:], start=2):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if words[0] == "deck" and len(words) == 2 and name is None:
                name = words[1]
                continue
            if name is None:
                raise DeckFileError(path, number, "expected 'deck NAME' before the cards")
            if len(words) != 2:
                raise DeckFileError(path, number, f"{line!r}: expected a card code and a tag UID")
            try:
                card = Card.parse(words[0])
                uid = parse_tag_uid(words[1])
            except (CardError, UidError) as exc:
                raise DeckFileError(path, number, str(exc)) from None
            first = next(iter(cards), None)
            if first is not None and tag_family(uid) != tag_family(first):
                raise DeckFileError(
                    path,
                    number,
                    f"tag {uid} is {tag_family(uid)}, but the deck's first tag {first} (line "
                    f"{at[first]}) is {tag_family(first)}: a deck's tags are all of one family",
                )
            if uid in cards:
                raise DeckFileError(
                    path, number, f"tag {uid} is already the {cards[uid]}; a tag names one card"
                )
            if card in cards.values():
                raise DeckFileError(path, number, f"{card} has a tag already; one tag per card")
            cards[uid] = card
            at[uid] = number
        if name is None:
            raise DeckFileError(path, None, "no 'deck NAME' line")
        try:
            return cls(name, cards, path, at)
        except DeckError as exc:
            raise DeckFileError(path, None, str(exc)) from None

    @classmethod
    def load(cls, path: Path) -> Deck:
        """Read a deck file."""
        try:
            text = path.read_text(encoding="ascii")
        except OSError as exc:
            raise DeckFileError(path, None, f"cannot read: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            raise DeckFileError(path, None, f"expected ASCII text: {exc}") from None
        return cls.loads(text, path)


def _codes(cards: Iterable[Card]) -> str:
    return " ".join(c.code for c in sorted(cards, key=lambda c: c.index))


class DeckSet:
    """The table's two decks, one of them active (rules-interpretation.md, Shuffle, cut and decks).

    ``lookup`` maps a tag the shoe read to the engine's input: a card of the
    active deck is a CardRead; any other tag is a ForeignTag, an integrity
    alarm (rules-interpretation.md, Integrity), whose reason names the other deck's card.
    """

    def __init__(self, first: Deck, second: Deck, active: str | None = None) -> None:
        if first.name == second.name:
            raise DeckError(f"both decks are named {first.name!r}; the two decks need two names")
        shared = [uid for uid in first.cards if uid in second.cards]
        if shared:
            raise DeckError(_shared_tags(first, second, shared))
        self.decks: Final = {first.name: first, second.name: second}
        active = first.name if active is None else active
        if active not in self.decks:
            raise DeckError(f"active deck {active!r}: expected {first.name} or {second.name}")
        self.active: Deck = self.decks[active]

    @property
    def other(self) -> Deck:
        """The deck not in play (being shuffled)."""
        return next(d for d in self.decks.values() if d is not self.active)

    def activate(self, name: str) -> Deck:
        """Put the deck named ``name`` in play (as the journal says it was)."""
        deck = self.decks.get(name)
        if deck is None:
            raise DeckError(
                f"deck {name!r} is in play by the journal, but the table's decks are "
                f"{' and '.join(self.decks)}: the deck files changed under the journal"
            )
        self.active = deck
        return deck

    def switch(self) -> Deck:
        """Put the other deck in play (decks alternate); returns the new active deck."""
        self.active = self.other
        return self.active

    def lookup(self, read: TagRead) -> CardRead | ForeignTag:
        """The engine's input for a tag read at a read point; a tag read together with another
        is not taken for a card (rules-interpretation.md, Integrity: two cards at once)."""
        if read.together:
            return ForeignTag(read.uid, TOGETHER, read.point)
        card = self.active.cards.get(read.uid)
        if card is not None:
            return CardRead(card, read.point)
        other = self.other.cards.get(read.uid)
        if other is not None:
            reason = f"a card of the other deck ({self.other.name}), {other}"
        else:
            reason = "not enrolled in either deck"
        return ForeignTag(read.uid, reason, read.point)


def _shared_tags(first: Deck, second: Deck, shared: list[str]) -> str:
    """rules-interpretation.md, Integrity: a tag belongs to one card of one deck. Names the first
    few shared tags (each deck's card, file and line) and counts the rest: a deck copied
    whole shares all 52."""
    shared.sort(key=lambda uid: first.cards[uid].index)
    named = [
        f"{uid} is {first.where(uid)} and {second.where(uid)}" for uid in shared[:SHARED_TAGS_NAMED]
    ]
    more = len(shared) - len(named)
    return (
        f"decks {first.name} and {second.name} share {counted(len(shared), 'tag')}; "
        "a tag belongs to one card of one deck: "
        + "; ".join(named)
        + (f"; and {more} more" if more else "")
    )


class EnrollmentError(DeckError):
    """A tag enrollment must refuse: a duplicate, a foreign tag, or a missing card."""


class Enrollment:
    """Enrolling one deck, card by card, as the tags come out of the shoe.

    In new-deck order (``DECK``: 2c 2d 2h 2s 3c ... As) each tag is the next
    card; in any order the technician names each card as its tag is read.
    A tag read twice, a card named twice, or a tag of another deck is refused.
    """

    def __init__(self, name: str, other_tags: Iterable[str] = ()) -> None:
        self.name = name
        self._other = frozenset(other_tags)
        self.cards: dict[str, Card] = {}

    @property
    def next_card(self) -> Card | None:
        """The card the next tag is, in new-deck order; None when all 52 are in."""
        enrolled = set(self.cards.values())
        return next((c for c in DECK if c not in enrolled), None)

    @property
    def missing(self) -> list[Card]:
        """Cards with no tag yet, in new-deck order."""
        enrolled = set(self.cards.values())
        return [c for c in DECK if c not in enrolled]

    def check_tag(self, uid: str) -> None:
        """Raise EnrollmentError if this tag cannot be a new card of this deck."""
        parse_tag_uid(uid)
        first = next(iter(self.cards), None)
        if first is not None and tag_family(uid) != tag_family(first):
            raise EnrollmentError(
                f"tag {uid} is {tag_family(uid)}, but deck {self.name}'s tags so far are "
                f"{tag_family(first)}: a deck's tags are all of one family"
            )
        if uid in self.cards:
            raise EnrollmentError(
                f"tag {uid} read again: it is already the {self.cards[uid]} of deck {self.name}; "
                "a duplicate tag cannot be enrolled"
            )
        if uid in self._other:
            raise EnrollmentError(f"tag {uid} belongs to the other deck; a tag names one card")

    def add(self, uid: str, card: Card | None = None) -> Card:
        """Enroll a tag as ``card`` (any order) or as the next card in new-deck order."""
        self.check_tag(uid)
        if card is None:
            card = self.next_card
            if card is None:
                raise EnrollmentError(f"tag {uid}: all 52 cards of deck {self.name} are enrolled")
        elif card in self.cards.values():
            holder = next(u for u, c in self.cards.items() if c is card)
            raise EnrollmentError(f"{card} is already enrolled, as tag {holder}")
        self.cards[uid] = card
        return card

    def missing_text(self) -> str:
        """The cards still without a tag, counted and named: ``1 card has no tag: As``."""
        count = len(self.missing)
        have = "has" if count == 1 else "have"
        return f"{counted(count, 'card')} {have} no tag: {_codes(self.missing)}"

    def finish(self) -> Deck:
        """The deck, if all 52 cards have their tags; EnrollmentError naming the missing."""
        if self.missing:
            raise EnrollmentError(f"deck {self.name}: {self.missing_text()}")
        return Deck(self.name, dict(self.cards))
