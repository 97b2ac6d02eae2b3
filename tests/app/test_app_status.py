"""``tablectl status``: devices, the journal's head and verification, the table replayed from the
journal, the controller's answer; exit 0, 1 (journal not intact, an alarm open) or 2."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from apphelp import PATIENCE, SHUFFLE_SECONDS, dealer, json_log, sim_table

from controller.cli.main import main
from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.poker.announce import announce, hidden_cards
from controller.poker.engine import events as ev
from controller.poker.inputs import Button
from controller.table.control import ControlServer
from controller.table.loop import wait_until
from simulator.clock import ManualClock
from simulator.simtable import SimTable
from simulator.tablefile import write_table_toml

CARD = re.compile(r"\b[2-9TJQKA][cdhs]\b")


def status_config(tmp_path: Path, table: SimTable) -> Path:
    """The table.toml of the simulated table: its journal, devices, and a control socket."""
    path = write_table_toml(
        tmp_path,
        table_id=table.table_id,
        game=table.game,
        config=table.config,
        shoe={"url": table.sim.address("shoe")},
        panel={"url": table.sim.address("panel")},
        decks=table.deck_files,
    )
    with path.open("a", encoding="utf-8") as f:
        f.write(f'\n[control]\nsocket = "{tmp_path / "ctl.sock"}"\n')
    return path


def status_json(config: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(["status", "--config", str(config), "--json"])
    out = capsys.readouterr().out
    report: dict[str, Any] = json.loads(out)
    return code, report


class FaceDown:
    """The current hand's cards no player may see (announce.hidden_cards), as the controller
    announces its events (a listener)."""

    def __init__(self) -> None:
        self.cards: set[str] = set()

    def __call__(self, _controller: object, events: list[ev.Event]) -> None:
        for event in events:
            if isinstance(event, ev.HandStarted):
                self.cards = set()
            self.cards.update(hidden_cards(event))


def next_hand(table: SimTable) -> None:
    """Shuffle (past the repeat window) and press new hand; wait until it has begun."""
    controller = table.controller
    hand = controller.core.table.hand_number
    assert isinstance(table.clock, ManualClock)
    table.clock.advance(SHUFFLE_SECONDS)
    table.sim.use_deck(controller.next_hand_deck, hand + 100)  # the decks alternate
    table.sim.press(Button.NEW_HAND)
    assert wait_until(lambda: controller.core.table.hand_number == hand + 1, PATIENCE)


def deal_until_a_seat_acts(table: SimTable) -> int:
    """Deal the cards the table asks for until a seat must act; that seat. Each card is waited
    for until its decision is journaled, after its announcement (controller/table/loop.py): a
    status read then finds the journal as it stands, not one record short."""
    controller = table.controller
    journal = controller.journal

    def decided(taken: int) -> bool:
        last = journal.last
        return controller.inputs >= taken and last is not None and last.kind in rec.DECISIONS

    while True:
        pending = controller.core.table.pending
        if isinstance(pending, ev.ActionRequired):
            return pending.seat
        assert isinstance(pending, ev.CardExpected), pending
        taken = controller.inputs + 1
        if pending.destination == ev.BURN:
            table.sim.burn()
        else:
            table.sim.deal()
        assert wait_until(lambda n=taken: decided(n), PATIENCE)


@contextmanager
def controlled(tmp_path: Path, table: SimTable) -> Iterator[None]:
    with ControlServer(tmp_path / "ctl.sock", table.controller.events):
        yield


def test_status_json_tells_the_journal_head_the_hand_the_seat_to_act_and_the_controller(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Mid-hand, a seat to act, the controller running: every value as the journal and the
    live controller have it; exit 0; no face-down card anywhere in the output."""
    with (
        json_log(tmp_path),
        sim_table(tmp_path, clock=ManualClock()) as table,
        controlled(tmp_path, table),
    ):
        config = status_config(tmp_path, table)
        dealer(table, hands=2).run()
        face_down = FaceDown()
        table.controller.listeners.append(face_down)
        next_hand(table)
        seat = deal_until_a_seat_acts(table)
        code, report = status_json(config, capsys)
        live = table.controller.core.table
        expected_next = announce(live.pending)
        phase = live.phase
        assert main(["status", "--config", str(config)]) == 0
        text = capsys.readouterr().out
    records = list(JournalReader(tmp_path / "journal"))
    assert code == 0
    assert report["version"] == 1
    assert report["well"] is True
    assert report["table_id"] == table.table_id
    journal = report["journal"]
    assert journal["intact"] is True
    assert journal["records"] == len(records)
    assert journal["journal_id"] == records[0].hash
    assert (journal["last_seq"], journal["last_time"]) == (records[-1].seq, records[-1].ts)
    assert journal["anchor"] == f"{records[-1].seq}:{records[-1].hash}"
    assert report["table"] == {
        "phase": phase,
        "hand": 3,
        "to_act": seat,
        "next": expected_next,
        "alarms": [],
        "paused_by": [],
    }
    assert report["table_problem"] is None
    assert report["controller"]["running"] is True
    assert report["controller"]["answer"].startswith("hand 3 (a hand is in play): seat 1 ")
    shoe, panel = report["devices"]
    assert (shoe["role"], shoe["configured"], shoe["path"], shoe["exists"]) == (
        "shoe",
        table.sim.address("shoe"),
        None,
        None,
    )
    assert panel["role"] == "panel"
    hidden = face_down.cards
    assert hidden, "Mambo deals hole cards face down"
    assert not hidden & set(CARD.findall(json.dumps(report)))
    assert not hidden & set(CARD.findall(text))
    assert text.splitlines()[0] == f"table {table.table_id}, {report['game']}: all well"
    assert f"  table: hand 3, {phase}; next: {expected_next}" in text
    assert "  controller: running" in text
    assert len(text.splitlines()) <= 8


