"""A throwaway nats-server with JetStream on loopback, and a 3-node cluster of them
(docs/floor.md, Servers and credentials): for the floor's tests, ``tablectl floor demo`` and the
benchmarks.

Each server has a config file of its own in its folder: ``listen 127.0.0.1:<port>`` (chosen once:
a restart keeps it), JetStream's file store in the folder, and one account holding the floor's
user and one user per table. No anonymous access: no ``no_auth_user``, so a connection without
credentials is refused. A table's user may publish to its own journal subject only, request the
direct get of the last record on that subject (the forwarder's resume) and subscribe to its own
inbox prefix (the replies to both); the floor's user may do everything in the account but
publish a table's record. Readiness is the monitoring port's ``/healthz`` (JetStream included),
on loopback too, answered while the server's own process holds its ports.
"""

from __future__ import annotations

import json
import secrets
import signal
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from controller.forwarder.subjects import (
    STREAM_SUBJECTS,
    WEB_INBOX_PREFIX,
    direct_get_subject,
    inbox_prefix_of,
    subject_of,
    web_permissions,
)
from simulator.servers import (
    Guarded,
    ServerError,
    Throwaway,
    binary,
    free_port,
    listens,
    wait_until,
)
from simulator.servers_tls import TlsFiles

NATS_SERVER: Final = "nats-server"
NATS_PACKAGE: Final = "nats-server"
#: The account every tablectl user is in (JetStream enabled in it).
ACCOUNT: Final = "TABLECTL"
FLOOR_USER: Final = "floor"
#: ``floor web``'s own user: it follows the stream and may change nothing in it.
WEB_USER: Final = "floor-web"


@dataclass(frozen=True, slots=True)
class NatsUser:
    """A user's credentials: ``nats.connect(url, user=u.user, password=u.password,
    inbox_prefix=u.inbox_prefix)``. A table's user must connect with its inbox prefix (the
    only inbox it may subscribe to); the floor's is nats-py's default."""

    user: str
    password: str
    inbox_prefix: str = "_INBOX"


def table_user_name(table_id: str) -> str:
    return f"table-{table_id}"


def _table_permissions(table_id: str) -> dict[str, object]:
    """Exactly what a forwarder needs: publish its records, resume by the direct get of its
    subject's last record, and hear the replies of both on its own inbox."""
    return {
        "publish": {"allow": [subject_of(table_id), direct_get_subject(table_id)]},
        "subscribe": {"allow": [inbox_prefix_of(table_id) + ".>"]},
    }


#: The floor administers the stream and consumes it, but can never publish a table's record.
_FLOOR_PERMISSIONS: Final = {"publish": {"deny": [STREAM_SUBJECTS]}}


@dataclass(frozen=True, slots=True)
class ClusterNode:
    """This node's place in a cluster: its name, its route port, every node's route port."""

    cluster: str
    route_port: int
    routes: tuple[int, ...]
    route_user: str
    route_password: str


