"""The floor's throwaway servers (simulator/servers_nats.py, servers_pg.py, servers_tls.py): each
starts, takes a connection, restarts with its data, and refuses what it must (docs/floor.md,
Servers and credentials)."""

from __future__ import annotations

import asyncio
import json
import os
import select
import socket
import ssl
import subprocess
import sys
import time
import warnings
from collections.abc import Awaitable
from pathlib import Path

import nats
import nats.js.errors
import psycopg
import pytest
from nats.aio.msg import Msg
from nats.js import JetStreamContext
from nats.js.api import DeliverPolicy, RawStreamMsg, StreamConfig
from servershelp import NatsFactory

from controller.forwarder.subjects import (
    STREAM,
    STREAM_SUBJECTS,
    SubjectError,
    inbox_prefix_of,
    subject_of,
)
from simulator.servers import ServerError, binary
from simulator.servers_nats import NatsCluster, NatsServer, NatsUser
from simulator.servers_pg import PostgresServer
from simulator.servers_tls import TlsFiles

#: How long a test waits on one answer of a server: far past what it takes.
PATIENCE = 30.0


async def connect(server: NatsServer, user: NatsUser, **options: object) -> nats.NATS:
    errors: list[Exception] = []
    told = asyncio.Event()

    async def on_error(error: Exception) -> None:
        errors.append(error)
        told.set()

    client = await nats.connect(
        server.url,
        user=user.user,
        password=user.password,
        inbox_prefix=user.inbox_prefix,
        allow_reconnect=False,
        error_cb=on_error,
        connect_timeout=PATIENCE,
        **options,  # type: ignore[arg-type]
    )
    client.seen_errors = errors  # type: ignore[attr-defined]
    client.told = told  # type: ignore[attr-defined]
    return client


def said(errors: list[Exception]) -> str:
    """What the server said to a client, as nats-py reports it (lowered)."""
    return " ".join(str(error) for error in errors).lower()


async def refused(client: nats.NATS, asking: Awaitable[object], subject: str) -> None:
    """``asking`` (a publish, a JetStream API request) refused: the server's -ERR
    'Permissions Violation for Publish to "<subject>"' reaches ``client``, and no answer
    does. The wait is on that line, not on the request's timeout: a refused request is never
    answered, so waiting out a timeout only cost its seconds (docs/testing.md, Where the
    default suite's time goes)."""
    request = asyncio.ensure_future(asking)
    try:
        await told_to(client, f'permissions violation for publish to "{subject.lower()}"')
        # A round trip after the refusal: the server has handled the request, and no
        # answer came for it.
        await client.flush(timeout=PATIENCE)
        assert not request.done(), f"{subject}: answered after its refusal: {request}"
    finally:
        request.cancel()


async def told_to(client: nats.NATS, words: str) -> None:
    """Wait until the server's -ERR saying ``words`` (lowered) has reached ``client``'s error
    callback: nats-py runs the callback as a task of its own, so even a flush's PONG, which the
    server sends after the -ERR, may come back before the callback has run."""
    errors: list[Exception] = client.seen_errors  # type: ignore[attr-defined]
    told: asyncio.Event = client.told  # type: ignore[attr-defined]
    while words not in said(errors):
        told.clear()
        await asyncio.wait_for(told.wait(), PATIENCE)


async def make_stream(server: NatsServer) -> None:
    floor = await connect(server, server.floor_user)
    try:
        await floor.jetstream().add_stream(
            StreamConfig(name=STREAM, subjects=[STREAM_SUBJECTS], allow_direct=True)
        )
    finally:
        await floor.close()


def test_nats_takes_a_table_s_records_and_keeps_them_over_a_restart(
    nats_factory: NatsFactory,
) -> None:
    server = nats_factory(("T1", "T2"))

    async def publish() -> int:
        await make_stream(server)
        table = await connect(server, server.table_user("T1"))
        try:
            ack = await table.jetstream().publish(
                subject_of("T1"), b"first", headers={"Nats-Msg-Id": "m1"}
            )
            return ack.seq
        finally:
            await table.close()

    async def last() -> bytes:
        table = await connect(server, server.table_user("T1"))
        try:
            found = await table.jetstream().get_last_msg(STREAM, subject_of("T1"), direct=True)
            return found.data or b""
        finally:
            await table.close()

    assert asyncio.run(publish()) == 1
    server.stop()
    server.start()
    assert asyncio.run(last()) == b"first"
    server.kill()
    server.start()
    assert asyncio.run(last()) == b"first"


