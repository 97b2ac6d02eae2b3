"""The type of the ``nats_factory`` fixture (tests/floor/conftest.py), for the floor's tests to
annotate with: ``def test_x(nats_factory: NatsFactory) -> None``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from simulator.servers_nats import NatsServer
from simulator.servers_tls import TlsFiles


class NatsFactory(Protocol):
    """Starts a nats-server with a user per table (and TLS when given); stopped after the test."""

    def __call__(
        self, tables: Sequence[str] = ("T1", "T2"), tls: TlsFiles | None = None
    ) -> NatsServer: ...
