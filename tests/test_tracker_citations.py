"""A comment says why and cites what its reader has: a document and its section
(docs/floor.md, Servers and credentials; a heading of the rules' document), a regulation's
subsection. Never a number on an issue tracker, which a reader of the repository (an inspector,
the next maintainer, a clone elsewhere) does not have: not in code, docstrings, tests, docs,
configuration or a string shown to a user.

This test reads the files of the working tree as tests/test_rules_citations.py does (no
``git``: the fast tier starts no subprocess), skipping what .gitignore leaves out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Final

import pytest
from treetext import LEADER, ROOT, texts

# Not in the fast tier: it reads the whole tree, 0.8 s (docs/testing.md, How the tier stays fast).

#: A tracker's number: the word, singular or plural, in any case, then the number, with or
#: without a ``#`` between (the forms test_the_check_finds_a_tracker_number_and_only_one tries).
TRACKER: Final = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)
#: The word closing a line whose number opens the next (a wrapped comment or docstring).
WORD_AT_END: Final = re.compile(r"\bissues?$", re.IGNORECASE)
NUMBER_AT_START: Final = re.compile(r"#?\d+\b")


def tracker_numbers(text: str) -> Iterator[tuple[int, str]]:
    """Each place ``text`` cites a tracker's number: its line number (from 1) and the line,
    a citation wrapped over two lines counted at its first."""
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if TRACKER.search(line):
            yield number, line.strip()
        elif WORD_AT_END.search(line.rstrip()) and number < len(lines):
            following = lines[number]
            if NUMBER_AT_START.match(LEADER.sub("", following, count=1)):
                yield number, f"{line.strip()} {following.strip()}"


#: The word, spelled in pieces so that this file's own examples are not taken for citations.
WORD: Final = "iss" + "ue"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        (f"a comment ({WORD} 17, docs/floor.md)", [1]),
        (f'"""{WORD.title()} 7: a torn tail"""', [1]),
        (f"the soak ({WORD}s 6 and 7)", [1]),
        (f"see {WORD} #19", [1]),
        (f"# a key registered as at install ({WORD}\n# 19, Signed checkpoints)", [1]),
        (f'"""one line ({WORD}\n19; docs/journal.md)"""', [1]),
        (f"first\nsecond ({WORD.upper()} 4)", [2]),
        ("(docs/floor.md, Servers and credentials)", []),
        (f"a t{WORD} 5 mm thick; no {WORD}s at all", []),
        (f"the {WORD}\nof a decision record", []),
    ],
)
def test_the_check_finds_a_tracker_number_and_only_one(text: str, found: list[int]) -> None:
    """The check itself: the forms a tracker's number takes in this tree, wrapped or not; a
    citation of the docs, a word that merely contains the letters, the word without a number
    are not taken for one."""
    assert [number for number, _ in tracker_numbers(text)] == found


def test_no_file_cites_an_issue_trackers_number() -> None:
    """Every text file of the repository: a reference to a tracker issue by its number is
    named with its file and line, to be rewritten as a citation of what the reader has (the
    docs section it belongs to, the regulation's subsection) or dropped where the sentence
    stands alone."""
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line}"
        for path, text in texts()
        for number, line in tracker_numbers(text)
    ]
    assert not found, (
        "cite the docs section or the rule instead of an issue tracker's number (the reader "
        "has the repository, not the tracker):\n" + "\n".join(found)
    )
