"""The web view's tables in the floor's database (docs/floor-web.md, Users and roles; The web's
role and logs): applied by ``tablectl floor setup`` after the store's own
(controller/floor/store.py), in versions, with the web view's own role.

They live in a schema of their own, ``web``, so the store's grants ("every table in public") never
reach them: the writer ``tablectl_floor`` and the reader ``tablectl_reader`` get nothing here (no
password hash leaves for a report). The web process connects as its own role, ``tablectl_web``
(``[web] user``): it reads the store, the users (to check a login and a session) and its two logs,
and may only add to the logs: every response that carried a face-down card's value
(``card_views``) and every alarm acknowledged (``alarm_acks``), who and when; no UPDATE and no
DELETE, so what the logs hold stays as written. Admins are the database owner's alone
(``tablectl floor user``, on the floor host), so no web process, and no table, can make itself an
admin; an admin changes the other users in the browser through the owner's functions of
migration 3, never by an UPDATE of the web's role, each change logged in ``web.user_changes``.
"""

from __future__ import annotations

from typing import Final

import psycopg
from psycopg import sql

from controller.floor.store import READER, WRITER, StoreError
from controller.floor.web.webtoml import DEFAULT_USER

ROLES: Final = ("supervisor", "surveillance", "auditor", "admin", "broadcaster")

