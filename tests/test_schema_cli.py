"""A journal a newer tablectl wrote (schema version 2) is refused by recall, export and a
replay with one line naming the record and its version, never a traceback
(docs/journal.md, The schema)."""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest
from confighelp import export_config

from controller.cli.main import main
from controller.journal import JournalReader, JournalWriter, schema
from controller.journal import tablerecords as rec
from controller.poker.engine.events import HandStarted
from controller.poker.games import GAMES
from controller.table.core import TableCore
from simulator.simtable import demo_config

FIXTURE = Path(__file__).parent / "fixtures" / "journal-before-schema" / "mambo"


def _newer_journal(tmp_path: Path) -> tuple[Path, int]:
    """The Mambo fixture and one more hand's start as a version newer than this code's would
    write it."""
    journal = tmp_path / "journal"
    shutil.copytree(FIXTURE, journal)
    started = HandStarted(hand=6, game="mambo", seats=(1, 2, 3, 6), dealer=1, antes=())
    _kind, data = rec.decision_data(1, [started], None)
    data["version"] = schema.VERSION + 1
    with JournalWriter.open(journal, fsync=False) as writer:
        seq = writer.append(rec.HAND_STARTED, data).seq
    return journal, seq


NEWER = "schema version 4 is newer than this tablectl reads (versions 0 to 3)"


@pytest.mark.fast
def test_recall_refuses_a_newer_version_naming_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal, seq = _newer_journal(tmp_path)
    assert main(["recall", "--journal", str(journal)]) == 1
    err = capsys.readouterr().err
    assert err == f"tablectl recall: journal record {seq} (hand_started): {NEWER}: read the " + (
        "journal with the tablectl that wrote it, or a newer one\n"
    )


@pytest.mark.fast
def test_export_refuses_a_newer_version_naming_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    journal, seq = _newer_journal(tmp_path)
    table = 'id = "SCHEMA-1"\ngame = "mambo"\nseats = [1, 2, 3, 4, 6]'
    config = export_config(tmp_path, table, "ante = 1\nbring_in = 2\nsmall_bet = 5\nbig_bet = 10")
    code = main(
        [
            "export",
            "--config",
            str(config),
            "--journal",
            str(journal),
            "--out",
            str(tmp_path / "out"),
        ]
    )
    assert code == 1
    err = capsys.readouterr().err
    assert err.startswith(f"tablectl export: journal record {seq} (hand_started): {NEWER}")
    assert "Traceback" not in err


@pytest.mark.fast
def test_a_replay_refuses_a_newer_version_before_it_compares_anything(tmp_path: Path) -> None:
    journal, seq = _newer_journal(tmp_path)
    core = TableCore(GAMES["mambo"], demo_config(GAMES["mambo"], 4))
    records = list(JournalReader(journal))
    for record in records[:-1]:
        core.replay(record)
    with pytest.raises(
        rec.RecordFormatError, match=re.escape(f"record {seq} (hand_started): {NEWER}")
    ):
        core.replay(records[-1])


@pytest.mark.fast
def test_a_checkpoint_that_does_not_fit_is_refused_naming_its_seq_and_field() -> None:
    """A start's replay begins at a checkpoint: one whose field is not what the schema declares
    stops it, naming the record and the field (not a KeyError from deep in the restore)."""
    checkpoint = next(r for r in JournalReader(FIXTURE) if r.kind == rec.CHECKPOINT)
    devices = dict(checkpoint.data["devices"])  # type: ignore[arg-type]
    devices["shoe"] = {**devices["shoe"], "last_seq": "twelve"}  # type: ignore[dict-item]
    edited = dataclasses.replace(checkpoint, data={**checkpoint.data, "devices": devices})
    core = TableCore(GAMES["mambo"], demo_config(GAMES["mambo"], 4))
    expected = (
        f"journal record {checkpoint.seq} (checkpoint).devices.shoe.last_seq: expected a whole "
        'number, not "twelve"'
    )
    with pytest.raises(rec.RecordFormatError, match=re.escape(expected)):
        core.replay(edited)
    assert core.fresh, "nothing restored"
