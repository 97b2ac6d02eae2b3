"""``tablectl floor web`` end to end (docs/floor-web.md): a real nats-server and
PostgreSQL, ``floor serve`` and ``floor web`` as subprocesses of the real CLI, a table's real
journal published as its forwarder publishes it; what the server sends is read as bytes."""

from __future__ import annotations

import http.client
import json
import ssl
from pathlib import Path

import pytest
from floorhelp import FloorProcess, fixture_lines, publish, tablectl
from servershelp import NatsFactory
from webhelp import (
    PASSWORD,
    ROLES,
    Client,
    Events,
    WebProcess,
    at_full_strength,
    cards_in,
    hidden_of,
    publish_records,
    serving,
    user,
    web_floor,
)

from simulator.servers_pg import PostgresServer
from simulator.servers_tls import TlsFiles

#: Record 33 of the Mambo fixture: hand 1's first round, seat 2 has called 8 and seat 3 is to
#: act; in the pot the four antes of 1 and the bets 2, 5, 5, 10 and 8 (the round ends at 69).
MID_HAND = 33


def table_rows(data: object) -> dict[str, dict[str, object]]:
    assert isinstance(data, list)
    return {row["table_id"]: row for row in data}


def test_a_wrong_password_is_refused_and_every_page_and_feed_needs_a_login(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    web = WebProcess(floor)
    try:
        anonymous = Client(floor.port)
        assert anonymous.get("/floor").status == 303  # to /login
        assert anonymous.get("/floor/events").status == 401
        refused = anonymous.login("supervisor", "not the password")
        assert refused.status == 401
        assert "Wrong user name or password." in refused.text
        assert anonymous.get("/floor").status == 303  # still not logged in
        unknown = Client(floor.port).login("nobody", PASSWORD)
        assert unknown.status == 401
        # A form without the session's CSRF token is refused, right password or not.
        forged = Client(floor.port)
        forged.get("/login")
        posted = forged.post("/login", {"user": "supervisor", "password": PASSWORD})
        assert posted.status == 403
        assert (
            forged.post(
                "/login", {"user": "supervisor", "password": PASSWORD, "csrf_token": "x" * 43}
            ).status
            == 403
        )
    finally:
        assert web.stop() == 0, web.log.read_text()


@pytest.mark.parametrize("own_nats", [True, False], ids=["own NATS user", "the floor's"])
def test_the_web_follows_the_stream_as_its_own_nats_user_or_says_it_uses_the_floor_s(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, own_nats: bool
) -> None:
    """[web.nats] (docs/floor-web.md, The web's NATS user): the web follows the stream as its
    own user, whose permissions let it change nothing; without it, as the floor's, and its log
    says so at the start (web_nats_user_shared, at warning)."""
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres, own_nats=own_nats)
    with serving(floor) as (_, web):  # floor serve makes the stream the web follows
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        feed = Events(client)
        feed.until(lambda event, data: data == {"live": True}, "the live status")
        feed.close()
    lines = [json.loads(line) for line in web.log.read_text().splitlines() if line.startswith("{")]
    shared = [line for line in lines if line["event"] == "web_nats_user_shared"]
    if own_nats:
        assert shared == []
    else:
        [line] = shared
        assert (line["level"], line["user"]) == ("warning", "floor")
        assert "which may delete it" in line["why"]


