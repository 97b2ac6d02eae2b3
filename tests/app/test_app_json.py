"""``--json`` on recall, journal verify, config check, devices and seat show: one versioned
JSON object each (docs/app.md, Machine-readable output), its values those of a journal the
simulator dealt."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from apphelp import dealer, json_log, sim_table
from test_app_status import controlled, status_config

from controller.cli.main import main
from controller.history.recall import describe, describe_stakes
from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.journal.schema import decode_event
from controller.poker.engine import Stakes
from drivers.discovery import scan

#: A card's code, as the journal and recall write it.
CARD = re.compile(r"(?<![0-9A-Za-z])[2-9TJQKA][cdhs](?![0-9A-Za-z])")


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    """Run ``tablectl ARGV``; its status and the one JSON object it printed."""
    code = main(list(argv))
    out = capsys.readouterr().out
    report: dict[str, Any] = json.loads(out)
    assert report["version"] == 1
    assert next(iter(report)) == "version"
    return code, report


def journal_events(journal: Path) -> list[dict[str, Any]]:
    return [
        event
        for record in JournalReader(journal)
        if record.kind in rec.DECISIONS
        for event in record.data["events"]  # type: ignore[union-attr]
        if isinstance(event, dict)
    ]


def test_recall_json_gives_each_hands_lines_and_told_events_no_more_than_its_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Triple draw (discards, mucks): the hands' numbers, their stakes as posted and journaled
    (13:69F-8.3), lines equal to the text's, the settlement's nets as journaled, only the events
    the text tells, and no card the text does not name."""
    with json_log(tmp_path), sim_table(tmp_path, "triple-draw") as table:
        dealer(table, hands=6).run()
    journal = str(tmp_path / "journal")
    code, report = run_json(capsys, "recall", "3", "--journal", journal, "--json")
    assert main(["recall", "3", "--journal", journal]) == 0
    text = capsys.readouterr().out
    assert code == 0
    assert (report["journal"], report["intact"], report["problem"]) == (journal, True, None)
    assert [hand["number"] for hand in report["hands"]] == [4, 5, 6]
    assert all(hand["finished"] and hand["game"] == "triple-draw" for hand in report["hands"])
    blocks = text.strip("\n").split("\n\n")
    for hand, block in zip(report["hands"], blocks, strict=True):
        head, stakes, rules, *lines = block.splitlines()
        # The text names the game by its display name, the JSON by its key (docs/display.md,
        # The table's words).
        assert head == f"Hand {hand['number']}, Triple Draw 2-7, {hand['started']}"
        assert stakes == f"  stakes: {describe_stakes(Stakes(**hand['stakes']))}"
        assert hand["stakes"] == dataclasses.asdict(table.config.stakes)
        # rules-interpretation.md, House rules: journaled with the hand, posted in the words the
        # display uses.
        assert hand["rules"] == table.config.rules.as_words()
        assert rules == "  house rules: half-bet all-in"
        assert lines == [f"  {line}" for line in hand["lines"]]
        assert [describe(decode_event(event)) for event in hand["events"]] == hand["lines"]
    settled = {
        event["hand"]: event["net"]
        for event in journal_events(tmp_path / "journal")
        if event["kind"] == "hand_settled"
    }
    for hand in report["hands"]:
        (told,) = [event for event in hand["events"] if event["kind"] == "hand_settled"]
        assert told["net"] == settled[hand["number"]]
    kinds = {event["kind"] for hand in report["hands"] for event in hand["events"]}
    assert not kinds & {"card_mucked", "card_discarded", "discards_reshuffled", "card_expected"}
    assert set(CARD.findall(json.dumps(report))) <= set(CARD.findall(text))


