"""The web view's local users (docs/floor-web.md, Users and roles): one role each, passwords
hashed with Argon2id (argon2-cffi's defaults, RFC 9106's second recommended set).

Changes are the database owner's (``tablectl floor user``); the web process only reads a user
to check a password or a session (``find``, ``check_password``), as its own role, [web] user.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import psycopg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controller.floor.web.schema import ROLES

Conn = psycopg.Connection[tuple[object, ...]]
AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]
NAME: Final = re.compile(r"[a-z][a-z0-9_.-]{0,62}")
#: Short passwords fall to a guess however slow the hash: 12 characters at least.
MIN_PASSWORD: Final = 12
MAX_PASSWORD: Final = 1024
_HASHER: Final = PasswordHasher()
#: Verified when the name is unknown, so a wrong name costs what a wrong password does.
_DUMMY: Final = _HASHER.hash("no such user: the time of a verification")


class UserError(Exception):
    """A user cannot be added or changed as asked: says why."""


@dataclass(frozen=True, slots=True)
class User:
    name: str
    role: str
    disabled: bool
    password_changed_at: datetime


def check_name(name: str) -> str:
    if not NAME.fullmatch(name):
        raise UserError(
            f"user name {name!r}: expected 1 to 63 lower-case letters, digits, '_', '.' or '-', "
            "beginning with a letter"
        )
    return name


def check_role(role: str) -> str:
    if role not in ROLES:
        raise UserError(f"role {role!r}: expected one of {', '.join(ROLES)}")
    return role


def hash_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise UserError(f"the password has {len(password)} characters: expected {MIN_PASSWORD}+")
    if len(password) > MAX_PASSWORD:
        raise UserError(f"the password is longer than {MAX_PASSWORD} characters")
    return _HASHER.hash(password)


def add(conn: Conn, name: str, role: str, password: str) -> None:
    check_name(name)
    check_role(role)
    hashed = hash_password(password)
    with conn.transaction():
        if conn.execute("SELECT 1 FROM web.users WHERE name = %s", (name,)).fetchone():
            raise UserError(
                f"user {name!r} exists already: `tablectl floor user passwd` changes it"
            )
        conn.execute(
            "INSERT INTO web.users (name, role, password_hash) VALUES (%s, %s, %s)",
            (name, role, hashed),
        )


def passwd(conn: Conn, name: str, password: str) -> None:
    """A new password (every session of the user void from now), the user enabled again."""
    hashed = hash_password(password)
    _change(
        conn,
        name,
        "UPDATE web.users SET password_hash = %s, password_changed_at = clock_timestamp(), "
        "disabled = false WHERE name = %s",
        (hashed, name),
    )


def disable(conn: Conn, name: str) -> None:
    """The user may not log in, and their sessions end at their next request."""
    _change(conn, name, "UPDATE web.users SET disabled = true WHERE name = %s", (name,))


def _change(conn: Conn, name: str, statement: str, params: tuple[object, ...]) -> None:
    check_name(name)
    with conn.transaction():
        if conn.execute(statement.encode(), params).rowcount != 1:
            raise UserError(f"no user {name!r}: `tablectl floor user list` shows them")


def listed(conn: Conn) -> list[User]:
    rows = conn.execute(
        "SELECT name, role, disabled, password_changed_at FROM web.users ORDER BY name"
    ).fetchall()
    return [_user(row) for row in rows]


def _user(row: tuple[object, ...]) -> User:
    name, role, disabled, changed = row
    assert isinstance(changed, datetime)
    return User(str(name), str(role), bool(disabled), changed)


async def find(conn: AsyncConn, name: str) -> User | None:
    """The enabled user ``name`` (None: no such user, or disabled)."""
    cur = await conn.execute(
        "SELECT name, role, disabled, password_changed_at FROM web.users "
        "WHERE name = %s AND NOT disabled",
        (name,),
    )
    row = await cur.fetchone()
    return None if row is None else _user(row)


async def check_password(conn: AsyncConn, name: str, password: str) -> User | None:
    """The enabled user whose password this is (None: wrong name, wrong password or disabled).
    The hash is verified whatever the name, so the time taken tells nothing."""
    row = None
    if NAME.fullmatch(name) and len(password) <= MAX_PASSWORD:
        cur = await conn.execute(
            "SELECT name, role, disabled, password_changed_at, password_hash FROM web.users "
            "WHERE name = %s",
            (name,),
        )
        row = await cur.fetchone()
    hashed = str(row[4]) if row is not None else _DUMMY
    # Argon2 takes tens of milliseconds of CPU by design: off the event loop.
    if not await asyncio.to_thread(_verified, hashed, password) or row is None:
        return None
    user = _user(row[:4])
    return None if user.disabled else user


def _verified(hashed: str, password: str) -> bool:
    try:
        return _HASHER.verify(hashed, password)
    except (VerificationError, InvalidHashError):
        return False
