"""The web view's pure parts (docs/floor-web.md): floor.toml [web], the session
cookie, CSRF, the login rate limit, the hand's live state and the argon2id hashes."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from floorhelp import fixture_lines

from controller.cli.commands.floor import web
from controller.floor.floortoml import FloorConfigError, parse
from controller.floor.web import auth, policy, users
from controller.floor.web import dbschema as web_schema
from controller.floor.web.floorview import hand_state
from controller.floor.web.webtoml import WebNats
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.engine import events as ev
from controller.poker.engine.tablesetup import ConfigError

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "floor.toml"


def _config(web: str) -> dict[str, object]:
    without = EXAMPLE.read_text().split("\n[web]")[0]  # the example's own [web] replaced
    return tomllib.loads(without + "\n" + web)


@pytest.mark.fast
def test_web_defaults_to_loopback_and_a_proxy_or_tls_makes_cookies_secure(tmp_path: Path) -> None:
    plain = parse(_config('[web]\nsecret_file = "web.secret"\n'), tmp_path, "f").web
    assert (plain.listen, plain.port, plain.secure_cookies) == ("127.0.0.1", 8443, False)
    assert plain.secret_file == tmp_path / "web.secret"
    proxied = parse(_config('[web]\nsecret_file = "s"\nbehind_tls_proxy = true\n'), tmp_path, "f")
    assert proxied.web.secure_cookies
    tls = parse(
        _config('[web]\nsecret_file = "s"\ntls_cert = "c.pem"\ntls_key = "k.pem"\n'), tmp_path, "f"
    )
    assert tls.web.secure_cookies


@pytest.mark.fast
def test_the_examples_web_section_is_read_as_written() -> None:
    web = parse(tomllib.loads(EXAMPLE.read_text()), EXAMPLE.parent, str(EXAMPLE)).web
    assert (web.listen, web.port, web.secure_cookies) == ("127.0.0.1", 8443, True)
    assert web.secret_file == EXAMPLE.parent / "web.secret"
    assert web.nats == WebNats("floor-web", EXAMPLE.parent / "web-nats.password")


@pytest.mark.fast
def test_the_web_s_own_nats_user_needs_both_its_keys_and_is_none_without_the_section(
    tmp_path: Path,
) -> None:
    plain = parse(_config('[web]\nsecret_file = "s"\n'), tmp_path, "f").web
    assert plain.nats is None  # the floor's [nats] user, and floor web says so at its start
    with pytest.raises(FloorConfigError) as caught:
        parse(
            _config('[web]\nsecret_file = "s"\n[web.nats]\nuser = "w"\nname = 1\n'), tmp_path, "f"
        )
    text = str(caught.value)
    assert "web.nats.password_file = (missing): expected the path of its password's file" in text
    assert "web.nats.name" in text


@pytest.mark.fast
def test_a_bad_web_section_names_each_key_and_what_was_expected(tmp_path: Path) -> None:
    bad = '[web]\nlisten = "localhost"\nport = 70000\ntls_cert = "c.pem"\nsecrets = "x"\n'
    with pytest.raises(FloorConfigError) as caught:
        parse(_config(bad), tmp_path, "floor.toml")
    text = str(caught.value)
    assert 'web.listen = "localhost": expected an IP address' in text
    assert "web.port = 70000: expected a whole number, 1 to 65535" in text
    assert "web.secret_file = (missing)" in text
    assert "web.tls_key = (missing): expected tls_cert and tls_key" in text
    assert "web.secrets" in text


@pytest.mark.fast
def test_the_session_key_must_be_long_enough(tmp_path: Path) -> None:
    (tmp_path / "s").write_text("too short\n")
    web = parse(_config('[web]\nsecret_file = "s"\n'), tmp_path, "f").web
    with pytest.raises(ConfigError, match="holds 9 bytes: expected 32 or more"):
        web.secret()
    with pytest.raises(ConfigError, match="cannot read the web view's secret_file"):
        parse(_config('[web]\nsecret_file = "none"\n'), tmp_path, "f").web.secret()


@pytest.mark.fast
def test_a_session_cookie_forged_or_signed_with_another_key_is_no_session() -> None:
    sessions = auth.Sessions(b"k" * 32, secure=True)
    session = auth.Session(auth.new_csrf(), "ana", "2026-12-01T18:00:00+00:00")
    cookie = sessions.write(session)
    assert sessions.read(cookie) == session
    assert sessions.read(cookie[:-2] + ("AA" if not cookie.endswith("AA") else "BB")) is None
    assert auth.Sessions(b"o" * 32, secure=True).read(cookie) is None
    assert sessions.read(None) is None
    options = sessions.cookie_options()
    assert (options["httponly"], options["samesite"], options["secure"]) == (True, "strict", True)


@pytest.mark.fast
def test_csrf_needs_the_sessions_own_token() -> None:
    session = auth.Session(auth.new_csrf())
    assert auth.csrf_ok(session, session.csrf)
    assert not auth.csrf_ok(session, auth.new_csrf())
    assert not auth.csrf_ok(session, None)
    assert not auth.csrf_ok(None, session.csrf)


@pytest.mark.fast
def test_the_rate_limit_refuses_a_key_over_its_failures_until_the_window_has_passed() -> None:
    now = [1000.0]
    limit = auth.RateLimit(limit=3, window=60.0, clock=lambda: now[0])
    for _ in range(2):
        limit.failed("ana")
    assert limit.retry_after("ana") == 0
    limit.failed("ana")
    assert limit.retry_after("ana") == pytest.approx(60.0)
    assert limit.retry_after("bo") == 0  # another key is not limited
    now[0] += 30
    assert limit.retry_after("ana") == pytest.approx(30.0)
    now[0] += 30
    assert limit.retry_after("ana") == 0  # the failures have left the window
    for _ in range(3):
        limit.failed("ana")
    limit.succeeded("ana")
    assert limit.retry_after("ana") == 0


@pytest.mark.fast
def test_the_rate_limit_forgets_names_whose_failures_have_left_the_window() -> None:
    now = [0.0]
    limit = auth.RateLimit(limit=3, window=60.0, clock=lambda: now[0])
    for n in range(auth.PRUNE_AT):
        limit.failed(f"name{n}")
    now[0] += 61
    limit.failed("fresh")
    assert len(limit) == 1


@pytest.mark.fast
def test_hand_state_follows_street_seat_to_act_and_pot_through_a_real_hand() -> None:
    events: list[ev.Event] = []
    seen = []
    for line in fixture_lines()[:49]:  # Mambo: hand 1's first round (N.J.A.C. 13:69F-14.13A)
        record = parse_line(line)
        if record.kind in rec.DECISIONS:
            events.extend(schema.decode_events(record))
            seen.append((record.seq, hand_state(events)))
    by_seq = dict(seen)
    assert (by_seq[33].street, by_seq[33].to_act, by_seq[33].pot) == ("first round", 3, 34)
    # The round's completion: 69 as the engine counted it, and nobody to act until the next.
    assert by_seq[49].pot == 69
    assert by_seq[49].street == "second round"
    assert by_seq[49].to_act is None


@pytest.mark.fast
def test_passwords_are_hashed_with_argon2id_and_short_ones_refused() -> None:
    hashed = users.hash_password("a long enough password")
    assert hashed.startswith("$argon2id$")
    with pytest.raises(users.UserError, match="expected 12"):
        users.hash_password("short")
    with pytest.raises(users.UserError, match="user name 'Ana'"):
        users.check_name("Ana")
    with pytest.raises(users.UserError, match="role 'root': expected one of supervisor"):
        users.check_role("root")


@pytest.mark.fast
def test_the_unknown_names_hash_costs_what_a_users_does() -> None:
    # A literal, not made at import: it must carry exactly the hasher's parameters (memory,
    # time, lanes, lengths), so verifying it for an unknown name takes a known name's time.
    assert not users._HASHER.check_needs_rehash(users._DUMMY)
    assert users._HASHER.verify(users._DUMMY, "no such user: the time of a verification")
    made = users.hash_password("a long enough password")
    assert made.split("$")[:4] == users._DUMMY.split("$")[:4]


@pytest.mark.fast
def test_the_commands_offer_every_role_the_database_and_the_policy_know() -> None:
    # The command line keeps its own copy (it must not import psycopg to print its help).
    assert web.ROLES == web_schema.ROLES
    assert set(policy.POLICY) == set(web_schema.ROLES)
