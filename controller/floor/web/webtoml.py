"""floor.toml ``[web]``: ``tablectl floor web`` (docs/floor-web.md, Configuration).

```toml
[web]
listen = "127.0.0.1"          # the address to bind: loopback unless a proxy on another host
port = 8443
secret_file = "web.secret"    # the key that signs the session cookies (32 bytes or more)
tls_cert = "web.pem"          # optional, with tls_key: uvicorn serves HTTPS itself
tls_key = "web.key"
behind_tls_proxy = false      # true: a reverse proxy terminates TLS (cookies marked Secure)
silent_after = 300            # seconds without a record before the floor page flags a table silent
user = "tablectl_web"         # the web view's own PostgreSQL role (made by floor setup)
password_file = "web.password"

[web.nats]                    # optional: the web's own NATS user (else [nats]'s, the floor's)
user = "floor-web"
password_file = "web-nats.password"

[web.feeds]
broadcast_delay = 1800        # seconds after its record before the broadcast feed sends a hole card
broadcast_folded = false      # true: the broadcast feed sends a folded player's hole cards too
```

The web view connects to the store's database as its own role, ``[web] user`` (docs/floor-web.md,
The web's role and logs): it reads the store and the users, and may only add to its two logs
(the hole-card views, the alarm acknowledgements). It follows the stream (``[nats]``'s servers
and CA) as ``[web.nats]``'s user, one that may change nothing in the stream
(controller/forwarder/subjects.py ``web_permissions``); without it, as ``[nats]``'s, the floor's,
which administers the stream, and ``floor web`` says so at its start.
"""

from __future__ import annotations

import ipaddress
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeGuard

from controller.poker.engine.tablesetup import ConfigError
from controller.tomlcheck import Section

KEYS: Final = (
    "listen",
    "port",
    "secret_file",
    "tls_cert",
    "tls_key",
    "behind_tls_proxy",
    "user",
    "password_file",
    "silent_after",
    "nats",
    "feeds",
)
#: ``[web.nats]``: the web's own NATS user (docs/floor-web.md, The web's NATS user).
NATS_KEYS: Final = ("user", "password_file")
#: ``[web.feeds]``: the broadcast feed's release of hole cards (docs/floor-web.md, Feeds).
FEED_KEYS: Final = ("broadcast_delay", "broadcast_folded")
#: Half an hour: a stream's overlay shows a hand's hole cards well after the hand is over.
DEFAULT_BROADCAST_DELAY: Final = 1800.0
#: A day: a longer delay is a broadcast of yesterday, not a delay.
MAX_BROADCAST_DELAY: Final = 86400.0
#: Five minutes: a table journals every deal and bet, and a break between hands longer than
#: this is worth a look (docs/floor-web.md, The floor page: Last heard).
DEFAULT_SILENT_AFTER: Final = 300.0
#: The web view's PostgreSQL role (controller/floor/web/dbschema.py grants it).
DEFAULT_USER: Final = "tablectl_web"
_ROLE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_\-]{0,62}")
DEFAULT_LISTEN: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8443
#: itsdangerous signs with HMAC-SHA1 over a derived key: fewer than 32 bytes is guessable.
MIN_SECRET: Final = 32


@dataclass(frozen=True, slots=True)
class FeedSettings:
    """``[web.feeds]``: when the broadcast feed may send a hole card (policy.FEEDS)."""

    #: Seconds from the record that dealt a hole card to the moment the feed may send it.
    broadcast_delay: float = DEFAULT_BROADCAST_DELAY
    #: A folded player's hole cards sent too (after the delay): the room's choice, off.
    broadcast_folded: bool = False


@dataclass(frozen=True, slots=True)
class WebNats:
    """``[web.nats]``: the user ``floor web`` follows the stream as, and its password's file."""

    user: str
    password_file: Path


