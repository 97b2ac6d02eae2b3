"""``tablectl forward`` (a real subprocess, a real nats-server) and the table's retention
(docs/journal.md, Compressed files, and Retention and dispute holds): a journal whose rotated
files are compressed is sent line for line as a plain one, and the forwarder notes what the
stream acknowledged in journal-forwarded.json, which retention then keeps to."""

from __future__ import annotations

import signal
from datetime import timedelta
from pathlib import Path

from forwardhelp import (
    acked,
    create_stream,
    eventually,
    forward,
    held,
    start_forward,
    stop,
    table_toml,
)
from journal_support import START, write_journal
from servershelp import NatsFactory

from controller.journal import JournalReader, retention
from controller.journal.compress import compress_rotated
from controller.journal.files import compressed_name
from controller.journal.retention import Forwarded


def test_compressed_files_are_sent_and_the_acknowledgement_noted(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    records = write_journal(journal, 40, hands_per_file=3)  # 9 records a file: 5 files
    compress_rotated(journal, fsync=False)
    assert (journal / compressed_name(1)).exists()
    config = table_toml(tmp_path, server, "T1", journal)
    done = forward(config, "--until-caught-up")
    assert done.returncode == 0, done.stderr
    assert [m.data for m in held(server, "T1")] == [r.line().rstrip(b"\n") for r in records]
    assert Forwarded.read(journal) == Forwarded(records[0].hash, 40)
    # A year on, with the floor configured: every finished file goes, the one in use stays.
    now = START + timedelta(days=400)
    deleted = retention.apply(journal, keep_days=366, now=now, floor=True, fsync=False)
    assert len(deleted) == 4
    assert [r.seq for r in JournalReader(journal)] == [37, 38, 39, 40]


def test_nothing_goes_that_the_floor_has_not_acknowledged(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    write_journal(journal, 10, hands_per_file=3)
    config = table_toml(tmp_path, server, "T1", journal)
    assert forward(config, "--until-caught-up").returncode == 0
    write_journal(journal, 30, first=10, hands_per_file=3)  # not forwarded yet
    now = START + timedelta(days=400)
    deleted = retention.apply(journal, keep_days=366, now=now, floor=True, fsync=False)
    # File 1 holds seq 1-9, file 2 seq 10-18: the stream acknowledged seq 10 only.
    assert [p.name for p in deleted] == ["journal-000001.jsonl"]
    assert next(iter(JournalReader(journal))).seq == 10
    assert forward(config, "--until-caught-up").returncode == 0  # the rest, after the gap
    assert len(held(server, "T1")) == 40


def test_sigterm_notes_the_last_acknowledged_record(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    # While it forwards the forwarder rewrites the note at most every NOTE_EVERY seconds; its
    # stop writes the last acknowledgement, or retention keeps files the floor holds.
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    records = write_journal(journal, 10, hands_per_file=3)
    config = table_toml(tmp_path, server, "T1", journal)
    process = start_forward(config, "--status-every", "0.000001")  # a line at each ack
    try:
        eventually(lambda: Forwarded.read(journal) == Forwarded(records[0].hash, 10), "noted 10")
        write_journal(journal, 30, first=10, hands_per_file=3)
        eventually(acked(config, 40), "the acknowledgement of seq 40 taken", process)
    finally:
        assert stop(process, signal.SIGTERM) == 0
    assert Forwarded.read(journal) == Forwarded(records[0].hash, 40)


def test_sigint_notes_the_last_acknowledged_record_too(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    records = write_journal(journal, 5, hands_per_file=3)
    config = table_toml(tmp_path, server, "T1", journal)
    process = start_forward(config, "--status-every", "0.000001")
    try:
        eventually(lambda: Forwarded.read(journal) == Forwarded(records[0].hash, 5), "noted 5")
        write_journal(journal, 7, first=5, hands_per_file=3)
        eventually(acked(config, 12), "the acknowledgement of seq 12 taken", process)
    finally:
        assert stop(process, signal.SIGINT) == 0
    assert Forwarded.read(journal) == Forwarded(records[0].hash, 12)
