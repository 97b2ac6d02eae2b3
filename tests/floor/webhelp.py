"""Helpers of the web view's tests: a floor set up with its users, ``floor web`` as a subprocess of
the real CLI, a client that keeps the session cookie, and a reader of the server-sent events."""

from __future__ import annotations

import asyncio
import functools
import http.client
import json
import re
import secrets
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any, Final

import nats
import psycopg
from argon2 import PasswordHasher, profiles
from floorhelp import (
    PATIENCE,
    FloorDb,
    FloorProcess,
    arrivals,
    floor_database,
    tablectl,
    write_floor_toml,
)
from logread import whole_lines
from psycopg.conninfo import make_conninfo

from controller.floor import store
from controller.floor.web import dbschema as web_schema
from controller.floor.web import users
from controller.floor.web.auth import COOKIE
from controller.floor.web.webtoml import DEFAULT_USER
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import GENESIS, make_record_line, parse_line
from controller.poker.announce import hidden_cards
from simulator.servers import free_port, listens
from simulator.servers_nats import NatsServer, NatsUser
from simulator.servers_pg import PostgresServer

PASSWORD: Final = "correct horse battery"
ROLES: Final = ("supervisor", "surveillance", "auditor", "admin", "broadcaster")
#: The web's role is the cluster's, as the store's are: one password a run.
WEB_PASSWORD: Final = secrets.token_hex(8)


@dataclass(frozen=True)
class WebFloor:
    config: Path
    db: FloorDb
    port: int

    @property
    def web_dsn(self) -> str:
        """The web view's own role (``[web] user``, tablectl_web), as floor web connects."""
        return make_conninfo(self.db.owner, user=DEFAULT_USER, password=WEB_PASSWORD)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def web_floor(
    tmp_path: Path,
    nats: NatsServer,
    postgres: PostgresServer,
    web: str = "",
    *,
    own_nats: bool = True,
    users_by_cli: bool = False,
) -> WebFloor:
    """A floor database (the store's and the web's schema, the web's role tablectl_web with the
    password WEB_PASSWORD), floor.toml with [web], and one user of each role (named after it,
    password PASSWORD). The web follows the stream as its own NATS user ([web.nats]), unless
    ``own_nats`` is False (then as the floor's, [nats]'s).

    The users are written as ``floor user add`` writes them, with PASSWORD's hash made once a
    run (``add_users``); ``users_by_cli`` adds each by ``tablectl floor user add`` instead, a
    process of about a second of CPU each (test_web.py does it once, for every role)."""
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)
        store.set_password(conn, DEFAULT_USER, WEB_PASSWORD)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    (tmp_path / "web.secret").write_text(secrets.token_hex(32) + "\n")
    (tmp_path / "web.password").write_text(WEB_PASSWORD + "\n")
    (tmp_path / "web-nats.password").write_text(nats.web_user.password + "\n")
    port = free_port()
    with config.open("a") as out:
        out.write(
            f'[web]\nport = {port}\nsecret_file = "web.secret"\npassword_file = "web.password"\n'
            f"{web}"
        )
        if own_nats:
            out.write(
                f'[web.nats]\nuser = "{nats.web_user.user}"\npassword_file = "web-nats.password"\n'
            )
    (tmp_path / "user.password").write_text(PASSWORD + "\n")
    if users_by_cli:
        for role in ROLES:
            password = tmp_path / "user.password"
            user(config, db, "add", role, "--role", role, "--password-file", password)
    else:
        add_users(db, ROLES)
    return WebFloor(config, db, port)


