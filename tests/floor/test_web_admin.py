"""The admin's user pages (docs/floor-web.md, The admin's user pages):
the owner's functions of the web schema's migration 3 called as the web's own role over a real
PostgreSQL (each refusal: a non-admin or disabled actor, an admin target, oneself, a bad name,
role or password), the role's lack of any direct write, then the real ``floor web`` over HTTP:
CSRF, the roles, and a session ended by the admin's change."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import Awaitable, Callable
from pathlib import Path

import psycopg
import pytest
from floorhelp import FloorDb, floor_database
from psycopg import errors
from psycopg.conninfo import make_conninfo
from servershelp import NatsFactory
from webhelp import (
    PASSWORD,
    WEB_PASSWORD,
    Client,
    Reply,
    WebProcess,
    at_full_strength,
    user,
    web_floor,
)

from controller.floor import store
from controller.floor.web import dbschema as web_schema
from controller.floor.web import users
from controller.floor.web.webtoml import DEFAULT_USER
from simulator.servers_pg import PostgresServer

NEW_PASSWORD = "a new one, long enough"
AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]


def _floor(postgres: PostgresServer) -> tuple[FloorDb, str]:
    """A floor database with the web schema, the web's role's password, and users: ``boss``
    (admin), ``other.admin`` (admin), ``ana`` (supervisor), ``gone`` (an admin, disabled); the
    web role's DSN."""
    db = floor_database(postgres)
    with psycopg.connect(db.owner, autocommit=True) as conn:
        web_schema.setup(conn)
        store.set_password(conn, DEFAULT_USER, WEB_PASSWORD)
        for name, role in (("boss", "admin"), ("other.admin", "admin"), ("ana", "supervisor")):
            users.add(conn, name, role, PASSWORD)
        users.add(conn, "gone", "admin", PASSWORD)
        users.disable(conn, "gone")
    return db, make_conninfo(db.owner, user=DEFAULT_USER, password=WEB_PASSWORD)


def _as_web(dsn: str, act: Callable[[AsyncConn], Awaitable[None]]) -> None:
    async def run() -> None:
        async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
            await act(conn)

    asyncio.run(run())


def _refused(dsn: str, act: Callable[[AsyncConn], Awaitable[None]]) -> users.ChangeRefused:
    with pytest.raises(users.ChangeRefused) as caught:
        _as_web(dsn, act)
    return caught.value


def _state(owner: str) -> dict[str, tuple[str, bool, str]]:
    with psycopg.connect(owner) as conn:
        rows = conn.execute(
            "SELECT name, role, disabled, password_changed_at::text FROM web.users"
        ).fetchall()
    return {str(n): (str(r), bool(d), str(c)) for n, r, d, c in rows}


def _log(owner: str) -> list[tuple[str, str, str]]:
    with psycopg.connect(owner) as conn:
        rows = conn.execute(
            "SELECT actor, user_name, change FROM web.user_changes ORDER BY id"
        ).fetchall()
    return [(str(a), str(u), str(c)) for a, u, c in rows]


def test_an_admin_adds_and_changes_a_user_through_the_functions_each_change_logged(
    postgres: PostgresServer,
) -> None:
    db, web = _floor(postgres)
    owner = db.owner
    _as_web(web, lambda c: users.add_by_admin(c, "boss", "pit.boss-2", "auditor", PASSWORD))
    with psycopg.connect(owner) as conn:
        row = conn.execute(
            "SELECT role, disabled, password_hash FROM web.users WHERE name = 'pit.boss-2'"
        ).fetchone()
    assert row is not None
    assert row[:2] == ("auditor", False)
    assert str(row[2]).startswith("$argon2id$")  # hashed by the web process, argon2id
    assert at_full_strength(db, "pit.boss-2")  # at the web's hasher's parameters
    added = _state(owner)["pit.boss-2"]

    # Each change bumps password_changed_at (the sessions made before it are void).
    changes: list[tuple[Callable[[AsyncConn], Awaitable[None]], tuple[str, bool]]] = [
        (
            lambda c: users.passwd_by_admin(c, "boss", "pit.boss-2", NEW_PASSWORD),
            ("auditor", False),
        ),
        (
            lambda c: users.role_by_admin(c, "boss", "pit.boss-2", "supervisor"),
            ("supervisor", False),
        ),
        (
            lambda c: users.disabled_by_admin(c, "boss", "pit.boss-2", disabled=True),
            ("supervisor", True),
        ),
        (
            lambda c: users.disabled_by_admin(c, "boss", "pit.boss-2", disabled=False),
            ("supervisor", False),
        ),
    ]
    before = added
    for change, after in changes:
        _as_web(web, change)
        now = _state(owner)["pit.boss-2"]
        assert now[:2] == after
        assert now[2] > before[2]
        before = now

    async def checks(conn: AsyncConn) -> None:
        assert await users.check_password(conn, "pit.boss-2", PASSWORD) is None
        found = await users.check_password(conn, "pit.boss-2", NEW_PASSWORD)
        assert found is not None
        assert found.role == "supervisor"
        listed = {a.name: a for a in await users.accounts(conn)}
        assert listed["pit.boss-2"].created_at < listed["pit.boss-2"].password_changed_at
        shown = await users.changes(conn)
        assert [c.change for c in shown] == [  # newest first
            "enabled",
            "disabled",
            "role auditor to supervisor",
            "password set",
            "added as auditor",
        ]
        assert {(c.actor, c.user_name) for c in shown} == {("boss", "pit.boss-2")}

    _as_web(web, checks)
    # Never a hash in the log: what changed, in words.
    with psycopg.connect(owner) as conn:
        text = conn.execute("SELECT string_agg(change, ' ') FROM web.user_changes").fetchone()
    assert text is not None
    assert "argon2" not in str(text[0])


