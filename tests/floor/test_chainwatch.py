"""The floor finds a line changed in its store on its own (docs/floor.md, The chain walk): one
byte of a stored record's line changed as the database's owner (only they could), then
``floor serve``'s walk (controller/floor/chainwatch.py) raises one ``chain_broken`` alarm
naming the table, journal and record, and not again at the next walk; ``floor recall`` tells
what is intact, names the broken record and exits 1."""

from __future__ import annotations

import asyncio
import html
import json
import re
import sys
from pathlib import Path

import psycopg
import pytest
from floorhelp import FloorProcess, count, journal_id, tablectl, write_floor_toml
from servershelp import NatsFactory
from test_floor_dispute import TABLE_ID
from test_floor_verify import keyed_store
from test_web_verify import keyed_floor
from webhelp import Client, WebProcess

from controller.floor import chainwatch
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from simulator.servers_pg import PostgresServer


def walk(dsn: str) -> chainwatch.WalkTotals:
    """One walk of every stored chain, as floor serve's, over a connection of its own."""

    async def run() -> chainwatch.WalkTotals:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            return await chainwatch.walk_all(conn)

    return asyncio.run(run())


def one_byte_changed(line: bytes) -> bytes:
    """The line with one digit of its timestamp changed: the one byte a tamperer changes."""
    at = line.index(b'"ts":"') + len(b'"ts":"') + 3
    changed = bytes([ord("0") + (line[at] - ord("0") + 1) % 10])
    return line[:at] + changed + line[at + 1 :]


def last_told(lines: list[bytes], seq: int) -> int:
    """The last decision record before ``seq``: the last a hand cut at ``seq`` is told from.
    The record just before ``seq`` is an input's (a card or a button), which tells nothing."""
    before = [r for r in map(parse_line, lines[: seq - 1]) if r.kind in rec.DECISIONS]
    assert before[-1].seq < seq - 1, "a decision record follows an input's record"
    return before[-1].seq


def tamper(owner: str, lines: list[bytes]) -> int:
    """One byte of a decision record in the middle of hand 2 (one the hand's page is told
    from) changed in the store, as its owner; its seq."""
    records = list(map(parse_line, lines))
    started = [r.seq for r in records if r.kind == rec.HAND_STARTED]
    seq = next(r.seq for r in records if r.seq > started[1] + 1 and r.kind in rec.DECISIONS)
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(
            "UPDATE records SET line = %s WHERE table_id = %s AND seq = %s",
            (one_byte_changed(lines[seq - 1]), TABLE_ID, seq),
        )
    return seq


def broken_alarms(dsn: str) -> list[tuple[object, ...]]:
    with psycopg.connect(dsn) as conn:
        return conn.execute(
            "SELECT table_id, journal_id, seq, source, message FROM alarms WHERE kind = %s",
            (chainwatch.CHAIN_BROKEN,),
        ).fetchall()


