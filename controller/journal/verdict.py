"""The one vocabulary of a journal's verdict, the table's and the floor's (docs/journal.md,
Verdicts): ``tablectl journal verify``, ``tablectl dispute verify``, ``tablectl floor verify`` and
the floor web's verification page each say theirs in these words, and exit by them.

A verdict is two facts, said in this order on the first line:

- the links: ``links intact``, ``links NOT INTACT at record N`` (a record edited, removed,
  reordered, a gap) or ``TORN TAIL, links intact up to record N``;
- the signatures: ``signatures GOOD, checked with`` the key that vouches (the table's registered
  key, or the key given); ``signatures BAD`` and where; or ``signatures NOT CHECKED`` and why (no
  key given, no key registered, the journal signs nothing). A chain re-hashed after a rewrite
  links record by record: only a check of its signatures with a key its forger does not hold
  tells it from the table's own, so a verdict without one says so first.

Exit status, the same for every command (``exit_status``): 0 nothing found wrong (links intact;
signatures GOOD, or NOT CHECKED as the first line says), 1 links not intact, a torn tail or a
signature BAD, 2 a usage error (the command's own). Pure: words in, words out.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

EXIT_GOOD: Final = 0
EXIT_BAD: Final = 1

#: Why signatures were not checked: the command was given no key to check them with.
NO_KEY_GIVEN: Final = "no key given (--public-key FILE)"
#: ... the journal has no ``table_key`` record: it signs nothing.
NOT_SIGNED: Final = "the journal signs nothing (no table_key record)"


class Links(StrEnum):
    INTACT = "intact"
    BROKEN = "broken"
    TORN = "torn"


class Signatures(StrEnum):
    GOOD = "good"
    BAD = "bad"
    NOT_CHECKED = "not checked"
    #: The links broke first: what came after the break was not walked.
    NOT_JUDGED = "not judged"


def by_registered(key_ids: list[str]) -> str:
    """Who vouches: the floor registered the key for the table (and any it handed over to)."""
    keys = ", ".join(key_ids)
    return f"the table's registered key {keys}" if key_ids else "the table's registered key"


def by_given(key_id: str) -> str:
    """Who vouches: the key given to the command (``--public-key``)."""
    return f"the key given ({key_id})"


def no_key_registered(table_id: str) -> str:
    """Why not checked: the floor's registry holds no key of the table."""
    return f"the floor has no key registered for table {table_id} (tablectl floor key register)"


@dataclass(frozen=True, slots=True)
class Verdict:
    """The links and the signatures of one journal, bundle or stored chain."""

    links: Links
    signatures: Signatures
    #: GOOD: who vouches (``by_registered``, ``by_given``); BAD: what fails; NOT_CHECKED: why.
    detail: str = ""
    #: The record the links break at (BROKEN) or are intact up to (TORN).
    at: int | None = None
    #: The first record whose signature fails (BAD), when one does.
    bad_at: int | None = None
    #: Another check that fails beside links and signatures (a dispute bundle's files), named.
    other: str | None = None

    @property
    def ok(self) -> bool:
        """Nothing found wrong: the links intact, no signature BAD, no other check failed."""
        return (
            self.links is Links.INTACT
            and self.signatures in (Signatures.GOOD, Signatures.NOT_CHECKED)
            and self.other is None
        )

    @property
    def verified(self) -> bool:
        """Intact and vouched for: the signatures checked GOOD with a key the forger lacks."""
        return self.ok and self.signatures is Signatures.GOOD

    @property
    def exit_status(self) -> int:
        return EXIT_GOOD if self.ok else EXIT_BAD

    def text(self) -> str:
        """The verdict in the one vocabulary: ``links ...; signatures ...``."""
        said = f"{self._links()}; {self._signatures()}"
        return said if self.other is None else f"{said}; {self.other}: FAILED"

    def _links(self) -> str:
        if self.links is Links.BROKEN:
            return "links NOT INTACT" + ("" if self.at is None else f" at record {self.at}")
        if self.links is Links.TORN:
            return f"TORN TAIL, links intact up to record {self.at}"
        return "links intact"

    def _signatures(self) -> str:
        if self.signatures is Signatures.GOOD:
            return f"signatures GOOD, checked with {self.detail}"
        if self.signatures is Signatures.BAD:
            where = "" if self.bad_at is None else f" at record {self.bad_at}"
            return f"signatures BAD{where}" + (f": {self.detail}" if self.detail else "")
        if self.signatures is Signatures.NOT_JUDGED:
            return "signatures not judged past the break"
        return f"signatures NOT CHECKED: {self.detail}"