@dataclass(frozen=True, slots=True)
class WebSettings:
    listen: str = DEFAULT_LISTEN
    port: int = DEFAULT_PORT
    secret_file: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    behind_tls_proxy: bool = False
    #: ``floor web``'s PostgreSQL role, and the file of its password (None: the DBA maps a login).
    user: str = DEFAULT_USER
    password_file: Path | None = None
    feeds: FeedSettings = FeedSettings()
    #: None: the web follows the stream as ``[nats]``'s user, the floor's.
    nats: WebNats | None = None
    #: Seconds since the floor last heard from a table before its row is flagged silent.
    silent_after: float = DEFAULT_SILENT_AFTER

    @property
    def secure_cookies(self) -> bool:
        """Cookies marked Secure: whenever the browser reaches the view over HTTPS."""
        return self.tls_cert is not None or self.behind_tls_proxy

    def secret(self) -> bytes:
        """The signing key from ``secret_file`` (ConfigError naming the file and what is wrong)."""
        if self.secret_file is None:
            raise ConfigError("floor.toml [web] secret_file: expected the path of the session key")
        try:
            key = self.secret_file.read_bytes().strip()
        except OSError as error:
            raise ConfigError(
                f"cannot read the web view's secret_file {self.secret_file}: {error}"
            ) from None
        if len(key) < MIN_SECRET:
            raise ConfigError(
                f"the web view's secret_file {self.secret_file} holds {len(key)} bytes: expected "
                f"{MIN_SECRET} or more (e.g. `openssl rand -hex 32 > {self.secret_file}`)"
            )
        return key


def parse_web(section: Section | None, base: Path) -> WebSettings:
    """The ``[web]`` section (absent: the defaults, and ``floor web`` asks for a secret_file)."""
    if section is None:
        return WebSettings()
    listen = section.string("listen", what="an IP address to bind", required=False)
    if listen is not None:
        try:
            ipaddress.ip_address(listen)
        except ValueError:
            section.fail("listen", 'expected an IP address such as "127.0.0.1" or "::1"')
            listen = None
    port = section.integer("port", DEFAULT_PORT, minimum=1, maximum=65535)
    secret_file = section.path(
        "secret_file", base, what="the path of the session key's file", required=True
    )
    tls_cert = section.path("tls_cert", base, what="the path of a PEM certificate", required=False)
    tls_key = section.path("tls_key", base, what="the path of its PEM key", required=False)
    if (tls_cert is None) != (tls_key is None):
        section.fail("tls_key" if tls_key is None else "tls_cert", "expected tls_cert and tls_key")
    proxy = section.boolean("behind_tls_proxy", False)
    user = section.string("user", pattern=_ROLE, what="a PostgreSQL role name", required=False)
    password_file = section.path(
        "password_file", base, what="the path of the web role's password file", required=False
    )
    silent_after = DEFAULT_SILENT_AFTER
    value = section.data.get("silent_after", DEFAULT_SILENT_AFTER)
    if _seconds(value):
        silent_after = float(value)
    else:
        section.fail(
            "silent_after",
            f"expected a number of seconds, more than 0 and at most {MAX_BROADCAST_DELAY:g} "
            "(a day)",
        )
    return WebSettings(
        listen or DEFAULT_LISTEN,
        port or DEFAULT_PORT,
        secret_file,
        tls_cert,
        tls_key,
        bool(proxy),
        user or DEFAULT_USER,
        password_file,
        parse_feeds(section.section("feeds", FEED_KEYS, required=False)),
        parse_nats(section.section("nats", NATS_KEYS, required=False), base),
        silent_after,
    )


def _seconds(value: object) -> TypeGuard[float]:
    """Whether ``value`` is a number of seconds more than 0 and at most a day."""
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0 < value <= MAX_BROADCAST_DELAY
    )


def parse_nats(section: Section | None, base: Path) -> WebNats | None:
    """``[web.nats]`` (absent: None); both keys are required in it."""
    if section is None:
        return None
    user = section.string("user", what="the web's NATS user name", required=True)
    password_file = section.path(
        "password_file", base, what="the path of its password's file", required=True
    )
    if user is None or password_file is None:
        return None  # the problems are recorded: the load fails naming them
    return WebNats(user, password_file)


def parse_feeds(section: Section | None) -> FeedSettings:
    """``[web.feeds]`` (absent: the defaults); a bad value is recorded as a problem."""
    if section is None:
        return FeedSettings()
    delay = section.data.get("broadcast_delay", DEFAULT_BROADCAST_DELAY)
    if (
        not isinstance(delay, int | float)
        or isinstance(delay, bool)
        or not math.isfinite(delay)
        or not 0 < delay <= MAX_BROADCAST_DELAY
    ):
        section.fail(
            "broadcast_delay",
            f"expected a number of seconds, more than 0 and at most {MAX_BROADCAST_DELAY:g} "
            "(a day)",
        )
        delay = DEFAULT_BROADCAST_DELAY
    folded = section.boolean("broadcast_folded", False)
    return FeedSettings(float(delay), bool(folded))
