"""``[floor]`` of ``table.toml``: the floor's NATS servers, this table's credentials and TLS, for
``tablectl forward`` (docs/floor.md, The forwarder; docs/deploy.md, Configuration reference).

``read_floor`` is pure, as the other sections' readers: it checks the keys as text. What needs
the files themselves, the password file's mode and content and the TLS files, is checked by
``floor_file_problems`` (``load_config(files=True)``, ``tablectl config check --files``) and by
``read_password`` when the forwarder starts.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from controller.config.settings import ACK_TIMEOUT, FloorLinkSettings
from controller.tomlcheck import MISSING, Problem, Section

#: A password file may be read by its owner (0600) and by its group (0640), by nobody else.
PASSWORD_MODES: Final = (0o600, 0o640)
SCHEMES: Final = ("nats", "tls")
DEFAULT_PORT: Final = 4222
#: The forwarder's longest wait between two looks at the journal's end (``tablectl forward
#: --poll``): a record written wakes it at once where inotify watches the journal's folder
#: (controller/forwarder/watch.py); this is how often it reads where inotify cannot.
POLL: Final = 1.0
#: The most ``[floor] ack_timeout`` may be: a forwarder waiting longer for a broker that stopped
#: answering holds its records back from the floor for as long.
MAX_ACK_TIMEOUT: Final = 300.0
_URL_TEXT: Final = (
    'a list of the floor\'s NATS servers, e.g. ["tls://floor-nats-1.casino.lan:4222"]: '
    "nats:// or tls:// URLs of a host and a port, all of one scheme, no user or password in "
    "them (they are [floor] user and password_file)"
)


def read_floor(section: Section | None, base: Path) -> FloorLinkSettings | None:
    """The ``[floor]`` section, or None: absent (the table forwards nothing) or with a problem
    recorded."""
    if section is None:
        return None
    before = len(section.problems)
    servers = _servers(section)
    user = section.string(
        "user",
        what="the table's own user on the floor's NATS servers (e.g. \"table-AC-POKER-07\")",
        required=True,
    )
    if user is not None and (not user or any(char.isspace() for char in user)):
        section.fail("user", "expected a user name without spaces")
    password = section.path(
        "password_file",
        base,
        what="the path of the file holding the table's NATS password (mode 0600 or 0640)",
        required=True,
    )
    tls_ca, tls_cert, tls_key = (
        section.path(name, base, what=what, required=False)
        for name, what in (
            ("tls_ca", "the path of the CA certificate (PEM) that signed the servers'"),
            ("tls_cert", "the path of this table's certificate (PEM), for mutual TLS"),
            ("tls_key", "the path of this table's private key (PEM), for mutual TLS"),
        )
    )
    if (tls_cert is None) != (tls_key is None):
        section.fail(
            "tls_key" if tls_key is None else "tls_cert",
            "expected tls_cert and tls_key together (this table's certificate and its key)",
        )
    if servers and not servers[0].startswith("tls://"):
        for name in ("tls_ca", "tls_cert", "tls_key"):
            if section.has(name):
                # A TLS file with nats:// servers would never be used: refuse it.
                section.fail(name, "expected tls:// servers when a TLS file is given")
    # How long a publish waits for the stream's acknowledgement (docs/deploy.md, [floor]).
    ack_timeout = section.seconds("ack_timeout", ACK_TIMEOUT, above=0, maximum=MAX_ACK_TIMEOUT)
    if (
        len(section.problems) > before
        or servers is None
        or user is None
        or password is None
        or ack_timeout is None
    ):
        return None
    return FloorLinkSettings(servers, user, password, tls_ca, tls_cert, tls_key, ack_timeout)


def _servers(section: Section) -> tuple[str, ...] | None:
    value = section.data.get("servers", MISSING)
    if value is MISSING:
        section.fail("servers", f"expected {_URL_TEXT}; this key is required")
        return None
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        section.fail("servers", f"expected {_URL_TEXT}")
        return None
    for url in value:
        problem = _url_problem(url)
        if problem is not None:
            section.problems.append(Problem(section.key("servers"), url, f"expected {problem}"))
            return None
    if len({url.split("://", 1)[0] for url in value}) > 1:
        # Never a fall-back to plain text for the records (hole cards are in them).
        section.fail("servers", "expected every server of one scheme: all tls:// or all nats://")
        return None
    return tuple(value)


def _url_problem(url: str) -> str | None:
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as error:
        return f"{_URL_TEXT} ({error})"
    if parts.scheme not in SCHEMES or not parts.hostname:
        return _URL_TEXT
    if parts.username is not None or parts.password is not None:
        return _URL_TEXT
    if parts.path not in ("", "/") or parts.query or parts.fragment or port == 0:
        return _URL_TEXT
    return None


def floor_file_problems(floor: FloorLinkSettings | None) -> list[Problem]:
    """What stops ``tablectl forward`` using the files ``[floor]`` names."""
    if floor is None:
        return []
    problems = []
    try:
        read_password(floor.password_file)
    except PasswordFileError as error:
        problems.append(Problem("floor.password_file", str(floor.password_file), error.expected))
    for name in ("tls_ca", "tls_cert", "tls_key"):
        file: Path | None = getattr(floor, name)
        if file is None:
            continue
        if not os.access(file, os.R_OK):
            reason = "it does not exist" if not file.exists() else "it cannot be read"
            problems.append(
                Problem(f"floor.{name}", str(file), f"expected a readable file: {reason}")
            )
        elif name == "tls_key" and stat.S_IMODE(file.stat().st_mode) not in PASSWORD_MODES:
            # The key is this table's identity on the floor, as the password is.
            mode = stat.S_IMODE(file.stat().st_mode)
            problems.append(Problem(f"floor.{name}", str(file), _mode_expected(mode)))
    return problems


def _mode_expected(mode: int) -> str:
    return f"mode 0600 or 0640 (it is {mode:04o}: chmod 0640 it, owner root, group tablectl)"


class PasswordFileError(ValueError):
    """A password file that cannot be used; ``expected`` says what it should be."""

    def __init__(self, file: Path, expected: str) -> None:
        super().__init__(f"[floor] password_file {str(file)!r}: expected {expected}")
        self.expected = expected


def read_password(file: Path) -> str:
    """The password in ``file``: one line, the file's mode 0600 or 0640 (no one but its owner
    and group may read it), else PasswordFileError."""
    try:
        mode = stat.S_IMODE(os.stat(file).st_mode)
        text = file.read_bytes()
    except OSError as error:
        raise PasswordFileError(file, f"a readable file ({error.strerror})") from None
    if mode not in PASSWORD_MODES:
        raise PasswordFileError(file, _mode_expected(mode))
    try:
        password = text.decode("utf-8").removesuffix("\n")
    except UnicodeDecodeError:
        raise PasswordFileError(file, "the password as UTF-8 text") from None
    if not password or "\n" in password or password != password.strip():
        raise PasswordFileError(
            file, "one line: the password, without spaces around it (a newline may end it)"
        )
    return password
