"""floor.toml: the floor's configuration (docs/floor.md, The floor; docs/examples/floor.toml).

Read as the table's configuration is (controller/tomlcheck.py): every problem named with its
key, the value found and what is expected, all at once; nothing raised half way.

```toml
[nats]
servers = ["nats://127.0.0.1:4222"]
user = "floor"
password_file = "/etc/tablectl/floor/nats.password"
tls_ca = "/etc/tablectl/floor/ca.pem"         # optional: tls:// servers, checked against it
replicas = 3                                   # the stream's copies: 1, or 3 on a 3-node cluster

[postgres]                                     # the writer: floor serve
host = "127.0.0.1"
port = 5432
dbname = "tablectl"
user = "tablectl_floor"
password_file = "/etc/tablectl/floor/postgres.password"
# or: dsn = "host=... dbname=... user=..." (libpq's form; a password_file still applies)

[reader]                                       # the read-only role: floor recall and verify
user = "tablectl_reader"
password_file = "/etc/tablectl/floor/reader.password"

[serve]
batch = 500                                    # records a transaction
consumer = "tablectl-floor"                    # the durable consumer's name
ack_wait = 30                                  # seconds: an unacknowledged batch redelivered
walk_every = 3600                              # seconds between walks of every stored chain

[web]                                          # floor web (controller/floor/web/webtoml.py)
secret_file = "/etc/tablectl/floor/web.secret"
```
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.floor.store import READER, WRITER
from controller.floor.web.webtoml import KEYS as WEB_KEYS
from controller.floor.web.webtoml import WebSettings, parse_web
from controller.poker.engine.tablesetup import ConfigError
from controller.tomlcheck import MISSING, Problem, Section

SECTIONS: Final[dict[str, tuple[str, ...]]] = {
    "": ("nats", "postgres", "reader", "serve", "web"),
    "nats": ("servers", "user", "password_file", "tls_ca", "replicas"),
    "postgres": ("dsn", "host", "port", "dbname", "user", "password_file"),
    "reader": ("user", "password_file"),
    "serve": ("batch", "consumer", "ack_wait", "walk_every"),
    "web": WEB_KEYS,
}
_URL: Final = re.compile(r"(nats|tls)://[A-Za-z0-9.\-\[\]:]+:\d{1,5}")
_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,62}")
#: A durable consumer's name: no '.', '*', '>' or space (JetStream's rule).
_CONSUMER: Final = re.compile(r"[A-Za-z0-9_\-]{1,64}")
DEFAULT_BATCH: Final = 500
DEFAULT_CONSUMER: Final = "tablectl-floor"
#: How long JetStream waits for a batch's acks before it redelivers the batch (to this process
#: or another floor process): well past a batch's transaction, with room for a slow commit.
DEFAULT_ACK_WAIT: Final = 30.0
#: Between two of floor serve's own walks of every stored chain (one walk also follows each
#: start): an hour, so a line changed in the store is alarmed within the hour; its cost is
#: docs/performance.md's (The chain walk). At least 10 s, at most a week.
DEFAULT_WALK_EVERY: Final = 3600.0
WALK_EVERY_RANGE: Final = (10, 7 * 24 * 3600)
#: The stream's copies: one on a single server; a cluster's nodes each keep one (JetStream's
#: most is 5), so a stream of 3 on three nodes loses nothing while any one node is down.
DEFAULT_REPLICAS: Final = 1
MAX_REPLICAS: Final = 5


class FloorConfigError(ConfigError):
    """floor.toml cannot be used; ``problems`` lists every reason at once."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        count = len(self.problems)
        lines = [f"{source}: {count} error{'s' if count != 1 else ''} in the floor's configuration"]
        lines.extend(f"  {problem}" for problem in self.problems)
        super().__init__("\n".join(lines))


@dataclass(frozen=True, slots=True)
class NatsSettings:
    servers: tuple[str, ...]
    user: str
    password_file: Path
    tls_ca: Path | None
    #: ``[nats] replicas``: the copies of the stream ``floor serve`` makes (or updates to).
    replicas: int = DEFAULT_REPLICAS


@dataclass(frozen=True, slots=True)
class Database:
    """One role's connection: libpq's conninfo, and the file holding its password."""

    conninfo: str
    password_file: Path | None

    def dsn(self) -> str:
        """The conninfo with the password read from its file (ConfigError naming the file)."""
        if self.password_file is None:
            return self.conninfo
        return make_conninfo(self.conninfo, password=read_secret(self.password_file))

    def as_user(self, user: str, password_file: Path | None) -> Database:
        """The same server and database, as another role."""
        return Database(make_conninfo(self.conninfo, user=user), password_file)


@dataclass(frozen=True, slots=True)
class FloorConfig:
    """A whole, checked ``floor.toml``: the floor server's own configuration (a table's way to
    the floor is ``[floor]`` of its table.toml, ``FloorLinkSettings``)."""

    nats: NatsSettings
    writer: Database
    reader: Database
    batch: int
    consumer: str
    #: Seconds (``[serve] ack_wait``): what a floor process killed mid-batch delays its batch by.
    ack_wait: float = DEFAULT_ACK_WAIT
    #: ``[web]``: ``floor web``'s address, port, session key and TLS (docs/floor-web.md).
    web: WebSettings = field(default_factory=WebSettings)
    #: Seconds (``[serve] walk_every``) between floor serve's walks of every stored chain
    #: (controller/floor/chainwatch.py).
    walk_every: float = DEFAULT_WALK_EVERY

    @property
    def web_database(self) -> Database:
        """``floor web``'s own role (``[web] user``, ``password_file``) on the store's database."""
        return self.writer.as_user(self.web.user, self.web.password_file)


