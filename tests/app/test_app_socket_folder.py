"""The table's sockets at their default folder, /run/tablectl, which the systemd unit makes
(``RuntimeDirectory=tablectl``): under the unit the start says nothing of them; on a bench
without it, one warning says which sockets are off and what to set, where each start logged
two errors (docs/deploy.md, 7; docs/app.md, Seat changes)."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import json_log
from confighelp import section, to_toml, valid

from controller.config import settings as table_settings
from controller.config.tabletoml import parse_config
from controller.table.service import sockets_without_folder

pytestmark = pytest.mark.fast


def test_without_the_units_folder_one_warning_says_what_to_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_settings, "DEFAULT_CONTROL_DIR", tmp_path / "run-tablectl")
    settings = parse_config(to_toml(valid()))
    with json_log(tmp_path) as lines:
        off = sockets_without_folder(settings)
    assert off == ("control", "display")
    assert [line["level"] for line in lines] == ["warning"]
    (line,) = lines
    assert line["event"] == "socket_folder_missing"
    assert line["folder"] == str(tmp_path / "run-tablectl")
    assert line["off"] == (
        "seat changes (tablectl seat) and the dealer's display (tablectl display)"
    )
    todo = str(line["todo"])
    assert "RuntimeDirectory=tablectl makes /run/tablectl" in todo
    assert "set [control] socket and [display] socket in table.toml" in todo


def test_under_the_unit_the_folder_is_there_and_nothing_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(table_settings, "DEFAULT_CONTROL_DIR", tmp_path)
    settings = parse_config(to_toml(valid()))
    with json_log(tmp_path) as lines:
        assert sockets_without_folder(settings) == ()
    assert lines == []


def test_a_socket_the_configuration_names_is_left_to_its_own_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A [control] socket in a folder that does not exist was asked for: ``serve`` tries it and
    logs control_socket_unavailable (an error: the configuration is wrong); the display's
    default beside it is off, said once."""
    monkeypatch.setattr(table_settings, "DEFAULT_CONTROL_DIR", tmp_path / "run-tablectl")
    data = valid()
    section(data, "control")["socket"] = str(tmp_path / "gone" / "c.sock")
    settings = parse_config(to_toml(data))
    with json_log(tmp_path) as lines:
        assert sockets_without_folder(settings) == ("display",)
    (line,) = lines
    assert line["folder"] == str(tmp_path / "gone")
    assert line["off"] == "the dealer's display (tablectl display)"
    assert "set [display] socket in table.toml" in str(line["todo"])