@functools.cache
def password_hash() -> str:
    """PASSWORD hashed with Argon2id at argon2-cffi's cheapest parameters (``profiles.CHEAPEST``,
    the library's profile for tests: 8 KiB, one pass), once a run.

    Why not the web's own hasher (argon2-cffi's defaults, 64 MiB and three passes): each login
    verifies the user's hash, and at the defaults that is 0.2 s of CPU by design, a few hundred
    times a run of the suite. A hash carries its parameters, and the web verifies with them
    whatever its hasher's (``users.check_password``: argon2-cffi's ``verify`` reads them from the
    hash), so a login checks the same code and the same password either way. The web never
    rehashes at a login (``check_needs_rehash`` is not called), so a test user's hash stays as
    written. The product's own strength stays tested where the product makes a hash: ``floor
    user add`` (test_web.py's roles test adds every role by the command line), an admin's new
    user and a user's new password (test_web_admin.py, test_web_account.py: the web's hashes
    are checked for its hasher's parameters), and ``users.hash_password`` (test_web_unit.py).
    docs/testing.md, Where the default suite's time goes."""
    return PasswordHasher.from_parameters(profiles.CHEAPEST).hash(PASSWORD)


def at_full_strength(db: FloorDb, name: str) -> bool:
    """Whether ``name``'s stored hash is Argon2id at argon2-cffi's defaults, the web's hasher's
    parameters (docs/floor-web.md, Users and roles): for a hash the product made, since the
    tests' own users carry a cheaper one (``password_hash``)."""
    with psycopg.connect(db.owner) as conn:
        row = conn.execute(
            "SELECT password_hash FROM web.users WHERE name = %s", (name,)
        ).fetchone()
    assert row is not None, name
    hashed = str(row[0])
    return hashed.startswith("$argon2id$") and not PasswordHasher().check_needs_rehash(hashed)


def add_users(db: FloorDb, names: Sequence[str]) -> None:
    """A user of each name, its role the name, password PASSWORD: the row ``users.add`` (what
    ``floor user add`` runs) inserts, as the database owner, with the hash made once."""
    with psycopg.connect(db.owner, autocommit=True) as conn:
        for name in names:
            conn.execute(
                "INSERT INTO web.users (name, role, password_hash) VALUES (%s, %s, %s)",
                (users.check_name(name), users.check_role(name), password_hash()),
            )


