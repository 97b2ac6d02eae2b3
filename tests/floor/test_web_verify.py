"""The auditor's verification page and the hand's dispute bundle (docs/floor-web.md, Verification
(the auditor); docs/journal.md, Signed checkpoints, The dispute bundle): ``floor web`` as a
subprocess of the real CLI over a real PostgreSQL holding a keyed table's real journal (a simulated
table's, four hands over two starts, each start's software record journaled), its key registered as
at install. What is changed in the store to be caught is changed as the database's owner, as only
they could."""

from __future__ import annotations

import asyncio
import html
import io
import re
import tarfile
import threading
from pathlib import Path

import psycopg
import pytest
from floorhelp import PATIENCE, arrivals, ingest_now, rewritten, tablectl
from keyedtable import store_as_owner
from servershelp import NatsFactory
from test_floor_dispute import TABLE_ID, keyed_table
from webhelp import Client, WebFloor, WebProcess, log_lines, web_floor

from controller.floor import keys, software
from controller.floor.chainwalk import ChainWalk
from controller.floor.web.chains import NoSuchJournal, reverify
from controller.journal import JournalReader, signing
from controller.journal import tablerecords as rec
from controller.journal.record import canonical_json, parse_line
from simulator.servers_pg import PostgresServer


def keyed_floor(
    tmp_path: Path, nats_factory: NatsFactory, postgres: PostgresServer, mp: pytest.MonkeyPatch
) -> tuple[WebFloor, list[bytes], Path]:
    """The web's floor holding the keyed table's journal, its key registered; the journal's
    lines and the table's public key file."""
    table = keyed_table(tmp_path / "table", mp)
    lines = [r.line().rstrip(b"\n") for r in JournalReader(table.parent / "journal")]
    public_file = table.parent / "keys" / "table.pub"
    floor = web_floor(tmp_path, nats_factory((TABLE_ID,)), postgres)
    with psycopg.connect(floor.db.owner, autocommit=True) as conn:
        keys.register(conn, TABLE_ID, signing.parse_public_text(public_file.read_text(), source=""))
    ingest_now(floor.db.writer, arrivals(TABLE_ID, lines))
    return floor, lines, public_file


def journal_of(lines: list[bytes]) -> str:
    return parse_line(lines[0]).hash


def walked(client: Client, journal: str) -> str:
    """The journal's verdict page after "Verify now" (its HTML entities read as text)."""
    url = f"/verify/{TABLE_ID}/{journal}"
    reply = client.post(url, {"csrf_token": client.csrf(url)})
    assert reply.status == 200, reply.text
    return html.unescape(reply.text)


async def walk_as_the_web(floor: WebFloor, journal: str) -> ChainWalk:
    """``reverify`` over the web's own role's connection, as the page runs it."""
    async with await psycopg.AsyncConnection.connect(floor.web_dsn, autocommit=True) as conn:
        return await reverify(conn, TABLE_ID, journal)


def field(page: str, element: str) -> str:
    found = re.search(rf'id="{element}">([^<]*)<', page)
    assert found, f"no #{element} on the page"
    return found.group(1)


def seqs_of(lines: list[bytes], kind: str) -> list[int]:
    return [r.seq for r in map(parse_line, lines) if r.kind == kind]


