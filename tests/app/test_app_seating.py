"""Seat changes between hands through the running controller's control socket (docs/app.md,
Seat changes; docs/journal.md, Seat changes): journaled, applied between hands only, replayed.
"""

from __future__ import annotations

import json
import os
import pwd
import queue
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from apphelp import AS_ROOT, PATIENCE, dealer, journal_records, sim_table, table_toml
from confighelp import export_config
from test_app_commands import ROOT, wait_for_log

from controller.cli.main import main
from controller.history.recall import hands
from controller.journal import JournalReader, verify
from controller.journal import tablerecords as rec
from controller.poker.engine.events import HandStarted
from controller.poker.inputs import Button
from controller.table.control import ControlError, ControlServer, send
from controller.table.loop import Controller, wait_until
from controller.table.unixsocket import answers
from simulator.table import Simulator


def _serve(controller: Controller, path: Path) -> ControlServer:
    server = ControlServer(path, controller.events)
    server.start()
    return server


def test_sit_leave_and_rebuy_between_hands_change_the_next_hand_and_survive_a_restart(
    tmp_path: Path,
) -> None:
    """After a hand, seat 2 leaves, seat 6 sits down with 300 and seat 1 rebuys 100: the next
    hand deals seats 1, 3, 4, 6 with those stacks (14.13A(c): dealt from the dealer's left,
    the empty seat passed, as the button passes it, 14.10(c)/14.12A(c)); a rebuy while it is
    in play is refused with the reason; a restart replays every change."""
    path = tmp_path / "ctl.sock"
    with sim_table(tmp_path, seats=4) as table:
        dealer(table, hands=1).run()
        server = _serve(table.controller, path)
        try:
            before = table.controller.core.table.stacks
            assert send(path, {"change": "leave", "seat": 2})["ok"] is True
            sat = send(path, {"change": "sit", "seat": 6, "chips": 300})
            assert sat == {
                "ok": True,
                "text": "Seat 6 sits down with 300; seats 1, 3, 4, 6 play the next hand.",
            }
            assert send(path, {"change": "rebuy", "seat": 1, "chips": 100})["ok"] is True
            shown = send(path, {"change": "show"})
            stacks = table.controller.core.table.stacks
            assert stacks == {1: before[1] + 100, 3: before[3], 4: before[4], 6: 300}  # type: ignore[operator]  # known stacks
            assert shown["text"] == (
                f"hand 1 (between hands): seat 1 {stacks[1]}, seat 3 {stacks[3]}, "
                f"seat 4 {stacks[4]}, seat 6 300"
            )
            seen: list[HandStarted] = []
            table.controller.listeners.append(
                lambda _c, events: seen.extend(e for e in events if isinstance(e, HandStarted))
            )
            table.sim.shuffle(5)
            table.sim.press(Button.NEW_HAND)
            assert wait_until(lambda: bool(seen), PATIENCE)
            assert seen[0].seats == (1, 3, 4, 6)
            refused = send(path, {"change": "rebuy", "seat": 3, "chips": 100})
            assert refused == {
                "ok": False,
                "reason": "hand 2 is in play; expected a change between hands",
            }
            table.sim.press(Button.MISDEAL)
            assert wait_until(lambda: table.controller.core.table.phase == "void", PATIENCE)
            after = table.controller.core.table.stacks
        finally:
            server.close()
        table.stop_controller()
        controller = table.start_controller()
        assert controller.core.table.stacks == after
        assert tuple(s.seat for s in controller.core.table.state.seats) == (1, 3, 4, 6)
    seatings = [data for kind, data in journal_records(tmp_path / "journal") if kind == rec.SEATING]
    assert [d["change"] for d in seatings] == ["leave", "sit", "rebuy", "rebuy"]
    assert verify(tmp_path / "journal").intact
    assert not path.exists()
    first = hands(JournalReader(tmp_path / "journal"))[0]  # recall shows them after hand 1
    # Who asked (docs/journal.md, Seat changes).
    asked = f"(asked by {pwd.getpwuid(os.getuid()).pw_name}, uid {os.getuid()})"
    assert f"  seat change: leave seat 2 {asked}" in first.lines
    assert f"  seat change: sit seat 6 300 {asked}" in first.lines


def test_a_bad_request_is_answered_with_what_was_expected(tmp_path: Path) -> None:
    """A request without chips, with an unknown change, or not JSON at all is answered with
    what was expected, and nothing is journaled for it."""
    path = tmp_path / "ctl.sock"
    with sim_table(tmp_path, seats=3) as table, ControlServer(path, table.controller.events):
        assert send(path, {"change": "sit", "seat": 5}) == {
            "ok": False,
            "reason": "chips None: sit expects a positive number of chips",
        }
        assert send(path, {"change": "swap", "seat": 5})["reason"] == (
            "change 'swap': expected one of sit, leave, rebuy"
        )
        assert send(path, {"change": "sit", "seat": 1, "chips": 50})["reason"] == (
            "seat 1 is taken; expected an empty seat"
        )
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as raw:
            raw.connect(str(path))
            raw.sendall(b"sit 3 500\n")
            answer = json.loads(raw.makefile("rb").readline())
        assert answer["ok"] is False
        assert "expected one line of JSON" in answer["reason"]
    kinds = [kind for kind, _ in journal_records(tmp_path / "journal")]
    assert kinds.count(rec.SEATING) == 1  # only the well-formed sit that the table refused


