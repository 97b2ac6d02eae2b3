"""tablectl keypad --try on the simulator's keypad: each key as it is pressed, its kernel name
and its button (the default map, or a table.toml's); a keypad grabbed elsewhere refused."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli.main import main
from simulator.keypad import SimKeypad

WAIT = 30.0


@pytest.fixture
def keypad() -> Iterator[SimKeypad]:
    made = SimKeypad()
    yield made
    made.close()


def run_trying(argv: list[str], keypad: SimKeypad, keys: list[tuple[str, int]]) -> int:
    """Run the command on a thread; once it has the keypad open, press ``keys``."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(main(argv)), name="keypad-try")
    thread.start()
    deadline = time.monotonic() + WAIT
    while not keypad._grabber and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)  # waiting for the command's grab: the keys go to the grabbing open
    for name, value in keys:
        keypad.key(name, value)
    thread.join(WAIT)
    assert not thread.is_alive()
    return result[0]


def test_try_says_each_key_and_its_button(
    keypad: SimKeypad, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = [("KEY_KP1", 1), ("KEY_KP1", 2), ("KEY_KP1", 0), ("KEY_KP5", 1), ("KEY_KP5", 0)]
    keys += [("KEY_KP2", 1), ("KEY_KP3", 1), ("KEY_KP3", 0), ("KEY_KP2", 0)]
    status = run_trying(["keypad", "--path", keypad.url, "--try", "--presses", "4"], keypad, keys)
    assert status == 0
    lines = capsys.readouterr().out.splitlines()
    assert (
        lines[0] == "sim://keypad (Tablectl Simulated Keypad) grabbed: press keys (Ctrl-C to stop)"
    )
    assert lines[1:] == [
        "KEY_KP1          fold",
        "KEY_KP5          on no button",
        "KEY_KP2          check_call",
        "KEY_KP3          refused: a chord (pressed while KEY_KP2 was held)",
    ]


def test_try_reads_the_key_map_of_a_table_toml(
    keypad: SimKeypad, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    table.write_text(
        '[devices.panel]\nkind = "keypad"\npath = "/dev/tablectl/keypad"\n'
        "[devices.panel.keys]\n"
        'new_hand = "KEY_KPENTER"\nfold = "KEY_KP5"\ncheck_call = "KEY_KP2"\n'
        'bet_raise = "KEY_KP3"\nall_in = "KEY_KP9"\ndraw_done = "KEY_KP0"\n'
        'misdeal = "KEY_KPSLASH"\nundo = "KEY_KPMINUS"\n',
        encoding="utf-8",
    )
    argv = ["keypad", "--path", keypad.url, "--try", "--presses", "1", "--config", str(table)]
    assert run_trying(argv, keypad, [("KEY_KP5", 1)]) == 0
    assert capsys.readouterr().out.splitlines()[1] == "KEY_KP5          fold"


def test_a_bad_key_map_is_one_line_naming_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    table.write_text('[devices.panel.keys]\nfold = "KEY_KP11"\n', encoding="utf-8")
    assert main(["keypad", "--try", "--config", str(table)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tablectl keypad: --config {table}: devices.panel.keys.")
    assert "devices.panel.keys.fold: unknown key name 'KEY_KP11'" in err
    assert "devices.panel.keys.undo: button undo has no key" in err
    assert len(err.splitlines()) == 1


def test_a_keypad_grabbed_elsewhere_is_refused_naming_why(
    keypad: SimKeypad, capsys: pytest.CaptureFixture[str]
) -> None:
    keypad.held_elsewhere = True
    assert main(["keypad", "--path", keypad.url, "--try"]) == 1
    assert capsys.readouterr().out == (
        "the panel's keypad sim://keypad is grabbed by another program\n"
    )


def test_keycaps_prints_the_maps_sheet_and_the_docs_sheet_is_the_default_maps(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """docs/keypad-keycaps.svg cannot drift from the default map."""
    assert main(["keypad", "--keycaps"]) == 0
    sheet = capsys.readouterr().out
    docs = Path(__file__).resolve().parents[2] / "docs" / "keypad-keycaps.svg"
    assert docs.read_text(encoding="utf-8") == sheet
    for word in ("NEW", "HAND", "FOLD", "CHECK", "CALL", "BET", "RAISE", "ALL", "IN"):
        assert f">{word}</text>" in sheet
    assert sheet.count('stroke-dasharray="1,1"') == 17 - 8


def test_a_map_off_the_standard_keypad_has_no_sheet(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "table.toml"
    keys = {
        "new_hand": "KEY_ENTER", "fold": "KEY_F1", "check_call": "KEY_KP2",
        "bet_raise": "KEY_KP3", "all_in": "KEY_KP9", "draw_done": "KEY_KP0",
        "misdeal": "KEY_KPSLASH", "undo": "KEY_KPMINUS",
    }  # fmt: skip
    table.write_text(
        "[devices.panel.keys]\n" + "".join(f'{b} = "{k}"\n' for b, k in keys.items()),
        encoding="utf-8",
    )
    assert main(["keypad", "--keycaps", "--config", str(table)]) == 2
    assert capsys.readouterr().err == (
        "tablectl keypad: --keycaps: keys KEY_ENTER, KEY_F1 are not on a standard 17-key "
        "keypad: the sheet shows only those\n"
    )