def user(config: Path, db: FloorDb, *args: str | Path) -> subprocess.CompletedProcess[str]:
    done = tablectl("floor", "user", "--config", config, "--owner-dsn", db.owner, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


class WebProcess:
    """``tablectl floor web`` as a subprocess, answering once ``/login`` does."""

    def __init__(self, floor: WebFloor, tls: ssl.SSLContext | None = None) -> None:
        self.floor = floor
        self.tls = tls
        self.log = floor.config.parent / f"web-{id(self)}.log"
        self._out = self.log.open("w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", "web", "--config", str(floor.config)],
            stdout=self._out,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + PATIENCE
        # Answering is not enough: another worker's floor web may hold the port free_port gave
        # (ours then fails to bind), and a login there is to another floor's users.
        while not (self._answers() and listens(self.process.pid, floor.port)):
            if self.process.poll() is not None:
                raise AssertionError(f"floor web exited:\n{self.log.read_text()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"floor web not answering:\n{self.log.read_text()}")
            time.sleep(0.05)

    def _answers(self) -> bool:
        try:
            return Client(self.floor.port, tls=self.tls).get("/login").status == 200
        except OSError:
            return False

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout=PATIENCE)
        self._out.close()
        return code


def log_lines(log: Path) -> list[dict[str, Any]]:
    """The JSON lines of a running process's log (``WebProcess.log``) so far, each whole
    (logread.whole_lines; uvicorn's own words before the log is set up passed over)."""
    return whole_lines(log, json_only=True)


@contextmanager
def serving(floor: WebFloor) -> Iterator[tuple[FloorProcess, WebProcess]]:
    """``floor serve`` (once it logs ``floor_serving``) and ``floor web`` (once it answers) for
    the block; both stopped after it, each of which must then exit 0."""
    server = FloorProcess(floor.config)
    try:
        server.wait_for_log("floor_serving")
        web = WebProcess(floor)
    except BaseException:
        server.stop()
        raise
    try:
        yield server, web
    finally:
        web_exit, server_exit = web.stop(), server.stop()
    assert web_exit == 0, web.log.read_text()
    assert server_exit == 0, server.text()


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode()


@dataclass
class Client:
    """HTTP to the view on loopback, keeping the session cookie as a browser does."""

    port: int
    cookie: str | None = None
    address: str = "127.0.0.1"
    sent: list[bytes] = field(default_factory=list)
    #: HTTPS with this context (None: plain HTTP).
    tls: ssl.SSLContext | None = None

    def request(self, method: str, path: str, form: dict[str, str] | None = None) -> Reply:
        connection = (
            http.client.HTTPSConnection(self.address, self.port, timeout=PATIENCE, context=self.tls)
            if self.tls is not None
            else http.client.HTTPConnection(self.address, self.port, timeout=PATIENCE)
        )
        headers = {"cookie": f"{COOKIE}={self.cookie}"} if self.cookie else {}
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            headers["content-type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            reply = Reply(
                response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
            )
        finally:
            connection.close()
        self._keep(reply.headers.get("set-cookie"))
        self.sent.append(reply.body)
        return reply

    def _keep(self, header: str | None) -> None:
        if header is None:
            return
        morsel = SimpleCookie(header).get(COOKIE)
        if morsel is not None:
            self.cookie = morsel.value or None

    def get(self, path: str) -> Reply:
        return self.request("GET", path)

    def post(self, path: str, form: dict[str, str]) -> Reply:
        return self.request("POST", path, form)

    def csrf(self, path: str = "/login") -> str:
        found = re.search(r'name="csrf_token" value="([^"]+)"', self.get(path).text)
        assert found, "no CSRF token in the form"
        return found.group(1)

    def login(self, name: str, password: str = PASSWORD) -> Reply:
        return self.post("/login", {"user": name, "password": password, "csrf_token": self.csrf()})


class Events:
    """``/floor/events`` (or another feed, ``path``) read as a browser's EventSource does: every
    byte kept (``raw``)."""

    def __init__(self, client: Client, path: str = "/floor/events") -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=PATIENCE)
        self.connection.request("GET", path, headers={"cookie": f"{COOKIE}={client.cookie}"})
        self.response = self.connection.getresponse()
        self.raw = b""
        self.events: list[tuple[str, object]] = []
        #: Each event's ``data:`` line as sent, beside ``events``.
        self.data: list[bytes] = []
        #: Each table's last row sent (a snapshot's, or a later ``table`` event's).
        self.rows: dict[str, dict[str, object]] = {}

    def next(self) -> tuple[str, object]:
        """The next event (a heartbeat skipped); a socket timeout after PATIENCE fails the test."""
        event, data, sent = "", "", b""
        while True:
            line = self.response.readline()
            if not line:
                raise AssertionError(f"the event stream ended: {self.raw[-500:]!r}")
            self.raw += line
            text = line.decode().rstrip("\n")
            if text.startswith("event: "):
                event = text[7:]
            elif text.startswith("data: "):
                data, sent = text[6:], line
            elif text.startswith(":"):
                return ("heartbeat", None)  # a comment: lets ``until`` see its deadline
            elif text == "" and event:
                self.events.append((event, json.loads(data)))
                self.data.append(sent)
                self._track(*self.events[-1])
                return self.events[-1]

    def _track(self, event: str, data: object) -> None:
        if event == "snapshot" and isinstance(data, list):
            self.rows = {str(row["table_id"]): row for row in data}
        elif event == "table" and isinstance(data, dict):
            self.rows[str(data["table_id"])] = data

    def until_rows(
        self, ready: Callable[[dict[str, dict[str, object]]], bool], what: str
    ) -> dict[str, dict[str, object]]:
        """The rows once ``ready(rows)`` holds: at once if the events read so far show it
        (an earlier wait may have read the event that made it true), else checked after each
        event. Not the next event first: none may come before the next heartbeat, 15 s on."""
        if not ready(self.rows):
            self.until(lambda _e, _d: ready(self.rows), what)
        return self.rows

    def until(self, ready: Callable[[str, object], bool], what: str) -> tuple[str, object]:
        """The first event ``ready`` accepts; fails after PATIENCE (heartbeats keep the socket
        busy, so its timeout alone would not end the wait)."""
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            event, data = self.next()
            if ready(event, data):
                return event, data
        raise AssertionError(f"no {what} within {PATIENCE} s; rows {self.rows}")

    def close(self) -> None:
        self.connection.close()