def test_status_exits_1_while_an_alarm_is_open_and_names_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A foreign tag holds the hand (rules-interpretation.md, Integrity): exit 1, the alarm as
    announced; with no controller running, ``running`` is false and the reason given."""
    with json_log(tmp_path), sim_table(tmp_path, clock=ManualClock()) as table:
        config = status_config(tmp_path, table)
        dealer(table, hands=1).run()
        next_hand(table)
        table.sim.foreign_tag()
        controller = table.controller
        assert wait_until(lambda: isinstance(controller.core.table.pending, ev.Alarm), PATIENCE)
        alarm = controller.core.table.pending
    code, report = status_json(config, capsys)
    assert code == 1
    assert report["well"] is False
    assert isinstance(alarm, ev.Alarm)
    assert report["table"]["alarms"] == [
        {
            "text": announce(alarm),
            "read": alarm.read,
            "point": alarm.point,
            "reason": alarm.reason,
            "expected": alarm.expected,
        }
    ]
    assert report["controller"]["running"] is False
    assert "no controller is running there" in report["controller"]["answer"]
    assert main(["status", "--config", str(config)]) == 1
    text = capsys.readouterr().out
    assert f"  ALARM: {announce(alarm)}" in text
    assert ": TROUBLE" in text.splitlines()[0]
    assert "  controller: not running: " in text


def test_status_names_no_card_of_the_other_deck_an_alarm_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A card of the other deck holds the hand (rules-interpretation.md, Integrity): its reason
    names that deck's card, the twin of one not yet seen; status says "a card" in the text and
    in every field, as the table is told (docs/display.md, What the table sees)."""
    with json_log(tmp_path), sim_table(tmp_path, clock=ManualClock()) as table:
        config = status_config(tmp_path, table)
        dealer(table, hands=1).run()
        next_hand(table)
        card = table.sim.other_deck()
        controller = table.controller
        assert wait_until(lambda: isinstance(controller.core.table.pending, ev.Alarm), PATIENCE)
        alarm = controller.core.table.pending
    assert isinstance(alarm, ev.Alarm)
    assert alarm.reason.endswith(f", {card.code}")
    code, report = status_json(config, capsys)
    assert code == 1
    (shown,) = report["table"]["alarms"]
    assert shown["reason"].endswith("of the other deck (A), a card")
    assert main(["status", "--config", str(config)]) == 1
    text = capsys.readouterr().out
    assert "  ALARM: Alarm: tag " in text
    for said in (json.dumps(report, ensure_ascii=False), text):
        assert card.code not in CARD.findall(said)
        assert card.face not in said


def test_status_exits_1_for_a_journal_that_fails_verification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited record: exit 1, NOT INTACT with the first bad record, no table replayed."""
    with json_log(tmp_path), sim_table(tmp_path, clock=ManualClock()) as table:
        config = status_config(tmp_path, table)
        dealer(table, hands=1).run()
    (first,) = sorted((tmp_path / "journal").glob("journal-*.jsonl"))
    lines = first.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].replace(b'"seq":4', b'"seq":4 ', 1)
    first.write_bytes(b"".join(lines))
    code, report = status_json(config, capsys)
    assert code == 1
    assert report["journal"]["intact"] is False
    assert "NOT INTACT" in report["journal"]["verdict"]
    assert first.name in report["journal"]["problem"]
    assert report["table"] is None
    assert report["table_problem"] == "not replayed: the journal is not intact"
    assert main(["status", "--config", str(config)]) == 1
    assert "first bad record: " in capsys.readouterr().out


def test_status_before_the_first_hand_has_no_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A journal with no hand yet: ``hand`` is null, not 0; the table waits for a new hand."""
    with json_log(tmp_path), sim_table(tmp_path, clock=ManualClock()) as table:
        config = status_config(tmp_path, table)
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
    code, report = status_json(config, capsys)
    assert code == 0
    assert report["table"]["hand"] is None
    assert report["table"]["to_act"] is None


def test_status_bad_input_exits_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A configuration that is not there, or one whose journal folder is not there: exit 2,
    one message naming what is wrong; never a traceback."""
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(SystemExit) as refused:  # as the command line is read
        main(["status", "--config", str(missing)])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert f"tablectl status: error: argument --config: {missing}: expected a readable" in err
    assert "Traceback" not in err
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with json_log(tmp_path), sim_table(tmp_path, clock=ManualClock()) as table:
        config = status_config(elsewhere, table)  # its journal: elsewhere/journal, not made
    assert main(["status", "--config", str(config), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"tablectl status: journal {elsewhere / 'journal'} ")
    assert "expected the journal tablectl run writes" in err
