"""The floor's speed and scale (docs/performance.md, The floor).

    python benchmarks/floor.py [--quick] [--part ingest] [--part lag] [--part memory]

Every figure is set beside a peer or a physical limit measured in the same run, on throwaway
servers started here (simulator/servers_nats.py, servers_pg.py; PostgreSQL with fsync on, as a
floor host runs it):

- **ingest**: records per second stored by the floor's own ``ingest`` over batches of real
  journal lines (a simulated table dealt by the random dealer, its records re-chained for each
  table so every table has a journal of its own), against a plain batched ``COPY`` of the same
  rows (the ``records`` table's) into the same PostgreSQL, same batch size: the ratio (target
  at least 50%);
- **lag**: from a record's append to a table's journal (its ``ts``) to the commit of the batch
  holding it in the floor's store, p50 and p99, at 200 tables at a dealer's pace and at 20
  tables at full speed. The tables append with the real ``JournalWriter`` in one process; the
  real ``Forwarder`` runs once per table, all of them in one asyncio process (200 processes are
  too many for 2 cores); the floor is its real ``tablectl floor serve`` process; the commit is
  seen through a ``NOTIFY`` a statement trigger on ``records`` sends, which PostgreSQL delivers
  at the commit (target p99 under 250 ms at 200 tables);
- **memory**: the ``floor serve`` process's resident memory after 10,000 and after 1,000,000
  records stored (target: within 10%).

``--quick`` runs each part small (for a look, and for tests/floor/test_floor_benchmark.py,
which runs it tiny so that it cannot rot): its figures are no measurement.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import heapq
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

import nats
import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.config.settings import FloorLinkSettings, LogLevel, LogSettings
from controller.floor import ingest, serve, store
from controller.floor.ingest import Arrival
from controller.forwarder.forward import Forwarder
from controller.forwarder.subjects import RecordId, subject_of
from controller.journal import JournalReader, JournalWriter, JsonObject
from controller.journal.record import GENESIS, make_record_line, parse_line
from controller.logs.logsetup import configure_logging, reset_logging
from simulator.clock import ManualClock
from simulator.demo import run_headless
from simulator.servers_nats import NatsServer
from simulator.servers_pg import PostgresServer

#: The floor's batch (``[serve] batch``'s default): the ingest and COPY batches alike.
BATCH = 500
#: The first seconds of a lag run, while the forwarders connect and resume, are not counted.
WARM_UP = 5.0
#: A dealer's pace: one record every 0.5 to 1.0 s per table, drawn uniformly (see PACE_WHY).
PACE = (0.5, 1.0)
PACE_WHY = (
    "a dealer's card or button every 1 to 2 s, each an input record and a decision record "
    "(docs/journal.md): one record every 0.5 to 1.0 s per table"
)
#: How long the benchmark waits for the floor to store what the tables wrote.
PATIENCE = 300.0
#: A run in which the floor stored nothing new for this long has failed.
STALLED = 60.0

# ---------------------------------------------------------------------------------------------
# Journals


@dataclass(frozen=True)
class Sample:
    """A simulated table's records (kind, data), and how fast it made them."""

    records: list[tuple[str, JsonObject]]
    per_second: float


def sample(hands: int, seed: int = 1) -> Sample:
    """The records of a simulated table dealt ``hands`` hands by the random dealer."""
    with tempfile.TemporaryDirectory(prefix="tablectl-floorbench-") as folder:
        configure_logging(
            LogSettings(level=LogLevel.WARNING, file=Path(folder) / "sim.log"), table_id="BENCH"
        )
        try:
            started = time.perf_counter()
            run_headless("mambo", hands, Path(folder), seed=seed, clock=ManualClock())
            seconds = time.perf_counter() - started
        finally:
            reset_logging()
        records = [(r.kind, r.data) for r in JournalReader(Path(folder) / "journal")]
    return Sample(records, len(records) / seconds)


