"""Helpers of the floor's tests: a floor database set up as the DBA would, and journal lines."""

from __future__ import annotations

import asyncio
import json
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import nats
import psycopg
from nats.js.api import StreamConfig
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.floor import store
from controller.floor.ingest import Arrival, IngestResult, ingest
from controller.forwarder.subjects import RecordId, subject_of
from controller.journal.record import GENESIS, make_record_line, parse_line
from simulator.servers_nats import NatsUser
from simulator.servers_pg import PostgresServer

FIXTURES = Path(__file__).parent.parent / "fixtures" / "journal-before-schema"


@dataclass(frozen=True)
class FloorDb:
    """A database set up by ``floor setup``, and each role's connection."""

    owner: str
    writer: str
    reader: str
    writer_password: str
    reader_password: str

    @property
    def dbname(self) -> str:
        return str(conninfo_to_dict(self.owner)["dbname"])


#: The roles are the cluster's, shared by every database of it: one password each per run.
_PASSWORDS: Final = (secrets.token_hex(8), secrets.token_hex(8))


def floor_database(postgres: PostgresServer) -> FloorDb:
    """A fresh database, set up, with passwords for the floor's two roles."""
    owner = postgres.new_database()
    passwords = _PASSWORDS
    with psycopg.connect(owner, autocommit=True) as conn:
        store.setup(conn)
        store.set_password(conn, store.WRITER, passwords[0])
        store.set_password(conn, store.READER, passwords[1])
    return floor_roles(owner)


def floor_roles(owner: str) -> FloorDb:
    """The database ``owner`` connects to as the floor's two roles reach it, with this run's
    passwords (a database set up otherwise: ``floor setup`` sets them from its files)."""
    writer = make_conninfo(owner, user=store.WRITER, password=_PASSWORDS[0])
    reader = make_conninfo(owner, user=store.READER, password=_PASSWORDS[1])
    return FloorDb(owner, writer, reader, *_PASSWORDS)


def fixture_lines(game: str = "mambo") -> list[bytes]:
    """A real journal's lines (tests/fixtures/README.md), without their newlines."""
    path = FIXTURES / game / "journal-000001.jsonl"
    return path.read_bytes().splitlines()


def journal_id(lines: Sequence[bytes]) -> str:
    return parse_line(lines[0]).hash


def arrivals(
    table_id: str, lines: Sequence[bytes], seqs: Sequence[int] | None = None
) -> list[Arrival]:
    """The messages a forwarder publishes for ``lines`` (seq ``n`` is ``lines[n - 1]``)."""
    root = journal_id(lines)
    chosen = seqs if seqs is not None else range(1, len(lines) + 1)
    return [
        Arrival(subject_of(table_id), RecordId(table_id, root, seq).message_id(), lines[seq - 1])
        for seq in chosen
    ]


def ingest_now(dsn: str, batch: Sequence[Arrival]) -> IngestResult:
    """``ingest`` one batch over a connection of its own, as ``floor serve`` does."""

    async def run() -> IngestResult:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            return await ingest(conn, batch)

    return asyncio.run(run())


def count(dsn: str, query: str, *params: object) -> int:
    with psycopg.connect(dsn) as conn:
        row = conn.execute(query.encode(), params).fetchone()
    assert row is not None
    return int(row[0])


def rewritten(lines: Sequence[bytes], seq: int) -> list[bytes]:
    """``lines`` with record ``seq``'s data changed and the chain re-hashed from it: a journal
    rewritten after it was forwarded, whose own chain verifies again."""
    out = list(lines[: seq - 1])
    prev = parse_line(out[-1]).hash if out else GENESIS
    for line in lines[seq - 1 :]:
        record = parse_line(line)
        data = dict(record.data)
        if record.seq == seq:
            data["rewritten"] = True
        moment = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC)
        new, text = make_record_line(record.seq, moment, record.kind, data, prev)
        out.append(text.rstrip(b"\n"))
        prev = new.hash
    return out


#: How long a test waits for what the floor does in well under a second: far past it.
PATIENCE = 60.0