def refusal(server: NatsServer, credentials: dict[str, str] | None = None) -> str:
    """What the server answers a client's CONNECT with (lowered): the protocol spoken by hand,
    since nats-py leaves the socket of a refused first connection open (allow_reconnect off)
    or retries it (on)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE) as client:
        answers = client.makefile("rb")
        with answers:
            assert answers.readline().startswith(b"INFO ")
            connect = {"verbose": False, "pedantic": False, **(credentials or {})}
            client.sendall(b"CONNECT " + json.dumps(connect).encode() + b"\r\nPING\r\n")
            return answers.readline().decode().lower()


def test_nats_refuses_a_connection_without_credentials(nats_factory: NatsFactory) -> None:
    server = nats_factory()
    assert refusal(server) == "-err 'authorization violation'\r\n"


def test_nats_refuses_a_wrong_password(nats_factory: NatsFactory) -> None:
    server = nats_factory()
    user = server.table_user("T1").user
    assert "authorization violation" in refusal(server, {"user": user, "pass": "not-the-password"})


def test_a_table_cannot_publish_to_another_table_s_subject(nats_factory: NatsFactory) -> None:
    server = nats_factory(("T1", "T2"))

    async def forge() -> list[Exception]:
        await make_stream(server)
        table = await connect(server, server.table_user("T1"))
        try:
            forged = table.jetstream().publish(
                subject_of("T2"), b"forged", timeout=PATIENCE, headers={"Nats-Msg-Id": "f"}
            )
            await refused(table, forged, subject_of("T2"))  # no ack: the server dropped it
            errors: list[Exception] = table.seen_errors  # type: ignore[attr-defined]
            return errors
        finally:
            await table.close()

    errors = asyncio.run(forge())
    # nats-py lowers the server's -ERR 'Permissions Violation for Publish to "<subject>"'.
    assert 'permissions violation for publish to "tablectl.journal.t2"' in said(errors)


def test_the_web_s_user_follows_the_stream_and_may_change_nothing_in_it(
    nats_factory: NatsFactory,
) -> None:
    """floor web's own user (controller/forwarder/subjects.py ``web_permissions``): its
    headers-only ordered consumer hears each record (as controller/floor/web/live.py makes it);
    a publish of a record, the stream's deletion and purge are refused, and it cannot hear
    replies beyond its own inbox prefix (the floor's, say: every table's hole cards)."""
    server = nats_factory(("T1",))

    async def use() -> tuple[list[Msg], list[Exception]]:
        await make_stream(server)
        web = await connect(server, server.web_user)
        table = await connect(server, server.table_user("T1"))
        heard: list[Msg] = []
        both = asyncio.Event()

        async def hear(message: Msg) -> None:
            heard.append(message)
            if len(heard) == 2:
                both.set()

        try:
            await web.jetstream().subscribe(
                STREAM_SUBJECTS, stream=STREAM, cb=hear, ordered_consumer=True,
                headers_only=True, deliver_policy=DeliverPolicy.NEW,
            )  # fmt: skip
            for n in (1, 2):
                await table.jetstream().publish(
                    subject_of("T1"), b"hole cards", headers={"Nats-Msg-Id": f"r{n}"}
                )
            await asyncio.wait_for(both.wait(), PATIENCE)
            js = web.jetstream(timeout=PATIENCE)
            forged = js.publish(subject_of("T1"), b"forged", headers={"Nats-Msg-Id": "f"})
            await refused(web, forged, subject_of("T1"))
            await refused(web, js.delete_stream(STREAM), f"$JS.API.STREAM.DELETE.{STREAM}")
            await refused(web, js.purge_stream(STREAM), f"$JS.API.STREAM.PURGE.{STREAM}")
            await web.subscribe("_INBOX.>")
            await told_to(web, 'permissions violation for subscription to "_inbox.>"')
            errors: list[Exception] = web.seen_errors  # type: ignore[attr-defined]
            return heard, errors
        finally:
            await table.close()
            await web.close()

    heard, errors = asyncio.run(use())
    assert [(m.subject, m.data) for m in heard] == [(subject_of("T1"), b"")] * 2
    told = said(errors)
    assert 'permissions violation for publish to "tablectl.journal.t1"' in told
    assert f'permissions violation for publish to "$js.api.stream.delete.{STREAM.lower()}"' in told
    assert f'permissions violation for publish to "$js.api.stream.purge.{STREAM.lower()}"' in told
    assert 'permissions violation for subscription to "_inbox.>"' in told


def test_a_table_cannot_read_another_table_s_records(nats_factory: NatsFactory) -> None:
    server = nats_factory(("T1", "T2"))

    async def peek() -> list[Exception]:
        await make_stream(server)
        other = await connect(server, server.table_user("T2"))
        table = await connect(server, server.table_user("T1"))
        try:
            await other.jetstream().publish(subject_of("T2"), b"hole cards")
            forbidden = f"$JS.API.DIRECT.GET.{STREAM}.{subject_of('T2')}"
            peeking = table.jetstream(timeout=PATIENCE).get_last_msg(
                STREAM, subject_of("T2"), direct=True
            )
            await refused(table, peeking, forbidden)
            errors: list[Exception] = table.seen_errors  # type: ignore[attr-defined]
            return errors
        finally:
            await table.close()
            await other.close()

    errors = asyncio.run(peek())
    forbidden = "$JS.API.DIRECT.GET.TABLECTL_JOURNAL.tablectl.journal.T2"
    assert f'permissions violation for publish to "{forbidden.lower()}"' in said(errors)


def test_postgres_takes_a_connection_and_keeps_its_data_over_a_restart(
    postgres: PostgresServer,
) -> None:
    dsn = postgres.new_database()
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute("CREATE TABLE kept (n integer)")
        connection.execute("INSERT INTO kept VALUES (17)")
    try:
        postgres.stop()
        postgres.start()
        with psycopg.connect(dsn) as connection:
            assert connection.execute("SELECT n FROM kept").fetchall() == [(17,)]
        postgres.kill()
        postgres.start()
        with psycopg.connect(dsn) as connection:
            assert connection.execute("SELECT n FROM kept").fetchall() == [(17,)]
    finally:
        if not postgres.running():
            postgres.start()


def test_each_new_database_is_empty_and_its_own(postgres: PostgresServer) -> None:
    first, second = postgres.new_database(), postgres.new_database()
    assert first != second
    with psycopg.connect(first, autocommit=True) as connection:
        connection.execute("CREATE TABLE mine (n integer)")
    with psycopg.connect(second) as connection:
        tables = connection.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone()
        assert tables == (0,)


def test_postgres_refuses_a_wrong_password(postgres: PostgresServer) -> None:
    wrong = postgres.dsn("postgres", password="not-the-password")
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(wrong)


def test_a_missing_binary_names_the_package_to_install() -> None:
    with pytest.raises(ServerError, match="install the Debian package nats-server"):
        binary("/nonexistent/nats-server", "nats-server")


def test_nats_serves_tls_to_a_client_that_trusts_its_ca(
    nats_factory: NatsFactory, tls_files: TlsFiles
) -> None:
    server = nats_factory(tls=tls_files)
    trusting = ssl.create_default_context(cafile=str(tls_files.ca))

    async def hello(context: ssl.SSLContext) -> bool:
        client = await connect(server, server.floor_user, tls=context)
        try:
            return client.connected_url is not None and client.connected_url.scheme == "nats"
        finally:
            await client.close()

    assert asyncio.run(hello(trusting))
    with pytest.raises(ssl.SSLCertVerificationError):
        asyncio.run(hello(ssl.create_default_context()))


#: A process that starts a nats-server, says its pid and waits to be killed.
_OWNER = """
import sys, pathlib
from simulator.servers_nats import NatsServer
server = NatsServer(pathlib.Path(sys.argv[1]))
server.start()
print(server._process.pid, flush=True)
sys.stdin.read()
"""


def test_the_server_stops_when_its_owner_is_killed(tmp_path: Path) -> None:
    owner = subprocess.Popen(
        [sys.executable, "-c", _OWNER, str(tmp_path / "nats")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert owner.stdout is not None
    assert owner.stdin is not None
    with owner.stdout, owner.stdin:
        server_pid = int(owner.stdout.readline())
        exited = os.pidfd_open(server_pid)
        try:
            owner.kill()  # SIGKILL: no finaliser runs
            owner.wait()
            ready, _, _ = select.select([exited], [], [], PATIENCE)
            assert ready == [exited], "the owner's nats-server still runs"
        finally:
            os.close(exited)


EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "floor-nats-server.conf"


def bcrypt_hash(password: str) -> str:
    """A ``$2a$`` bcrypt hash as docs/examples/floor-nats-server.conf says to make one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # crypt leaves Python in 3.13
        import crypt  # noqa: PLC0415 -- only this test makes a hash

        salt = crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=2**4)
        return crypt.crypt(password, salt).replace("$2b$", "$2a$", 1)


