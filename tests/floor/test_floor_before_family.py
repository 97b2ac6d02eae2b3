"""The floor's rows as a floor wrote them before journal schema version 2's tag families
(docs/floor.md, The store: Rows written before the tag families) still read and verify after
today's ``floor setup``: ``tests/fixtures/floor-before-family/floor.sql`` is the database of
that floor (the code at commit 49db779), holding a keyed Mambo table's three raked hands at
version 1, ISO/IEC 15693 tags only, a stray tag's alarm acknowledged on the alarms page
(tests/fixtures/README.md).

Loaded as it was into a fresh database of a real PostgreSQL, then set up by today's ``tablectl
floor setup``; today's code reads every stored record, derives the same hands as the old floor
stored, walks the chain (links intact, signatures GOOD with the registered key), tells the hands
(``floor recall``), bundles a hand (``floor dispute``, verified by ``tablectl dispute verify``)
and shows them in ``floor web`` to the old users."""

from __future__ import annotations

import html
import io
import json
import secrets
import subprocess
import tarfile
from pathlib import Path
from typing import Final

import psycopg
from floorhelp import FloorDb, floor_roles, tablectl, write_floor_toml
from servershelp import NatsFactory
from test_web_verify import field
from webhelp import WEB_PASSWORD, Client, WebFloor, WebProcess

from controller.floor import derive, store
from controller.floor.web import dbschema as web_schema
from controller.history import dispute
from controller.journal import JsonValue, schema, signing
from controller.journal import tablerecords as rec
from controller.journal.record import Record, parse_line
from drivers.seam.tags import TagFamily, tag_family
from simulator.servers import free_port
from simulator.servers_nats import NatsServer
from simulator.servers_pg import PG_BIN, PostgresServer

FIXTURE: Final = Path(__file__).parent.parent / "fixtures" / "floor-before-family"
TABLE_ID: Final = "FLOOR-OLD"
#: The tag enrolled in neither deck that passed the slot in hand 3 (make.py).
STRAY: Final = "E00401918E68E24D"
#: The web users' password in the old rows (make.py): each user is named after its role.
OLD_PASSWORD: Final = "correct horse battery"


