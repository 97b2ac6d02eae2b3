"""``tablectl forward`` as a real subprocess against a real nats-server (tests/floor/conftest.py):
records arrive in order under their message ids with their exact bytes; a kill -9 of the
forwarder, a broker stopped and restarted, and a journal begun anew change nothing of that;
another table's subject is refused; no [floor] exits 2."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
from datetime import timedelta
from pathlib import Path

from confighelp import to_toml, valid
from forwardhelp import (
    TABLECTL,
    acked,
    create_stream,
    events_of,
    eventually,
    forward,
    held,
    holds,
    log_events,
    retried_more_than,
    start_forward,
    stop,
    table_toml,
)
from journal_support import START, StepClock, journal_lines, table_record, write_journal
from servershelp import NatsFactory

from controller.journal import JournalWriter, Record
from simulator.servers_nats import NatsServer


def _expected(table_id: str, records: list[Record], journal: Path) -> list[tuple[str, bytes]]:
    lines = [raw.rstrip(b"\n") for _, _, raw in journal_lines(journal)]
    root = records[0].hash
    return [(f"{table_id}:{root}:{n}", line) for n, line in enumerate(lines, start=1)]


def test_every_record_arrives_in_order_with_its_message_id_and_exact_bytes(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    records = write_journal(journal, 40, hands_per_file=3)  # several files
    config = table_toml(tmp_path, server, "T1", journal)
    done = forward(config, "--until-caught-up")
    assert done.returncode == 0, done.stderr
    stored = held(server, "T1")
    assert [(m.message_id, m.data) for m in stored] == _expected("T1", records, journal)
    # Again: the stream says where the table stands, and nothing is sent twice.
    records += write_journal(journal, 5, first=40, hands_per_file=3)
    assert forward(config, "--until-caught-up").returncode == 0
    stored = held(server, "T1")
    assert [(m.message_id, m.data) for m in stored] == _expected("T1", records, journal)
    assert [m.stream_seq for m in stored] == list(range(1, 46))


def _writer(journal: Path, first: int = 0) -> JournalWriter:
    return JournalWriter.open(
        journal, clock=StepClock(START + timedelta(seconds=first)), fsync=False, hands_per_file=2
    )


def _append(writer: JournalWriter, count: int) -> list[Record]:
    start = 0 if writer.last is None else writer.last.seq
    return [writer.append(*table_record(n)) for n in range(start, start + count)]


def _stored(server: NatsServer, table_id: str) -> list[tuple[str, bytes]]:
    return [(m.message_id, m.data) for m in held(server, table_id)]


def test_a_forwarder_killed_mid_run_resumes_where_the_stream_stands(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """kill -9 while the journal grows and records are in flight: after the restart no record
    is in the stream twice and none is missing."""
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    config = table_toml(tmp_path, server, "T1", journal)
    with _writer(journal) as writer:
        records = _append(writer, 100)
        process = start_forward(config)
        records += _append(writer, 100)
        eventually(lambda: len(held(server, "T1")) >= 50, "50 records stored", process)
        assert stop(process, signal.SIGKILL) == -signal.SIGKILL
        records += _append(writer, 100)
    done = forward(config, "--until-caught-up")
    assert done.returncode == 0, done.stderr
    assert _stored(server, "T1") == _expected("T1", records, journal)
    resumed = [e for e in log_events(config) if e["event"] == "forward_resumed"]
    assert resumed[0]["after_seq"] == 0
    assert 50 <= int(str(resumed[-1]["after_seq"])) <= 200


def test_a_record_written_wakes_it_without_waiting_for_its_poll(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """The journal's folder watched (controller/forwarder/watch.py): with an hour's poll, records
    appended after it caught up, and a file begun at rotation, are forwarded at once."""
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    config = table_toml(tmp_path, server, "T1", journal)
    with _writer(journal) as writer:
        records = _append(writer, 10)
        process = start_forward(config, "--poll", "3600")
        try:
            eventually(holds(server, "T1", 10), "the first records stored", process)
            for count in (1, 2, 30):  # 30: past a hand's start, so in a new file too
                records += _append(writer, count)
                eventually(holds(server, "T1", len(records)), "a new record stored", process)
        finally:
            assert stop(process) == 0
    assert _stored(server, "T1") == _expected("T1", records, journal)
    assert len(list(journal.glob("journal-*.jsonl"))) > 1


def test_a_broker_stopped_and_killed_changes_nothing_at_the_table_and_is_caught_up(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """The journal is the outbox: the writer appends while the broker is down; the forwarder
    retries, never exits, and catches up in order once the broker is back."""
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    config = table_toml(tmp_path, server, "T1", journal)
    with _writer(journal) as writer:
        records = _append(writer, 30)
        process = start_forward(config)
        eventually(lambda: len(held(server, "T1")) == 30, "30 records stored", process)
        for halt in (server.stop, server.kill):
            halt()
            records += _append(writer, 30)  # the table never waits on the broker
            retries = len(events_of(config, "forward_retrying"))
            eventually(retried_more_than(config, retries), "the forwarder retrying", process)
            server.start()
            eventually(holds(server, "T1", len(records)), "caught up", process)
    assert stop(process) == 0
    assert _stored(server, "T1") == _expected("T1", records, journal)
    retrying = [e for e in log_events(config) if e["event"] == "forward_retrying"]
    assert all(isinstance(e["retry_in"], float) for e in retrying)
    assert not any("data" in e or "card" in json.dumps(e) for e in log_events(config))


def test_two_forwarders_of_one_table_never_store_a_record_twice(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """A second forwarder by mistake: each publish names the subject's last stream sequence it
    saw, so the broker refuses the loser's record instead of storing it twice or out of order;
    a refused forwarder resumes from the stream."""
    server = nats_factory(("T1",))
    create_stream(server, duplicate_window=0.5)  # dedupe alone would not save it after 0.5 s
    journal = tmp_path / "journal"
    config = table_toml(tmp_path, server, "T1", journal)
    with _writer(journal) as writer:
        records = _append(writer, 50)
        first, second = start_forward(config), start_forward(config)
        records += _append(writer, 150)
        eventually(lambda: len(held(server, "T1")) == 200, "200 records stored", first)
        # Both running before either is stopped: on a quick machine the first can store all
        # 200 while the second is still starting, and a SIGTERM then ends it before its handler.
        eventually(
            lambda: len(events_of(config, "forward_connected")) >= 2,
            "both forwarders connected",
            second,
        )
    assert stop(first) == 0
    assert stop(second) == 0
    assert _stored(server, "T1") == _expected("T1", records, journal)


def test_a_journal_begun_anew_is_sent_from_seq_1_and_logged(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    old = write_journal(tmp_path / "old", 10)
    assert forward(table_toml(tmp_path, server, "T1", tmp_path / "old"), "--until-caught-up")
    new = write_journal(tmp_path / "new", 7, first=3)
    config = table_toml(tmp_path, server, "T1", tmp_path / "new")
    done = forward(config, "--until-caught-up")
    assert done.returncode == 0, done.stderr
    assert _stored(server, "T1") == _expected("T1", old, tmp_path / "old") + _expected(
        "T1", new, tmp_path / "new"
    )
    [anew] = [e for e in log_events(config) if e["event"] == "forward_new_journal"]
    assert anew["stream_journal"] == old[0].hash
    assert anew["journal"] == new[0].hash


def test_a_record_that_does_not_verify_stops_it_after_the_ones_before(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    records = write_journal(journal, 8)
    path = journal / "journal-000001.jsonl"
    lines = path.read_bytes().splitlines(keepends=True)
    lines[5] = lines[5].replace(b'"seat":5', b'"seat":6')
    path.write_bytes(b"".join(lines))
    done = forward(table_toml(tmp_path, server, "T1", journal), "--until-caught-up")
    assert done.returncode == 1
    assert "journal-000001.jsonl:6 (seq 6): hash" in done.stderr
    assert "nothing more is sent" in done.stderr
    assert [m.message_id for m in held(server, "T1")] == [
        f"T1:{records[0].hash}:{n}" for n in range(1, 6)
    ]


def test_without_a_floor_section_it_says_so_and_exits_2(tmp_path: Path) -> None:
    data = valid()
    config = tmp_path / "table.toml"
    config.write_text(to_toml(data), encoding="utf-8")
    done = forward(config)
    assert done.returncode == 2
    assert "has no [floor] section: this table forwards nothing" in done.stderr


def test_it_tells_systemd_and_the_log_where_it_stands(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """Type=notify: READY=1 first, STATUS= lines of seqs and counts (never a record), STOPPING=1
    last; the log's forward_status lines as often as --status-every says."""
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    write_journal(journal, 5)  # 7 datagrams: within a unix socket's default queue of 10
    config = table_toml(tmp_path, server, "T1", journal)
    notify = tmp_path / "notify"
    command = [*TABLECTL, "forward", "--config", str(config), "--until-caught-up"]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(notify))
        done = subprocess.run(
            [*command, "--status-every", "0.000001"],
            env={**os.environ, "NOTIFY_SOCKET": str(notify)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        listener.setblocking(False)
        said = []
        with contextlib.suppress(BlockingIOError):
            while True:
                said.append(listener.recv(4096).decode())
    assert said[0].startswith("READY=1\nSTATUS=")
    assert said[-1] == "STOPPING=1\nSTATUS=seq 5 acked, 5 sent, 0 behind; not connected"
    assert [s.split(",")[0] for s in said[1:-1]] == [f"STATUS=seq {n} acked" for n in range(1, 6)]
    assert said[-2].startswith("STATUS=seq 5 acked, 5 sent, 0 behind; connected to 127.0.0.1:")
    status_lines = events_of(config, "forward_status")
    assert [line["acked"] for line in status_lines] == [1, 2, 3, 4, 5]
    assert all(set(line) >= {"read", "sent", "acked", "behind", "server"} for line in status_lines)
    # Once a minute (the default): a line at the first record, none for the next 14.
    write_journal(journal, 15, first=5)
    assert forward(config, "--until-caught-up").returncode == 0
    assert [line["acked"] for line in events_of(config, "forward_status")][5:] == [6]


def test_a_broker_that_stops_answering_is_waited_out(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """A slow broker (here frozen with SIGSTOP): the acknowledgement does not come, the
    forwarder gives up on that connection after its timeout and retries; the broker answers
    again and it catches up, in order. The timeout is [floor] ack_timeout, 2 s here rather than
    its 5 s default: long enough that a loaded machine's acknowledgement of seq 1 to 10 comes
    within it (the first retry must be seq 11's), and no 5 s waited out."""
    server = nats_factory(("T1",))
    create_stream(server)
    journal = tmp_path / "journal"
    config = table_toml(tmp_path, server, "T1", journal, ack_timeout=2.0)
    assert server._process is not None
    pid = server._process.pid  # the nats-server itself
    with _writer(journal) as writer:
        records = _append(writer, 10)
        process = start_forward(config, "--status-every", "0.000001")  # a line at each ack
        # Its acknowledgement of seq 10 taken, not only the record stored: an ack still in the
        # broker's queue when it freezes would make the first retry seq 10's.
        eventually(acked(config, 10), "the acknowledgement of seq 10 taken", process)
        os.kill(pid, signal.SIGSTOP)
        try:
            records += _append(writer, 10)
            eventually(retried_more_than(config, 0), "the forwarder giving up on it", process)
        finally:
            os.kill(pid, signal.SIGCONT)
        eventually(holds(server, "T1", 20), "caught up", process)
    assert stop(process) == 0
    assert _stored(server, "T1") == _expected("T1", records, journal)
    [retry, *_] = events_of(config, "forward_retrying")
    assert "publishing seq 11: no acknowledgement within 2 s" in str(retry["reason"])
