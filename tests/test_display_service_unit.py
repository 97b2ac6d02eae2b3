"""docs/examples/tablectl-display.service: systemd accepts it, and it agrees with the controller's
unit and the configuration (docs/display.md, The display under systemd).

As tests/test_service_unit.py does for the controller's unit: ``systemd-analyze verify``
checks every key (it runs here without systemd as PID 1), and the keys are read directly so
the tty, the user, the order after the controller and the hardening are held to what the
display needs.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_service_unit import (
    EXAMPLES,
    INSTALLED_TABLECTL,
    Unit,
    _systemd_analyze,
    read_unit,
    words,
)

from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import load_config

DISPLAY_UNIT = EXAMPLES / "tablectl-display.service"


@pytest.fixture(scope="module")
def display_unit() -> Unit:
    return read_unit(DISPLAY_UNIT.read_text(encoding="utf-8"))


def test_it_runs_the_attached_display_on_tty1(display_unit: Unit) -> None:
    """The installed tablectl display on /etc's table.toml, with tty1 as its terminal (all
    three streams: Textual draws on standard error), TERM set, put back when it ends."""
    service = display_unit["Service"]
    assert service["ExecStart"] == [f"{INSTALLED_TABLECTL} display --config {DEFAULT_CONFIG}"]
    assert service["TTYPath"] == ["/dev/tty1"]
    for stream in ("StandardInput", "StandardOutput", "StandardError"):
        assert service[stream] == ["tty"], stream
    assert "TERM=linux" in service["Environment"]
    assert service["Restart"] == ["always"]
    assert display_unit["Unit"]["StartLimitIntervalSec"] == ["0"]
    assert display_unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_it_follows_the_controller_without_being_bound_to_it(display_unit: Unit) -> None:
    """After= and Wants= the controller's unit; not BindsTo= or PartOf=: a controller that
    stops or restarts leaves the display up (it reconnects by itself). The getty on tty1
    gives way to it."""
    unit = display_unit["Unit"]
    assert "tablectl.service" in words(unit["After"])
    assert "tablectl.service" in words(unit["Wants"])
    assert "BindsTo" not in unit
    assert "PartOf" not in unit
    assert "getty@tty1.service" in words(unit["Conflicts"])
    assert "getty@tty1.service" in words(unit["After"])


def test_its_user_may_reach_the_socket_and_nothing_else(display_unit: Unit) -> None:
    """Its own user in group tablectl (the socket's group, docs/display.md, The socket): no
    capabilities, no network at all, only tty1 among the devices, a read-only system."""
    service = display_unit["Service"]
    assert service["User"] == ["tablectl-display"]
    assert service["Group"] == ["tablectl"]
    assert service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"]
    assert service["PrivateNetwork"] == ["yes"]
    assert words(service["RestrictAddressFamilies"]) == ["AF_UNIX"]
    assert service["DevicePolicy"] == ["closed"]
    assert service["DeviceAllow"] == ["/dev/tty1 rw"]
    # PrivateDevices=yes would give the display an empty /dev without its tty.
    assert service.get("PrivateDevices", ["no"]) == ["no"]
    assert service["ProtectSystem"] == ["strict"]
    assert "ReadWritePaths" not in service


def test_the_socket_it_reads_is_in_the_controllers_runtime_folder() -> None:
    """The example table.toml's display socket lies in the controller unit's RuntimeDirectory
    (/run/tablectl), which systemd makes group-readable for tablectl."""
    controller = read_unit((EXAMPLES / "tablectl.service").read_text(encoding="utf-8"))
    runtime = Path("/run") / controller["Service"]["RuntimeDirectory"][0]
    assert controller["Service"]["Group"] == ["tablectl"]
    assert controller["Service"]["RuntimeDirectoryMode"] == ["0750"]
    assert load_config(EXAMPLES / "table.toml").display_socket.parent == runtime


def _installable_copy(tmp_path: Path, text: str | None = None) -> Path:
    """The unit with ExecStart's program swapped for one that exists here (verify checks it is
    executable; the test above pins the real line)."""
    text = DISPLAY_UNIT.read_text(encoding="utf-8") if text is None else text
    assert text.count(f"ExecStart={INSTALLED_TABLECTL} ") == 1
    copy = tmp_path / "tablectl-display.service"
    copy.write_text(
        text.replace(f"ExecStart={INSTALLED_TABLECTL} ", f"ExecStart={sys.executable} "),
        encoding="utf-8",
    )
    return copy


def _verify(tool: str, unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [tool, "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_systemd_analyze_verify_accepts_the_display_unit(tmp_path: Path) -> None:
    """No error and no warning (an unknown key is only a warning)."""
    result = _verify(_systemd_analyze(), _installable_copy(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_systemd_analyze_security_rates_the_display_unit_ok(tmp_path: Path) -> None:
    """systemd-analyze security: an exposure of at most 2.0 of 10 ("OK")."""
    tool = _systemd_analyze()
    copy = _installable_copy(tmp_path)
    result = subprocess.run(
        [tool, "security", "--offline=yes", "--threshold=20", "--no-pager", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
    assert "Overall exposure level for tablectl-display.service" in result.stdout


def test_systemd_analyze_verify_catches_a_misspelt_tty_key(tmp_path: Path) -> None:
    """The check bites: a misspelt TTYPath= (the display would draw nowhere) is reported."""
    text = DISPLAY_UNIT.read_text(encoding="utf-8").replace("TTYPath=", "TTYPaht=")
    result = _verify(_systemd_analyze(), _installable_copy(tmp_path, text))
    assert "Unknown key 'TTYPaht'" in result.stderr