def publish_records(
    url: str, user: NatsUser, table_id: str, lines: list[bytes], *, first: int, last: int
) -> None:
    """Publish records ``first`` to ``last`` of ``lines`` as the table's forwarder does."""

    async def run() -> None:
        client = await nats.connect(
            url, user=user.user, password=user.password, inbox_prefix=user.inbox_prefix
        )
        try:
            js = client.jetstream()
            for arrival in arrivals(table_id, lines, range(first, last + 1)):
                assert arrival.message_id is not None
                await js.publish(
                    arrival.subject, arrival.line, headers={"Nats-Msg-Id": arrival.message_id}
                )
        finally:
            await client.close()

    asyncio.run(run())


def hidden_of(lines: list[bytes]) -> set[str]:
    """Every card of ``lines`` no player may see (controller/poker/announce.py ``hidden_cards``)."""
    cards: set[str] = set()
    for line in lines:
        record = parse_line(line)
        if record.kind in rec.DECISIONS:
            for event in schema.decode_events(record):
                cards.update(hidden_cards(event))
    return cards


_CARD: Final = re.compile(rb"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")


def cards_in(text: bytes) -> set[str]:
    """The card codes (rank and suit: 7c, Td) standing alone as words in ``text``."""
    return {card.decode() for card in _CARD.findall(text)}


def retimed(lines: list[bytes], start: datetime) -> list[bytes]:
    """``lines`` moved in time so that the first record is at ``start`` (each keeps its distance
    from the first), the chain hashed anew: a journal written at a chosen time."""
    first = _moment(parse_line(lines[0]).ts)
    out: list[bytes] = []
    prev = GENESIS
    for line in lines:
        record = parse_line(line)
        moment = start + (_moment(record.ts) - first)
        new, text = make_record_line(record.seq, moment, record.kind, dict(record.data), prev)
        out.append(text.rstrip(b"\n"))
        prev = new.hash
    return out


def _moment(ts: str) -> datetime:
    return datetime.fromisoformat(ts.removesuffix("Z")).replace(tzinfo=UTC)


def schema_problems(value: Any, node: dict[str, Any], root: dict[str, Any], path: str) -> list[str]:
    """Where ``value`` breaks the JSON Schema ``node`` (of ``root``): the keywords the
    published schemas use (docs/schema/*.json), each checked."""
    if "$ref" in node:
        return schema_problems(value, root["$defs"][node["$ref"].split("/")[-1]], root, path)
    if "const" in node and value != node["const"]:
        return [f"{path}: {value!r} is not {node['const']!r}"]
    if "enum" in node and value not in node["enum"]:
        return [f"{path}: {value!r} is not one of {node['enum']}"]
    options = node.get("anyOf", ())
    if options and all(schema_problems(value, option, root, path) for option in options):
        return [f"{path}: {value!r:.80} fits none of its anyOf"]
    kind = node.get("type")
    types = {
        "object": dict,
        "array": list,
        "string": str,
        "integer": int,
        "boolean": bool,
        "null": type(None),
    }
    if kind is not None and (
        not isinstance(value, types[kind]) or (kind == "integer" and isinstance(value, bool))
    ):
        return [f"{path}: {value!r:.80} is not of type {kind}"]
    out: list[str] = []
    if kind == "object":
        properties = node.get("properties", {})
        out += [f"{path}: {n} is missing" for n in node.get("required", ()) if n not in value]
        for name, item in value.items():
            if name in properties:
                out += schema_problems(item, properties[name], root, f"{path}.{name}")
            elif node.get("additionalProperties") is False:
                out.append(f"{path}: {name} is not allowed")
    if kind == "array" and isinstance(node.get("items"), dict):
        for i, item in enumerate(value):
            out += schema_problems(item, node["items"], root, f"{path}[{i}]")
    return out
