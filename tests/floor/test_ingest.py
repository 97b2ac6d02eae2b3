"""controller/floor/ingest.py against a real PostgreSQL: batches of a real journal's messages
(tests/fixtures: a Mambo table, 14.13A, five hands, one voided by a misdeal, seat changes)."""

from __future__ import annotations

import random

import psycopg
import pytest
from floorhelp import (
    FIXTURES,
    arrivals,
    count,
    fixture_lines,
    floor_database,
    ingest_now,
    journal_id,
    rewritten,
)

from controller.floor import report
from controller.floor.witness import CONFLICT, JOURNAL_BEGUN_ANEW
from controller.history.recall import format_hand
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.engine import events as ev
from simulator.servers_pg import PostgresServer


def test_a_journal_in_one_batch_is_stored_once_with_its_hands_and_a_redelivery_adds_nothing(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    lines = fixture_lines()
    first = ingest_now(db.writer, arrivals("T1", lines))
    assert (first.stored, first.duplicates, first.alarms) == (len(lines), 0, [])
    again = ingest_now(db.writer, arrivals("T1", lines))  # a batch redelivered after a crash
    assert (again.stored, again.duplicates, again.alarms) == (0, len(lines), [])
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)
    assert count(db.reader, "SELECT head_seq FROM journals") == len(lines)
    assert count(db.reader, "SELECT count(*) FROM hands") == 5
    assert count(db.reader, "SELECT count(*) FROM hands WHERE voided") == 1
    assert count(db.reader, "SELECT count(*) FROM hands WHERE finished") == 5
    assert count(db.reader, "SELECT count(*) FROM devices") >= 2
    with psycopg.connect(db.reader) as conn:
        stakes, rules, cards = conn.execute(
            "SELECT stakes, rules, cards FROM hands WHERE hand = 1"
        ).fetchone() or (None, None, None)
    assert isinstance(stakes, dict)
    assert stakes["ante"] == 1  # 13:69F-8.3: the stakes the hand was dealt under, typed
    assert isinstance(rules, dict)
    assert isinstance(cards, list)
    assert {
        "card": "7c",
        "destination": "seat",
        "face": "down",
        "kind": "card_dealt",
        "seat": 1,
    } in cards


_CARDS = (ev.CardDealt, ev.CardMucked, ev.CardDiscarded)
_ACTIONS = (ev.BlindPosted, ev.ActionTaken, ev.DrawDeclared, ev.Undone)


@pytest.mark.parametrize("game", ["mambo", "triple-draw", "five-card-stud"])
def test_each_hands_cards_and_actions_are_its_events_of_those_kinds_as_journaled(
    postgres: PostgresServer, game: str
) -> None:
    """The hands table against the journal read whole through the schema: every card dealt,
    mucked or discarded, and every ante, blind, action, draw and undo, in the table's order
    (derive decodes only the kinds it keeps: none may be left out)."""
    db = floor_database(postgres)
    lines = fixture_lines(game)
    assert ingest_now(db.writer, arrivals("T1", lines)).alarms == []
    expected: dict[int, tuple[list[object], list[object]]] = {}
    hand = 0
    for line in lines:
        record = parse_line(line)
        if record.kind not in rec.DECISIONS:
            continue
        for event in schema.decode_events(record):
            if isinstance(event, ev.HandStarted):
                hand = event.hand
                expected[hand] = ([], [schema.encode(event)])
            elif isinstance(event, _CARDS):
                expected[hand][0].append(schema.encode(event))
            elif isinstance(event, _ACTIONS):
                expected[hand][1].append(schema.encode(event))
    with psycopg.connect(db.reader) as conn:
        rows = conn.execute("SELECT hand, cards, actions FROM hands ORDER BY hand").fetchall()
    assert {hand: (cards, actions) for hand, cards, actions in rows} == expected
    kinds = {e["kind"] for cards, _ in expected.values() for e in cards}  # type: ignore[index]
    assert "card_dealt" in kinds


