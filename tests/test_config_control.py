"""``[control] socket``: where the running controller takes seat changes (docs/deploy.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from confighelp import section, to_toml, valid

from controller.config.tabletoml import SettingsError, parse_config

pytestmark = pytest.mark.fast


def test_the_control_socket_defaults_to_the_table_ids_socket_in_run_tablectl() -> None:
    """No [control] section: /run/tablectl/<table id>.sock, in the unit's RuntimeDirectory."""
    settings = parse_config(to_toml(valid()))
    assert settings.control_socket == Path("/run/tablectl") / f"{settings.table_id}.sock"


def test_a_relative_control_socket_is_taken_from_the_configurations_folder() -> None:
    """A relative path is taken from table.toml's folder, like the journal's."""
    data = valid()
    section(data, "control")["socket"] = "run/t.sock"
    settings = parse_config(to_toml(data), base=Path("/etc/tablectl"))
    assert settings.control_socket == Path("/etc/tablectl/run/t.sock")


def test_a_control_socket_too_long_for_a_unix_socket_names_the_key() -> None:
    """A unix socket's path is at most 107 bytes: a longer one is refused on load, naming the
    key, the value and what is allowed."""
    data = valid()
    long = "/run/tablectl/" + "x" * 100 + ".sock"
    section(data, "control")["socket"] = long
    with pytest.raises(SettingsError) as caught:
        parse_config(to_toml(data))
    assert f'control.socket = "{long}": expected a path of at most 107 bytes' in str(caught.value)


def test_an_unknown_control_key_is_refused() -> None:
    """The loader knows [control]'s one key."""
    data = valid()
    section(data, "control")["path"] = "/run/t.sock"
    with pytest.raises(SettingsError, match=r"control\.path"):
        parse_config(to_toml(data))
