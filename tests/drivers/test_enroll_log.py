"""`tablectl enroll` logs as `tablectl run` does: the configuration's [log] and table id with
--config, warnings to standard error without; its outcome as a line of its own."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from confighelp import export_config
from fake_device import FakeDevice
from test_enroll import TAGS, deal, request, shoe  # noqa: F401 -- shoe: a fixture, by name

from controller.cli.commands.enroll import OK, REFUSED, enroll
from controller.config.settings import LogFormat, LogSettings
from controller.logs.logsetup import configure_logging, reset_logging
from simulator.devices import Timing
from simulator.table import Simulator

ROOT = Path(__file__).resolve().parents[2]


def tablectl(*argv: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "controller", *argv],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_enroll_with_a_config_logs_to_its_log_with_its_table_id(tmp_path: Path) -> None:
    """--config: the drivers' lines and ``deck_enrolled`` go to the configured log file as JSON,
    each with the table id and no hand; the terminal gets only the enrollment's own lines."""
    log_file = tmp_path / "enroll.log"
    config = export_config(
        tmp_path, 'id = "AC-07"\ngame = "mambo"\nseats = [1, 2]', "small_bet = 5\nbig_bet = 10"
    )
    with config.open("a", encoding="utf-8") as f:
        f.write(f'\n[log]\nformat = "json"\nfile = "{log_file}"\n')
    timing = Timing(heartbeat=0.2, hello=0.2)
    deck = tmp_path / "A.deck"
    with Simulator(directory=tmp_path / "sim", seed=3, timing=timing) as sim:
        argv = ["enroll", "--deck", str(deck), "--name", "A", "--timeout", "20"]
        with tablectl(*argv, "--port", sim.address("shoe"), "--config", str(config)) as run:
            assert sim.wait_for(lambda: sim.shoe.link.welcomed, timeout=20)
            sim.new_deck_order()
            for _ in range(52):
                sim.deal()
            out, err = run.communicate(timeout=30)
    assert run.returncode == 0, err
    assert err == ""
    assert out.splitlines()[-1] == f"wrote {deck}: deck A, 52 cards"
    assert "{" not in out
    lines = [json.loads(line) for line in log_file.read_text(encoding="utf-8").splitlines()]
    assert {line["table"] for line in lines} == {"AC-07"}
    assert not [line for line in lines if "hand" in line]
    events = [line["event"] for line in lines]
    assert "port_opened" in events
    assert "device_ready" in events
    (done,) = [line for line in lines if line["event"] == "deck_enrolled"]
    assert (done["logger"], done["level"], done["deck"], done["file"], done["cards"]) == (
        "controller.enroll",
        "info",
        "A",
        str(deck),
        52,
    )


def test_enroll_without_a_config_logs_its_refusal_to_standard_error(tmp_path: Path) -> None:
    """No --config: warnings to standard error (JSON in a pipe), no table id; a deck file that
    exists is refused on the terminal and as ``enrollment_refused`` with the reason."""
    deck = tmp_path / "A.deck"
    deck.write_text("", encoding="utf-8")
    with tablectl("enroll", "--deck", str(deck), "--port", str(tmp_path / "none")) as run:
        out, err = run.communicate(timeout=30)
    assert run.returncode == REFUSED
    assert out == f"error: {deck} exists; pass --force to replace it\n"
    (line,) = [json.loads(text) for text in err.splitlines()]
    assert (line["event"], line["level"], line["logger"]) == (
        "enrollment_refused",
        "warning",
        "controller.enroll",
    )
    assert line["reason"] == f"{deck} exists; pass --force to replace it"
    assert (line["deck"], line["status"]) == ("A", REFUSED)
    assert "table" not in line


def test_enroll_with_a_bad_config_exits_2_naming_it(tmp_path: Path) -> None:
    """A configuration that cannot be read is named, exit 2, nothing read from any shoe."""
    missing = tmp_path / "none.toml"
    with tablectl("enroll", "--deck", str(tmp_path / "A.deck"), "--config", str(missing)) as run:
        out, err = run.communicate(timeout=30)
    assert run.returncode == 2
    assert out == ""
    # Refused as the command line is read (controller/cli/commands/_paths.py): argparse's usage,
    # then one line naming the argument and the file.
    last = err.splitlines()[-1]
    assert last.startswith("tablectl enroll: error: argument --config: ")
    assert str(missing) in last


def test_a_refused_tag_is_logged_without_its_uid_or_card(shoe: FakeDevice, tmp_path: Path) -> None:  # noqa: F811
    """The drivers log tags' UIDs; a UID beside its card would name the card: the refusal's
    line gives the kind of refusal, the terminal the tag and the card."""
    out = io.StringIO()
    configure_logging(LogSettings(format=LogFormat.JSON), table_id="T", stream=out)
    path = tmp_path / "red.deck"
    deal(shoe, TAGS[:5])
    said: list[str] = []

    def later_repeat(line: str) -> None:
        said.append(line)
        if line.startswith(" 5/52"):
            shoe.advance(0.1)  # past the repeat window: a real duplicate, not an RFID repeat
            deal(shoe, [TAGS[1]])

    try:
        status = enroll(request(shoe, path, repeat_window=0.05), ask=input, say=later_repeat)
    finally:
        reset_logging()
    assert status == REFUSED != OK
    assert any(TAGS[1] in line and "2d" in line for line in said)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    (refused,) = [line for line in lines if line["event"] == "enrollment_refused"]
    assert refused["reason"].startswith("a tag the deck cannot take")
    assert TAGS[1] not in json.dumps(refused)
    assert "2d" not in json.dumps(refused)