def journal_lines(records: Sequence[tuple[str, JsonObject]], table: int) -> list[bytes]:
    """``records`` as a journal of its own (its lines without newlines): re-chained from a
    first record whose time is the table's, so each table's journal id differs."""
    moment = datetime(2026, 12, 1, 12, 0, tzinfo=UTC) + timedelta(microseconds=table)
    lines, prev = [], GENESIS
    for seq, (kind, data) in enumerate(records, 1):
        record, line = make_record_line(seq, moment, kind, data, prev)
        lines.append(line[:-1])
        prev = record.hash
        moment += timedelta(milliseconds=1)
    return lines


def table_name(n: int) -> str:
    return f"T{n:03d}"


def interleaved(journals: dict[str, list[bytes]], run: int = 1) -> list[Arrival]:
    """The messages of every table's journal as the stream holds them when the tables deal
    together: ``run`` records of each table in turn."""
    roots = {table: parse_line(lines[0]).hash for table, lines in journals.items()}
    out: list[Arrival] = []
    longest = max(len(lines) for lines in journals.values())
    for start in range(0, longest, run):
        for table, lines in journals.items():
            for seq in range(start + 1, min(start + run, len(lines)) + 1):
                message_id = RecordId(table, roots[table], seq).message_id()
                out.append(Arrival(subject_of(table), message_id, lines[seq - 1]))
    return out


def batches(items: Sequence[Arrival], size: int = BATCH) -> list[Sequence[Arrival]]:
    return [items[n : n + size] for n in range(0, len(items), size)]


# ---------------------------------------------------------------------------------------------
# The floor's database


@dataclass(frozen=True)
class FloorDb:
    owner: str
    writer: str
    writer_password: str

    @property
    def dbname(self) -> str:
        return str(conninfo_to_dict(self.owner)["dbname"])


_WRITER_PASSWORD = os.urandom(8).hex()


def floor_database(postgres: PostgresServer) -> FloorDb:
    """A fresh database set up as ``tablectl floor setup`` does, and the writer's dsn."""
    owner = postgres.new_database()
    with psycopg.connect(owner, autocommit=True) as conn:
        store.setup(conn)
        store.set_password(conn, store.WRITER, _WRITER_PASSWORD)
    writer = make_conninfo(owner, user=store.WRITER, password=_WRITER_PASSWORD)
    return FloorDb(owner, writer, _WRITER_PASSWORD)


@contextmanager
def durable_postgres() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL with fsync on (the servers' default), as a floor host runs it."""
    server = PostgresServer(durable=True)
    try:
        server.start()
        yield server
    finally:
        server.close()


# ---------------------------------------------------------------------------------------------
# Ingest against COPY


@dataclass
class IngestFigures:
    records: int
    ingest_per_second: float
    copy_per_second: float

    @property
    def ratio(self) -> float:
        return self.ingest_per_second / self.copy_per_second


_COPY = (
    "COPY records (table_id, journal_id, seq, ts, kind, line, hash, prev, received_at, "
    "broker_at, linked) FROM STDIN"
)


def copy_rows(batch: Sequence[Arrival]) -> list[tuple[object, ...]]:
    """The rows ingest stores for ``batch`` (records table), made before the clock starts: the
    COPY is the physical limit, what PostgreSQL takes with no Python work per record."""
    now = datetime.now(UTC)
    rows: list[tuple[object, ...]] = []
    for arrival in batch:
        record = parse_line(arrival.line)
        assert arrival.message_id is not None
        table, journal, _ = arrival.message_id.rsplit(":", 2)
        ts = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC)
        row = (table, journal, record.seq, ts, record.kind, arrival.line)
        rows.append((*row, record.hash, record.prev, now, None, True))
    return rows


async def _copy_run(
    dsn: str, keys: set[tuple[str, str]], rows: list[list[tuple[object, ...]]]
) -> float:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        async with conn.transaction(), conn.cursor() as cur:
            # The journals the records name (their foreign key), before the clock starts.
            now = datetime.now(UTC)
            await cur.executemany(
                "INSERT INTO tables VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                [(t, now, now) for t in sorted({t for t, _ in keys})],
            )
            await cur.executemany(
                "INSERT INTO journals (table_id, journal_id, first_seen) VALUES (%s, %s, %s)",
                [(t, j, now) for t, j in sorted(keys)],
            )
        started = time.perf_counter()
        for batch in rows:
            async with conn.transaction(), conn.cursor() as cur, cur.copy(_COPY) as copy:
                for row in batch:
                    await copy.write_row(row)
        return time.perf_counter() - started


