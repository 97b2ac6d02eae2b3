"""A user's own password, changed in the browser (controller/floor/web/accountpage.py;
docs/floor-web.md, Your own password): ``floor web`` as a subprocess over a real PostgreSQL,
driven as a browser's forms are. The change needs the current password, ends every session of
the user, this one too, and is logged in web.user_changes without a hash; a wrong current
password counts against the login's rate limit."""

from __future__ import annotations

import time
from collections.abc import Iterator

import psycopg
import pytest
from floorhelp import PATIENCE
from webhelp import (
    PASSWORD,
    Client,
    WebFloor,
    WebProcess,
    at_full_strength,
    log_lines,
    web_floor,
)

from controller.floor.web.accountpage import CHANGED, PAGE
from simulator.servers_nats import NatsServer
from simulator.servers_pg import PostgresServer

NEW = "a much longer passphrase now"


def change(client: Client, current: str, new: str, again: str | None = None) -> tuple[int, str]:
    """The form posted with the page's own CSRF token: the status, and the text or redirect."""
    form = {"csrf_token": client.csrf(PAGE), "current": current, "new": new, "again": again or new}
    reply = client.post(PAGE, form)
    return reply.status, reply.headers.get("location", reply.text)


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, postgres: PostgresServer
) -> Iterator[tuple[WebFloor, WebProcess]]:
    """One floor, and one ``floor web``, for the module's tests: each logs in as users no other
    test here changes or locks out (supervisor, admin; auditor, broadcaster), so none needs a
    server of its own (docs/testing.md, Where the default suite's time goes). It must exit 0."""
    folder = tmp_path_factory.mktemp("account")
    nats = NatsServer(folder / "nats", ("T1",))
    nats.start()
    try:
        floor = web_floor(folder, nats, postgres)
        web = WebProcess(floor)
        try:
            yield floor, web
        finally:
            code = web.stop()
        assert code == 0, web.log.read_text()
    finally:
        nats.stop()


def logged(web: WebProcess, event: str, user: str) -> list[dict[str, object]]:
    """The web's log lines of ``event`` for ``user``, once one is there (the server logs as it
    answers: the line may follow the reply by a moment)."""
    deadline = time.monotonic() + PATIENCE
    while True:
        lines = log_lines(web.log)
        found = [line for line in lines if line["event"] == event and line["user"] == user]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def own_changes(floor: WebFloor) -> list[tuple[str, str, str]]:
    with psycopg.connect(floor.db.owner) as conn:
        rows = conn.execute("SELECT actor, user_name, change FROM web.user_changes ORDER BY id")
        return [(str(a), str(u), str(c)) for a, u, c in rows]


@pytest.mark.parametrize("role", ["supervisor", "admin"])
def test_a_user_changes_their_own_password_and_every_session_of_theirs_ends(
    served: tuple[WebFloor, WebProcess], role: str
) -> None:
    floor, web = served
    here, elsewhere = Client(floor.port), Client(floor.port)
    assert here.login(role).status == 303
    assert elsewhere.login(role).status == 303
    page = here.get(PAGE)
    assert page.status == 200
    assert 'id="own-password"' in page.text
    assert 'id="account"' in page.text  # the header's user name links here
    assert change(here, PASSWORD, NEW) == (303, CHANGED)
    assert "Your password was changed" in Client(floor.port).get(CHANGED).text
    # Both browsers are logged out; the old password no longer logs in, the new one does.
    assert here.get(PAGE).status == 303
    assert elsewhere.get(PAGE).status == 303
    assert Client(floor.port).login(role).status == 401
    assert Client(floor.port).login(role, NEW).status == 303
    assert at_full_strength(floor.db, role)  # hashed by the web's own hasher
    assert own_changes(floor)[-1] == (role, role, "own password set")
    [done] = logged(web, "web_own_password_changed", role)
    assert (done["user"], done["role"]) == (role, role)
    assert PASSWORD not in web.log.read_text()
    assert NEW not in web.log.read_text()


def test_a_wrong_current_password_a_mismatch_or_a_short_one_is_refused_and_guesses_are_limited(
    served: tuple[WebFloor, WebProcess],
) -> None:
    floor, _ = served
    client = Client(floor.port)
    assert client.login("auditor").status == 303
    status, said = change(client, PASSWORD, NEW, "another long passphrase")
    assert (status, "The two new passwords differ" in said) == (400, True)
    status, said = change(client, PASSWORD, "short")
    assert (status, "expected 12" in said) == (400, True)
    status, said = change(client, PASSWORD, PASSWORD)
    assert (status, "the current one" in said) == (400, True)
    forged = client.post(PAGE, {"current": PASSWORD, "new": NEW, "again": NEW})
    assert forged.status == 403  # no CSRF token
    for _ in range(5):  # auth.MAX_FAILURES: each wrong current password is a guess
        status, said = change(client, "not the password", NEW)
        assert (status, "The current password is wrong" in said) == (403, True)
    status, said = change(client, PASSWORD, NEW)  # the right one, too late
    assert (status, "Too many wrong passwords" in said) == (429, True)
    assert client.login("auditor").status == 429  # the login's own limit, the same count
    # The broadcaster, a machine's login with no page: an admin sets its password.
    machine = Client(floor.port)
    assert machine.login("broadcaster").status == 303
    assert machine.get(PAGE).status == 403
    # Neither user's password was set (the module's other tests set supervisor's and admin's).
    mine = ("auditor", "broadcaster")
    assert [c for c in own_changes(floor) if c[2] == "own password set" and c[1] in mine] == []
