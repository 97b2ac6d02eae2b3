"""``tablectl run`` when the journal cannot be opened: one line naming the journal's full path,
what is wrong and what to do, and exit status 1 (no traceback for systemd to loop on)."""

from __future__ import annotations

import array
import errno
import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from apphelp import AS_ROOT, table_toml
from journal_support import write_journal

from controller.cli.main import main
from controller.journal import JournalWriter, verify
from controller.logs.logsetup import reset_logging
from simulator.table import Simulator


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Simulator]:
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as simulator:
        yield simulator


def run_with_journal(
    tmp_path: Path, sim: Simulator, journal: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """Run the table with its journal in ``journal``; the exit status and stderr."""
    config = table_toml(tmp_path, sim)
    default = f"dir = {json.dumps(str(tmp_path / 'journal'))}"
    text = config.read_text(encoding="utf-8")
    assert default in text
    config.write_text(text.replace(default, f"dir = {json.dumps(str(journal))}"), "utf-8")
    try:
        status = main(["run", "--config", str(config), *AS_ROOT])
    finally:
        reset_logging()  # the run configured the log (its file) before the journal refused
    return status, capsys.readouterr().err


def test_a_journal_held_by_another_writer_is_named_by_its_full_path(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal held by another writer: the refusal names the journal's full path (not its folder's
    name, ``jr``), on one line with what to do, and the run exits 1."""
    journal = tmp_path / "tables" / "jr"
    with JournalWriter.open(journal, fsync=False):
        status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert status == 1
    assert err.splitlines() == [
        f"tablectl run: journal {journal}: the journal is already open for writing by another "
        "writer; stop the other tablectl run on this journal (one per table), or give this "
        "table its own [journal] dir"
    ]


def test_a_damaged_journal_file_is_named_under_the_journals_full_path(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad record is named by its file and line, after the journal's full path."""
    journal = tmp_path / "jr"
    journal.mkdir()
    (journal / "journal-000001.jsonl").write_bytes(b"this is not json\n")
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert status == 1
    assert err.startswith(f"tablectl run: journal {journal}: journal-000001.jsonl:1: not JSON")
    assert err.endswith(
        "; the table stays closed: copy the journal as it is, run tablectl journal verify, and "
        "see docs/journal.md, When the journal refuses to open\n"
    )
    assert len(err.splitlines()) == 1


def test_a_journal_dir_that_is_a_regular_file_is_one_line_and_exit_1(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """``[journal] dir`` set to a regular file: one line, exit 1, no traceback."""
    journal = tmp_path / "journal.txt"
    journal.write_text("not a journal")
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert (status, err) == (
        1,
        f"tablectl run: journal {journal}: it exists and is not a directory; set [journal] dir "
        "to a directory\n",
    )


def test_a_journal_dir_under_a_regular_file_is_one_line_and_exit_1(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A path through a regular file (ENOTDIR) says so and what to do."""
    (tmp_path / "state").write_text("a file where a folder should be")
    journal = tmp_path / "state" / "journal"
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert (status, err) == (
        1,
        f"tablectl run: journal {journal}: Not a directory; a part of the path is a file, not a "
        "directory: set [journal] dir to a directory\n",
    )


def test_a_journal_dir_that_cannot_be_created_is_one_line_and_exit_1(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder that cannot be made (``dir = /proc/nope/journal``, ENOENT: /proc makes no
    folders): one line, exit 1."""
    journal = Path("/proc/nope/journal")
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert status == 1
    assert err.startswith(f"tablectl run: journal {journal}: No such file or directory")
    assert err.endswith(
        "; a directory on the path does not exist and cannot be created: create it, or set "
        "[journal] dir to a path under a writable directory\n"
    )
    assert "Traceback" not in err


#: linux/fs.h: the inode flags ioctls and the immutable flag (chattr +i).
FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_IMMUTABLE_FL = 0x80086601, 0x40086602, 0x10


def _set_immutable(path: Path, on: bool) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(descriptor, FS_IOC_GETFLAGS, flags, True)
        flags[0] = flags[0] | FS_IMMUTABLE_FL if on else flags[0] & ~FS_IMMUTABLE_FL
        fcntl.ioctl(descriptor, FS_IOC_SETFLAGS, flags)
    finally:
        os.close(descriptor)


@pytest.fixture
def unwritable_journal(tmp_path: Path) -> Iterator[Path]:
    """A journal of 3 records the running user may read but not write: immutable (chattr +i:
    root included) when run as root, else read-only permissions."""
    journal = tmp_path / "ro-journal"
    write_journal(journal, 3)
    paths = [journal / "journal-000001.jsonl", journal]
    if os.geteuid() == 0:
        try:
            for path in paths:
                _set_immutable(path, on=True)
        except OSError as error:  # a file system without inode flags (some overlays)
            pytest.skip(f"cannot make the journal immutable here: {error}")
        try:
            yield journal
        finally:
            for path in paths:
                _set_immutable(path, on=False)
    else:
        modes = [path.stat().st_mode for path in paths]
        for path in paths:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield journal
        finally:
            for path, mode in zip(paths, modes, strict=True):
                path.chmod(mode)


def test_a_journal_that_may_not_be_written_is_one_line_and_exit_1(
    tmp_path: Path,
    sim: Simulator,
    unwritable_journal: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The journal file cannot be opened for writing (EPERM on an immutable
    file, EACCES without root; a read-only mount's EROFS takes the same path): one line
    naming the file and what to do, and the journal is unchanged."""
    status, err = run_with_journal(tmp_path, sim, unwritable_journal, capsys)
    file = unwritable_journal / "journal-000001.jsonl"
    reason = os.strerror(errno.EPERM if os.geteuid() == 0 else errno.EACCES)
    assert status == 1
    assert err.startswith(f"tablectl run: journal {unwritable_journal}: {reason}: {file}; ")
    assert "give the user tablectl write access" in err
    assert len(err.splitlines()) == 1
    assert verify(unwritable_journal).intact


def test_a_full_disk_while_setting_aside_a_torn_tail_is_one_line_and_leaves_no_torn_file(
    tmp_path: Path, sim: Simulator, capsys: pytest.CaptureFixture[str]
) -> None:
    """The disk is full when the torn tail is set aside (ENOSPC: the .torn name
    leads to /dev/full, whose every write fails so): one line, exit 1, no .torn file left,
    the journal file untouched (its torn tail still there for the next start)."""
    journal = tmp_path / "jr"
    write_journal(journal, 3)
    file = journal / "journal-000001.jsonl"
    intact = file.stat().st_size
    with file.open("ab") as stream:
        stream.write(b'{"data":{"ca')
    (journal / f"journal-000001.jsonl.{intact}.torn").symlink_to("/dev/full")
    before = file.read_bytes()
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert status == 1
    assert err == (
        f"tablectl run: journal {journal}: No space left on device; the disk is full: free "
        "space on it (never by deleting journal files), then start the table again\n"
    )
    assert not list(journal.glob("*.torn"))
    assert file.read_bytes() == before
