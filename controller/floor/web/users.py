"""The web view's local users (docs/floor-web.md, Users and roles): one role each, passwords
hashed with Argon2id (argon2-cffi's defaults, RFC 9106's second recommended set).

The database owner changes any user (``tablectl floor user``); the web process reads a user to
check a password or a session (``find``, ``check_password``), as its own role, [web] user, and an
admin changes the other users through the owner's functions (``add_by_admin`` and the rest, below).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Final

import psycopg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from controller.floor.web.dbschema import ROLES

Conn = psycopg.Connection[tuple[object, ...]]
AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]
NAME: Final = re.compile(r"[a-z][a-z0-9_.-]{0,62}")
#: Short passwords fall to a guess however slow the hash: 12 characters at least.
MIN_PASSWORD: Final = 12
MAX_PASSWORD: Final = 1024
_HASHER: Final = PasswordHasher()
#: Verified when the name is unknown, so a wrong name costs what a wrong password does: a hash
#: made once by ``_HASHER`` (of "no such user: the time of a verification") and written here,
#: since a hash carries its parameters and its verification costs what any user's does, while
#: making it at import cost every ``floor web`` and ``floor user`` process 0.2 s of CPU
#: (docs/testing.md, Where the default suite's time goes). A unit test holds it to ``_HASHER``'s
#: parameters (``check_needs_rehash``), so a change of them cannot leave it cheaper.
_DUMMY: Final = (
    "$argon2id$v=19$m=65536,t=3,p=4$pZi3HPXOfmfTJjFsH6ojAg"
    "$x53YcJPL82VmsY8duNa9/Keb7jcrX9rWvn1fgB8+2Wg"
)


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


# The admin's changes in the browser (docs/floor-web.md, The admin's user pages):
# through the owner's functions of controller/floor/web/dbschema.py migration 3,
# the web's role having no UPDATE on web.users. The password is hashed here, in the web process;
# only its hash goes to the database, and none to the log of changes.

#: What an admin may give in the browser: an admin account is the database owner's.
GIVEN_ROLES: Final = tuple(role for role in ROLES if role != "admin")
#: The lines of web.user_changes the page shows, newest first.
CHANGES_SHOWN: Final = 100
#: Each refusal of the functions (their SQLSTATE) as the page's HTTP status.
_STATUS: Final[tuple[tuple[type[psycopg.Error], int], ...]] = (
    (psycopg.errors.InsufficientPrivilege, 403),
    (psycopg.errors.InvalidParameterValue, 400),
    (psycopg.errors.NoDataFound, 404),
    (psycopg.errors.UniqueViolation, 409),
    (psycopg.errors.ObjectNotInPrerequisiteState, 409),
)


class ChangeRefused(UserError):
    """An admin's change refused: why, and the HTTP status that says it (400 a bad value, 403
    not allowed, 404 no such user, 409 exists or nothing to change)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Account:
    """A user as the admin's list shows them."""

    name: str
    role: str
    disabled: bool
    created_at: datetime
    password_changed_at: datetime


@dataclass(frozen=True, slots=True)
class Change:
    """A line of web.user_changes."""

    at: datetime
    actor: str
    user_name: str
    change: str


async def accounts(conn: AsyncConn) -> list[Account]:
    cur = await conn.execute(
        "SELECT name, role, disabled, created_at, password_changed_at FROM web.users ORDER BY name"
    )
    out = []
    for name, role, disabled, created, changed in await cur.fetchall():
        assert isinstance(created, datetime)
        assert isinstance(changed, datetime)
        out.append(Account(str(name), str(role), bool(disabled), created, changed))
    return out


async def changes(conn: AsyncConn, limit: int = CHANGES_SHOWN) -> list[Change]:
    cur = await conn.execute(
        "SELECT at, actor, user_name, change FROM web.user_changes ORDER BY id DESC LIMIT %s",
        (limit,),
    )
    out = []
    for at, actor, user_name, change in await cur.fetchall():
        assert isinstance(at, datetime)
        out.append(Change(at, str(actor), str(user_name), str(change)))
    return out


async def _hashed(password: str) -> str:
    """The password's hash (UserError naming a short or long one), off the event loop: Argon2
    takes tens of milliseconds of CPU by design."""
    try:
        return await asyncio.to_thread(hash_password, password)
    except UserError as error:
        raise ChangeRefused(str(error), 400) from None


def _input(check: Callable[[str], str], value: str) -> str:
    """A bad name or role refused (400) before the database is asked (which checks again)."""
    try:
        return check(value)
    except UserError as error:
        raise ChangeRefused(str(error), 400) from None


def _given_role(role: str) -> str:
    """A role an admin may give: ``admin`` is left to the database to refuse (403, saying who
    makes admins); any other not in GIVEN_ROLES is a bad value, the choices named."""
    if role != "admin" and role not in GIVEN_ROLES:
        raise UserError(f"role {role!r}: expected one of {', '.join(GIVEN_ROLES)}")
    return check_role(role)


async def _call(conn: AsyncConn, statement: str, params: tuple[object, ...]) -> None:
    try:
        await conn.execute(statement.encode(), params)
    except psycopg.Error as error:
        for kind, status in _STATUS:
            if isinstance(error, kind):
                raise ChangeRefused(error.diag.message_primary or str(error), status) from None
        raise


async def add_by_admin(conn: AsyncConn, actor: str, name: str, role: str, password: str) -> None:
    """A new user (never an admin) made by the admin ``actor``."""
    _input(check_name, name)
    _input(_given_role, role)
    hashed = await _hashed(password)
    await _call(conn, "SELECT web.user_add(%s, %s, %s, %s)", (actor, name, role, hashed))


async def passwd_by_admin(conn: AsyncConn, actor: str, name: str, password: str) -> None:
    """A new password for ``name``: every session of theirs ends."""
    _input(check_name, name)
    hashed = await _hashed(password)
    await _call(conn, "SELECT web.user_set_password(%s, %s, %s)", (actor, name, hashed))


async def role_by_admin(conn: AsyncConn, actor: str, name: str, role: str) -> None:
    """Another role for ``name`` (never admin): every session of theirs ends."""
    _input(check_name, name)
    _input(_given_role, role)
    await _call(conn, "SELECT web.user_set_role(%s, %s, %s)", (actor, name, role))


async def disabled_by_admin(conn: AsyncConn, actor: str, name: str, *, disabled: bool) -> None:
    """``name`` disabled (out at their next request) or enabled again (logging in anew)."""
    _input(check_name, name)
    await _call(conn, "SELECT web.user_set_disabled(%s, %s, %s)", (actor, name, disabled))


async def own_password(conn: AsyncConn, name: str, current: str, new: str) -> None:
    """``name``'s own password, given the current one (docs/floor-web.md, Your own password);
    every session of theirs ends, the one asking too. ChangeRefused: 403 the current password
    is wrong, 400 the new one is too short or long or the current one, 409 the password was
    changed meanwhile or the user disabled."""
    cur = await conn.execute(
        "SELECT password_hash FROM web.users WHERE name = %s AND NOT disabled", (name,)
    )
    row = await cur.fetchone()
    hashed = str(row[0]) if row is not None else _DUMMY
    if not await asyncio.to_thread(_verified, hashed, current) or row is None:
        raise ChangeRefused("the current password is wrong: nothing changed", 403)
    if await asyncio.to_thread(_verified, hashed, new):
        raise ChangeRefused("the new password is the current one: choose another", 400)
    new_hash = await _hashed(new)
    await _call(conn, "SELECT web.user_set_own_password(%s, %s, %s)", (name, hashed, new_hash))
