"""The floor web view under load (docs/floor-web.md, The load benchmark).

    python benchmarks/floor_web.py [--quick] [--tables 200] [--seconds 60] [--hour-records N]

On throwaway servers started here (PostgreSQL with fsync on, nats-server), with benchmarks/
floor.py's lag harness: the tables append with the real ``JournalWriter`` in one process, one
real ``Forwarder`` per table runs in another, the floor is the real ``tablectl floor serve`` and
the view the real ``tablectl floor web``; an SSE client logged in as a supervisor reads
``/floor/events`` as a browser's EventSource does.

- **lag**: 200 tables at a dealer's pace (floor.py's PACE) for ``--seconds``: from a record's
  append (its ``ts``) to the first ``table`` event whose row's ``records`` (the table's stored
  head) reaches it, as the SSE client receives it; p50 and p99 against the target (p99 < 1 s);
- **memory**: then an hour of the same tables' play (``--hour-records``, 200 tables at the
  pace's mean, 1.33 records a second each: 960,000 records) appended as fast as the floor
  stores it, the hour compressed in time (said in the output); floor web's resident memory
  (VmRSS) read at each tenth of it; the ratio of the last reading to the first (taken at the
  first tenth, once the process has its caches) against the target (within 10%).

``--quick`` runs it tiny (tests/floor/test_floor_web_benchmark.py, so that it cannot rot): its
figures are no measurement.
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import http.client
import json
import os
import random
import re
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))  # floor.py, the lag harness

import floor as harness
import psycopg

from controller.floor import store
from controller.floor.web import dbschema as web_schema
from controller.floor.web import users
from controller.floor.web.webtoml import DEFAULT_USER
from controller.journal import JournalReader, JournalWriter
from simulator.servers import free_port
from simulator.servers_nats import NatsServer, NatsUser
from simulator.servers_pg import PostgresServer

#: The targets (docs/floor-web.md, The load benchmark).
LAG_P99 = 1.0
MEMORY_RATIO = 0.10
#: An hour of one table's play at the pace's mean: one record every 0.75 s.
PER_TABLE_HOUR = round(3600 / (sum(harness.PACE) / 2))
#: Memory readings: one at each tenth of the hour's records the view has shown.
READINGS = 10
SUPERVISOR = "supervisor"


# ---------------------------------------------------------------------------------------------
# The SSE client: a supervisor's browser


@dataclass
class Seen:
    """Each table's stored head as the feed showed it: (time.time(), head) in arrival order."""

    heads: dict[str, list[tuple[float, int]]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: The event stream ended before the run did (floor web dropped the client).
    ended: bool = False

    def take(self, at: float, row: dict[str, object]) -> None:
        table, head = str(row["table_id"]), int(str(row["records"]))
        with self.lock:
            shown = self.heads.setdefault(table, [])
            if not shown or head > shown[-1][1]:
                shown.append((at, head))

    def head(self, table: str) -> int:
        with self.lock:
            shown = self.heads.get(table)
            return shown[-1][1] if shown else 0

    def total(self) -> int:
        with self.lock:
            return sum(shown[-1][1] for shown in self.heads.values() if shown)

    def shown_at(self, table: str, seq: int) -> float | None:
        """When the feed first showed the table's head at ``seq`` or past it."""
        with self.lock:
            shown = self.heads.get(table, [])
            at = bisect.bisect_left([head for _, head in shown], seq)
            return shown[at][0] if at < len(shown) else None


def login(port: int, password: str) -> str:
    """The session cookie of the supervisor logged in (the login form, its CSRF token)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", "/login")
    reply = connection.getresponse()
    page = reply.read().decode()
    cookie = str(reply.getheader("set-cookie")).split(";")[0]
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token, "no CSRF token on the login page"
    form = urllib.parse.urlencode(
        {"user": SUPERVISOR, "password": password, "csrf_token": token.group(1)}
    )
    headers = {"cookie": cookie, "content-type": "application/x-www-form-urlencoded"}
    connection.request("POST", "/login", body=form, headers=headers)
    reply = connection.getresponse()
    reply.read()
    connection.close()
    if reply.status != 303:
        raise RuntimeError(f"the supervisor's login was refused ({reply.status})")
    return str(reply.getheader("set-cookie")).split(";")[0]


def follow(port: int, cookie: str, seen: Seen, stop: threading.Event) -> None:
    """Read ``/floor/events`` until ``stop``: every snapshot's and table event's rows."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", "/floor/events", headers={"cookie": cookie})
    reply = connection.getresponse()
    event = ""
    while not stop.is_set():
        line = reply.readline()
        if not line:
            if not stop.is_set():  # floor web stopping at the end ends it too
                seen.ended = True
            break
        text = line.decode().rstrip("\n")
        if text.startswith("event: "):
            event = text[7:]
        elif text.startswith("data: "):
            now = time.time()
            data = json.loads(text[6:])
            for row in data if event == "snapshot" else [data] if event == "table" else []:
                seen.take(now, row)
    connection.close()


# ---------------------------------------------------------------------------------------------
# The processes