def test_the_functions_refuse_a_non_admin_an_admin_target_oneself_and_bad_values(
    postgres: PostgresServer,
) -> None:
    db, web = _floor(postgres)
    owner = db.owner
    before = _state(owner)
    refusals: list[tuple[Callable[[AsyncConn], Awaitable[None]], int, str]] = [
        # The actor must be an enabled admin.
        (
            lambda c: users.add_by_admin(c, "ana", "eve", "auditor", PASSWORD),
            403,
            "user ana is not an enabled admin",
        ),
        (
            lambda c: users.passwd_by_admin(c, "gone", "ana", PASSWORD),
            403,
            "user gone is not an enabled admin",
        ),
        (
            lambda c: users.role_by_admin(c, "nobody", "ana", "auditor"),
            403,
            "user nobody is not an enabled admin",
        ),
        # No admin made or changed in the browser: the database owner's.
        (
            lambda c: users.add_by_admin(c, "boss", "eve", "admin", PASSWORD),
            403,
            "role admin: admins are made by the database owner",
        ),
        (
            lambda c: users.role_by_admin(c, "boss", "ana", "admin"),
            403,
            "role admin: admins are made by the database owner",
        ),
        (
            lambda c: users.passwd_by_admin(c, "boss", "other.admin", PASSWORD),
            403,
            "user other.admin is an admin: admins are made and changed by the database owner, "
            "with `tablectl floor user`",
        ),
        (
            lambda c: users.disabled_by_admin(c, "boss", "other.admin", disabled=True),
            403,
            "user other.admin is an admin",
        ),
        (lambda c: users.role_by_admin(c, "boss", "gone", "auditor"), 403, "user gone is an admin"),
        # Not oneself.
        (
            lambda c: users.passwd_by_admin(c, "boss", "boss", PASSWORD),
            403,
            "user boss: an admin does not change their own account here",
        ),
        (
            lambda c: users.disabled_by_admin(c, "boss", "boss", disabled=True),
            403,
            "user boss: an admin does not change their own account here",
        ),
        # Bad values, named (checked in the web process).
        (
            lambda c: users.add_by_admin(c, "boss", "Eve Smith", "auditor", PASSWORD),
            400,
            "user name 'Eve Smith': expected 1 to 63 lower-case letters",
        ),
        (
            lambda c: users.add_by_admin(c, "boss", "eve", "croupier", PASSWORD),
            400,
            "role 'croupier': expected one of supervisor, surveillance, auditor, broadcaster",
        ),
        (
            lambda c: users.add_by_admin(c, "boss", "eve", "auditor", "short"),
            400,
            "the password has 5 characters: expected 12+",
        ),
        (
            lambda c: users.passwd_by_admin(c, "boss", "ana", "x" * 11),
            400,
            "the password has 11 characters: expected 12+",
        ),
        (lambda c: users.role_by_admin(c, "boss", "ana", ""), 400, "role '': expected one of"),
        # Nothing there, there already, nothing to change.
        (lambda c: users.passwd_by_admin(c, "boss", "eve", PASSWORD), 404, "no user eve"),
        (
            lambda c: users.add_by_admin(c, "boss", "ana", "auditor", PASSWORD),
            409,
            "user ana exists already",
        ),
        (
            lambda c: users.role_by_admin(c, "boss", "ana", "supervisor"),
            409,
            "user ana is supervisor already: nothing changed",
        ),
        (
            lambda c: users.disabled_by_admin(c, "boss", "ana", disabled=False),
            409,
            "user ana is enabled already: nothing changed",
        ),
    ]
    for act, status, said in refusals:
        refused = _refused(web, act)
        assert (refused.status, str(refused)[: len(said)]) == (status, said)
    # The roles an admin may give, and only those, named (admin is the owner's to give).
    croupier = _refused(web, lambda c: users.role_by_admin(c, "boss", "ana", "croupier"))
    assert (
        str(croupier)
        == "role 'croupier': expected one of supervisor, surveillance, auditor, broadcaster"
    )
    assert _state(owner) == before
    assert _log(owner) == []