def test_journal_verify_json_gives_the_head_files_and_anchor_as_the_journal_has_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Intact: the records, files and head of the journal; --anchor at the head: matched;
    an edited record: not intact, the first bad record named, exit 1."""
    with json_log(tmp_path), sim_table(tmp_path, hands_per_file=1) as table:
        dealer(table, hands=2).run()
    directory = tmp_path / "journal"
    records = list(JournalReader(directory))
    last = records[-1]
    code, report = run_json(
        capsys,
        "journal",
        "verify",
        "--journal",
        str(directory),
        "--json",
        "--anchor",
        f"{last.seq}:{last.hash}",
    )
    assert code == 0
    assert report["intact"] is True
    assert report["records"] == len(records)
    assert report["files"] == sorted(path.name for path in directory.glob("journal-*.jsonl"))
    assert len(report["files"]) >= 2
    assert report["head"] == {
        "seq": last.seq,
        "time": last.ts,
        "hash": last.hash,
        "anchor": f"{last.seq}:{last.hash}",
    }
    assert report["anchor"]["check"] == "matched"
    assert (report["problem"], report["torn"], report["set_aside"]) == (None, None, [])
    first = directory / report["files"][0]
    first.write_bytes(first.read_bytes().replace(b'"seq":3,', b'"seq":3 ,', 1))
    code, report = run_json(capsys, "journal", "verify", "--journal", str(directory), "--json")
    assert code == 1
    assert report["intact"] is False
    assert report["verdict"].endswith(
        ": links NOT INTACT at record 3; signatures not judged past the break"
    )
    assert (report["links"], report["signatures_checked"]) == ("broken", "not judged")
    assert f"{first.name}:3 (seq 3)" in report["problem"]
    assert report["anchor"] is None


def test_config_check_json_gives_the_settings_or_every_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A valid table.toml: its table, stakes, devices and journal as loaded; an invalid one:
    valid false and each mistake's key, value and what was expected, exit 1."""
    with json_log(tmp_path), sim_table(tmp_path) as table:
        config = status_config(tmp_path, table)
    code, report = run_json(capsys, "config", "check", "--config", str(config), "--json")
    assert code == 0
    assert (report["source"], report["valid"], report["problems"]) == (str(config), True, [])
    loaded = report["table"]
    assert (loaded["table_id"], loaded["game"]) == (table.table_id, table.spec.name)
    assert loaded["seats"] == list(table.config.seats)
    stakes = table.config.stakes
    assert (loaded["stakes"]["small_bet"], loaded["stakes"]["ante"]) == (
        stakes.small_bet,
        stakes.ante,
    )
    assert loaded["stacks"] == [
        {"seat": seat, "chips": chips} for seat, chips in sorted(table.config.stacks.items())
    ]
    assert loaded["shoe"]["url"] == table.sim.address("shoe")
    assert loaded["journal"]["dir"] == str(tmp_path / "journal")
    assert loaded["log"] == {"level": "info", "format": "auto", "file": None}
    assert loaded["control_socket"] == str(tmp_path / "ctl.sock")
    assert any("fsync = false" in caution for caution in report["cautions"])
    text = config.read_text(encoding="utf-8").replace("small_bet = 5", "small_bet = -5")
    config.write_text(text, encoding="utf-8")
    code, report = run_json(capsys, "config", "check", "--config", str(config), "--json")
    assert code == 1
    assert (report["valid"], report["table"]) == (False, None)
    (problem,) = report["problems"]
    assert (problem["key"], problem["value"]) == ("stakes.small_bet", "-5")
    assert problem["expected"].startswith("expected")


def test_seat_show_json_gives_the_running_tables_seats_and_stacks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """seat show --json: the hand, between hands, each seat and its chips as the running
    controller has them."""
    with json_log(tmp_path), sim_table(tmp_path) as table, controlled(tmp_path, table):
        config = status_config(tmp_path, table)
        dealer(table, hands=2).run()
        stacks = table.controller.core.table.stacks
        code, report = run_json(capsys, "seat", "--config", str(config), "show", "--json")
    assert code == 0
    assert (report["hand"], report["in_hand"]) == (2, False)
    assert report["seats"] == [{"seat": seat, "chips": chips} for seat, chips in stacks.items()]
    assert report["text"].startswith("hand 2 (between hands): seat 1 ")


def test_devices_json_lists_what_udev_knows_and_the_roles_missing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """devices --json on this machine: every tty libudev knows, as scan judges it, and the
    named roles no device plays (exit 1 when one is missing)."""
    shoe = "1209:7ab1:NO-SUCH-SHOE"
    found = scan([])
    code, report = run_json(capsys, "devices", "--shoe", shoe, "--json")
    assert code == 1
    assert report["missing"] == ["shoe"]
    assert [device["node"] for device in report["devices"]] == [c.node for c in found]
    for device in report["devices"]:
        assert set(device) == {
            "node",
            "sys_path",
            "vendor_id",
            "model_id",
            "serial",
            "links",
            "verdict",
        }
        assert set(device["verdict"]) == {"role", "reasons"}
