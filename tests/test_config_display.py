"""``[display] socket``: where the running controller publishes the dealer's display, for
``tablectl display`` (docs/display.md, The socket)."""

from __future__ import annotations

from pathlib import Path

import pytest
from confighelp import section, to_toml, valid

from controller.config.tabletoml import SettingsError, parse_config

pytestmark = pytest.mark.fast


def test_the_display_socket_defaults_to_the_table_ids_feed_beside_the_control_socket() -> None:
    """No [display] section: /run/tablectl/<table id>.display.sock, in the unit's
    RuntimeDirectory beside the control socket."""
    settings = parse_config(to_toml(valid()))
    assert settings.display_socket == Path("/run/tablectl") / f"{settings.table_id}.display.sock"


def test_the_default_follows_a_configured_control_socket_to_its_folder() -> None:
    data = valid()
    section(data, "control")["socket"] = "/srv/t/control.sock"
    settings = parse_config(to_toml(data))
    assert settings.display_socket == Path("/srv/t") / f"{settings.table_id}.display.sock"


def test_a_relative_display_socket_is_taken_from_the_configurations_folder() -> None:
    data = valid()
    section(data, "display")["socket"] = "run/d.sock"
    settings = parse_config(to_toml(data), base=Path("/etc/tablectl"))
    assert settings.display_socket == Path("/etc/tablectl/run/d.sock")


def test_a_display_socket_too_long_for_a_unix_socket_names_the_key() -> None:
    data = valid()
    long = "/run/tablectl/" + "x" * 100 + ".sock"
    section(data, "display")["socket"] = long
    with pytest.raises(SettingsError) as caught:
        parse_config(to_toml(data))
    assert f'display.socket = "{long}": expected a path of at most 107 bytes' in str(caught.value)


@pytest.mark.parametrize(("key", "value"), [("path", "/run/d.sock"), ("socket", 7)])
def test_an_unknown_key_or_a_socket_that_is_no_path_is_refused(key: str, value: object) -> None:
    data = valid()
    section(data, "display")[key] = value
    with pytest.raises(SettingsError, match=rf"display\.{key}"):
        parse_config(to_toml(data))