def test_the_functions_check_again_what_the_web_process_checks(postgres: PostgresServer) -> None:
    """A web process that skipped its checks (or was taken over) gets the same refusals from the
    database: a bad name, role or hash, each named (42501 or 22023)."""
    db, web = _floor(postgres)
    owner = db.owner
    good = "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA"
    calls = [
        (
            "SELECT web.user_add('boss', 'Eve Smith', 'auditor', %s)",
            (good,),
            errors.InvalidParameterValue,
            "user name 'Eve Smith': expected 1 to 63",
        ),
        (
            "SELECT web.user_add('boss', 'eve', 'croupier', %s)",
            (good,),
            errors.InvalidParameterValue,
            "role 'croupier': expected one of supervisor, surveillance, auditor, broadcaster",
        ),
        (
            "SELECT web.user_add('boss', 'eve', 'admin', %s)",
            (good,),
            errors.InsufficientPrivilege,
            "role admin: admins are made by the database owner",
        ),
        (
            "SELECT web.user_add('boss', 'eve', 'auditor', %s)",
            ("plain text",),
            errors.InvalidParameterValue,
            "the password: expected its argon2id hash",
        ),
        (
            "SELECT web.user_set_password('boss', 'ana', %s)",
            ("$2b$bcrypt",),
            errors.InvalidParameterValue,
            "the password: expected its argon2id hash",
        ),
        (
            "SELECT web.user_set_disabled('boss', 'ana', %s)",
            (None,),
            errors.InvalidParameterValue,
            "disable or enable: expected true or false",
        ),
        (
            "SELECT web.user_add(%s, 'eve', 'auditor', %s)",
            (None, good),
            errors.InsufficientPrivilege,
            "user <NULL> is not an enabled admin",
        ),
    ]
    with psycopg.connect(web, autocommit=True) as conn:
        for statement, params, kind, said in calls:
            with pytest.raises(kind, match=re.escape(said)):
                conn.execute(statement.encode(), params)
    assert _log(owner) == []


def _denied(dsn: str, statement: str) -> None:
    with psycopg.connect(dsn, autocommit=True) as conn, pytest.raises(errors.InsufficientPrivilege):
        conn.execute(statement.encode())


