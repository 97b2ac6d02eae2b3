"""``tablectl run`` when the journal cannot be opened: one line naming the journal's full path,
what is wrong and what to do, and exit status 1 (no traceback for systemd to loop on)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli import main
from controller.engine import Stakes, TableConfig
from controller.journal import JournalWriter
from controller.logsetup import reset_logging
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: CI and this machine run the tests as root; the service never runs so (docs/deploy.md).
AS_ROOT = ["--as-root"] if os.geteuid() == 0 else []

THREE_SEATS = TableConfig(
    seats=(1, 2, 3), stakes=Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2)
)


@pytest.fixture
def sim(tmp_path: Path) -> Iterator[Simulator]:
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as simulator:
        yield simulator


def run_with_journal(
    tmp_path: Path, sim: Simulator, journal: Path, capsys: pytest.CaptureFixture[str]
) -> tuple[int, str]:
    """Run the table with its journal in ``journal``; the exit status and stderr."""
    config = write_table_toml(
        tmp_path,
        table_id="TEST-7",
        game="mambo",
        config=THREE_SEATS,
        shoe={"path": sim.address("shoe"), "serial": "SHOE0001"},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
        log={"format": "json", "file": tmp_path / "tablectl.log"},
    )
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
    """Review item 3: the refusal names the journal's full path (not its folder's name, ``jr``),
    on one line with what to do, and the run exits 1."""
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
    """Review item 3: a bad record is named by its file and line, after the journal's full path."""
    journal = tmp_path / "jr"
    journal.mkdir()
    (journal / "journal-000001.jsonl").write_bytes(b"this is not json\n")
    status, err = run_with_journal(tmp_path, sim, journal, capsys)
    assert status == 1
    assert err.startswith(f"tablectl run: journal {journal}: journal-000001.jsonl:1: not JSON")
    assert len(err.splitlines()) == 1
