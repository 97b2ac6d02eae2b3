"""The rules the code follows are stated in the repository (docs/rules-interpretation.md), and
every citation of that document names one of its headings.

README.md says the code cites the subsection beside each rule; a citation reads
``rules-interpretation.md, <heading>`` (``rules-interpretation.md, Odd chips``). These tests
read the files of the working tree (no ``git``: the fast tier starts no subprocess), skipping
what .gitignore leaves out of the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from treetext import LEADER, ROOT, files, texts

pytestmark = pytest.mark.fast

RULES: Final = ROOT / "docs" / "rules-interpretation.md"
#: Where the rules were kept before they were written into the repository: a path a clone
#: does not have. Spelled in pieces so that this file does not name them itself.
OUTSIDE: Final = (b"NOTES" + b".md", b"shared" + b"/rules", b".." + b"/shared")
CITATION: Final = re.compile(r"rules-interpretation\.md,(?:\s+|$)")
HEADING: Final = re.compile(r"^#{2,4} (.+?)\s*$", re.MULTILINE)


def headings() -> list[str]:
    """The section headings of docs/rules-interpretation.md, longest first."""
    return sorted(HEADING.findall(RULES.read_text(encoding="utf-8")), key=len, reverse=True)


def citations(text: str) -> Iterator[tuple[int, str]]:
    """Each citation in ``text``: its line number and what follows the comma, with the next
    line joined (a citation may wrap in a comment, a docstring or a string)."""
    lines = text.splitlines()
    for number, line in enumerate(lines):
        for match in CITATION.finditer(line):
            rest = line[match.end() :].rstrip().rstrip("\"'")
            following = lines[number + 1] if number + 1 < len(lines) else ""
            joined = f"{rest} {LEADER.sub('', following, count=1)}"
            yield number + 1, " ".join(joined.split())


def uncited(text: str, known: list[str]) -> list[tuple[int, str]]:
    """The citations in ``text`` that name no heading of ``known``: line and text."""
    bad = []
    for number, cited in citations(text):
        named = any(
            cited.startswith(heading) and not cited[len(heading) : len(heading) + 1].isalnum()
            for heading in known
        )
        if not named:
            bad.append((number, cited[:60]))
    return bad


def test_nothing_in_the_repository_sends_a_reader_outside_it() -> None:
    """README.md, the docs, the code's comments and what the product shows name no file a
    clone does not have: the rules are docs/rules-interpretation.md's."""
    offenders = [
        f"{path.relative_to(ROOT)}: {word.decode()}"
        for path in files()
        for word in OUTSIDE
        if word in path.read_bytes()
    ]
    assert offenders == []


def test_every_citation_of_the_rules_names_a_heading_of_the_rules_document() -> None:
    """``rules-interpretation.md, <heading>`` wherever it is written (code, tests, docs,
    strings the table shows) names a heading that docs/rules-interpretation.md has."""
    known = headings()
    here = Path(__file__).resolve()  # this file writes near misses on purpose (below)
    problems = [
        f"{path.relative_to(ROOT)}:{line}: rules-interpretation.md, {cited}"
        for path, text in texts()
        if path != here
        for line, cited in uncited(text, known)
    ]
    assert problems == []


def test_the_rules_document_has_a_section_for_each_kind_of_rule() -> None:
    """The sections the code cites most: the cards and hands, the forced bets, the betting,
    the house rules, the burns, the odd chips, the decks and integrity."""
    assert set(headings()) >= {
        "Cards",
        "High hands",
        "Three-card high",
        "Six-or-better low",
        "Deuce-to-seven low",
        "Forced bets",
        "Bring-in",
        "Who opens a later round",
        "Betting structure",
        "Rake",
        "House rules",
        "Burns and draws",
        "Odd chips",
        "Shuffle, cut and decks",
        "Integrity",
        "Misdeal",
    }


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("# the odd chip (rules-interpretation.md, Odd chips).", []),
        ("# a cut (rules-interpretation.md, Shuffle, cut and decks: ten).", []),
        ('"(rules-interpretation.md, "\n    f"Betting structure) caps"', []),
        ("#: a bet (rules-interpretation.md, Betting\n#: structure).", []),
        ('    """A fold (docs/rules-interpretation.md,\n    Odd chips)."""', []),
        (
            '    """A fold (docs/rules-interpretation.md,\n    Triple draw: odd)."""',
            [(1, 'Triple draw: odd)."""')],
        ),
        ("# (rules-interpretation.md, Odd chip)", [(1, "Odd chip)")]),
        ("# (rules-interpretation.md, Integrityx)", [(1, "Integrityx)")]),
        ("# (rules-interpretation.md, Betting)", [(1, "Betting)")]),
        ("# docs/rules-interpretation.md says so; rules-interpretation.md.", []),
    ],
)
def test_a_citation_is_read_across_lines_and_strings(text: str, bad: list[object]) -> None:
    """The reader of citations: a heading must follow the comma whole, even when the
    citation wraps onto the next line of a comment or a string; a near miss is caught."""
    known = ["Odd chips", "Shuffle, cut and decks", "Betting structure", "Integrity"]
    assert uncited(text, known) == bad