def test_logins_are_rate_limited_per_user_and_the_session_cookie_is_strict(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    web = WebProcess(floor)
    try:
        client = Client(floor.port)
        for _ in range(5):  # auth.MAX_FAILURES
            assert client.login("supervisor", "wrong password!").status == 401
        limited = client.login("supervisor", PASSWORD)  # the right one, too late
        assert limited.status == 429
        assert int(limited.headers["retry-after"]) > 0
        # Another user from the same address is not locked out by these five yet.
        other = Client(floor.port)
        granted = other.login("surveillance")
        assert granted.status == 303
        cookie = granted.headers["set-cookie"].lower()
        assert "httponly" in cookie
        assert "samesite=strict" in cookie
        assert "secure" not in cookie  # plain HTTP on loopback: no TLS configured
        page = other.get("/floor")
        assert page.status == 200
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp
        assert "unsafe-inline" not in csp
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["x-content-type-options"] == "nosniff"
        assert page.headers["referrer-policy"] == "no-referrer"
        assert "<script>" not in page.text  # no inline script: the CSP would refuse it
        assert other.post("/logout", {"csrf_token": other.csrf("/floor")}).status == 303
    finally:
        assert web.stop() == 0, web.log.read_text()
    # Who did what (docs/floor-web.md): each failure and the lockout at warning, the login
    # and the logout at info, as JSON lines (journald's priority from the level: logs/logsetup.py).
    lines = [json.loads(line) for line in web.log.read_text().splitlines() if line[:1] == "{"]
    said = [
        (line["event"], line["level"], line["user"])
        for line in lines
        if line["event"].startswith(("web_login", "web_logout"))
    ]
    assert said == [
        *[("web_login_failed", "warning", "supervisor")] * 5,
        ("web_login_locked_out", "warning", "supervisor"),
        ("web_login", "info", "surveillance"),
        ("web_logout", "info", "surveillance"),
    ]
    assert all(line["address"] == "127.0.0.1" for line in lines if line["event"] == "web_login")


def test_roles_decide_the_floor_page_and_a_disabled_user_is_out_at_once(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    # Every user made by the owner's command line, one of each role (the other tests write
    # the same rows directly: webhelp.add_users).
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres, users_by_cli=True)
    assert all(at_full_strength(floor.db, role) for role in ROLES)  # the product's hasher
    web = WebProcess(floor)
    try:
        for role, status in (("auditor", 403), ("admin", 403), ("supervisor", 200)):
            client = Client(floor.port)
            assert client.login(role).status == 303
            assert client.get("/floor").status == status, role
        listed = user(floor.config, floor.db, "list").stdout
        assert "supervisor\tsupervisor\tenabled" in listed
        user(floor.config, floor.db, "disable", "supervisor")
        assert client.get("/floor").status == 303  # the same cookie: logged out
        assert Client(floor.port).login("supervisor").status == 401
        (tmp_path / "new.password").write_text("another long password\n")
        user(
            floor.config,
            floor.db,
            "passwd",
            "supervisor",
            "--password-file",
            tmp_path / "new.password",
        )
        assert Client(floor.port).login("supervisor", "another long password").status == 303
        assert at_full_strength(floor.db, "supervisor")
        # Logging out needs the page's CSRF token.
        assert client.login("supervisor", "another long password").status == 303
        assert client.post("/logout", {}).status == 403
        assert client.post("/logout", {"csrf_token": client.csrf("/floor")}).status == 303
        assert client.get("/floor").status == 303
    finally:
        assert web.stop() == 0, web.log.read_text()


def test_the_floor_page_and_feed_follow_a_hand_and_never_carry_a_face_down_card(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres)
    lines = fixture_lines()
    hidden = hidden_of(lines)
    assert len(hidden) > 10  # the journal has hole cards for the test to look for
    server = FloorProcess(floor.config)
    web = WebProcess(floor)
    clients = {role: Client(floor.port) for role in ("supervisor", "surveillance")}
    feeds: dict[str, Events] = {}
    try:
        server.wait_for_log("floor_serving")
        for role, client in clients.items():
            assert client.login(role).status == 303
            feeds[role] = Events(client)
            event, data = feeds[role].next()
            assert (event, data) == ("snapshot", [])
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])
        for feed in feeds.values():
            _, row = feed.until(
                lambda e, d: e == "table" and isinstance(d, dict) and d["records"] == MID_HAND,
                "row of T1 in the middle of hand 1",
            )
            assert isinstance(row, dict)
            assert row["hand"] == 1
            assert row["state"] == "in progress"
            assert row["game"] == "Mambo Stud"
            assert row["street"] == "first round"
            assert row["to_act"] == 3
            assert row["pot"] == 34
            assert row["players"] == 4
        page = clients["supervisor"].get("/floor")
        assert 'data-table="T1"' in page.text
        publish(nats.url, nats.table_user("T2"), "T2", lines)
        publish_records(
            nats.url, nats.table_user("T1"), "T1", lines, first=MID_HAND + 1, last=len(lines)
        )
        whole = len(lines)
        for feed in feeds.values():
            rows = feed.until_rows(
                lambda rows: all(rows.get(t, {}).get("records") == whole for t in ("T1", "T2")),
                "T1 and T2 stored whole",
            )
            for row in rows.values():
                assert row["state"] in ("settled", "voided")
                assert row["to_act"] is None
        for role, client in clients.items():
            sent = b"".join(client.sent) + feeds[role].raw + client.get("/floor").body
            assert not cards_in(sent) & hidden, role  # no face-down card, to either role
            assert not cards_in(feeds[role].raw), role  # this slice sends no card at all
    finally:
        for feed in feeds.values():
            feed.close()
        assert web.stop() == 0, web.log.read_text()
        assert server.stop() == 0, server.text()


def test_floor_setup_applies_the_web_schema_and_floor_web_refuses_a_missing_secret(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    again = tablectl("floor", "setup", "--config", floor.config, "--owner-dsn", floor.db.owner)
    assert again.returncode == 0, again.stderr
    assert "web schema version 5; applied now: none (up to date)" in again.stdout
    (tmp_path / "web.secret").write_text("short\n")
    refused = tablectl("floor", "web", "--config", floor.config)
    assert refused.returncode == 2
    assert "web.secret holds 5 bytes: expected 32 or more" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_over_its_own_tls_the_view_marks_the_cookie_secure_and_sends_hsts(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, tls_files: TlsFiles
) -> None:
    keys = f'tls_cert = "{tls_files.cert}"\ntls_key = "{tls_files.key}"\n'
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres, keys)
    trust = ssl.create_default_context(cafile=str(tls_files.ca))
    web = WebProcess(floor, tls=trust)
    try:
        with pytest.raises((http.client.HTTPException, OSError)):
            Client(floor.port).get("/login")  # plain HTTP: no answer
        client = Client(floor.port, tls=trust)
        granted = client.login("supervisor")
        assert granted.status == 303
        assert "; secure" in granted.headers["set-cookie"].lower()
        page = client.get("/floor")
        assert page.status == 200
        assert page.headers["strict-transport-security"] == "max-age=31536000"
    finally:
        assert web.stop() == 0, web.log.read_text()
