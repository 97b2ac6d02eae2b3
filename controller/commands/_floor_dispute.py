"""What ``tablectl floor dispute --table T --hand N --out DIR --config floor.toml`` runs
(docs/floor.md, Disputes): the dispute bundle of a hand (controller/dispute/) from the floor's
store, read as the reader role: the exact lines the table sent, bounded as the table's own
``tablectl dispute`` bounds them, and the key in force at the first record as the floor's
registry holds it (``table_keys``, controller/floor/keys.py). ``tablectl dispute verify``
checks it as it checks the table's; made from the same journal, the two bundles hold the same
records and tell the same hand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

import psycopg

from controller import dispute
from controller.app import records as rec
from controller.app import schema
from controller.app.tablekey import TABLE_KEY
from controller.commands import _floor_db
from controller.commands._floor_run import EXIT_PROBLEM, EXIT_USAGE, floor_config
from controller.commands.dispute import write
from controller.engine.config import ConfigError
from controller.floor import report
from controller.journal import Record
from controller.journal.record import parse_line

Conn = psycopg.Connection[tuple[object, ...]]
SOFTWARE: Final = "software"


class _NotHeld(dispute.DisputeError):
    """What was asked is not in the store: a hand, or the registry's key (exit 2)."""


@dataclass(frozen=True, slots=True)
class _Journal:
    table: str
    journal: str
    head: int