def rewrite(text: str, old: str, new: str) -> str:
    """``text`` with its one ``old`` replaced: the example must still hold each value the test
    moves into the test's folder, so a change to it shows here."""
    assert text.count(old) == 1, f"{old!r} is not once in {EXAMPLE.name}"
    return text.replace(old, new)


def from_example(node: NatsServer, tls: TlsFiles, number: int, routes: list[int]) -> None:
    """Write the example as ``node``'s config: its hosts, ports, paths and hashes made local."""
    cluster = node.cluster
    assert cluster is not None
    text = EXAMPLE.read_text(encoding="utf-8")
    moves = {
        "server_name: floor-nats-1": f"server_name: floor-nats-{number}",
        "listen: 0.0.0.0:4222": f"listen: 127.0.0.1:{node.port}",
        "http: 127.0.0.1:8222": f"http: 127.0.0.1:{node.monitor_port}",
        '"/var/lib/nats/jetstream"': f'"{node.directory / "jetstream"}"',
        "listen: 0.0.0.0:6222": f"listen: 127.0.0.1:{cluster.route_port}",
        '"nats-route://floor-nats-2.casino.lan:6222"': f'"nats-route://127.0.0.1:{routes[0]}"',
        '"nats-route://floor-nats-3.casino.lan:6222"': f'"nats-route://127.0.0.1:{routes[1]}"',
        '"/etc/nats/tls/floor-ca.pem"': f'"{tls.ca}"',
        "$2a$11$REPLACE.WITH.THE.FLOOR.USERS.BCRYPT.HASH.MADE.AS.ABOVE": bcrypt_hash(
            node.floor_user.password
        ),
        "$2a$11$REPLACE.WITH.TABLE.T1S.BCRYPT.HASH.MADE.AS.ABOVE..........": bcrypt_hash(
            node.table_user("T1").password
        ),
        "$2a$11$REPLACE.WITH.THE.WEB.USERS.BCRYPT.HASH.MADE.AS.ABOVE..": bcrypt_hash(
            node.web_user.password
        ),
    }
    for old, new in moves.items():
        text = rewrite(text, old, new)
    text = text.replace('"/etc/nats/tls/floor-nats-1.pem"', f'"{tls.cert}"')
    text = text.replace('"/etc/nats/tls/floor-nats-1.key"', f'"{tls.key}"')
    node.config.write_text(text, encoding="utf-8")