@dataclass(slots=True)
class NatsServer(Throwaway):
    """One nats-server on 127.0.0.1 in ``directory``; ``start()`` it (again after a stop or a
    kill: same port, same store)."""

    directory: Path
    tables: Sequence[str] = ("T1", "T2")
    tls: TlsFiles | None = None
    name: str = "tablectl-nats"
    cluster: ClusterNode | None = None
    port: int = field(default_factory=free_port)
    monitor_port: int = field(default_factory=free_port)
    _passwords: dict[str, str] = field(default_factory=dict)
    _process: Guarded | None = None

    def __post_init__(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        for table_id in self.tables:
            subject_of(table_id)  # a SubjectError naming a bad table id, before any file
        names = [FLOOR_USER, WEB_USER, *(table_user_name(t) for t in self.tables)]
        self._passwords = {name: secrets.token_hex(16) for name in names}
        self.config.write_text(self.render_config())

    @property
    def url(self) -> str:
        return f"nats://127.0.0.1:{self.port}"

    @property
    def config(self) -> Path:
        return self.directory / "nats-server.conf"

    @property
    def log(self) -> Path:
        return self.directory / "nats-server.log"

    @property
    def floor_user(self) -> NatsUser:
        return NatsUser(FLOOR_USER, self._passwords[FLOOR_USER])

    @property
    def web_user(self) -> NatsUser:
        return NatsUser(WEB_USER, self._passwords[WEB_USER], WEB_INBOX_PREFIX)

    def table_user(self, table_id: str) -> NatsUser:
        name = table_user_name(table_id)
        if name not in self._passwords:
            raise ServerError(f"table {table_id!r}: this server has users for {list(self.tables)}")
        return NatsUser(name, self._passwords[name], inbox_prefix_of(table_id))

    def render_config(self) -> str:
        """The server's config (JSON is a subset of the NATS config syntax)."""
        users: list[dict[str, object]] = [
            {
                "user": FLOOR_USER,
                "password": self._passwords[FLOOR_USER],
                "permissions": _FLOOR_PERMISSIONS,
            },
            {
                "user": WEB_USER,
                "password": self._passwords[WEB_USER],
                "permissions": web_permissions(),
            },
        ]
        for table_id in self.tables:
            name = table_user_name(table_id)
            users.append(
                {
                    "user": name,
                    "password": self._passwords[name],
                    "permissions": _table_permissions(table_id),
                }
            )
        config: dict[str, object] = {
            "server_name": self.name,
            "listen": f"127.0.0.1:{self.port}",
            "http": f"127.0.0.1:{self.monitor_port}",
            "jetstream": {"store_dir": str(self.directory / "jetstream")},
            "accounts": {ACCOUNT: {"jetstream": "enabled", "users": users}},
        }
        if self.tls is not None:
            config["tls"] = {"cert_file": str(self.tls.cert), "key_file": str(self.tls.key)}
        if self.cluster is not None:
            config["cluster"] = _cluster_block(self.cluster)
        return json.dumps(config, indent=2) + "\n"

    def launch(self) -> None:
        """Start the process without waiting for it (a cluster starts its nodes together)."""
        if self.running():
            raise ServerError(f"{self.name} at {self.url} is running already")
        command = [binary(NATS_SERVER, NATS_PACKAGE), "--config", str(self.config)]
        # SIGTERM to stop: the server closes its store cleanly.
        self._process = Guarded(self.name, command, log=self.log, stop_signal=signal.SIGTERM)

    def wait_ready(self) -> None:
        """Wait until the server and its JetStream answer ``/healthz``."""
        assert self._process is not None, "launch() first"
        wait_until(self._healthy, self._process, f"nats-server {self.name} at {self.url}")

    def start(self) -> None:
        self.launch()
        self.wait_ready()

    def _healthy(self) -> bool:
        """``/healthz`` answers 200, and this server's own process holds its ports: a port
        ``free_port`` gave may be another process's that took it first (another test worker's
        nats-server, whose ``/healthz`` answers), ours then failing to bind and exiting."""
        assert self._process is not None
        url = f"http://127.0.0.1:{self.monitor_port}/healthz"
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if answer.status != 200:
                    return False
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False
        ports = [self.port, self.monitor_port]
        if self.cluster is not None:
            ports.append(self.cluster.route_port)
        return all(listens(self._process.pid, port) for port in ports)


def _cluster_block(node: ClusterNode) -> dict[str, object]:
    credentials = f"{node.route_user}:{node.route_password}@"
    return {
        "name": node.cluster,
        "listen": f"127.0.0.1:{node.route_port}",
        "authorization": {"user": node.route_user, "password": node.route_password},
        "routes": [
            f"nats-route://{credentials}127.0.0.1:{port}"
            for port in node.routes
            if port != node.route_port
        ],
    }


@dataclass(slots=True)
class NatsCluster:
    """Three nats-servers on loopback, routed to each other, JetStream in each (a stream of
    three replicas keeps a record while one node is down)."""

    directory: Path
    tables: Sequence[str] = ("T1", "T2")
    size: int = 3
    nodes: list[NatsServer] = field(default_factory=list)

    def __post_init__(self) -> None:
        route_ports = tuple(free_port() for _ in range(self.size))
        password = secrets.token_hex(16)
        for index, route_port in enumerate(route_ports):
            node = ClusterNode("tablectl", route_port, route_ports, "route", password)
            self.nodes.append(
                NatsServer(
                    self.directory / f"n{index + 1}",
                    self.tables,
                    name=f"tablectl-n{index + 1}",
                    cluster=node,
                )
            )
        # Every node has the same users and passwords: a client may connect to any of them.
        first = self.nodes[0]
        for node_server in self.nodes[1:]:
            node_server._passwords = dict(first._passwords)
            node_server.config.write_text(node_server.render_config())

    @property
    def urls(self) -> list[str]:
        return [node.url for node in self.nodes]

    @property
    def floor_user(self) -> NatsUser:
        return self.nodes[0].floor_user

    @property
    def web_user(self) -> NatsUser:
        return self.nodes[0].web_user

    def table_user(self, table_id: str) -> NatsUser:
        return self.nodes[0].table_user(table_id)

    def start(self) -> None:
        """Start every node, then wait until each answers (JetStream needs its peers)."""
        for node in self.nodes:
            node.launch()
        for node in self.nodes:
            node.wait_ready()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