def run_dispute(args: argparse.Namespace) -> int:
    """Make the bundle from the store; return the exit status."""
    config = floor_config(args, "dispute")
    if config is None:
        return EXIT_USAGE
    try:
        with _floor_db.connect(config.reader.dsn(), _floor_db.READER) as conn:
            held = _journal(conn, args.table)
            bounds = _bounds(conn, held, args.hand)
            lines = _lines(conn, held, bounds)
    except (psycopg.Error, ConfigError, _floor_db.Unreachable) as error:
        print(f"tablectl floor dispute: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except (report.ReportError, _NotHeld) as error:
        print(f"tablectl floor dispute: {error}", file=sys.stderr)
        return EXIT_USAGE
    except dispute.DisputeError as error:  # the store cannot tell the hand as asked
        print(f"tablectl floor dispute: {error}", file=sys.stderr)
        return EXIT_PROBLEM
    where = f"the floor's store (table {held.table}, journal {held.journal})"
    return write(
        args,
        table_id=held.table,
        lines=lines,
        bounds=bounds,
        made_from=where,
        command="floor dispute",
    )


def _journal(conn: Conn, table: str) -> _Journal:
    """The table's current journal, its stored chain walked whole (report.verify): a bundle is
    made only of a chain the floor holds intact."""
    journal = report.current_journal(conn, table)
    walked = [c for c in report.verify(conn, table).chains if c.journal_id == journal]
    problems = [problem for chain in walked for problem in chain.problems]
    if problems:
        raise dispute.DisputeError(
            f"table {table} journal {journal}: the floor's chain is not intact: {problems[0]}"
        )
    return _Journal(table, journal, walked[0].head_seq)


def _bytes(value: object) -> bytes:
    """A bytea column's value (psycopg gives bytes)."""
    assert isinstance(value, bytes), type(value)
    return value


def _one(conn: Conn, query: str, *params: object) -> object:
    row = conn.execute(query.encode(), params).fetchone()
    return None if row is None else row[0]


def _bounds(conn: Conn, held: _Journal, hand: int) -> dispute.Bounds:
    """The bundle's records, found as ``dispute.Finder`` finds them in a table's journal: from
    the signed checkpoint before the software record in force when the hand began (or record
    1) to the first signed checkpoint after the hand's start (or the stored head)."""
    key = (held.table, held.journal)
    started = _one(
        conn,
        "SELECT started_seq FROM hands WHERE table_id = %s AND journal_id = %s AND hand = %s",
        *key,
        hand,
    )
    if started is None:
        known = conn.execute(
            "SELECT min(hand), max(hand) FROM hands WHERE table_id = %s AND journal_id = %s", key
        ).fetchone()
        held_hands = (
            "no hands" if not known or known[0] is None else f"hands {known[0]} to {known[1]}"
        )
        raise _NotHeld(
            f"hand {hand} of table {held.table} is not in the floor's store (it holds {held_hands})"
        )
    started_seq = int(str(started))
    software = _one(
        conn,
        "SELECT max(seq) FROM software WHERE table_id = %s AND journal_id = %s AND seq < %s",
        *key,
        started_seq,
    )
    if software is None:
        raise dispute.DisputeError(
            f"hand {hand} of table {held.table}: no software record before it in the floor's "
            "store: a dispute bundle must name the software that dealt it"
        )
    begin = next(_signed(conn, held, before=int(str(software))), None)
    end = next(_signed(conn, held, after=started_seq), None)
    last = held.head if end is None else end
    ends: dispute.Ends = "journal_end" if end is None else "checkpoint"
    if begin is not None:
        key_at = _registered_key(conn, held, begin)
        return dispute.Bounds(begin, last, "checkpoint", ends, key_at, held.journal)
    first_key = _one(
        conn,
        "SELECT min(seq) FROM records WHERE table_id = %s AND journal_id = %s AND kind = %s",
        *key,
        TABLE_KEY,
    )
    if first_key is not None:  # from the genesis: the first key journaled must be registered
        _registered_key(conn, held, int(str(first_key)) + 1)
    return dispute.Bounds(1, last, "genesis", ends, None, held.journal)


def _signed(
    conn: Conn, held: _Journal, *, before: int | None = None, after: int | None = None
) -> Iterator[int]:
    """The seqs of the signed checkpoints before ``before`` (latest first) or after ``after``
    (earliest first)."""
    order, bound = ("<", before) if before is not None else (">", after)
    direction = "DESC" if before is not None else "ASC"
    rows = conn.execute(
        f"SELECT line FROM records WHERE table_id = %s AND journal_id = %s AND kind = %s "
        f"AND linked AND seq {order} %s ORDER BY seq {direction}".encode(),
        (held.table, held.journal, rec.CHECKPOINT, bound),
    )
    for (line,) in rows:
        record = parse_line(_bytes(line))
        data = schema.decode(record)
        assert isinstance(data, schema.CheckpointData)
        if data.signature is not None:
            yield record.seq


def _registered_key(conn: Conn, held: _Journal, seq: int) -> str:
    """The key in force at checkpoint ``seq`` (the last table_key before it), as the floor's
    registry holds it for the table: refused if the registry does not hold it."""
    line = _one(
        conn,
        "SELECT line FROM records WHERE table_id = %s AND journal_id = %s AND kind = %s "
        "AND linked AND seq < %s ORDER BY seq DESC LIMIT 1",
        held.table,
        held.journal,
        TABLE_KEY,
        seq,
    )
    if line is None:
        raise dispute.DisputeError(f"checkpoint {seq} is signed, but no table_key precedes it")
    record: Record = parse_line(_bytes(line))
    data = schema.decode(record)
    assert isinstance(data, schema.TableKeyData)
    registered = _one(
        conn,
        "SELECT public_key FROM table_keys WHERE table_id = %s AND key_id = %s",
        held.table,
        data.key_id,
    )
    if registered is None or str(registered) != data.public_key:
        raise _NotHeld(
            f"table {held.table}: key {data.key_id}, in force at checkpoint {seq}, is not in the "
            "floor's registry (tablectl floor key list): the floor cannot vouch for it"
        )
    return str(registered)


def _lines(conn: Conn, held: _Journal, bounds: dispute.Bounds) -> list[bytes]:
    """The exact lines the table sent, ``first_seq`` to ``last_seq``, every one of them."""
    rows = conn.execute(
        "SELECT seq, line FROM records WHERE table_id = %s AND journal_id = %s AND linked "
        "AND seq BETWEEN %s AND %s ORDER BY seq",
        (held.table, held.journal, bounds.first_seq, bounds.last_seq),
    ).fetchall()
    seqs = [int(str(seq)) for seq, _ in rows]
    if seqs != list(range(bounds.first_seq, bounds.last_seq + 1)):
        raise dispute.DisputeError(
            f"table {held.table}: the floor's store lacks records between {bounds.first_seq} "
            f"and {bounds.last_seq}"
        )
    return [_bytes(line) for _, line in rows]
