"""``tablectl config check``: a summary and 0 for a valid file; every mistake and 1 if not."""

from __future__ import annotations

from pathlib import Path

import pytest
from confighelp import TomlValue, section, to_toml, valid

from controller.cli.main import main
from simulator.decks import make_decks, write_deck_file

pytestmark = pytest.mark.fast


def _write(tmp_path: Path, data: dict[str, TomlValue] | None = None, **stakes: int) -> Path:
    data = data or valid()
    section(data, "stakes").update(stakes)
    data["decks"] = {"a": "a.txt", "b": "b.txt"}
    path = tmp_path / "table.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def test_a_valid_file_is_summarised(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Status 0 and the table, game, stakes and devices in a few lines."""
    path = _write(tmp_path)
    assert main(["config", "check", "--config", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: valid"
    assert out[1] == "table T1: Mambo Stud (N.J.A.C. 13:69F-14.13A), seats 1, 2, 3, dealer 0"
    assert out[2] == "stakes: ante 1, bring-in 2, bets 5/10, cap 4, chip 1, no rake"
    assert out[3] == "shoe: /dev/tablectl/shoe, 115200 baud, heartbeat timeout 3 s"
    # The defaults (journal in /var/lib/tablectl, log to journald) need no caution.
    assert [line for line in out if line.startswith("caution:")] == []


def test_settings_the_example_unit_would_defeat_are_cautioned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Valid but unwise under the example unit: fsync off, folders it cannot write, IP devices."""
    data = valid()
    data["journal"] = {"dir": "/srv/journal", "fsync": False}
    data["log"] = {"file": "/tmp/tablectl.log"}
    section(data, "devices.panel").clear()
    section(data, "devices.panel")["url"] = "socket://192.0.2.1:7001"
    path = _write(tmp_path, data)
    assert main(["config", "check", "--config", str(path)]) == 0
    cautions = [line for line in capsys.readouterr().out.splitlines() if "caution" in line]
    assert [line.split(" = ")[0] for line in cautions] == [
        "caution: journal.fsync",
        "caution: journal.dir",
        "caution: log.file",
        "caution: devices.panel.url",
    ]


def test_an_invalid_file_lists_every_mistake(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Status 1 and one line per mistake on standard error."""
    path = _write(tmp_path, big_bet=3, cap=0)
    assert main(["config", "check", "--config", str(path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"{path}: 2 errors in the table's configuration"
    assert sorted(line.split(":")[0] for line in err[1:]) == [
        "  stakes.big_bet = 3",
        "  stakes.cap = 0",
    ]


def test_files_checks_the_deck_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--files also refuses deck files that cannot be read or are not decks, as start-up will."""
    path = _write(tmp_path)
    deck_a, deck_b = make_decks(seed=1)
    write_deck_file(tmp_path / "a.txt", deck_a)
    assert main(["config", "check", "--config", str(path), "--files"]) == 1
    assert "decks.b" in capsys.readouterr().err
    (tmp_path / "b.txt").write_text("# deck b\n", encoding="ascii")
    assert main(["config", "check", "--config", str(path), "--files"]) == 1
    assert "expected the first line" in capsys.readouterr().err
    write_deck_file(tmp_path / "b.txt", deck_b)
    assert main(["config", "check", "--config", str(path), "--files"]) == 0


def test_config_without_an_action_shows_its_usage(capsys: pytest.CaptureFixture[str]) -> None:
    """`tablectl config` alone prints its usage and returns 2."""
    assert main(["config"]) == 2
    assert "check" in capsys.readouterr().err