#: One entry a version: never edit one applied, add the next.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: the web view's local users, each with one role and an argon2id hash.
    """
    CREATE SCHEMA web;
    CREATE TABLE web.users (
        name text PRIMARY KEY CHECK (name ~ '^[a-z][a-z0-9_.-]{0,62}$'),
        role text NOT NULL CHECK (role IN ('supervisor', 'surveillance', 'auditor', 'admin')),
        password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$%'),
        disabled boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        -- A session made before this moment is void: a new password logs every browser out.
        password_changed_at timestamptz NOT NULL DEFAULT now()
    );
    """,
    # 2: the web's two logs, append-only for the web's role. card_views: every response that
    # carried a face-down card's value (the hand page, a feed); alarm_acks: an alarm
    # acknowledged by a supervisor with a note, once (the key is the alarm).
    """
    CREATE TABLE web.card_views (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        user_name text NOT NULL,
        role text NOT NULL,
        table_id text NOT NULL,
        journal_id text NOT NULL,
        hand integer NOT NULL,
        -- The page or feed, e.g. 'hand page', 'feed surveillance'.
        through text NOT NULL
    );
    CREATE TABLE web.alarm_acks (
        alarm_id bigint PRIMARY KEY REFERENCES public.alarms (id),
        user_name text NOT NULL REFERENCES web.users (name),
        at timestamptz NOT NULL DEFAULT now(),
        -- Required: more than blanks (a space, tab or line break alone is no note).
        note text NOT NULL CHECK (btrim(note, E' \\t\\r\\n') <> '' AND length(note) <= 2000)
    );
    """,
    # 3: the admin's user pages (docs/floor-web.md). The web's role gets no UPDATE on
    # web.users: it calls these functions, which run as the schema's owner (SECURITY DEFINER,
    # search_path fixed so no object of the caller's is found first), check that the acting
    # user is an enabled admin, never touch an admin's account nor the actor's own (admins are
    # the database owner's, `tablectl floor user`), void the target's sessions on every change
    # (password_changed_at) and append a line to web.user_changes (who, whom, what; never a
    # hash). Each refusal has its own SQLSTATE, which controller/floor/web/users.py turns into
    # the page's status: 42501 not allowed, 22023 a bad value, P0002 no such user, 23505 exists,
    # 55000 nothing to change.
    """
    CREATE TABLE web.user_changes (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT clock_timestamp(),
        actor text NOT NULL,
        user_name text NOT NULL,
        -- e.g. 'added as supervisor', 'password set', 'role auditor to supervisor', 'disabled'.
        change text NOT NULL
    );

    CREATE FUNCTION web.acting_admin(acting text) RETURNS void
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        -- FOR SHARE: an admin disabled by the owner meanwhile waits for, or stops, this change.
        PERFORM 1 FROM web.users u
            WHERE u.name = acting AND u.role = 'admin' AND NOT u.disabled FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'user % is not an enabled admin: only an admin changes users', acting
                USING ERRCODE = 'insufficient_privilege';
        END IF;
    END $$;

    CREATE FUNCTION web.changeable_user(acting text, target text) RETURNS web.users
    LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        wanted web.users;
    BEGIN
        PERFORM web.acting_admin(acting);
        IF target = acting THEN
            RAISE EXCEPTION 'user %: an admin does not change their own account here: the '
                'database owner does, with `tablectl floor user` on the floor host', target
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        SELECT * INTO wanted FROM web.users u WHERE u.name = target FOR UPDATE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'no user %', target USING ERRCODE = 'no_data_found';
        END IF;
        IF wanted.role = 'admin' THEN
            RAISE EXCEPTION 'user % is an admin: admins are made and changed by the database '
                'owner, with `tablectl floor user` on the floor host', target
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN wanted;
    END $$;

    CREATE FUNCTION web.checked_role(given text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        IF given = 'admin' THEN
            RAISE EXCEPTION 'role admin: admins are made by the database owner, with '
                '`tablectl floor user` on the floor host'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF given IS NULL OR given NOT IN ('supervisor', 'surveillance', 'auditor') THEN
            RAISE EXCEPTION 'role %: expected one of supervisor, surveillance, auditor',
                coalesce(quote_literal(given), 'none') USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN given;
    END $$;

    CREATE FUNCTION web.checked_hash(given text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        IF given IS NULL OR given NOT LIKE '$argon2id$%' THEN
            RAISE EXCEPTION 'the password: expected its argon2id hash, made by the web view'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN given;
    END $$;

    CREATE FUNCTION web.user_add(acting text, target text, new_role text, new_hash text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        PERFORM web.acting_admin(acting);
        IF target IS NULL OR target !~ '^[a-z][a-z0-9_.-]{0,62}$' THEN
            RAISE EXCEPTION 'user name %: expected 1 to 63 lower-case letters, digits, ''_'', '
                '''.'' or ''-'', beginning with a letter', coalesce(quote_literal(target), 'none')
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        INSERT INTO web.users (name, role, password_hash)
            VALUES (target, web.checked_role(new_role), web.checked_hash(new_hash))
            ON CONFLICT (name) DO NOTHING;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'user % exists already: set their password or role instead', target
                USING ERRCODE = 'unique_violation';
        END IF;
        INSERT INTO web.user_changes (actor, user_name, change)
            VALUES (acting, target, 'added as ' || new_role);
    END $$;

    CREATE FUNCTION web.user_set_password(acting text, target text, new_hash text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        PERFORM web.changeable_user(acting, target);
        UPDATE web.users SET password_hash = web.checked_hash(new_hash),
            password_changed_at = clock_timestamp() WHERE name = target;
        INSERT INTO web.user_changes (actor, user_name, change)
            VALUES (acting, target, 'password set');
    END $$;

    CREATE FUNCTION web.user_set_role(acting text, target text, new_role text) RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        was web.users := web.changeable_user(acting, target);
    BEGIN
        IF was.role = web.checked_role(new_role) THEN
            RAISE EXCEPTION 'user % is % already: nothing changed', target, new_role
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        -- A session holds no role (each request reads it), but one made before the change is
        -- void all the same: whoever logged in as the old role logs in again.
        UPDATE web.users SET role = new_role, password_changed_at = clock_timestamp()
            WHERE name = target;
        INSERT INTO web.user_changes (actor, user_name, change)
            VALUES (acting, target, 'role ' || was.role || ' to ' || new_role);
    END $$;

    CREATE FUNCTION web.user_set_disabled(acting text, target text, to_disable boolean)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    DECLARE
        was web.users := web.changeable_user(acting, target);
        said text := CASE WHEN to_disable THEN 'disabled' ELSE 'enabled' END;
    BEGIN
        IF to_disable IS NULL THEN
            RAISE EXCEPTION 'disable or enable: expected true or false'
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        IF was.disabled = to_disable THEN
            RAISE EXCEPTION 'user % is % already: nothing changed', target, said
                USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        -- Enabled again, a session from before the disabling stays void.
        UPDATE web.users SET disabled = to_disable, password_changed_at = clock_timestamp()
            WHERE name = target;
        INSERT INTO web.user_changes (actor, user_name, change) VALUES (acting, target, said);
    END $$;

    REVOKE ALL ON ALL FUNCTIONS IN SCHEMA web FROM PUBLIC;
    """,
    # 4: the broadcaster, a login of its own for a stream's overlay machine: it opens the
    # broadcast feed and nothing else (policy.py), so it need not be a surveillance login that
    # could open the live hole cards. An admin may give it (it sees less than surveillance).
    """
    ALTER TABLE web.users DROP CONSTRAINT users_role_check;
    ALTER TABLE web.users ADD CONSTRAINT users_role_check
        CHECK (role IN ('supervisor', 'surveillance', 'auditor', 'admin', 'broadcaster'));
    CREATE OR REPLACE FUNCTION web.checked_role(given text) RETURNS text
    LANGUAGE plpgsql IMMUTABLE SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        IF given = 'admin' THEN
            RAISE EXCEPTION 'role admin: admins are made by the database owner, with '
                '`tablectl floor user` on the floor host'
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        IF given IS NULL OR given NOT IN ('supervisor', 'surveillance', 'auditor', 'broadcaster')
        THEN
            RAISE EXCEPTION 'role %: expected one of supervisor, surveillance, auditor, '
                'broadcaster', coalesce(quote_literal(given), 'none')
                USING ERRCODE = 'invalid_parameter_value';
        END IF;
        RETURN given;
    END $$;
    REVOKE ALL ON FUNCTION web.checked_role(text) FROM PUBLIC;
    """,
    # 5: a user's own password, changed in the browser (docs/floor-web.md, Your own password).
    # The web verifies the current password (Argon2 is not in PostgreSQL) and hands the hash it
    # verified: the change is made only while that is still the user's hash and the user is
    # enabled, so a password changed or a user disabled meanwhile wins. Every session of the
    # user ends (password_changed_at); the log says who (the user themselves), never a hash.
    """
    CREATE FUNCTION web.user_set_own_password(acting text, verified_hash text, new_hash text)
    RETURNS void
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    BEGIN
        UPDATE web.users SET password_hash = web.checked_hash(new_hash),
            password_changed_at = clock_timestamp()
            WHERE name = acting AND NOT disabled AND password_hash = verified_hash;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'user %: the password was changed meanwhile or the user disabled: '
                'nothing changed', acting USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        INSERT INTO web.user_changes (actor, user_name, change)
            VALUES (acting, acting, 'own password set');
    END $$;
    REVOKE ALL ON FUNCTION web.user_set_own_password(text, text, text) FROM PUBLIC;
    """,
)