def test_the_example_config_runs_a_cluster_that_refuses_what_it_must(
    tmp_path: Path, tls_files: TlsFiles
) -> None:
    cluster = NatsCluster(tmp_path / "cluster", ("T1", "T2"))
    for number, node in enumerate(cluster.nodes, start=1):
        assert node.cluster is not None
        others = [port for port in node.cluster.routes if port != node.cluster.route_port]
        from_example(node, tls_files, number, others)
    trusting = ssl.create_default_context(cafile=str(tls_files.ca))
    cluster.start()
    try:
        first = cluster.nodes[0]

        async def use() -> list[Exception]:
            floor = await connect(first, cluster.floor_user, tls=trusting)
            table = await connect(cluster.nodes[1], cluster.table_user("T1"), tls=trusting)
            try:
                await floor.jetstream(timeout=PATIENCE).add_stream(
                    StreamConfig(
                        name=STREAM, subjects=[STREAM_SUBJECTS], allow_direct=True, num_replicas=3
                    )
                )
                js = table.jetstream()
                await publish_once_the_stream_answers(js, subject_of("T1"), b"record", "r1")
                last = await last_once_replicated(js, subject_of("T1"))
                assert last.data == b"record"
                assert await headers_heard_by_the_web(cluster.nodes[2], cluster, trusting)
                forged = js.publish(subject_of("T2"), b"forged", timeout=PATIENCE)
                await refused(table, forged, subject_of("T2"))
                errors: list[Exception] = table.seen_errors  # type: ignore[attr-defined]
                return errors
            finally:
                await table.close()
                await floor.close()

        errors = asyncio.run(use())
        assert 'permissions violation for publish to "tablectl.journal.t2"' in said(errors)
        assert tls_refusal(first, trusting) == "-err 'authorization violation'\r\n"
        with pytest.raises(ssl.SSLCertVerificationError):
            asyncio.run(connect(first, cluster.floor_user, tls=ssl.create_default_context()))
    finally:
        cluster.stop()