def test_the_web_role_changes_users_only_through_the_functions(postgres: PostgresServer) -> None:
    db, web = _floor(postgres)
    owner = db.owner
    # No direct write to the users (least privilege: no UPDATE at all), none to the log of
    # changes (the functions write it), and no call of the functions' private parts.
    _denied(web, "UPDATE web.users SET role = 'surveillance' WHERE name = 'ana'")
    _denied(web, "UPDATE web.users SET disabled = false WHERE name = 'gone'")
    _denied(web, "INSERT INTO web.user_changes (actor, user_name, change) VALUES ('a', 'b', 'c')")
    _denied(web, "UPDATE web.user_changes SET change = 'nothing'")
    _denied(web, "DELETE FROM web.user_changes")
    _denied(web, "SELECT web.changeable_user('boss', 'ana')")
    _denied(web, "SELECT web.acting_admin('boss')")
    _denied(web, "SELECT web.checked_role('auditor')")
    with psycopg.connect(web, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM web.user_changes").fetchone() == (0,)
    # The store's reader and writer may not call them at all (no EXECUTE for PUBLIC).
    with psycopg.connect(owner) as conn:
        conn.execute(
            "GRANT USAGE ON SCHEMA web TO tablectl_reader"
        )  # past the schema, to the grant
    reader = make_conninfo(owner, user=store.READER, password=db.reader_password)
    _denied(reader, "SELECT web.user_set_role('boss', 'ana', 'auditor')")
    with psycopg.connect(owner, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT p.proname, p.prosecdef, r.rolname, p.proconfig FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_roles r ON r.oid = p.proowner "
            "WHERE n.nspname = 'web' ORDER BY p.proname"
        ).fetchall()
        schema_owner = conn.execute(
            "SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'web'"
        ).fetchone()
    definers = {str(name) for name, definer, _o, _c in rows if definer}
    assert definers == {
        "user_add",
        "user_set_password",
        "user_set_role",
        "user_set_disabled",
        "user_set_own_password",  # migration 5: a user's own, given their verified hash
    }
    assert schema_owner is not None
    for _name, _definer, by, config in rows:  # owned by the schema's owner, search_path fixed
        assert by == schema_owner[0]
        assert config == ["search_path=pg_catalog, pg_temp"]
    assert _state(owner)["ana"][0] == "supervisor"


def _tokened(client: Client, form: dict[str, str]) -> dict[str, str]:
    return {**form, "csrf_token": client.csrf("/admin/users")}


def _row(page: str, name: str) -> str:
    found = re.search(rf'<tr data-user="{re.escape(name)}" class="[a-z]+">(.*?)</tr>', page, re.S)
    assert found, f"no row of {name} in the page"
    return found.group(1)


def _error(reply: Reply) -> str:
    found = re.search(r'<p id="admin-error" class="error" role="alert">(.*?)</p>', reply.text)
    assert found, f"no error on the page ({reply.status}): {reply.text[:300]}"
    return found.group(1)


def test_an_admin_adds_and_changes_users_in_the_page_and_their_sessions_end(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    # A second admin, made as admins are: by the database owner.
    user(floor.config, floor.db, "add", "second.admin", "--role", "admin", "--password-file",
         tmp_path / "user.password")  # fmt: skip
    web = WebProcess(floor)
    try:
        admin = Client(floor.port)
        landed = admin.login("admin")
        assert (landed.status, landed.headers["location"]) == (303, "/admin/users")
        home = admin.get("/")  # the site's root takes each role where its login lands
        assert (home.status, home.headers["location"]) == (303, "/admin/users")
        assert Client(floor.port).get("/").headers["location"] == "/login"
        page = admin.get("/admin/users")
        assert page.status == 200
        assert '<a href="/admin/users">Users</a>' in page.text
        for name in ("admin", "auditor", "second.admin", "supervisor", "surveillance"):
            assert '<td class="status">enabled</td>' in _row(page.text, name)
        assert "your own account is the database owner" in _row(page.text, "admin")
        assert "an admin: the database owner" in _row(page.text, "second.admin")
        assert 'action="/admin/users/supervisor/password"' in page.text
        assert "/admin/users/second.admin/" not in page.text  # no form for an admin
        assert "No user has been changed here yet." in page.text

        # Refused: no CSRF token; each bad input named, with the status that says it.
        new = {"name": "pit.boss", "role": "auditor", "password": NEW_PASSWORD}
        stale = admin.post("/admin/users", new)
        assert stale.status == 403
        assert "the form has expired" in stale.text
        bad = [
            ({**new, "password": "short"}, 400, "the password has 5 characters: expected 12+"),
            ({**new, "name": "<b>Pit"}, 400, "user name &#39;&lt;b&gt;Pit&#39;: expected 1 to 63"),
            ({**new, "role": "croupier"}, 400, "role &#39;croupier&#39;: expected one of"),
            ({**new, "role": "admin"}, 403, "role admin: admins are made by the database owner"),
            ({**new, "name": "supervisor"}, 409, "user supervisor exists already"),
        ]
        for form, status, said in bad:
            reply = admin.post("/admin/users", _tokened(admin, form))
            assert reply.status == status, form
            assert _error(reply).startswith(said), _error(reply)
            assert f'value="{html.escape(form["name"])}"' in reply.text  # kept, as text
            assert NEW_PASSWORD not in reply.text  # a password never comes back
        for path, form, status, said in (
            ("/admin/users/second.admin/disable", {}, 403, "user second.admin is an admin"),
            (
                "/admin/users/admin/password",
                {"password": NEW_PASSWORD},
                403,
                "user admin: an admin does not change their own account",
            ),
            ("/admin/users/nobody/role", {"role": "auditor"}, 404, "no user nobody"),
            (
                "/admin/users/supervisor/role",
                {"role": "supervisor"},
                409,
                "user supervisor is supervisor already",
            ),
        ):
            reply = admin.post(path, _tokened(admin, form))
            assert (reply.status, _error(reply)[: len(said)]) == (status, said)

        # Added: the new user logs in, where their role lands them.
        added = admin.post("/admin/users", _tokened(admin, new))
        assert (added.status, added.headers["location"]) == (303, "/admin/users")
        newcomer = Client(floor.port)
        assert newcomer.login("pit.boss", NEW_PASSWORD).headers["location"] == "/search"

        # A new password: the user's session ends at once; the old password no longer works.
        supervisor = Client(floor.port)
        assert supervisor.login("supervisor").status == 303
        assert supervisor.get("/floor").status == 200
        changed = admin.post(
            "/admin/users/supervisor/password", _tokened(admin, {"password": NEW_PASSWORD})
        )
        assert changed.status == 303
        out = supervisor.get("/floor")
        assert (out.status, out.headers["location"]) == (303, "/login")
        assert Client(floor.port).login("supervisor").status == 401
        assert Client(floor.port).login("supervisor", NEW_PASSWORD).status == 303

        # Another role, disabled, enabled: each ends the sessions of before.
        watcher = Client(floor.port)
        assert watcher.login("surveillance").status == 303
        role = {"role": "supervisor"}
        assert admin.post("/admin/users/surveillance/role", _tokened(admin, role)).status == 303
        assert watcher.get("/floor").status == 303
        auditor = Client(floor.port)
        assert auditor.login("auditor").status == 303
        assert admin.post("/admin/users/auditor/disable", _tokened(admin, {})).status == 303
        assert auditor.get("/search").status == 303
        assert Client(floor.port).login("auditor").status == 401
        assert admin.post("/admin/users/auditor/enable", _tokened(admin, {})).status == 303
        assert auditor.get("/search").status == 303  # a session of before stays void
        assert Client(floor.port).login("auditor").status == 303

        after = admin.get("/admin/users").text
        assert '<td class="role">supervisor</td>' in _row(after, "surveillance")
        assert '<td class="role">auditor</td>' in _row(after, "pit.boss")
        logged = re.findall(
            r'<td class="actor">admin</td><td class="user">([^<]+)</td><td class="what">([^<]+)<',
            after,
        )
        assert logged == [
            ("auditor", "enabled"),
            ("auditor", "disabled"),
            ("surveillance", "role surveillance to supervisor"),
            ("supervisor", "password set"),
            ("pit.boss", "added as auditor"),
        ]
        assert "argon2" not in after
        assert not any(b"$argon2id$" in body for body in admin.sent)
    finally:
        assert web.stop() == 0, web.log.read_text()
    assert web.log.read_text().count("web_user_changed") == 5


def test_the_users_page_is_for_admins_only(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    web = WebProcess(floor)
    try:
        for role, said in (
            ("supervisor", "a supervisor"),
            ("surveillance", "surveillance"),
            ("auditor", "an auditor"),
        ):
            other = Client(floor.port)
            landed = other.login(role)
            assert landed.status == 303
            home = other.get(landed.headers["location"])
            assert home.status == 200
            assert "Log out" in home.text  # the header of a logged-in page, without Users
            assert '<a href="/admin/users">' not in home.text
            refused = other.get("/admin/users")
            assert refused.status == 403
            assert "the user pages are for admins" in refused.text
            assert f"you are signed in as {said}" in refused.text
            # A POST with the session's own token: refused for the role, nothing changed.
            token = other.csrf("/login")
            form = {"name": "eve", "role": "auditor", "password": NEW_PASSWORD, "csrf_token": token}
            assert other.post("/admin/users", form).status == 403
            assert (
                other.post("/admin/users/supervisor/disable", {"csrf_token": token}).status == 403
            )
        anonymous = Client(floor.port)
        gone = anonymous.get("/admin/users")
        assert (gone.status, gone.headers["location"]) == (303, "/login")
        token = anonymous.csrf("/login")  # a visitor's token: still no user
        anonymous_add = {"name": "eve", "role": "auditor", "password": NEW_PASSWORD}
        assert anonymous.post("/admin/users", {**anonymous_add, "csrf_token": token}).status == 303
        with psycopg.connect(floor.db.owner) as conn:
            assert conn.execute("SELECT count(*) FROM web.user_changes").fetchone() == (0,)
            assert conn.execute("SELECT count(*) FROM web.users WHERE name = 'eve'").fetchone() == (
                0,
            )
    finally:
        assert web.stop() == 0, web.log.read_text()
