"""The commands' path arguments: what each expects (a file to read, a folder to read, a folder or
a file to write), checked as the command line is parsed, and the reading and folder-making the
commands share.

Bad input gets one line naming the argument, the path and what was expected, never a traceback
(docs/app.md, Paths on the command line). A path given on the command line is checked by its
``type`` while argparse parses it: ``argument --out: table.toml: expected a folder to write to
(made if missing): it is a file``, exit status 2, before the command reads, writes, connects or
starts anything. What only the work itself finds (a file that is not text, a folder the file
system will not make) is a ``PathError``, which ``tablectl`` prints after the command's name,
exit status 2 (controller/cli/main.py).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

#: What a path argument is for (``PathType.kind``).
Kind = Literal["file", "folder", "output-folder", "output-file", "output-file-in-folder"]


class PathError(Exception):
    """A path argument that cannot be used, found while the command runs (exit status 2)."""


@dataclass(frozen=True)
class PathType:
    """An argparse ``type`` for a path argument of ``kind``; ArgumentTypeError says what was
    expected and what the path is instead."""

    kind: Kind

    @property
    def expected(self) -> str:
        return EXPECTED[self.kind]

    def __call__(self, text: str) -> Path:
        path = Path(text)
        problem = _problem(path, self.kind)
        if problem is not None:
            raise argparse.ArgumentTypeError(f"{path}: expected {self.expected}: {problem}")
        return path


EXPECTED: Final[dict[Kind, str]] = {
    "file": "a readable file",
    "folder": "a readable folder",
    "output-folder": "a folder to write to (made if missing)",
    "output-file": "a file path",
    "output-file-in-folder": "a file path in an existing folder",
}

#: A file the command reads: it exists, is no folder, and may be read (a pipe, as from
#: ``<(...)``, or /dev/stdin is a file here).
READ_FILE: Final = PathType("file")
#: A folder the command reads (and may write beside what it reads, as a journal's holds).
READ_FOLDER: Final = PathType("folder")
#: A folder the command writes to, made (with its parents) if missing.
OUTPUT_FOLDER: Final = PathType("output-folder")
#: A file the command writes, or reads if it is there (a key), its folder made if missing.
OUTPUT_FILE: Final = PathType("output-file")
#: A file the command writes in a folder that must exist already.
OUTPUT_FILE_IN_FOLDER: Final = PathType("output-file-in-folder")


def _problem(path: Path, kind: Kind) -> str | None:
    """What is wrong with ``path`` for ``kind``, or None."""
    try:
        if kind in ("file", "folder"):
            return _unreadable(path, want_folder=kind == "folder")
        if kind == "output-folder":
            if path.exists():
                return None if path.is_dir() else "it is a file"
            return _unmakeable(path)
        return _unwritable(path, make_parents=kind == "output-file")
    except OSError as error:  # a name too long, a loop of links
        return error.strerror or str(error)


def _unreadable(path: Path, *, want_folder: bool) -> str | None:
    if not path.exists():
        return "it does not exist"
    if path.is_dir() != want_folder:
        return "it is a folder" if path.is_dir() else "it is a file"
    # The effective ids, as the open will use them (a root without CAP_DAC_OVERRIDE too).
    wanted = os.R_OK | os.X_OK if want_folder else os.R_OK
    return None if os.access(path, wanted, effective_ids=True) else "permission denied"


def _unwritable(path: Path, *, make_parents: bool) -> str | None:
    if path.is_dir():
        return "it is a folder"
    parent = path.parent
    if parent.is_dir():
        return None
    if parent.exists():
        return f"{parent} is a file, not a folder"
    return _unmakeable(parent) if make_parents else f"no folder {parent}"


def _unmakeable(path: Path) -> str | None:
    """Why ``path`` (missing) cannot be made: the nearest existing path above it is no folder."""
    for above in path.absolute().parents:
        if above.exists():
            return None if above.is_dir() else f"{above} is a file, not a folder"
    return None


def read_text(path: Path, what: str) -> str:
    """The UTF-8 text of ``path``; PathError naming it and ``what`` it should be otherwise."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise PathError(f"{path}: cannot read the {what}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        byte = error.object[error.start]
        raise PathError(
            f"{path}: expected the {what} as UTF-8 text, found byte 0x{byte:02x} at offset "
            f"{error.start} (a binary file?)"
        ) from None


def make_folder(path: Path, option: str) -> None:
    """Make the folder ``path`` (and its parents) if missing; PathError naming ``option``."""
    try:
        path.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise PathError(
            f"{option} {path}: expected {EXPECTED['output-folder']}: it is a file"
        ) from None
    except OSError as error:
        raise PathError(
            f"{option} {path}: expected {EXPECTED['output-folder']}: cannot make it: "
            f"{error.strerror or error}"
        ) from None


def write_text(path: Path, text: str, option: str) -> None:
    """Write ``text`` to ``path`` as UTF-8; PathError naming ``option`` if it cannot be."""
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise PathError(f"{option}: cannot write {path}: {error.strerror or error}") from None
