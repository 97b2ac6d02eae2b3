"""How every floor command connects to the floor's PostgreSQL (docs/floor.md, Connecting to the
store): one helper, so that a store the command cannot reach is said the same way by each, in
one line: the role, what was tried (the connection without its password, and where libpq went),
what failed, and what to do. libpq's own message is two lines and names no role or remedy.
"""

from __future__ import annotations

import getpass
import os
from dataclasses import dataclass
from typing import Final

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

#: The section of docs/floor.md that says how each command connects, and as whom.
DOCS: Final = "docs/floor.md, Connecting to the store"


@dataclass(frozen=True, slots=True)
class Role:
    """Whom a command connects as, and what a person does when it cannot."""

    #: In words: "the database owner", "the reader role".
    name: str
    #: What to do when the connection fails.
    remedy: str


OWNER: Final = Role(
    "the database owner",
    "run it on the floor host as the database's owner, or give the owner's connection with "
    "--owner-dsn DSN",
)
READER: Final = Role(
    "the read-only role",
    "check that PostgreSQL runs there and floor.toml's [postgres] (host, port, dbname) and "
    "[reader] (user, password_file)",
)
WEB: Final = Role(
    "the web view's role",
    "check that PostgreSQL runs there and floor.toml's [postgres] (host, port, dbname) and "
    "[web] (user, password_file)",
)


class Unreachable(Exception):
    """The store could not be connected to; the message is the one line to print."""


def connect(
    dsn: str, role: Role, *, autocommit: bool = False
) -> psycopg.Connection[tuple[object, ...]]:
    """A connection to the store as ``role``; Unreachable saying what was tried, what failed
    and what to do when libpq cannot connect (a server down, a socket or host not there, a
    password refused)."""
    try:
        return psycopg.connect(dsn, autocommit=autocommit)
    except psycopg.OperationalError as error:
        raise Unreachable(unreachable(dsn, role, error)) from None


def unreachable(dsn: str, role: Role, error: BaseException) -> str:
    """The one line: ``cannot connect to the floor's PostgreSQL as ROLE (CONNINFO): FAILED;
    REMEDY (DOCS)``, never the password."""
    return (
        f"cannot connect to the floor's PostgreSQL as {role.name} ({tried(dsn)}): "
        f"{failed(error)}; {role.remedy} ({DOCS})"
    )


def tried(dsn: str) -> str:
    """The connection as libpq was given it, without its password, and the user and socket it
    defaults to where the connection names none."""
    try:
        given = conninfo_to_dict(dsn)
    except psycopg.ProgrammingError:
        return "a connection string libpq cannot read"
    given.pop("password", None)
    said = make_conninfo(**{k: str(v) for k, v in given.items()})
    defaults = []
    if "user" not in given and "PGUSER" not in os.environ:
        defaults.append(f"as the login running this, {getpass.getuser()}")
    if "host" not in given and "PGHOST" not in os.environ:
        defaults.append("over libpq's default local socket")
    return ", ".join(filter(None, [said, *defaults]))


def failed(error: BaseException) -> str:
    """libpq's reason in one line: each attempt's ``connection to server ... failed: WHY``,
    without psycopg's prefix or libpq's indented hints."""
    lines = [line.strip() for line in str(error).splitlines() if line and line[0] != "\t"]
    said = "; ".join(line for line in lines if line)
    for prefix in ("connection is bad: ", "connection failed: "):
        said = said.removeprefix(prefix)
    return said or type(error).__name__