async def _ingest_run(dsn: str, work: list[Sequence[Arrival]]) -> float:
    """The floor's ingest of ``work`` as ``floor serve`` runs it (``ingest.store_all``: each
    batch prepared while the one before commits; its collector's thresholds), the batches taken
    from a list, not a stream."""
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        left = iter(work)
        done: list[int] = []

        async def take(wait: bool) -> tuple[int, ingest.Prepared] | None:
            batch = next(left, None)
            return None if batch is None else (len(batch), ingest.prepare(batch))

        async def stored(size: int, result: ingest.IngestResult) -> None:
            if result.stored != size or result.alarms:
                raise RuntimeError(f"ingest stored {result.stored} of {size}: {result}")
            done.append(size)

        async def store_one(
            batch: ingest.Prepared, meanwhile: Callable[[], Awaitable[None]]
        ) -> ingest.IngestResult:
            return await ingest.store(conn, batch, meanwhile)

        thresholds = serve.collect_less()  # as floor serve runs
        try:
            started = time.perf_counter()
            await ingest.store_all(take, store_one, stored, lambda: len(done) < len(work))
            return time.perf_counter() - started
        finally:
            gc.set_threshold(*thresholds)


def measure_ingest(
    postgres: PostgresServer, journals: dict[str, list[bytes]], rounds: int
) -> list[IngestFigures]:
    """Each round: the COPY of the rows into a fresh database, then the floor's ingest of the
    same batches into another; a figure per round."""
    work = batches(interleaved(journals))
    rows = [copy_rows(batch) for batch in work]
    keys = {(t, parse_line(lines[0]).hash) for t, lines in journals.items()}
    total = sum(len(batch) for batch in work)
    figures = []
    for _ in range(rounds):
        copy_seconds = asyncio.run(_copy_run(floor_database(postgres).writer, keys, rows))
        ingest_seconds = asyncio.run(_ingest_run(floor_database(postgres).writer, work))
        figures.append(IngestFigures(total, total / ingest_seconds, total / copy_seconds))
    return figures


# ---------------------------------------------------------------------------------------------
# Lag: the tables, their forwarders, the floor


#: What the benchmark adds to its own floor database: a NOTIFY at each commit naming, per table,
#: the seqs the transaction stored (one floor process, each table's records in order: a range).
_PROBE = """
CREATE FUNCTION bench_stored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('bench_stored', (
        SELECT string_agg(table_id || ' ' || lo || ' ' || hi, ',')
        FROM (SELECT table_id, min(seq) AS lo, max(seq) AS hi FROM stored GROUP BY table_id) s));
    RETURN NULL;
END $$;
CREATE TRIGGER bench_stored AFTER INSERT ON records REFERENCING NEW TABLE AS stored
    FOR EACH STATEMENT EXECUTE FUNCTION bench_stored();
"""


@dataclass
class Committed:
    """When each (table, seq) was seen committed (time.time()), from the probe's NOTIFYs."""

    at: dict[tuple[str, int], float] = field(default_factory=dict)
    highest: dict[str, int] = field(default_factory=dict)

    def take(self, payload: str, now: float) -> None:
        for part in payload.split(","):
            table, lo, hi = part.rsplit(" ", 2)
            for seq in range(int(lo), int(hi) + 1):
                self.at.setdefault((table, seq), now)
            self.highest[table] = max(self.highest.get(table, 0), int(hi))


async def listen(dsn: str, committed: Committed, done: asyncio.Event) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        await conn.execute("LISTEN bench_stored")
        gen = conn.notifies()
        waiting = asyncio.ensure_future(done.wait())
        while not done.is_set():
            nxt = asyncio.ensure_future(anext(gen))
            await asyncio.wait((nxt, waiting), return_when=asyncio.FIRST_COMPLETED)
            if nxt.done():
                committed.take(nxt.result().payload, time.time())
            else:
                nxt.cancel()
        waiting.cancel()