def write_floor_toml(
    tmp_path: Path,
    nats_url: str,
    nats_user: NatsUser,
    pg: PostgresServer,
    db: FloorDb,
    *,
    batch: int = 50,
    servers: Sequence[str] | None = None,
    replicas: int = 1,
) -> Path:
    """floor.toml for ``floor serve`` on these servers (``servers``: a cluster's URLs instead of
    ``nats_url``; ``replicas``: the stream's copies), its passwords in files beside it."""
    (tmp_path / "nats.password").write_text(nats_user.password + "\n")
    (tmp_path / "postgres.password").write_text(db.writer_password + "\n")
    (tmp_path / "reader.password").write_text(db.reader_password + "\n")
    path = tmp_path / "floor.toml"
    path.write_text(
        "[nats]\n"
        f"servers = {json.dumps(list(servers or [nats_url]))}\n"
        f'user = "{nats_user.user}"\npassword_file = "nats.password"\nreplicas = {replicas}\n'
        "[postgres]\n"
        f'host = "127.0.0.1"\nport = {pg.port}\ndbname = "{db.dbname}"\n'
        'password_file = "postgres.password"\n'
        '[reader]\npassword_file = "reader.password"\n'
        f"[serve]\nbatch = {batch}\nack_wait = 2\n"
    )
    return path


def tablectl(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """The real command line, in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "controller", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
        check=False,
    )


class FloorProcess:
    """``tablectl floor serve`` as a subprocess, its log (standard error) in a file."""

    def __init__(self, config: Path) -> None:
        self.config = config
        self.log = config.parent / f"floor-{id(self)}.log"
        self._out = self.log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", "serve", "--config", str(config)],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )

    def wait_for_log(self, word: str) -> None:
        self.wait(lambda: word in self.log.read_text(), f"the log line {word!r}")

    def wait(self, ready: Callable[[], bool], what: str) -> None:
        """Until ``ready()``: a failure naming ``what`` and the log if the floor exits first."""
        deadline = time.monotonic() + PATIENCE
        while not ready():
            if self.process.poll() is not None:
                raise AssertionError(f"floor serve exited waiting for {what}:\n{self.text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {PATIENCE} s:\n{self.text()}")
            time.sleep(0.05)

    def text(self) -> str:
        return self.log.read_text()

    def stop(self, signum: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signum)
        code = self.process.wait(timeout=PATIENCE)
        self._out.close()
        return code


def publish(
    url: str, user: NatsUser, table_id: str, lines: Sequence[bytes], *, first: int = 1
) -> None:
    """Publish ``lines`` as the table's forwarder does: its subject, each record's message id
    (from record ``first`` on)."""

    async def run() -> None:
        client = await nats.connect(
            url, user=user.user, password=user.password, inbox_prefix=user.inbox_prefix
        )
        try:
            js = client.jetstream()
            for arrival in arrivals(table_id, lines, range(first, len(lines) + 1)):
                assert arrival.message_id is not None
                await js.publish(
                    arrival.subject, arrival.line, headers={"Nats-Msg-Id": arrival.message_id}
                )
        finally:
            await client.close()

    asyncio.run(run())


def make_stream(url: str, user: NatsUser, config: StreamConfig) -> None:
    async def run() -> None:
        client = await nats.connect(url, user=user.user, password=user.password)
        try:
            await client.jetstream().add_stream(config)
        finally:
            await client.close()

    asyncio.run(run())


def republish_until_taken(
    url: str, user: NatsUser, table_id: str, lines: Sequence[bytes], seq: int
) -> None:
    """Publish record ``seq`` of ``lines`` under its message id until the broker takes it (not
    a duplicate any more: its duplicate window has passed since the first)."""

    async def run() -> None:
        client = await nats.connect(
            url, user=user.user, password=user.password, inbox_prefix=user.inbox_prefix
        )
        try:
            (arrival,) = arrivals(table_id, lines, [seq])
            assert arrival.message_id is not None
            deadline = time.monotonic() + PATIENCE
            while time.monotonic() < deadline:
                ack = await client.jetstream().publish(
                    arrival.subject, arrival.line, headers={"Nats-Msg-Id": arrival.message_id}
                )
                if not ack.duplicate:
                    return
                await asyncio.sleep(0.1)
            raise AssertionError(f"the broker still drops record {seq} as a duplicate")
        finally:
            await client.close()

    asyncio.run(run())
