"""floor.toml ``[web]``: ``tablectl floor web`` (docs/floor-web.md, Configuration).

```toml
[web]
listen = "127.0.0.1"          # the address to bind: loopback unless a proxy on another host
port = 8443
secret_file = "web.secret"    # the key that signs the session cookies (32 bytes or more)
tls_cert = "web.pem"          # optional, with tls_key: uvicorn serves HTTPS itself
tls_key = "web.key"
behind_tls_proxy = false      # true: a reverse proxy terminates TLS (cookies marked Secure)
```

The web view reads the store as the ``[reader]`` role and follows the stream as ``[nats]``'s user.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.engine.config import ConfigError
from controller.tomlcheck import Section

KEYS: Final = ("listen", "port", "secret_file", "tls_cert", "tls_key", "behind_tls_proxy")
DEFAULT_LISTEN: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8443
#: itsdangerous signs with HMAC-SHA1 over a derived key: fewer than 32 bytes is guessable.
MIN_SECRET: Final = 32


@dataclass(frozen=True, slots=True)
class WebSettings:
    listen: str = DEFAULT_LISTEN
    port: int = DEFAULT_PORT
    secret_file: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    behind_tls_proxy: bool = False

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
    return WebSettings(
        listen or DEFAULT_LISTEN,
        port or DEFAULT_PORT,
        secret_file,
        tls_cert,
        tls_key,
        bool(proxy),
    )