class FloorWeb(harness.FloorProcess):
    """``tablectl floor web``, started once its login page answers."""

    def __init__(self, config: Path, port: int) -> None:
        super().__init__(config, "web", lambda: _answers(port))


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/login")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def role_tables(spec: dict[str, object]) -> None:
    """Every table at a dealer's pace for ``seconds``, then the hour's ``records`` (in all) as
    fast as this goes, each table in turn."""
    names = [str(n) for n in spec["tables"]]  # type: ignore[attr-defined]
    records = harness.sample(3).records
    writers = {
        name: JournalWriter.open(Path(str(spec["journals"])) / name, fsync=False) for name in names
    }
    rng = random.Random(7)
    at = dict.fromkeys(names, 0)

    def append(name: str) -> None:
        kind, data = records[at[name] % len(records)]
        at[name] += 1
        writers[name].append(kind, data, sync=False)

    try:
        end = time.monotonic() + float(spec["seconds"])  # type: ignore[arg-type]
        due = [(time.monotonic() + rng.uniform(*harness.PACE), name) for name in names]
        heapq.heapify(due)
        while (now := time.monotonic()) < end:
            when, name = due[0]
            if when > now:
                time.sleep(when - now)
                continue
            append(name)
            heapq.heapreplace(due, (when + rng.uniform(*harness.PACE), name))
        Path(str(spec["paced"])).write_text(json.dumps(at))  # the lag's records: these
        hour = int(str(spec["records"]))
        while sum(at.values()) < hour:
            for name in names:
                append(name)
    finally:
        for writer in writers.values():
            writer.close()


# ---------------------------------------------------------------------------------------------
# A run


@dataclass
class Figures:
    tables: int
    lags: list[float]
    hour_records: int
    hour_seconds: float
    #: (records shown, floor web's VmRSS in KiB) at each tenth of the hour.
    readings: list[tuple[int, int]]

    def _play(self) -> str:
        """How much play the records are at the pace's mean: the hour, or the minutes of it a
        shorter ``--hour-records`` gives (said as it is, never called an hour)."""
        minutes = 60 * self.hour_records / (self.tables * PER_TABLE_HOUR)
        return "an hour of play" if minutes >= 59.5 else f"{minutes:.0f} minutes of play"

    def lines(self) -> list[str]:
        cuts = statistics.quantiles(self.lags, n=100, method="inclusive")
        p50, p99 = cuts[49], cuts[98]
        first, last = self.readings[0][1], self.readings[-1][1]
        ratio = last / first
        return [
            f"lag, {self.tables} tables at a dealer's pace ({harness.PACE_WHY}): "
            f"{len(self.lags)} records, from the append to the supervisor's SSE event: "
            f"p50 {p50 * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, max {max(self.lags) * 1000:.0f} "
            f"ms (target p99 < {LAG_P99 * 1000:.0f} ms: {'met' if p99 < LAG_P99 else 'NOT met'})",
            f"memory: {self._play()} of {self.tables} tables ({self.hour_records} records) "
            f"compressed into {self.hour_seconds:.0f} s (appended as fast as the floor stored "
            "them); floor web's VmRSS at each tenth: "
            + ", ".join(f"{kib / 1024:.1f}" for _, kib in self.readings)
            + f" MiB; last/first {ratio:.3f} (target within {MEMORY_RATIO:.0%}: "
            f"{'met' if abs(ratio - 1) <= MEMORY_RATIO else 'NOT met'})",
        ]


def setup_web(folder: Path, db: harness.FloorDb, config: Path, nats: NatsUser) -> tuple[int, str]:
    """The web's schema, role and a supervisor; floor.toml's [web], the web following the
    stream as ``nats`` ([web.nats]). The port and the supervisor's password."""
    web_password, supervisor = secrets.token_hex(16), secrets.token_hex(16)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)
        store.set_password(conn, DEFAULT_USER, web_password)
        users.add(conn, SUPERVISOR, "supervisor", supervisor)
    files = {
        "web.secret": secrets.token_hex(32),
        "web.password": web_password,
        "web-nats.password": nats.password,
    }
    for name, secret in files.items():
        (folder / name).write_text(secret + "\n")
    port = free_port()
    with config.open("a") as toml:
        toml.write(
            f'[web]\nport = {port}\nsecret_file = "web.secret"\npassword_file = "web.password"\n'
            f'[web.nats]\nuser = "{nats.user}"\npassword_file = "web-nats.password"\n'
        )
    return port, supervisor