async def publish_once_the_stream_answers(
    js: JetStreamContext, subject: str, data: bytes, message_id: str
) -> None:
    """Publish, sent again while the stream does not answer yet: a stream of three replicas just
    made through one node is heard on another only once its leader is elected and its interest
    has crossed the routes. The message id keeps a resent record once."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            await js.publish(subject, data, timeout=PATIENCE, headers={"Nats-Msg-Id": message_id})
            return
        except nats.js.errors.NoStreamResponseError:
            assert time.monotonic() < deadline, f"no stream answered {subject} in {PATIENCE} s"
            await asyncio.sleep(0.05)


async def last_once_replicated(js: JetStreamContext, subject: str) -> RawStreamMsg:
    """The subject's last message by a direct get, asked again while it is not found: with
    allow_direct every replica answers a direct get, and a follower answers 404 for a message
    its leader acknowledged until it has applied it (a replica is eventually consistent)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            return await js.get_last_msg(STREAM, subject, direct=True)
        except nats.js.errors.NotFoundError:
            assert time.monotonic() < deadline, f"{subject}: no replica had it in {PATIENCE} s"
            await asyncio.sleep(0.05)


async def headers_heard_by_the_web(
    node: NatsServer, cluster: NatsCluster, tls: ssl.SSLContext
) -> list[str]:
    """The subjects the example's web user hears from the start of the stream by floor web's
    headers-only ordered consumer, once it has heard one: its permissions are enough."""
    web = await connect(node, cluster.web_user, tls=tls)
    heard: asyncio.Queue[str] = asyncio.Queue()

    async def hear(message: Msg) -> None:
        heard.put_nowait(message.subject)

    try:
        await web.jetstream(timeout=PATIENCE).subscribe(
            STREAM_SUBJECTS, stream=STREAM, cb=hear, ordered_consumer=True, headers_only=True,
            deliver_policy=DeliverPolicy.ALL,
        )  # fmt: skip
        return [await asyncio.wait_for(heard.get(), PATIENCE)]
    finally:
        await web.close()


def tls_refusal(server: NatsServer, context: ssl.SSLContext) -> str:
    """What a TLS server answers a CONNECT without credentials (lowered)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE) as plain:
        info = b""
        while not info.endswith(b"\r\n"):
            info += plain.recv(1)
        assert info.startswith(b"INFO ")
        with context.wrap_socket(plain, server_hostname="127.0.0.1") as client:
            client.sendall(b'CONNECT {"verbose":false,"pedantic":false}\r\nPING\r\n')
            answer = b""
            while not answer.endswith(b"\r\n"):
                answer += client.recv(1)
            return answer.decode().lower()


@pytest.mark.fast
def test_no_table_s_inbox_prefix_covers_another_s() -> None:
    """A table id may hold '.': as a token of hex, "a" never covers "a.b" (nor a nats-py
    default inbox, 22 letters and digits)."""
    prefixes = {t: inbox_prefix_of(t) for t in ("a", "a.b", "a-b", "A", "T1")}
    assert prefixes["T1"] == "_INBOX.table-5431"
    assert len(set(prefixes.values())) == len(prefixes)
    assert all(p.count(".") == 1 for p in prefixes.values())


@pytest.mark.fast
def test_a_bad_table_id_is_refused_before_a_server_is_made(tmp_path: Path) -> None:
    with pytest.raises(SubjectError, match="'T 1' is not a table id"):
        NatsServer(tmp_path / "nats", ("T1", "T 1"))
    with pytest.raises(SubjectError, match="is not a table id"):
        inbox_prefix_of("")
