"""The repository's own text files, read from the working tree (no ``git``: the fast tier starts
no subprocess), for the tests that read the whole tree (test_rules_citations.py,
test_tracker_citations.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
#: Directories that are not the repository's own files (.gitignore's, and git's own).
SKIPPED_DIRS: Final = frozenset(
    {
        ".git",
        ".venv",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".hypothesis",
        "build",
        "dist",
    }
)
#: What opens a continuation line of a comment, a docstring, a string or a list.
LEADER: Final = re.compile(r'^\s*(?:#:?|//)?\s*(?:[rbfRBF]{0,2}(?:"""|\'\'\'|"|\'))?')


def files() -> Iterator[Path]:
    """Every file of the working tree that belongs to the repository, sorted."""
    stack = [ROOT]
    while stack:
        directory = stack.pop()
        for entry in sorted(directory.iterdir(), reverse=True):
            if entry.is_dir():
                if entry.name not in SKIPPED_DIRS and not entry.name.endswith(".egg-info"):
                    stack.append(entry)
            elif entry.is_file():
                yield entry


def texts() -> Iterator[tuple[Path, str]]:
    """Each text file of the repository with its text (binary files are left out)."""
    for path in files():
        data = path.read_bytes()
        if b"\0" in data:
            continue
        try:
            yield path, data.decode("utf-8")
        except UnicodeDecodeError:
            continue
