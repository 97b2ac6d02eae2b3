"""Who may send what (docs/floor.md, Servers and credentials: each table authenticates as itself and
may publish only to its own subject; no anonymous access): [floor] user and password_file take
effect against a real nats-server, and a table cannot write or read another table's subject."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import nats
import pytest
from forwardhelp import (
    create_stream,
    events_of,
    eventually,
    held,
    retried_more_than,
    start_forward,
    stop,
    table_toml,
)
from journal_support import write_journal
from servershelp import NatsFactory

from controller.forwarder.subjects import STREAM, inbox_prefix_of, subject_of
from simulator.servers_nats import NatsServer


def _refused_forward(tmp_path: Path, server: NatsServer, reason: str, **keys: str) -> list[str]:
    """The forwarder of T1 with these [floor] keys keeps retrying, logs ``reason`` and stores
    nothing (the reasons it logged). A request the server refuses is answered by nothing: the
    forwarder waits its [floor] ack_timeout for it, 1 s here rather than its 5 s default."""
    write_journal(tmp_path / "journal", 5)
    config = table_toml(tmp_path, server, "T1", tmp_path / "journal", ack_timeout=1.0, **keys)  # type: ignore[arg-type]
    process = start_forward(config)
    eventually(retried_more_than(config, 1), "two retries", process)
    assert stop(process) == 0
    reasons = [str(e) for e in events_of(config, "forward_retrying")] + [
        str(e) for e in events_of(config, "forward_client_error")
    ]
    assert any(reason.lower() in text.lower() for text in reasons), reasons
    assert held(server, "T1") == []
    return reasons


def test_a_wrong_password_is_refused_and_retried(tmp_path: Path, nats_factory: NatsFactory) -> None:
    server = nats_factory(("T1",))
    create_stream(server)
    _refused_forward(tmp_path, server, "Authorization Violation", password="not-the-password")


def test_a_table_forwarding_as_another_tables_user_stores_nothing(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    """T1's journal sent with T2's credentials: T2's user may not even ask where T1 stands."""
    server = nats_factory(("T1", "T2"))
    create_stream(server)
    other = server.table_user("T2")
    reasons = _refused_forward(
        tmp_path, server, "Permissions Violation", user=other.user, password=other.password
    )
    # The refused question goes unanswered: the session ends at [floor] ack_timeout.
    said = "asking the stream where the table stands: no answer within 1 s ([floor] ack_timeout)"
    assert any(said in text for text in reasons), reasons


async def _as_table(server: NatsServer, table_id: str) -> nats.NATS:
    user = server.table_user(table_id)
    return await nats.connect(
        server.url,
        user=user.user,
        password=user.password,
        inbox_prefix=user.inbox_prefix,
        allow_reconnect=False,
        error_cb=_ignore,
    )


async def _ignore(error: Exception) -> None:
    """The permission errors the test provokes."""


def test_a_table_may_not_publish_to_another_tables_subject_nor_read_it(
    tmp_path: Path, nats_factory: NatsFactory
) -> None:
    server = nats_factory(("T1", "T2"))
    create_stream(server)

    async def attempt() -> None:
        client = await _as_table(server, "T1")
        try:
            js = client.jetstream(timeout=1.0)
            await js.publish(subject_of("T1"), b"own", headers={"Nats-Msg-Id": "a"})
            with pytest.raises(nats.errors.TimeoutError):  # refused: no PubAck ever comes
                await js.publish(subject_of("T2"), b"other's", headers={"Nats-Msg-Id": "b"})
            with pytest.raises(nats.errors.TimeoutError):
                await js.get_last_msg(STREAM, subject_of("T1"), direct=False)  # the full API
            own = await js.get_last_msg(STREAM, subject_of("T1"), direct=True)
            assert own.data == b"own"
        finally:
            await client.close()

    asyncio.run(attempt())
    # Another table's inbox is not its own: a subscription there is refused.
    user = server.table_user("T1")
    answer = _raw(
        server, {"user": user.user, "pass": user.password}, f"SUB {inbox_prefix_of('T2')}.x 1"
    )
    assert "-ERR 'Permissions Violation for Subscription to" in answer
    assert [m.data for m in held(server, "T1")] == [b"own"]
    assert held(server, "T2") == []


def _raw(server: NatsServer, connect: dict[str, object], command: str = "") -> str:
    """What the server answers a client speaking its protocol by hand: CONNECT, a command,
    PING; read until PONG or the connection's end."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as link:
        link.recv(4096)  # INFO
        options = {"verbose": False, "pedantic": False, "protocol": 1, **connect}
        lines = [f"CONNECT {json.dumps(options)}", *([command] if command else []), "PING", ""]
        link.sendall("\r\n".join(lines).encode())
        answer = b""
        while b"PONG" not in answer and (chunk := link.recv(4096)):
            answer += chunk
    return answer.decode()


def test_no_anonymous_access(nats_factory: NatsFactory) -> None:
    server = nats_factory(("T1",))
    assert "-ERR 'Authorization Violation'" in _raw(server, {})
    assert "PONG" in _raw(
        server, {"user": server.table_user("T1").user, "pass": server.table_user("T1").password}
    )