def test_an_intact_journal_verifies_and_a_line_altered_in_the_store_is_caught_at_its_seq(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    journal = journal_of(lines)
    checkpoints = [
        r for r in map(parse_line, lines) if r.kind == rec.CHECKPOINT and r.data.get("signature")
    ]
    starts = seqs_of(lines, software.SOFTWARE)
    with psycopg.connect(floor.db.owner, autocommit=True) as conn:
        digest = conn.execute("SELECT digest FROM software ORDER BY seq DESC LIMIT 1").fetchone()
        assert digest is not None
        software.approve(conn, str(digest[0]), "test", "the release under test")
    direct = asyncio.run(walk_as_the_web(floor, journal))
    assert direct.verified
    assert (direct.records, direct.last_seq, direct.stored_head) == (len(lines),) * 3
    assert [k.state for k in direct.keys] == ["registered"]
    with pytest.raises(NoSuchJournal, match=f"its journals: {journal}"):
        asyncio.run(walk_as_the_web(floor, "f" * 64))
    web = WebProcess(floor)
    try:
        auditor = Client(floor.port)
        assert auditor.login("auditor").status == 303
        overview = auditor.get("/verify")
        assert overview.status == 200
        assert 'href="/verify"' in overview.text  # the nav's link, for the auditor
        row = re.search(rf'<tr data-table="{TABLE_ID}" data-journal="{journal}"[^>]*>(.*?)</tr>',
                        overview.text, re.S)  # fmt: skip
        assert row, overview.text
        cells = row.group(1)
        assert f'<td class="records">{len(lines)}</td>' in cells
        assert f"record {len(lines)}" in cells  # the head
        assert f"record {checkpoints[-1].seq}" in cells
        key_id = checkpoints[-1].data["signature"]["key_id"]  # type: ignore[index,call-overload]
        assert f"key {key_id}: registered" in cells
        assert f"(record {starts[-1]})" in cells
        assert ": approved" in cells
        assert "none" in cells  # no record beyond a gap, no conflict

        # Walked again from the store: every record, every signed checkpoint by the
        # registered key.
        page = walked(auditor, journal)
        assert field(page, "verdict-text") == (
            f"links intact; signatures GOOD, checked with the table's registered key {key_id}"
        )
        assert field(page, "records-checked").startswith(f"{len(lines)} (records 1 to {len(lines)}")
        assert field(page, "signed") == str(len(checkpoints))
        assert field(page, "bad") == "0"
        assert f"{key_id}: registered" in page
        # The walk changes nothing: without the form's token it is refused.
        assert auditor.post(f"/verify/{TABLE_ID}/{journal}", {}).status == 403

        # One line altered in the store, its hash left as it was.
        seq = starts[-1] + 3
        record = parse_line(lines[seq - 1])
        fields = {"seq": record.seq, "ts": record.ts, "kind": record.kind, "prev": record.prev,
                  "data": {**record.data, "altered": True}, "hash": record.hash}  # fmt: skip
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute(
                "UPDATE records SET line = %s WHERE table_id = %s AND seq = %s",
                (canonical_json(fields), TABLE_ID, seq),  # type: ignore[arg-type]
            )
        page = walked(auditor, journal)
        assert field(page, "verdict-text") == (
            f"links NOT INTACT at record {seq}; signatures not judged past the break"
        )
        assert field(page, "broken-seq") == str(seq)
        assert "does not match the record's content" in page
        assert field(page, "records-checked").startswith(f"{seq - 1} (records 1 to {seq - 1}")

        # A supervisor is refused, with the reason; no link in their nav.
        supervisor = Client(floor.port)
        assert supervisor.login("supervisor").status == 303
        refused = supervisor.get("/verify")
        assert refused.status == 403
        assert (
            "verification is for auditor and surveillance: you are signed in as a supervisor"
            in refused.text
        )
        assert supervisor.get(f"/verify/{TABLE_ID}/{journal}").status == 403
        assert 'href="/verify"' not in supervisor.get("/floor").text
        # Unknown journal: named.
        missing = auditor.get(f"/verify/{TABLE_ID}/{'0' * 64}")
        assert missing.status == 404
        assert "the floor holds no journal" in missing.text
    finally:
        assert web.stop() == 0


def test_the_walk_leaves_the_event_loop_free_while_it_works(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The walk's CPU work is on a worker thread (chains.py ``_walk``): while it holds on
    record 1, a coroutine on the web's event loop still runs, and lets it go. Were the walk on
    the loop, nothing on the loop would run until it went on by itself: it would not."""
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    taking, released = threading.Event(), threading.Event()
    take = ChainWalk.take

    def held(walk: ChainWalk, seq: int, stored_hash: str, line: bytes) -> bool:
        if seq == 1:
            taking.set()
            assert released.wait(PATIENCE), "no coroutine ran on the loop while the walk worked"
        return take(walk, seq, stored_hash, line)

    monkeypatch.setattr(ChainWalk, "take", held)

    async def walk_and_release() -> ChainWalk:
        async def release() -> None:
            assert await asyncio.to_thread(taking.wait, PATIENCE), "the walk never began"
            released.set()

        walked, _ = await asyncio.gather(walk_as_the_web(floor, journal_of(lines)), release())
        return walked

    walked = asyncio.run(walk_and_release())
    assert walked.records == len(lines)
    assert walked.verified, walked.verdict


def test_a_rehashed_forged_chain_is_caught_by_the_checkpoints_signatures(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor, lines, _ = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    journal = journal_of(lines)
    # Hand 4's start rewritten, and every record after it re-hashed: a chain that links again
    # (docs/floor-web.md, Verification (the auditor): only its checkpoints' signatures catch it).
    seq = seqs_of(lines, rec.HAND_STARTED)[-1]
    forged = rewritten(lines, seq)
    signed_after = [
        r.seq
        for r in map(parse_line, lines)
        if r.kind == rec.CHECKPOINT and r.data.get("signature") and r.seq > seq
    ]
    assert signed_after, "no signed checkpoint after hand 4's start to catch the forgery"
    store_as_owner(floor.db.owner, TABLE_ID, forged[seq - 1 :])
    web = WebProcess(floor)
    try:
        auditor = Client(floor.port)
        assert auditor.login("surveillance").status == 303  # surveillance verifies too
        page = walked(auditor, journal)
        # The chain itself reads whole: every line hashes to itself and links.
        assert field(page, "records-checked").startswith(f"{len(lines)} (records 1 to")
        assert 'id="broken"' not in page
        first = signed_after[0]
        # The words of floor verify and journal verify (docs/journal.md, Verdicts).
        assert field(page, "verdict-text") == f"links intact; signatures BAD at record {first}"
        assert field(page, "first-bad-seq") == str(first)
        # A walk that does not vouch for the journal is logged at warning, with its verdict.
        logged = log_lines(web.log)
        [verified] = [line for line in logged if line["event"] == "web_journal_verified"]
        assert (verified["level"], verified["verified"]) == ("warning", False)
        assert verified["verdict"] == f"links intact; signatures BAD at record {first}"
        assert "the journal was rewritten without the private key" in page
        assert field(page, "bad") == str(len(signed_after))
        # The registry emptied: no signature can be vouched for, and the page says so.
        with psycopg.connect(floor.db.owner, autocommit=True) as conn:
            conn.execute("DELETE FROM table_keys WHERE table_id = %s", (TABLE_ID,))
        page = walked(auditor, journal)
        assert f"the floor's registry holds no key of table {TABLE_ID}" in page
        assert field(page, "verdict-text") == (
            "links intact; signatures NOT CHECKED: the floor has no key registered for table "
            f"{TABLE_ID} (tablectl floor key register)"
        )
    finally:
        assert web.stop() == 0


def test_the_hands_dispute_bundle_downloads_for_the_auditor_and_verifies_offline(
    tmp_path: Path,
    nats_factory: NatsFactory,
    postgres: PostgresServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor, lines, public_file = keyed_floor(tmp_path, nats_factory, postgres, monkeypatch)
    journal = journal_of(lines)
    hand = f"/tables/{TABLE_ID}/hands/{journal}/4"
    web = WebProcess(floor)
    try:
        auditor = Client(floor.port)
        assert auditor.login("auditor").status == 303
        page = auditor.get(hand)
        assert page.status == 200
        assert f'href="{hand}/dispute.tar.gz"' in page.text
        got = auditor.get(f"{hand}/dispute.tar.gz")
        assert got.status == 200, got.text
        assert got.headers["content-type"] == "application/gzip"
        name = f"dispute-{TABLE_ID}-hand-4-{journal[:12]}"
        assert got.headers["content-disposition"] == f'attachment; filename="{name}.tar.gz"'
        with tarfile.open(fileobj=io.BytesIO(got.body), mode="r:gz") as tar:
            tar.extractall(tmp_path / "got", filter="data")
        checked = tablectl(
            "dispute", "verify", tmp_path / "got" / name, "--public-key", public_file
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
        # Recorded in the hole-card access log: the bundle carries the hand's hole cards.
        with psycopg.connect(floor.db.owner) as conn:
            views = conn.execute(
                "SELECT user_name, table_id, journal_id, hand FROM web.card_views "
                "WHERE through = 'dispute bundle'"
            ).fetchall()
        assert views == [("auditor", TABLE_ID, journal, 4)]
        # A hand the store has not got: named, nothing recorded.
        missing = auditor.get(f"/tables/{TABLE_ID}/hands/{journal}/9/dispute.tar.gz")
        assert missing.status == 404
        assert "hand 9 of table DISPUTE-F is not in the floor's store" in missing.text

        # A supervisor gets no link and no bundle.
        supervisor = Client(floor.port)
        assert supervisor.login("supervisor").status == 303
        assert "dispute.tar.gz" not in supervisor.get(hand).text
        refused = supervisor.get(f"{hand}/dispute.tar.gz")
        assert refused.status == 403
        assert "you are signed in as a supervisor" in refused.text
    finally:
        assert web.stop() == 0