def read_secret(path: Path) -> str:
    """A password file's first line (ConfigError naming the file if it cannot be read)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ConfigError(
            f"cannot read the password file {path}: {error.strerror or error}"
        ) from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"cannot read the password file {path}: expected UTF-8 text: {error}"
        ) from None
    secret = text.splitlines()[0].strip() if text.strip() else ""
    if not secret:
        raise ConfigError(f"the password file {path} is empty: expected the password on a line")
    return secret


def load(path: Path) -> FloorConfig:
    """Read and check floor.toml at ``path`` (FloorConfigError lists every problem)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ConfigError(
            f"cannot read the floor's configuration {path}: {error.strerror or error}"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not TOML: {error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not TOML: expected UTF-8 text: {error}") from None
    return parse(data, path.parent, str(path))


def parse(data: dict[str, object], base: Path, source: str) -> FloorConfig:
    problems: list[Problem] = []
    top = Section(problems, "", data, SECTIONS[""], SECTIONS)
    nats = _nats(top.section("nats", SECTIONS["nats"], required=True), base)
    writer = _postgres(top.section("postgres", SECTIONS["postgres"], required=True), base)
    reader_section = top.section("reader", SECTIONS["reader"], required=False)
    serve = top.section("serve", SECTIONS["serve"], required=False)
    batch, consumer, ack_wait = DEFAULT_BATCH, DEFAULT_CONSUMER, DEFAULT_ACK_WAIT
    walk_every = DEFAULT_WALK_EVERY
    if serve is not None:
        batch = serve.integer("batch", DEFAULT_BATCH, minimum=1, maximum=10_000) or DEFAULT_BATCH
        consumer = (
            serve.string(
                "consumer",
                pattern=_CONSUMER,
                what="a consumer name: 1 to 64 letters, digits, '_' or '-'",
                required=False,
            )
            or DEFAULT_CONSUMER
        )
        ack_wait = _seconds(serve, "ack_wait") or DEFAULT_ACK_WAIT
        walk_every = _seconds(serve, "walk_every", WALK_EVERY_RANGE) or DEFAULT_WALK_EVERY
    web = parse_web(top.section("web", SECTIONS["web"], required=False), base)
    reader = None
    if writer is not None:
        user, password_file = READER, None
        if reader_section is not None:
            user = _role(reader_section) or READER
            password_file = reader_section.path(
                "password_file", base, what="the path of a password file", required=False
            )
        reader = writer.as_user(user, password_file)
    if problems:
        raise FloorConfigError(source, problems)
    assert nats is not None
    assert writer is not None
    assert reader is not None
    return FloorConfig(nats, writer, reader, batch, consumer, ack_wait, web, walk_every)


def _seconds(section: Section, name: str, bounds: tuple[int, int] = (1, 3600)) -> float | None:
    value = section.data.get(name, MISSING)
    if value is MISSING:
        return None
    least, most = bounds
    if isinstance(value, bool) or not isinstance(value, int | float) or not least <= value <= most:
        section.fail(name, f"expected a number of seconds, {least} to {most}")
        return None
    return float(value)


def _role(section: Section) -> str | None:
    return section.string("user", pattern=_NAME, what="a PostgreSQL role name", required=False)


def _nats(section: Section | None, base: Path) -> NatsSettings | None:
    if section is None:
        return None
    servers = section.data.get("servers", MISSING)
    if (
        not isinstance(servers, list)
        or not servers
        or not all(isinstance(url, str) and _URL.fullmatch(url) for url in servers)
    ):
        section.fail("servers", 'expected a list of server URLs such as "nats://10.0.0.5:4222"')
        servers = []
    user = section.string("user", pattern=_NAME, what="the floor's NATS user", required=True)
    password_file = section.path(
        "password_file", base, what="the path of the NATS user's password file", required=True
    )
    tls_ca = section.path("tls_ca", base, what="the path of a CA certificate (PEM)", required=False)
    replicas = section.integer(
        "replicas",
        DEFAULT_REPLICAS,
        minimum=1,
        maximum=MAX_REPLICAS,
        what="the stream's copies, one per NATS node",
    )
    if tls_ca is None and any(str(url).startswith("tls://") for url in servers):
        section.fail(
            "tls_ca", "expected the CA that signed the servers' certificates: tls:// given"
        )
    if user is None or password_file is None or not servers or replicas is None:
        return None
    servers_found = tuple(str(url) for url in servers)
    return NatsSettings(servers_found, user, password_file, tls_ca, replicas)


def _postgres(section: Section | None, base: Path) -> Database | None:
    if section is None:
        return None
    password_file = section.path(
        "password_file", base, what="the path of the role's password file", required=False
    )
    if section.has("dsn"):
        for key in ("host", "port", "dbname", "user"):
            if section.has(key):
                section.fail(key, "expected either dsn or host/port/dbname/user, not both")
        dsn = section.string("dsn", what="a libpq connection string", required=True)
        if dsn is None:
            return None
        try:
            conninfo_to_dict(dsn)
        except Exception as error:  # psycopg's ProgrammingError: the text does not parse
            section.fail("dsn", f"expected a libpq connection string ({error})")
            return None
        return Database(dsn, password_file)
    host = section.string("host", what="a host name or address", required=False) or "127.0.0.1"
    port = section.integer("port", 5432, minimum=1, maximum=65535)
    dbname = section.string("dbname", pattern=_NAME, what="a database name", required=True)
    user = _role(section) or WRITER
    if port is None or dbname is None:
        return None
    return Database(make_conninfo(host=host, port=port, dbname=dbname, user=user), password_file)