def loaded(tmp_path: Path, postgres: PostgresServer, nats: NatsServer) -> WebFloor:
    """A fresh database holding the old floor's dump as it was, then set up by today's
    ``tablectl floor setup`` (with a [web] section, as a floor host's floor.toml has)."""
    owner = postgres.new_database()
    psql = subprocess.run(
        [str(PG_BIN / "psql"), "--no-psqlrc", "--quiet", "--set", "ON_ERROR_STOP=1",
         "--file", str(FIXTURE / "floor.sql"), owner],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert psql.returncode == 0, psql.stderr
    db: FloorDb = floor_roles(owner)
    config = write_floor_toml(tmp_path, nats.url, nats.floor_user, postgres, db)
    (tmp_path / "web.secret").write_text(secrets.token_hex(32) + "\n")
    (tmp_path / "web.password").write_text(WEB_PASSWORD + "\n")
    (tmp_path / "web-nats.password").write_text(nats.web_user.password + "\n")
    port = free_port()
    with config.open("a") as out:
        out.write(
            f'[web]\nport = {port}\nsecret_file = "web.secret"\npassword_file = "web.password"\n'
            f'[web.nats]\nuser = "{nats.web_user.user}"\npassword_file = "web-nats.password"\n'
        )
    with psycopg.connect(owner) as conn:
        assert store.applied_version(conn) == 3  # the old floor's schema, before the setup
    done = tablectl("floor", "setup", "--config", config, "--owner-dsn", owner)
    assert done.returncode == 0, done.stdout + done.stderr
    with psycopg.connect(owner) as conn:
        store.check_version(conn)
        web_schema.check_version(conn)
    return WebFloor(config, db, port)


def stored(owner: str) -> list[Record]:
    with psycopg.connect(owner) as conn:
        rows = conn.execute(
            "SELECT line FROM records WHERE table_id = %s ORDER BY seq", (TABLE_ID,)
        ).fetchall()
    return [parse_line(bytes(line)) for (line,) in rows]


def uids(records: list[Record]) -> dict[str, str]:
    """Each tag UID the records name, with the kind of the first record naming it."""
    found: dict[str, str] = {}
    for record in records:
        if record.kind in (rec.CARD, rec.TAG):
            data = schema.decode(record)
            assert isinstance(data, schema.CardData | schema.TagData)
            if data.uid is not None:
                found.setdefault(data.uid, record.kind)
    return found


def test_the_old_floors_rows_read_and_verify_after_todays_setup(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer
) -> None:
    floor = loaded(tmp_path, postgres, nats_factory((TABLE_ID,)))
    owner = floor.db.owner
    records = stored(owner)
    journal = records[0].hash

    # Every stored record decodes at the version it declares (1), and every UID it names is
    # of the family version 1 knew: the form says it (docs/journal.md, Versions and migration).
    assert {r.data.get("version") for r in records if r.kind in schema.VERSIONED} == {1}
    for record in records:
        schema.decode(record)
    named = uids(records)
    assert named[STRAY] == rec.TAG
    assert sum(kind == rec.CARD for kind in named.values()) > 20
    assert {tag_family(uid) for uid in named} == {TagFamily.ISO15693}

    # Today's derive of the stored records gives the hands the old floor stored.
    with psycopg.connect(owner) as conn:
        rows = conn.execute(
            "SELECT hand, cards, actions, pots, settlement, finished, voided FROM hands "
            "WHERE table_id = %s ORDER BY hand",
            (TABLE_ID,),
        ).fetchall()
    again = derive.derive(records, None).hands
    assert [row[0] for row in rows] == sorted(again) == [1, 2, 3]
    for hand, cards, actions, pots, settlement, finished, voided in rows:
        row = again[hand]
        mine: tuple[JsonValue, ...] = (row.cards, row.actions, row.pots, row.settlement)
        assert json.loads(json.dumps(mine)) == [cards, actions, pots, settlement], hand
        assert (row.finished, row.voided) == (finished, voided)
    rakes = [pot["rake"] for (*_, pots, _s, _f, _v) in rows for pot in pots]
    assert sum(rakes) > 0, "no hand was raked"

    # The chain walk: links intact, every signed checkpoint by the registered key.
    key_id = signing.key_id(
        signing.parse_public_text((FIXTURE / "table.pub").read_text(), source="table.pub")
    )
    verified = tablectl("floor", "verify", "--config", floor.config)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert (
        f": links intact; signatures GOOD, checked with the table's registered key {key_id}; "
        f"{len(records)} records, head {len(records)}\n"
    ) in verified.stdout

    # floor recall tells the three hands, the stray tag's alarm by its UID, the rake.
    recalled = tablectl("floor", "recall", "--table", TABLE_ID, "--config", floor.config)
    assert recalled.returncode == 0, recalled.stdout + recalled.stderr
    assert [f"Hand {n}," in recalled.stdout for n in (1, 2, 3)] == [True] * 3
    assert f"ALARM tag {STRAY}" in recalled.stdout
    assert "rake 3" in recalled.stdout

    # floor dispute bundles hand 3 (the stray tag's record in it), and it verifies offline.
    bundle = tmp_path / "bundle"
    made = tablectl(
        "floor", "dispute", "--table", TABLE_ID, "--hand", "3", "--out", bundle,
        "--config", floor.config,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    assert f'"uid":"{STRAY}"' in (bundle / dispute.RECORDS).read_text()
    checked = tablectl("dispute", "verify", bundle, "--public-key", FIXTURE / "table.pub")
    assert checked.returncode == 0, checked.stdout + checked.stderr

    # floor web, to the old rows' users with their old password hashes.
    web = WebProcess(floor)
    try:
        auditor = Client(floor.port)
        assert auditor.login("auditor", OLD_PASSWORD).status == 303
        hand = f"/tables/{TABLE_ID}/hands/{journal}/3"
        page = auditor.get(hand)
        assert page.status == 200, page.text
        assert f"tag {STRAY}" in page.text
        got = auditor.get(f"{hand}/dispute.tar.gz")
        assert got.status == 200, got.text
        with tarfile.open(fileobj=io.BytesIO(got.body), mode="r:gz") as tar:
            tar.extractall(tmp_path / "got", filter="data")
        [folder] = (tmp_path / "got").iterdir()
        assert (folder / dispute.RECORDS).read_bytes() == (bundle / dispute.RECORDS).read_bytes()
        url = f"/verify/{TABLE_ID}/{journal}"  # "Verify now" on the journal's page
        walked = auditor.post(url, {"csrf_token": auditor.csrf(url)})
        assert walked.status == 200, walked.text
        assert field(html.unescape(walked.text), "verdict-text") == (
            f"links intact; signatures GOOD, checked with the table's registered key {key_id}"
        )
        supervisor = Client(floor.port)
        assert supervisor.login("supervisor", OLD_PASSWORD).status == 303
        alarms = supervisor.get("/alarms")
        assert alarms.status == 200, alarms.text
        assert "stray tag taken off the table; undo pressed" in alarms.text
    finally:
        assert web.stop() == 0
