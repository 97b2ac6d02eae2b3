"""Helpers of the forwarder's tests: the floor's stream made as the floor makes it, what the
stream holds of a table read back as the floor's user, a table.toml with [floor], and
``tablectl forward`` run as a real subprocess."""

from __future__ import annotations

import asyncio
import os
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import nats
from confighelp import section, to_toml, valid
from logread import whole_lines
from nats.js.api import RetentionPolicy, StorageType, StreamConfig
from nats.js.errors import NotFoundError

from controller.forwarder.subjects import STREAM, STREAM_SUBJECTS, subject_of
from simulator.servers_nats import NatsServer
from simulator.servers_tls import TlsFiles

TABLECTL = [sys.executable, "-m", "controller"]
#: A year: the stream keeps records by age, never as a work queue (the forwarder resumes
#: from what it holds).
MAX_AGE = 365 * 24 * 3600.0
#: The most a test waits for an event.
PATIENCE = 60.0


@dataclass(frozen=True, slots=True)
class Held:
    """One message of the stream: its stream sequence, message id and payload."""

    stream_seq: int
    message_id: str
    data: bytes


#: A client certificate and key the floor's user presents, for a server that asks for one.
ClientCertificate = tuple[Path, Path]


async def _floor(server: NatsServer, certificate: ClientCertificate | None) -> nats.NATS:
    user = server.floor_user
    return await nats.connect(
        servers=[_url(server)],
        user=user.user,
        password=user.password,
        allow_reconnect=False,
        tls=None if server.tls is None else _client_tls(server.tls, certificate),
    )


def _client_tls(tls: TlsFiles, certificate: ClientCertificate | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(tls.ca))
    if certificate is not None:
        context.load_cert_chain(*map(str, certificate))
    return context


def create_stream(
    server: NatsServer,
    *,
    duplicate_window: float = 120.0,
    certificate: ClientCertificate | None = None,
    replicas: int = 1,
) -> None:
    """The stream as the floor creates it: limits retention, file storage, direct gets."""

    async def create() -> None:
        client = await _floor(server, certificate)
        try:
            await client.jetstream(timeout=PATIENCE).add_stream(
                StreamConfig(
                    name=STREAM,
                    subjects=[STREAM_SUBJECTS],
                    retention=RetentionPolicy.LIMITS,
                    storage=StorageType.FILE,
                    max_age=MAX_AGE,
                    duplicate_window=duplicate_window,
                    allow_direct=True,
                    num_replicas=replicas,
                )
            )
        finally:
            await client.close()

    asyncio.run(create())


def _url(server: NatsServer) -> str:
    return server.url if server.tls is None else server.url.replace("nats://", "tls://")


def held(
    server: NatsServer, table_id: str, certificate: ClientCertificate | None = None
) -> list[Held]:
    """Every message the stream holds on ``table_id``'s subject, in stream order."""

    async def read() -> list[Held]:
        client = await _floor(server, certificate)
        try:
            js = client.jetstream()
            info = await js.stream_info(STREAM)
            found: list[Held] = []
            if info.state.messages == 0:
                return found
            for seq in range(info.state.first_seq, info.state.last_seq + 1):
                try:
                    message = await js.get_msg(STREAM, seq)
                except NotFoundError:
                    continue
                if message.subject == subject_of(table_id):
                    headers = message.headers or {}
                    found.append(Held(seq, headers["Nats-Msg-Id"], bytes(message.data or b"")))
            return found
        finally:
            await client.close()

    return asyncio.run(read())