def _version(conn: psycopg.Connection[tuple[object, ...]]) -> int:
    row = conn.execute("SELECT to_regclass('web.schema_version') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return 0
    found = conn.execute("SELECT coalesce(max(version), 0) FROM web.schema_version").fetchone()
    return int(str(found[0])) if found else 0


def setup(conn: psycopg.Connection[tuple[object, ...]], role: str = DEFAULT_USER) -> list[int]:
    """Make the web's ``role`` if missing, apply the versions the database has not got, then the
    grants: as the owner, after the store's setup, in one transaction, idempotent. Returns the
    versions applied now."""
    if role in (WRITER, READER):
        raise StoreError(
            f"floor.toml [web] user {role!r}: expected a role of the web view's own, not the "
            f"store's writer or reader (default {DEFAULT_USER})"
        )
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('tablectl floor web setup'))")
        exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (role,)).fetchone()
        if not exists:
            # LOGIN without a password: setup sets [web] password_file's, or the DBA maps a
            # peer or certificate login (docs/floor.md, Servers and credentials).
            conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role)))
        start = _version(conn)
        if start > len(MIGRATIONS):
            raise StoreError(
                f"the database holds web schema version {start}, newer than this tablectl knows "
                f"({len(MIGRATIONS)}): run the setup of the tablectl that made it, or a newer one"
            )
        applied = []
        for version in range(start + 1, len(MIGRATIONS) + 1):
            conn.execute(MIGRATIONS[version - 1].encode())
            if version == 1:
                conn.execute(
                    "CREATE TABLE web.schema_version (version integer PRIMARY KEY,"
                    " applied_at timestamptz NOT NULL DEFAULT now())"
                )
            conn.execute("INSERT INTO web.schema_version (version) VALUES (%s)", (version,))
            applied.append(version)
        _grants(conn, role)
    return applied


