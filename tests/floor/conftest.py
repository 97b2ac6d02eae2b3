"""The floor's servers for its tests (docs/floor.md, Servers and credentials): real
nats-servers and a real PostgreSQL on loopback in temporary folders (simulator/servers_nats.py,
simulator/servers_pg.py), stopped at the end.

- ``nats_factory(tables=("T1", "T2"), tls=None) -> NatsServer``: a started nats-server with a
  user per table; as many as the test asks for, each stopped after the test.
- ``postgres -> PostgresServer``: one server per test session (per xdist worker);
  ``postgres.new_database()`` gives each test an empty database of its own.
- ``tls_files -> TlsFiles``: a throwaway CA and server certificate in the test's folder.
- ``browser -> WebDriver``: a headless chromium, clean each test, one a worker
  (tests/floor/browserhelp.py).

A ``tablectl forward`` a test started and left running (a test that failed before it stopped
it) is killed after the test (``forwardhelp.end_forwarders``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from browserhelp import browser, chromium
from forwardhelp import end_forwarders
from servershelp import NatsFactory

from simulator.servers_nats import NatsServer
from simulator.servers_pg import PostgresServer
from simulator.servers_tls import TlsFiles, make_tls

__all__ = ["browser", "chromium"]  # the fixtures, from browserhelp.py, for every browser test


@pytest.fixture(autouse=True)
def _forwarders_ended() -> Iterator[None]:
    """After each test, no forwarder it started runs on (forwardhelp.end_forwarders)."""
    yield
    end_forwarders()


@pytest.fixture
def nats_factory(tmp_path: Path) -> Iterator[NatsFactory]:
    """Start nats-servers for this test (each in a folder of its own); all stop after it."""
    servers: list[NatsServer] = []

    def start(tables: Sequence[str] = ("T1", "T2"), tls: TlsFiles | None = None) -> NatsServer:
        server = NatsServer(tmp_path / f"nats-{len(servers) + 1}", tuple(tables), tls=tls)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    """One PostgreSQL for the session. fsync is off: a killed server loses nothing (the kernel
    has its writes), only a power cut would (simulator/servers_pg.py)."""
    server = PostgresServer(durable=False)
    try:
        server.start()
        yield server
    finally:
        server.close()


@pytest.fixture
def tls_files(tmp_path: Path) -> TlsFiles:
    return make_tls(tmp_path / "tls")