def measure(
    postgres: PostgresServer, folder: Path, tables: int, seconds: float, hour_records: int
) -> Figures:
    names = [harness.table_name(n) for n in range(1, tables + 1)]
    nats_server = NatsServer(folder / "nats", tuple(names))
    nats_server.start()
    db = harness.floor_database(postgres)
    config = harness.write_floor_toml(folder, nats_server, postgres, db)
    port, password = setup_web(folder, db, config, nats_server.web_user)
    floor = harness.FloorServe(config)
    web = FloorWeb(config, port)
    seen, stop = Seen(), threading.Event()
    journals = folder / "journals"
    spec = folder / "spec.json"
    forwarder_users = {}
    for name in names:
        user = nats_server.table_user(name)
        secret = folder / f"{name}.password"
        secret.write_text(user.password + "\n")
        secret.chmod(0o600)  # the forwarder refuses a password file others may read
        forwarder_users[name] = user.user
    paced = folder / "paced.json"
    spec.write_text(
        json.dumps(
            {
                "url": nats_server.url,
                "tables": names,
                "users": forwarder_users,
                "folder": str(folder),
                "journals": str(journals),
                "seconds": seconds,
                "records": hour_records,
                "paced": str(paced),
            }
        )
    )
    reader = threading.Thread(
        target=follow, args=(port, login(port, password), seen, stop), daemon=True
    )
    reader.start()
    forwarders = subprocess.Popen(
        [sys.executable, harness.__file__, "--role", "forwarders", str(spec)]
    )
    writers = subprocess.Popen([sys.executable, __file__, "--role", "tables", str(spec)])
    readings: list[tuple[int, int]] = []
    try:
        hour_began = _readings(
            writers,
            forwarders,
            seen,
            paced=paced,
            hour_records=hour_records,
            web=web,
            readings=readings,
        )
        hour_seconds = time.monotonic() - hour_began
    finally:
        for process in (writers, forwarders):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
        stop.set()
        web.stop()
        floor.stop()
        nats_server.stop()
    counts = json.loads(paced.read_text())
    return Figures(
        tables, _lags(names, journals, counts, seen), hour_records, hour_seconds, readings
    )


def _readings(
    writers: subprocess.Popen[bytes],
    forwarders: subprocess.Popen[bytes],
    seen: Seen,
    *,
    paced: Path,
    hour_records: int,
    web: FloorWeb,
    readings: list[tuple[int, int]],
) -> float:
    """Wait through the paced part, then read floor web's RSS at each tenth of the hour shown;
    returns when the hour began (time.monotonic())."""
    while not paced.exists():
        _alive(writers, forwarders, web)
        time.sleep(0.1)
    began = time.monotonic()
    start = sum(json.loads(paced.read_text()).values())
    marks = [start + (hour_records - start) * n // READINGS for n in range(1, READINGS + 1)]
    moved, last = time.monotonic(), seen.total()
    while marks:
        _alive(None if writers.poll() == 0 else writers, forwarders, web)
        if seen.ended:
            raise RuntimeError("floor web ended the supervisor's event stream")
        if (total := seen.total()) != last:
            moved, last = time.monotonic(), total
        if total >= marks[0]:
            readings.append((marks.pop(0), web.rss_kib()))
            print(
                f"  (floor web's VmRSS at {readings[-1][0]} records shown: {readings[-1][1]} KiB)"
            )
        elif time.monotonic() - moved > harness.STALLED:
            raise RuntimeError(f"the floor page showed nothing new past {total} records")
        else:
            time.sleep(0.05)
    return began


def _alive(
    writers: subprocess.Popen[bytes] | None, forwarders: subprocess.Popen[bytes], web: FloorWeb
) -> None:
    for name, process in (
        ("tables", writers),
        ("forwarders", forwarders),
        ("floor web", web.process),
    ):
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the {name} process ended ({process.returncode})")


def _lags(names: list[str], journals: Path, paced: dict[str, int], seen: Seen) -> list[float]:
    """Each paced record's lag after the warm-up: its append to the event that showed it."""
    stamped: list[tuple[str, int, float]] = []
    for name in names:
        for record in JournalReader(journals / name):
            if record.seq > paced[name]:
                break
            ts = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC).timestamp()
            stamped.append((name, record.seq, ts))
    first = min(ts for _, _, ts in stamped)
    lags = []
    for name, seq, ts in stamped:
        if ts < first + harness.WARM_UP:
            continue
        shown = seen.shown_at(name, seq)
        if shown is None:
            raise RuntimeError(f"table {name}'s record {seq} never reached the floor page")
        lags.append(shown - ts)
    return lags


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a tiny run: no measurement")
    parser.add_argument("--tables", type=int, default=200, help="simulated tables (default 200)")
    parser.add_argument(
        "--seconds", type=float, default=60.0, help="the paced part's length (default 60 s)"
    )
    parser.add_argument(
        "--hour-records", type=int, help=f"the hour's records (default tables x {PER_TABLE_HOUR})"
    )
    parser.add_argument("--role", choices=("tables",), help=argparse.SUPPRESS)
    parser.add_argument("spec", nargs="?", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role is not None:
        role_tables(json.loads(args.spec.read_text()))
        return 0
    tables = 2 if args.quick else args.tables
    seconds = harness.WARM_UP + 3 if args.quick else args.seconds
    hour = 600 if args.quick else args.hour_records or tables * PER_TABLE_HOUR
    print(f"load average at the start: {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    if args.quick:
        print("--quick: a tiny run, its figures no measurement")
    with harness.durable_postgres() as postgres, tempfile.TemporaryDirectory() as folder:
        figures = measure(postgres, Path(folder), tables, seconds, hour)
    print("\n".join(figures.lines()))
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