def write_floor_toml(
    folder: Path, nats_server: NatsServer, pg: PostgresServer, db: FloorDb
) -> Path:
    (folder / "nats.password").write_text(nats_server.floor_user.password + "\n")
    (folder / "postgres.password").write_text(db.writer_password + "\n")
    path = folder / "floor.toml"
    path.write_text(
        "[nats]\n"
        f'servers = ["{nats_server.url}"]\nuser = "{nats_server.floor_user.user}"\n'
        'password_file = "nats.password"\n'
        "[postgres]\n"
        f'host = "127.0.0.1"\nport = {pg.port}\ndbname = "{db.dbname}"\n'
        'password_file = "postgres.password"\n'
        f"[serve]\nbatch = {BATCH}\n"
    )
    return path


class FloorProcess:
    """A ``tablectl floor`` command in its own process, its log in a file; started once
    ``ready`` says so (looked at every 50 ms, up to a minute)."""

    def __init__(self, config: Path, command: str, ready: Callable[[], bool]) -> None:
        self.log = config.parent / f"floor-{command}.log"
        self._out = self.log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", command, "--config", str(config)],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while not ready():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"floor {command} did not start:\n{self.log.read_text()}")
            time.sleep(0.05)

    def rss_kib(self) -> int:
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self._out.close()


class FloorServe(FloorProcess):
    """``tablectl floor serve``, started once it logs ``floor_serving``."""

    def __init__(self, config: Path) -> None:
        super().__init__(config, "serve", lambda: "floor_serving" in self.log.read_text())


@dataclass
class LagFigures:
    tables: int
    records: int
    seconds: float
    lags: list[float]

    def line(self, label: str) -> str:
        cuts = statistics.quantiles(self.lags, n=100, method="inclusive")
        return (
            f"{label}: {self.tables} tables, {self.records} records in {self.seconds:.0f} s "
            f"({self.records / self.seconds:.0f}/s), lag p50 {cuts[49] * 1000:.0f} ms, "
            f"p99 {cuts[98] * 1000:.0f} ms, max {max(self.lags) * 1000:.0f} ms"
        )


def measure_lag(
    postgres: PostgresServer, folder: Path, tables: int, seconds: float, pace: str
) -> LagFigures:
    """Tables appending for ``seconds`` (``pace`` "dealer" or "full"), forwarded, stored."""
    names = [table_name(n) for n in range(1, tables + 1)]
    nats_server = NatsServer(folder / "nats", tuple(names))
    nats_server.start()
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(_PROBE.encode())
    floor = FloorServe(write_floor_toml(folder, nats_server, postgres, db))
    spec = folder / "spec.json"
    journals = folder / "journals"
    users = {}
    for name in names:
        user = nats_server.table_user(name)
        secret = folder / f"{name}.password"
        secret.write_text(user.password + "\n")
        secret.chmod(0o600)  # the forwarder refuses a password file others may read
        users[name] = user.user
    spec.write_text(
        json.dumps(
            {
                "url": nats_server.url,
                "tables": names,
                "users": users,
                "folder": str(folder),
                "journals": str(journals),
                "seconds": seconds,
                "pace": pace,
            }
        )
    )
    committed = Committed()
    try:
        asyncio.run(_run_lag(db.owner, spec, committed, names, journals))
    finally:
        floor.stop()
        nats_server.stop()
    return _lags(names, journals, committed, seconds)


async def _run_lag(
    dsn: str, spec: Path, committed: Committed, names: list[str], journals: Path
) -> None:
    done = asyncio.Event()
    listening = asyncio.ensure_future(listen(dsn, committed, done))
    me = [sys.executable, __file__]
    forwarders = await asyncio.create_subprocess_exec(*me, "--role", "forwarders", str(spec))
    writers = await asyncio.create_subprocess_exec(*me, "--role", "tables", str(spec))
    try:
        if await writers.wait() != 0:
            raise RuntimeError("the tables' writer failed")
        last = {name: _last_seq(journals / name) for name in names}
        deadline = time.monotonic() + PATIENCE
        while any(committed.highest.get(n, 0) < seq for n, seq in last.items()):
            if time.monotonic() > deadline or forwarders.returncode is not None:
                raise RuntimeError("the floor did not store every record in time")
            await asyncio.sleep(0.1)
    finally:
        if forwarders.returncode is None:
            forwarders.send_signal(signal.SIGTERM)
        await forwarders.wait()
        done.set()
        await listening