def _grants(conn: psycopg.Connection[tuple[object, ...]], role: str) -> None:
    """Everything taken back first, then only what the web view needs: setup run again (after
    an upgrade, or another [web] user) leaves no privilege of before."""
    writer, reader, web = sql.Identifier(WRITER), sql.Identifier(READER), sql.Identifier(role)
    for statement in (
        "REVOKE ALL ON SCHEMA web FROM PUBLIC",
        "REVOKE ALL ON SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL SEQUENCES IN SCHEMA web FROM {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL FUNCTIONS IN SCHEMA web FROM PUBLIC, {writer}, {reader}, {web}",
        "REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {web}",
        "REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {web}",
        "GRANT CONNECT ON DATABASE {db} TO {web}",
        "GRANT USAGE ON SCHEMA public, web TO {web}",
        # The store read as the reader reads it: the floor page, the hands, the alarms.
        "GRANT SELECT ON ALL TABLES IN SCHEMA public TO {web}",
        "GRANT SELECT ON web.users, web.schema_version, web.card_views, web.alarm_acks, "
        "web.user_changes TO {web}",
        # The logs: added to, never changed (no UPDATE, no DELETE, no TRUNCATE).
        "GRANT INSERT ON web.card_views, web.alarm_acks TO {web}",
        # floor verify (the reader) tells an acknowledged alarm from an open one.
        "GRANT USAGE ON SCHEMA web TO {reader}",
        "GRANT SELECT ON web.alarm_acks TO {reader}",
        "GRANT USAGE ON SEQUENCE web.card_views_id_seq TO {web}",
        # The admin's changes to users: through the owner's functions only (migration 3), no
        # UPDATE on web.users; web.user_changes is written by those functions alone.
        "GRANT EXECUTE ON FUNCTION web.user_add(text, text, text, text), "
        "web.user_set_password(text, text, text), web.user_set_role(text, text, text), "
        "web.user_set_disabled(text, text, boolean), "
        "web.user_set_own_password(text, text, text) TO {web}",
    ):
        conn.execute(
            sql.SQL(statement).format(
                db=sql.Identifier(conn.info.dbname), writer=writer, reader=reader, web=web
            )
        )


def check_version(conn: psycopg.Connection[tuple[object, ...]]) -> None:
    """StoreError unless the web's tables are at the version this tablectl reads."""
    found = _version(conn)
    if found != len(MIGRATIONS):
        raise StoreError(
            f"the floor's database {conn.info.dbname!r} holds web schema version {found}, this "
            f"tablectl needs {len(MIGRATIONS)}: run `tablectl floor setup --config ...` as the "
            "database's owner"
        )
