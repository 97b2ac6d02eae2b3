"""The site's frame (docs/floor-web.md, The site's frame): each role's header offers only the
pages that let it in, every link it offers opens, and a refusal or an error is shown to a
browser inside the frame with a way back (a program still reads plain text). ``floor web`` as
the real CLI's subprocess over a real PostgreSQL; the pages read as bytes."""

from __future__ import annotations

import http.client
import re
from pathlib import Path

from floorhelp import PATIENCE
from servershelp import NatsFactory
from webhelp import COOKIE, Client, Reply, WebProcess, web_floor

from simulator.servers_pg import PostgresServer

#: Every page a header could offer.
PAGES = ("/admin/users", "/floor", "/alarms", "/search", "/verify")
#: What each role's header offers, and the page its login lands on.
OFFERED = {
    "supervisor": (["/floor", "/alarms", "/search"], "/floor"),
    "surveillance": (["/floor", "/alarms", "/search", "/verify"], "/floor"),
    "auditor": (["/search", "/verify"], "/search"),
    "admin": (["/admin/users"], "/admin/users"),
}


def browse(client: Client, path: str) -> Reply:
    """GET ``path`` as a browser does: asking for HTML."""
    connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=PATIENCE)
    headers = {"accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
    if client.cookie:
        headers["cookie"] = f"{COOKIE}={client.cookie}"
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return Reply(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
    finally:
        connection.close()


def nav(page: str) -> list[str]:
    found = re.search(r"<nav>(.*?)</nav>", page, re.S)
    assert found, page
    return re.findall(r'href="([^"]+)"', found.group(1))


def test_each_role_is_offered_only_what_it_may_open_and_refusals_are_framed(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = web_floor(tmp_path, nats_factory(("T1",)), postgres)
    web = WebProcess(floor)
    try:
        for role, (offered, landing) in OFFERED.items():
            client = Client(floor.port)
            assert client.login(role).headers["location"] == landing
            assert nav(browse(client, landing).text) == offered, role
            for page in PAGES:
                status = client.get(page).status
                assert (status == 200) == (page in offered), (role, page, status)
        # The auditor's refusal, asked for by a browser: in the frame, the auditor's links, the
        # reason, a way back; asked for by a program: the plain text as before.
        auditor = Client(floor.port)
        auditor.login("auditor")
        framed = browse(auditor, "/floor")
        assert framed.status == 403
        assert framed.headers["content-type"].startswith("text/html")
        assert nav(framed.text) == ["/search", "/verify"]
        assert "<h1>403 Forbidden</h1>" in framed.text
        assert (
            "the floor page is for supervisors and surveillance: you are signed in as an auditor"
            in framed.text
        )
        assert '<a href="/" id="back-home">' in framed.text
        assert 'name="csrf_token"' in framed.text  # the header's log out works from here too
        plain = auditor.get("/floor")
        assert plain.status == 403
        assert plain.headers["content-type"].startswith("text/plain")
        # "an auditor", not "a auditor"
        missing = browse(auditor, "/tables/T1/hands/j/1")
        assert missing.status == 404
        assert "that an auditor may open" in missing.text
        assert "<h1>404 Not Found</h1>" in missing.text
        # A page that does not exist, and a visitor not logged in: framed, with a way in.
        nowhere = browse(Client(floor.port), "/nowhere")
        assert nowhere.status == 404
        assert "<h1>404 Not Found</h1>" in nowhere.text
        assert '<a href="/login">Log in</a>' in nowhere.text
        # The broadcaster has no page: its refusal's frame offers the feed alone.
        broadcaster = Client(floor.port)
        broadcaster.login("broadcaster")
        refused = browse(broadcaster, "/account/password")
        assert refused.status == 403
        assert nav(refused.text) == ["/feeds/broadcast"]
        assert "a broadcaster&#39;s password is set by an admin" in refused.text
    finally:
        assert web.stop() == 0, web.log.read_text()