def _last_seq(directory: Path) -> int:
    last = 0
    for record in JournalReader(directory):
        last = record.seq
    return last


def _lags(names: list[str], journals: Path, committed: Committed, seconds: float) -> LagFigures:
    lags: list[float] = []
    first: float | None = None
    for name in names:
        for record in JournalReader(journals / name):
            ts = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC).timestamp()
            first = ts if first is None else min(first, ts)
            lags.append(committed.at[(name, record.seq)] - ts)
    assert first is not None
    # Each table's records after the warm-up (the lags list is in the same order as this walk).
    counted: list[float] = []
    at = 0
    for name in names:
        for record in JournalReader(journals / name):
            ts = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC).timestamp()
            if ts >= first + WARM_UP:
                counted.append(lags[at])
            at += 1
    return LagFigures(len(names), len(lags), seconds, counted)


# The two child processes of a lag run.


def role_tables(spec: dict[str, object]) -> None:
    """Append to every table's journal for ``seconds``: at a dealer's pace (each table its own
    random interval in PACE) or at full speed (each table in turn, as fast as this goes)."""
    names = [str(n) for n in spec["tables"]]  # type: ignore[attr-defined]
    records = sample(3).records
    writers = {
        name: JournalWriter.open(Path(str(spec["journals"])) / name, fsync=False) for name in names
    }
    rng = random.Random(7)
    at = dict.fromkeys(names, 0)
    end = time.monotonic() + float(spec["seconds"])  # type: ignore[arg-type]

    def append(name: str) -> None:
        kind, data = records[at[name] % len(records)]
        at[name] += 1
        writers[name].append(kind, data, sync=False)

    try:
        if spec["pace"] == "full":
            while time.monotonic() < end:
                for name in names:
                    append(name)
        else:
            due = [(time.monotonic() + rng.uniform(*PACE), name) for name in names]
            heapq.heapify(due)
            while (now := time.monotonic()) < end:
                when, name = due[0]
                if when > now:
                    time.sleep(when - now)
                    continue
                append(name)
                heapq.heapreplace(due, (when + rng.uniform(*PACE), name))
    finally:
        for writer in writers.values():
            writer.close()


def role_forwarders(spec: dict[str, object]) -> None:
    """One real ``Forwarder`` per table, all in this process's event loop, until SIGTERM."""
    folder = Path(str(spec["folder"]))
    configure_logging(
        LogSettings(level=LogLevel.WARNING, file=folder / "forwarders.log"), table_id="BENCH"
    )
    users: dict[str, str] = spec["users"]  # type: ignore[assignment]

    async def main() -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        tasks = []
        for name, user in users.items():
            settings = FloorLinkSettings((str(spec["url"]),), user, folder / f"{name}.password")
            journal = Path(str(spec["journals"])) / name
            tasks.append(asyncio.ensure_future(Forwarder(name, journal, settings).run()))
        await stop.wait()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


# ---------------------------------------------------------------------------------------------
# Memory


async def _publish_all(
    url: str, users: dict[str, tuple[str, str, str]], work: list[Arrival]
) -> None:
    """Publish ``work`` as each table would (its user, its subject, its message ids)."""
    clients = {}
    for table, (user, password, inbox) in users.items():
        clients[table] = await nats.connect(url, user=user, password=password, inbox_prefix=inbox)
    try:
        for n, arrival in enumerate(work):
            table = arrival.subject.removeprefix("tablectl.journal.")
            assert arrival.message_id is not None
            await clients[table].publish(
                arrival.subject, arrival.line, headers={"Nats-Msg-Id": arrival.message_id}
            )
            if n % 5000 == 4999:
                await asyncio.gather(*(c.flush() for c in clients.values()))
        await asyncio.gather(*(c.flush() for c in clients.values()))
    finally:
        for client in clients.values():
            await client.close()