def test_tablectl_seat_says_clearly_when_no_controller_is_running(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablectl seat`` with no controller at the configured socket exits 2 and says so."""
    config = export_config(
        tmp_path, 'id = "T-1"\ngame = "mambo"\nseats = [1, 2]', "small_bet = 5\nbig_bet = 10"
    )
    with config.open("a", encoding="utf-8") as f:
        f.write(f'\n[control]\nsocket = "{tmp_path / "none.sock"}"\n')
    assert main(["seat", "--config", str(config), "sit", "3", "--chips", "500"]) == 2
    err = capsys.readouterr().err
    assert "no controller is running there" in err
    assert str(tmp_path / "none.sock") in err


def test_tablectl_seat_prints_the_controllers_answer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablectl seat ... sit`` prints the controller's answer and exits 0; a refusal exits 1
    with the reason."""
    path = tmp_path / "ctl.sock"
    config = export_config(
        tmp_path, 'id = "T-1"\ngame = "mambo"\nseats = [1, 2]', "small_bet = 5\nbig_bet = 10"
    )
    with config.open("a", encoding="utf-8") as f:
        f.write(f'\n[control]\nsocket = "{path}"\n')
    with sim_table(tmp_path, seats=3) as table, ControlServer(path, table.controller.events):
        assert main(["seat", "--config", str(config), "sit", "5", "--chips", "500"]) == 0
        assert "Seat 5 sits down with 500" in capsys.readouterr().out
        assert main(["seat", "--config", str(config), "leave", "4"]) == 1
        assert "refused: seat 4 is empty; expected one of (1, 2, 3, 5)" in capsys.readouterr().err


def test_a_seat_change_after_the_last_checkpoint_is_replayed_at_a_restart(tmp_path: Path) -> None:
    """A player who sat down after hand 1's checkpoint is seated again after a restart: the
    start-up replay applies the seating record after the checkpoint as the loop applied it."""
    path = tmp_path / "ctl.sock"
    with sim_table(tmp_path, seats=3) as table:
        dealer(table, hands=1).run()
        with ControlServer(path, table.controller.events):
            assert send(path, {"change": "sit", "seat": 5, "chips": 400})["ok"] is True
            assert send(path, {"change": "leave", "seat": 2})["ok"] is True
        state = table.controller.core.table.state
        table.stop_controller()
        controller = table.start_controller()
        assert controller.core.table.state == state
        assert controller.core.table.stacks[5] == 400
        assert 2 not in controller.core.table.stacks


def test_tablectl_run_takes_seat_changes_on_its_configured_socket(tmp_path: Path) -> None:
    """``tablectl run`` (a process, as the service) binds ``[control] socket``; ``tablectl
    seat`` changes a seat through it between hands, and the socket goes when the table stops
    on SIGTERM."""
    path = tmp_path / "run.sock"
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        with config.open("a", encoding="utf-8") as f:
            f.write(f'\n[control]\nsocket = "{path}"\n')
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        process = subprocess.Popen(
            [sys.executable, "-m", "controller", "run", "--config", str(config), *AS_ROOT],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_for_log(tmp_path / "tablectl.log", "table_opened")
            # The socket's file is there from its bind, a moment before it listens (a connect
            # between the two is refused): wait until it answers, as a client would find it.
            assert wait_until(lambda: answers(path), PATIENCE)
            answer = send(path, {"change": "sit", "seat": 4, "chips": 250})
            assert answer["ok"] is True, answer
            assert "seat 4 250" in str(send(path, {"change": "show"})["text"])
        finally:
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate(timeout=PATIENCE)
    assert process.returncode == 0, err.decode()
    assert not path.exists()
    seatings = [data for kind, data in journal_records(tmp_path / "journal") if kind == rec.SEATING]
    me = {"uid": os.getuid(), "user": pwd.getpwuid(os.getuid()).pw_name}  # who asked
    assert seatings == [{"change": "sit", "seat": 4, "chips": 250, **me}]


def test_a_second_controller_on_the_same_socket_is_refused_and_a_stale_one_replaced(
    tmp_path: Path,
) -> None:
    """One controller per table: a socket another controller answers on is refused, naming
    it; a socket file left by a killed controller (no one answers) is replaced."""
    path = tmp_path / "ctl.sock"
    events: queue.Queue[object] = queue.Queue()
    with ControlServer(path, events), pytest.raises(ControlError, match="another controller"):
        ControlServer(path, events).start()
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(path))
    stale.close()  # the file stays, as after kill -9
    assert path.exists()
    with ControlServer(path, events), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.connect(str(path))  # the new server listens there
    assert not path.exists()