def test_the_floors_recall_tells_the_hands_as_the_tables_own_recall_did(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    ingest_now(db.writer, arrivals("T1", fixture_lines()))
    with psycopg.connect(db.reader) as conn:
        told = "\n\n".join(format_hand(hand) for hand in report.recall(conn, "T1", 10).hands)
    assert told + "\n" == (FIXTURES / "mambo.recall.txt").read_text()


def test_records_arriving_out_of_order_across_batches_give_the_same_hands_as_in_order(
    postgres: PostgresServer,
) -> None:
    lines = fixture_lines()
    in_order, shuffled = floor_database(postgres), floor_database(postgres)
    ingest_now(in_order.writer, arrivals("T1", lines))
    seqs = list(range(1, len(lines) + 1))
    random.Random(17).shuffle(seqs)
    for start in range(0, len(seqs), 37):  # several floor processes, each its own batches
        result = ingest_now(shuffled.writer, arrivals("T1", lines, seqs[start : start + 37]))
        assert result.alarms == []
    query = "SELECT hand, cards, actions, pots, settlement, finished FROM hands ORDER BY hand"
    with psycopg.connect(in_order.reader) as a, psycopg.connect(shuffled.reader) as b:
        assert a.execute(query).fetchall() == b.execute(query).fetchall()
    assert count(shuffled.reader, "SELECT head_seq FROM journals") == len(lines)
    assert count(shuffled.reader, "SELECT count(*) FROM records WHERE NOT linked") == 0
    with psycopg.connect(shuffled.reader) as conn:
        assert report.verify(conn).clean


def test_a_record_rewritten_after_forwarding_is_a_conflict_and_the_floor_keeps_both(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines))
    forged = rewritten(lines, 40)  # the table's own chain verifies again
    result = ingest_now(db.writer, arrivals("T1", forged, [40, 41]))
    assert result.conflicts == 2
    assert (CONFLICT, "T1", journal_id(lines), 40) in result.alarms
    with psycopg.connect(db.reader) as conn:
        kept = conn.execute("SELECT line FROM records WHERE seq = 40").fetchone()
        evidence = conn.execute(
            "SELECT evidence, held_hash FROM alarms WHERE kind = 'conflict' AND seq = 40"
        ).fetchone()
        verdict = report.verify(conn)
    assert kept is not None
    assert bytes(kept[0]) == lines[39]
    assert evidence is not None
    assert bytes(evidence[0]) == forged[39]
    assert not verdict.clean
    assert [(a.kind, a.seq) for a in verdict.alarms] == [(CONFLICT, 40), (CONFLICT, 41)]
    # Redelivered, the same evidence raises no second alarm.
    ingest_now(db.writer, arrivals("T1", forged, [40]))
    assert count(db.reader, "SELECT count(*) FROM alarms WHERE source = 'floor'") == 2


def test_a_known_table_sending_a_new_journal_raises_journal_begun_anew(
    postgres: PostgresServer,
) -> None:
    db = floor_database(postgres)
    ingest_now(db.writer, arrivals("T1", fixture_lines("mambo")))
    other = fixture_lines("five-card-stud")
    result = ingest_now(db.writer, arrivals("T1", other[:3]))
    assert [kind for kind, *_ in result.alarms] == [JOURNAL_BEGUN_ANEW]
    assert count(db.reader, "SELECT count(*) FROM journals WHERE table_id = 'T1'") == 2
    with psycopg.connect(db.reader) as conn:
        assert report.current_journal(conn, "T1") == journal_id(other)


def test_each_tables_least_clock_offset_is_kept_per_window(postgres: PostgresServer) -> None:
    db = floor_database(postgres)
    lines = fixture_lines()
    ingest_now(db.writer, arrivals("T1", lines[:100]))
    ingest_now(db.writer, arrivals("T1", lines, range(101, len(lines) + 1)))
    with psycopg.connect(db.reader) as conn:
        (samples, least), *_ = conn.execute(
            "SELECT samples, min_floor_ms FROM clock_offsets WHERE table_id = 'T1'"
        ).fetchall()
        latest = conn.execute(
            "SELECT extract(epoch FROM max(received_at) - max(ts)) * 1000 FROM records"
        ).fetchone()
    assert samples == len(lines)
    # The fixture's last record is the latest ts: the least offset is the last record's.
    assert latest is not None
    assert abs(float(least) - float(latest[0])) < 5000


def test_a_record_the_floors_schema_does_not_read_is_stored_and_raised_not_a_stopped_floor(
    postgres: PostgresServer,
) -> None:
    """A record whose hash and link hold but whose data does not fit the schema (a table
    upgraded before the floor writes a newer version): stored as evidence, a floor alarm
    naming its seq, the hands of the records around it still derived."""
    db = floor_database(postgres)
    lines = fixture_lines()
    seq = next(parse_line(line).seq for line in lines if parse_line(line).kind == "decision")
    odd = rewritten(lines, seq)  # its data gains a field no schema declares: a fine chain
    ingest_now(db.writer, arrivals("T1", odd))
    assert count(db.reader, "SELECT count(*) FROM records") == len(lines)
    with psycopg.connect(db.reader) as conn:
        alarms = conn.execute(
            "SELECT seq, message FROM alarms WHERE source = 'floor' AND kind = 'schema_refused'"
        ).fetchall()
    assert [row[0] for row in alarms] == [seq]
    assert "rewritten is not in the schema" in alarms[0][1]
    assert count(db.reader, "SELECT count(*) FROM hands WHERE finished") > 0