def test_a_byte_changed_in_a_stored_line_raises_one_chain_broken_alarm_across_walks(
    tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _config, lines = keyed_store(tmp_path, postgres, monkeypatch)
    clean = walk(db.writer)
    assert (clean.journals, clean.records, clean.broken) == (1, len(lines), [])
    assert broken_alarms(db.reader) == []
    seq = tamper(db.owner, lines)
    first = walk(db.writer)
    assert first.broken == [(TABLE_ID, journal_id(lines), seq)]
    assert first.raised == 1
    [(table, journal, at, source, message)] = broken_alarms(db.reader)
    assert (table, journal, at, source) == (TABLE_ID, journal_id(lines), seq, "floor")
    assert f"breaks at record {seq}: its stored line is not an intact record" in str(message)
    assert f"({seq - 1} records before it intact; " in str(message)
    # The next walk finds the same break: known, not alarmed again.
    second = walk(db.writer)
    assert second.broken == first.broken
    assert second.raised == 0
    assert len(broken_alarms(db.reader)) == 1


def test_floor_recall_tells_the_intact_hands_names_the_broken_record_and_exits_1(
    tmp_path: Path, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    db, config, lines = keyed_store(tmp_path, postgres, monkeypatch)
    whole = tablectl("floor", "recall", "--table", TABLE_ID, "--config", config, "11")
    assert whole.returncode == 0, whole.stderr
    seq = tamper(db.owner, lines)
    recalled = tablectl("floor", "recall", "--table", TABLE_ID, "--config", config, "11")
    assert recalled.returncode == 1, recalled.stdout + recalled.stderr
    assert "Traceback" not in recalled.stderr
    out = recalled.stdout
    # Hands 1, 3 and 4 told as before; hand 2 up to the record before the broken one.
    for hand in (1, 3, 4):
        told = whole.stdout.split(f"Hand {hand}, ")[1].split("\n\nHand ")[0]
        assert f"Hand {hand}, {told}" in out
    assert "(NOT INTACT)" in out.split("Hand 2, ")[1].split("\n")[0]
    told = last_told(lines, seq)  # the hand page and the feeds say the same record
    assert f"NOT INTACT: record {seq} fails its check: the hand is told up to record {told}\n" in (
        out
    )
    assert f"record {seq} (hand 2's record): its stored line is not an intact record" in out
    assert "no chain_broken alarm yet" in out
    walk(db.writer)
    alarmed = tablectl("floor", "recall", "--table", TABLE_ID, "--config", config, "11")
    assert alarmed.returncode == 1
    assert f"alarm chain_broken (open) at record {seq}, raised " in alarmed.stdout


def test_floor_serve_walks_the_stored_chains_at_each_start_and_alarms_a_break_once(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db, _config, lines = keyed_store(tmp_path, postgres, monkeypatch)
    nats = nats_factory(("T1",))
    (tmp_path / "serve").mkdir()
    config = write_floor_toml(tmp_path / "serve", nats.url, nats.floor_user, postgres, db)
    seq = tamper(db.owner, lines)
    for start in ("first", "restart"):
        floor = FloorProcess(config)
        try:
            floor.wait_for_log("chain_walked")
        finally:
            assert floor.stop() == 0, floor.text()
        raised = 1 if start == "first" else 0
        assert f'"alarms_raised": {raised}' in floor.text(), floor.text()
        assert count(db.reader, "SELECT count(*) FROM alarms WHERE kind = 'chain_broken'") == 1
        assert count(db.reader, "SELECT max(seq) FROM alarms WHERE kind = 'chain_broken'") == seq


def test_the_pages_show_the_broken_chain_and_the_hand_as_not_intact(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    seq = tamper(floor.db.owner, lines)
    journal = journal_id(lines)
    assert walk(floor.db.writer).raised == 1  # floor serve's walk
    web = WebProcess(floor)
    try:
        supervisor, auditor, surveillance = (Client(floor.port) for _ in range(3))
        for client, name in ((supervisor, "supervisor"), (auditor, "auditor"),
                             (surveillance, "surveillance")):  # fmt: skip
            assert client.login(name).status == 303
        page = html.unescape(supervisor.get("/floor").text)
        assert f"CHAIN BROKEN at record {seq}" in page
        alarms = html.unescape(supervisor.get("/alarms").text)
        assert "chain_broken" in alarms
        assert f"breaks at record {seq}" in alarms
        listed = html.unescape(auditor.get("/verify").text)
        row = re.search(rf'<tr data-table="{TABLE_ID}" data-journal="{journal}"[^>]*>(.*?)</tr>',
                        listed, re.S)  # fmt: skip
        assert row, listed
        assert f"BROKEN at record {seq}" in row.group(1)
        assert "doubt" in row.group(0)
        hand = f"/tables/{TABLE_ID}/hands/{journal}/2"
        for client in (supervisor, auditor, surveillance):
            reply = client.get(hand)
            assert reply.status == 200, reply.text
            shown = html.unescape(reply.text)
            assert f"NOT INTACT:</strong> record {seq} of this hand: its stored line" in shown
            # The last record the hand is told from, as the feeds' told_to says it.
            told = last_told(lines, seq)
            assert f"from its intact records, up to record {told};" in shown
            assert f"Alarm chain_broken</strong> at record {seq}" in shown
        # The last checkpoint and the current hand's last decision changed too: the pages that
        # read them without walking still answer, the checkpoint named not intact.
        records = list(map(parse_line, lines))
        last_checkpoint = [r.seq for r in records if r.kind == rec.CHECKPOINT][-1]
        last_decision = [r.seq for r in records if r.kind in rec.DECISIONS][-1]
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            for changed in (last_checkpoint, last_decision):
                conn.execute(
                    "UPDATE records SET line = %s WHERE table_id = %s AND seq = %s",
                    (one_byte_changed(lines[changed - 1]), TABLE_ID, changed),
                )
        again = auditor.get("/verify")
        assert again.status == 200, again.text
        assert "NOT INTACT: its stored line fails its hash" in html.unescape(again.text)
        assert supervisor.get("/floor").status == 200
        assert supervisor.get(f"/tables/{TABLE_ID}").status == 200
        # A fault of the view's own (its role refused the records) is a page saying so, and
        # its traceback one JSON line of the log.
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute("REVOKE SELECT ON records FROM tablectl_web")
        faulted = surveillance.get(hand)
        assert faulted.status == 500
        assert "could not be shown (InsufficientPrivilege)" in faulted.text
    finally:
        assert web.stop() == 0, web.log.read_text()
    logged = web.log.read_text().splitlines()
    assert logged
    for line in logged:
        json.loads(line)  # every line JSON, the traceback's too
    assert any("InsufficientPrivilege" in line for line in logged)


def test_the_walk_benchmark_walks_every_stored_record_and_times_it_against_the_select(
    postgres: PostgresServer,
) -> None:
    """benchmarks/floor_walk.py still runs (two tables of two hands: not a measurement)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    import floor_walk  # noqa: PLC0415  benchmarks/ is not a package: found through the path

    stored, select, walked, beside = floor_walk.measure(postgres, 2, 2)
    records = int(stored.split()[1])
    assert f"select: the same {records} rows" in select
    assert walked.startswith(f"walk: {records} records of 2 journals (2 tables)")
    assert "of the select's rate" in walked
    assert "beside a walk" in beside