def table_toml(
    directory: Path,
    server: NatsServer,
    table_id: str,
    journal: Path,
    *,
    user: str | None = None,
    password: str | None = None,
    servers: Sequence[str] | None = None,
    tls: TlsFiles | None = None,
    ack_timeout: float | None = None,
) -> Path:
    """A table.toml for ``table_id`` whose [floor] names ``server`` and the table's user (or
    ``user`` and ``password``), the password in a file of mode 0600 beside it; its
    ``ack_timeout`` if given."""
    credentials = server.table_user(table_id)
    secret = directory / f"{table_id}.password"
    secret.write_text((password or credentials.password) + "\n", encoding="utf-8")
    os.chmod(secret, 0o600)
    data = valid()
    section(data, "table")["id"] = table_id
    section(data, "journal")["dir"] = str(journal)
    section(data, "journal")["fsync"] = False
    section(data, "log")["file"] = str(directory / f"{table_id}.log")
    section(data, "log")["format"] = "json"
    floor = section(data, "floor")
    floor["servers"] = list(servers or [_url(server)])  # type: ignore[assignment]
    floor["user"] = user or credentials.user
    floor["password_file"] = str(secret)
    if tls is not None:
        floor["tls_ca"] = str(tls.ca)
    if ack_timeout is not None:
        floor["ack_timeout"] = ack_timeout
    config = directory / f"{table_id}.toml"
    config.write_text(to_toml(data), encoding="utf-8")
    return config


def forward(config: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``tablectl forward --config CONFIG ARGS`` to its end."""
    return subprocess.run(
        [*TABLECTL, "forward", "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


#: Every forwarder started in this worker, so that those a test left running (one that
#: failed before its stop) are ended after it (``end_forwarders``, tests/floor/conftest.py).
STARTED: list[subprocess.Popen[str]] = []


def start_forward(config: Path, *args: str) -> subprocess.Popen[str]:
    """``tablectl forward --config CONFIG ARGS`` started; its log goes to ``<table>.log``
    beside the config (``log_events``), anything else it prints to ``<config>.stderr``."""
    stderr = config.with_suffix(".stderr").open("a", encoding="utf-8")
    try:
        process = subprocess.Popen(
            [*TABLECTL, "forward", "--config", str(config), "--poll", "0.05", *args],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            text=True,
        )
    finally:
        stderr.close()
    STARTED.append(process)
    return process


def end_forwarders() -> list[int]:
    """Kill and reap every forwarder started that still runs; their pids. A test stops its
    forwarders itself: this ends what a failed one left, which would otherwise run on after
    the suite, its server gone."""
    ended = []
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            ended.append(process.pid)
        process.wait()
    return ended


def stop(process: subprocess.Popen[str], sig: signal.Signals = signal.SIGTERM) -> int:
    """Signal the forwarder and wait for its exit status."""
    process.send_signal(sig)
    return process.wait(timeout=30)


def holds(server: NatsServer, table_id: str, count: int) -> Callable[[], bool]:
    """Whether the stream holds ``count`` messages of ``table_id``, for ``eventually``; a
    stream that does not answer yet (a cluster electing a leader after a node was killed) does
    not hold them yet."""

    def check() -> bool:
        try:
            return len(held(server, table_id)) == count
        except nats.errors.TimeoutError:
            return False

    return check


def retried_more_than(config: Path, count: int) -> Callable[[], bool]:
    """Whether the forwarder has logged more than ``count`` retries, for ``eventually``."""
    return lambda: len(events_of(config, "forward_retrying")) > count


def acked(config: Path, seq: int) -> Callable[[], bool]:
    """Whether the forwarder has taken the stream's acknowledgement of ``seq``, for
    ``eventually``: its forward_status line saying so, logged at each acknowledgement when it
    runs with ``--status-every`` 0.000001. The stream holding the record does not say it: the
    acknowledgement may still be on its way, and a stop then notes the seq before it."""
    return lambda: any(e["acked"] == seq for e in events_of(config, "forward_status"))


def events_of(config: Path, event: str) -> list[dict[str, object]]:
    return [line for line in log_events(config) if line["event"] == event]


def log_events(config: Path) -> list[dict[str, object]]:
    """The forwarder's log lines so far (JSON), each whole (logread.whole_lines), from the
    log file its table.toml names."""
    return whole_lines(config.with_suffix(".log"))


def eventually(
    condition: Callable[[], bool], what: str, process: subprocess.Popen[str] | None = None
) -> None:
    """Wait until ``condition`` holds (an event the test waits on, looked at every 20 ms);
    fail saying ``what`` if the forwarder exits first or it does not come within a minute
    (a machine this slow is broken, not slow)."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what}: the forwarder exited ({process.returncode}) first")
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {PATIENCE:.0f} s")
        time.sleep(0.02)
