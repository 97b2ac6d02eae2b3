"""The supervisor's screens (docs/floor-web.md, The floor page, Moments, The hand page): when
each table was last heard and a silent one flagged ([web] silent_after), every moment said one
way, and a face-down card marked as such in the seat boxes even when the role sees its value.
``floor serve`` and ``floor web`` as the real CLI's subprocesses over a real nats-server and
PostgreSQL, fed the Mambo fixture's journal; the pages read as bytes."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import psycopg
import pytest
from floorhelp import fixture_lines, journal_id, publish
from servershelp import NatsFactory
from webhelp import Client, Events, serving, web_floor

from controller.floor.floortoml import FloorConfigError, parse
from controller.floor.web.webtoml import DEFAULT_SILENT_AFTER
from simulator.servers_pg import PostgresServer

#: Hand 1 of the Mambo fixture after its first round's bets (each seat a hole card and an up
#: card, 14.13A(c)).
MID_HAND = 33
#: A moment as every page says it (controller/floor/web/moments.py).
MOMENT = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"
#: A moment as Python's isoformat or JavaScript's toISOString writes it: never on a page.
ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")


def _row(page: str, table: str) -> str:
    found = re.search(rf'<tr data-table="{table}"[^>]*>.*?</tr>', page, re.S)
    assert found, page
    return found.group(0)


def test_the_floor_page_says_when_each_table_was_last_heard_and_flags_a_silent_one(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1", "T2"))
    floor = web_floor(tmp_path, nats, postgres, "silent_after = 600\n")
    lines = fixture_lines()
    with serving(floor):
        client = Client(floor.port)
        assert client.login("supervisor").status == 303
        feed = Events(client)
        publish(nats.url, nats.table_user("T1"), "T1", lines[:MID_HAND])
        publish(nats.url, nats.table_user("T2"), "T2", lines[:MID_HAND])
        feed.until_rows(
            lambda r: all(r.get(t, {}).get("records") == MID_HAND for t in ("T1", "T2")),
            "both stored",
        )
        feed.close()
        # T2's last record came 11 minutes ago, by the floor's clock (its owner moves it back).
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute(
                "UPDATE tables SET last_seen = last_seen - interval '11 minutes' "
                "WHERE table_id = 'T2'"
            )
        page = client.get("/floor").text
        assert 'data-silent-after="600.0"' in page
        one, two = _row(page, "T1"), _row(page, "T2")
        assert re.search(rf'<td class="heard">{MOMENT}</td>', one), one
        assert "silent" not in one
        assert re.search(rf'<td class="heard">{MOMENT} <strong class="silent-flag">SILENT', two)
        assert 'class=" silent"' in two
        # The feed's rows carry the moment (for the script to reckon silence) and its words.
        feed = Events(client)
        rows = feed.until_rows(lambda r: "T2" in r, "a snapshot")
        feed.close()
        assert re.fullmatch(MOMENT, str(rows["T2"]["last_heard"]))
        assert str(rows["T2"]["last_seen"]) < str(rows["T1"]["last_seen"])


def test_every_page_says_a_moment_one_way_and_marks_a_face_down_card_shown(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    nats = nats_factory(("T1",))
    floor = web_floor(tmp_path, nats, postgres)
    lines = fixture_lines()
    hand = f"/tables/T1/hands/{journal_id(lines)}/1"
    with serving(floor):
        client = Client(floor.port)
        assert client.login("surveillance").status == 303
        feed = Events(client)
        publish(nats.url, nats.table_user("T1"), "T1", lines)
        feed.until_rows(lambda r: r.get("T1", {}).get("state") == "settled", "hand 1 settled")
        feed.close()
        verify = f"/verify/T1/{journal_id(lines)}"  # the last checkpoint's moment on both
        paths = (hand, "/tables/T1", "/search?table=T1", "/verify", verify, "/alarms")
        pages = {path: client.get(path).text for path in paths}
        for path, page in pages.items():
            # What is shown: the HTML outside its data, and the moments of the data a page's
            # script shows (table.js: the recent hands' starts, the alarms' raising).
            shown = re.sub(r"<script[^>]*>.*?</script>", "", page, flags=re.S)
            assert not ISO.search(shown), (path, ISO.search(shown))
            for data in re.findall(r'type="application/json"[^>]*>(.*?)</script>', page, re.S):
                for key, moment in _moments(json.loads(data)):
                    assert re.fullmatch(MOMENT, moment), (path, key, moment)
        assert re.search(rf"started {MOMENT}", pages[hand])
        assert re.search(rf"<td>{MOMENT}</td>", pages["/search?table=T1"])
        assert re.search(rf"<small>{MOMENT}</small>", pages["/verify"])
        assert re.search(rf"at {MOMENT}; ", pages[verify])
        # The seat boxes: each card says whether it lies face down at the table. Surveillance
        # sees every value; the first card of each seat is its hole card (14.13A(c)), the
        # second an up card. At hand 1's end the seats' hole cards are face down unless turned
        # over at the showdown.
        found = re.search(
            r'<script type="application/json" id="frames">(.*?)</script>', pages[hand]
        )
        assert found
        frames = json.loads(found.group(1))
        dealt = next(f for f in frames if all(len(s["cards"]) == 2 for s in f["seats"]))
        for seat in dealt["seats"]:
            assert all(seat["cards"]), seat  # surveillance: every value
            assert seat["down"] == [True, False], seat
        # The steps mark theirs the same way: 7c dealt face down to seat 1, Qs face up.
        assert re.search(
            r'<span class="card suit-c face-down" title="[^"]*">7c</span>', pages[hand]
        )
        assert '<span class="card suit-s">Qs</span>' in pages[hand]
        supervisor = Client(floor.port)
        supervisor.login("supervisor")
        masked = re.search(
            r'id="frames">(.*?)</script>', supervisor.get(hand).text
        )  # settled: the supervisor sees them too, as recall does, marked the same
        assert masked
        again = json.loads(masked.group(1))
        assert [s["down"] for s in again[frames.index(dealt)]["seats"]] == [
            s["down"] for s in dealt["seats"]
        ]


def _moments(data: object, key: str = "") -> list[tuple[str, str]]:
    """Every moment a page's data holds for its script to show: the values of its keys that
    end in ``_at`` (started_at, raised_at) or are ``at``; ``last_seen``, the script's own
    reckoning of silence, is not shown."""
    if isinstance(data, dict):
        return [found for k, v in data.items() for found in _moments(v, str(k))]
    if isinstance(data, list):
        return [found for v in data for found in _moments(v, key)]
    if isinstance(data, str) and (key.endswith("_at") or key == "at"):
        return [(key, data)]
    return []


@pytest.mark.fast
def test_silent_after_is_checked_like_every_key(tmp_path: Path) -> None:
    base = (
        '[nats]\nservers = ["nats://127.0.0.1:4222"]\nuser = "floor"\npassword_file = "n"\n'
        '[postgres]\ndbname = "tablectl"\n[web]\nsecret_file = "s"\n'
    )
    assert parse(tomllib.loads(base), tmp_path, "f").web.silent_after == DEFAULT_SILENT_AFTER
    set_ = parse(tomllib.loads(base + "silent_after = 90\n"), tmp_path, "f")
    assert set_.web.silent_after == 90.0
    for bad in ("0", "-1", "86401", "true", '"5m"', "inf", "nan"):
        with pytest.raises(FloorConfigError) as caught:
            parse(tomllib.loads(base + f"silent_after = {bad}\n"), tmp_path, "f")
        said = str(caught.value)
        assert "web.silent_after = " in said
        assert "expected a number of seconds, more than 0 and at most 86400 (a day)" in said


@pytest.mark.fast
def test_no_template_or_script_says_a_moment_its_own_way() -> None:
    """Moments are said by moments.py alone: the templates and scripts show its words."""
    web = Path(__file__).parents[2] / "controller" / "floor" / "web"
    own = re.compile(r"toLocale\w*String|toISOString|toUTCString|toDateString|strftime|\|date")
    files = [*web.glob("templates/*.html"), *web.glob("static/*.js")]
    assert len(files) > 10
    for path in files:
        found = own.search(path.read_text())
        assert found is None, f"{path.name} formats a moment itself: {found.group(0)}"