def measure_memory(
    postgres: PostgresServer,
    folder: Path,
    records: Sequence[tuple[str, JsonObject]],
    tables: int,
    checkpoints: Sequence[int],
) -> list[tuple[int, int]]:
    """The floor's RSS (KiB) as its store passes each of ``checkpoints`` records."""
    names = [table_name(n) for n in range(1, tables + 1)]
    nats_server = NatsServer(folder / "nats", tuple(names))
    nats_server.start()
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        conn.execute(_PROBE.encode())
    floor = FloorServe(write_floor_toml(folder, nats_server, postgres, db))
    per_table = -(-max(checkpoints) // tables)
    if per_table > len(records):
        raise ValueError(f"{tables} tables of {len(records)} records hold no {max(checkpoints)}")
    journals = {name: journal_lines(records[:per_table], n) for n, name in enumerate(names)}
    work = interleaved(journals, run=50)
    users = {}
    for name in names:
        user = nats_server.table_user(name)
        users[name] = (user.user, user.password, user.inbox_prefix)
    committed = Committed()
    readings: list[tuple[int, int]] = []

    async def run() -> None:
        done = asyncio.Event()
        listening = asyncio.ensure_future(listen(db.owner, committed, done))
        publishing = asyncio.ensure_future(_publish_all(nats_server.url, users, work))
        wanted = sorted(checkpoints)
        stored, moved = 0, time.monotonic()
        while wanted:
            if stored != (now := sum(committed.highest.values())):
                stored, moved = now, time.monotonic()
            if stored >= wanted[0]:
                readings.append((wanted.pop(0), floor.rss_kib()))
                print(
                    f"  (floor serve's RSS after {readings[-1][0]} records: {readings[-1][1]} KiB)"
                )
            elif time.monotonic() - moved > STALLED or floor.process.poll() is not None:
                raise RuntimeError(f"the floor stopped storing at {stored} records")
            else:
                await asyncio.sleep(0.05)
        await publishing
        done.set()
        await listening

    try:
        asyncio.run(run())
    finally:
        floor.stop()
        nats_server.stop()
    return readings


# ---------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run: no measurement")
    parser.add_argument(
        "--part", action="append", choices=("ingest", "lag", "memory"), help="default: all"
    )
    parser.add_argument("--role", choices=("tables", "forwarders"), help=argparse.SUPPRESS)
    parser.add_argument("spec", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role is not None:
        spec = json.loads(args.spec.read_text())
        (role_tables if args.role == "tables" else role_forwarders)(spec)
        return 0
    parts = args.part or ["ingest", "lag", "memory"]
    quick = args.quick
    print(f"load average at the start: {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    with durable_postgres() as postgres, tempfile.TemporaryDirectory() as folder:
        made = sample(3 if quick else 30)
        print(f"a simulated table: {len(made.records)} records, made at {made.per_second:.0f}/s")
        if "ingest" in parts:
            tables = 4 if quick else 20
            journals = {table_name(n): journal_lines(made.records, n) for n in range(1, tables + 1)}
            for rate in measure_ingest(postgres, journals, 1 if quick else 3):
                print(
                    f"ingest: {rate.records} records of {tables} tables in batches of {BATCH}: "
                    f"floor {rate.ingest_per_second:.0f}/s, plain COPY "
                    f"{rate.copy_per_second:.0f}/s: {rate.ratio:.0%} of COPY (target 50%)"
                )
        if "lag" in parts:
            runs = [(200, "dealer"), (20, "full")] if not quick else [(5, "dealer"), (2, "full")]
            for n, (tables, pace) in enumerate(runs):
                sub = Path(folder) / f"lag-{n}"
                sub.mkdir()
                seconds = 8 if quick else (60 if pace == "dealer" else 20)
                figures = measure_lag(postgres, sub, tables, seconds, pace)
                label = (
                    f"lag at a dealer's pace ({PACE_WHY})"
                    if pace == "dealer"
                    else "lag at full speed"
                )
                print(figures.line(label))
        if "memory" in parts:
            checkpoints = (1_000, 3_000) if quick else (10_000, 100_000, 1_000_000)
            long = made if quick else sample(100)
            for records, kib in measure_memory(
                postgres, Path(folder) / "memory", long.records, 10 if quick else 100, checkpoints
            ):
                print(f"memory: floor serve's RSS after {records} records: {kib / 1024:.1f} MiB")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
