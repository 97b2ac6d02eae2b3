"""docs/examples/tablectl.service: systemd accepts it, and it agrees with the configuration.

``systemd-analyze verify`` (Debian package ``systemd``) checks every key and
dependency; it runs here without systemd as PID 1. The unit's keys are also read
directly, so the user, the devices, the journal folder and the hardening are
held to what the rest of tablectl expects.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from controller.cli.commands.config import LOGS_DIRECTORY, STATE_DIRECTORY
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import DEFAULT_JOURNAL_DIR, load_config

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
UNIT = EXAMPLES / "tablectl.service"
INSTALLED_TABLECTL = "/opt/tablectl/.venv/bin/tablectl"

Unit = dict[str, dict[str, list[str]]]


def read_unit(text: str) -> Unit:
    """A unit file's sections, each key with all its values in order (keys may repeat)."""
    unit: Unit = {}
    current: dict[str, list[str]] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            current = unit.setdefault(line[1:-1], defaultdict(list))
            continue
        assert current is not None, f"line {number}: a key before any [section]"
        assert "=" in line, f"line {number} {raw!r}: expected Key=value"
        assert not line.endswith("\\"), f"line {number}: continuation lines are not used"
        key, value = line.split("=", 1)
        current[key.strip()].append(value.strip())
    return unit


@pytest.fixture(scope="module")
def unit() -> Unit:
    """The example unit's keys."""
    return read_unit(UNIT.read_text(encoding="utf-8"))


def words(values: list[str]) -> list[str]:
    """All the space-separated words of a key's values."""
    return [word for value in values for word in value.split()]


def test_it_runs_tablectl_as_the_unprivileged_tablectl_user(unit: Unit) -> None:
    """User and group tablectl; no capabilities; the installed command on /etc's table.toml."""
    service = unit["Service"]
    assert service["User"] == ["tablectl"]
    assert service["Group"] == ["tablectl"]
    assert service["ExecStart"] == [f"{INSTALLED_TABLECTL} run --config {DEFAULT_CONFIG}"]
    assert service["CapabilityBoundingSet"] == [""]
    assert service["NoNewPrivileges"] == ["yes"]
    assert service["Restart"] == ["on-failure"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_it_waits_for_the_device_units_the_udev_rules_make(unit: Unit) -> None:
    """TAG+="systemd" on /dev/tablectl/{shoe,panel} makes dev-tablectl-{shoe,panel}.device."""
    devices = {"dev-tablectl-shoe.device", "dev-tablectl-panel.device"}
    assert devices <= set(words(unit["Unit"]["Wants"]))
    assert devices <= set(words(unit["Unit"]["After"]))
    # Not BindsTo=: a pulled cable must not stop the controller (docs/deploy.md, Devices).
    assert "BindsTo" not in unit["Unit"]
    config = load_config(EXAMPLES / "table.toml")
    for device in (config.shoe, config.panel):
        assert device.url is not None
        escaped = device.url.strip("/").replace("/", "-") + ".device"
        assert escaped in devices


def test_it_tells_systemd_when_it_is_ready_and_pings_the_watchdog(unit: Unit) -> None:
    """Type=notify: READY=1 once the journal is open and the drivers started; WATCHDOG=1 from
    the controller's loop within WatchdogSec; only the main process may notify
    (controller/table/systemd.py; tests/app/test_app_systemd_run.py reads them from a real run)."""
    service = unit["Service"]
    assert service["Type"] == ["notify"]
    assert service["NotifyAccess"] == ["main"]
    assert service["WatchdogSec"] == ["10s"]
    # The notification socket is an AF_UNIX datagram socket.
    assert "AF_UNIX" in words(service["RestrictAddressFamilies"])
    # A watchdog kill is a failure: Restart=on-failure starts the table again.
    assert service["Restart"] == ["on-failure"]


def test_it_waits_for_the_clock_to_be_synchronised(unit: Unit) -> None:
    """After=time-sync.target only orders: Wants= pulls the target in (docs/deploy.md, Time),
    so the journal's first record does not carry a clock that is later set back."""
    assert "time-sync.target" in words(unit["Unit"]["Wants"])
    assert "time-sync.target" in words(unit["Unit"]["After"])


def test_the_devices_are_allowed_and_the_rest_of_dev_is_closed(unit: Unit) -> None:
    """DeviceAllow= the two devices read-write; nothing hides /dev from the service."""
    service = unit["Service"]
    assert service["DevicePolicy"] == ["closed"]
    allowed = service["DeviceAllow"]
    assert "/dev/tablectl/shoe rw" in allowed
    assert "/dev/tablectl/panel rw" in allowed
    # PrivateDevices=yes would give the service an empty /dev without the serial ports.
    assert service.get("PrivateDevices", ["no"]) == ["no"]
    # pyudev hears devices come and go over netlink.
    assert "AF_NETLINK" in words(service["RestrictAddressFamilies"])


def test_the_journal_folder_is_the_only_place_it_writes(unit: Unit) -> None:
    """ProtectSystem=strict; the default journal folder lies in StateDirectory, writable."""
    service = unit["Service"]
    assert service["ProtectSystem"] == ["strict"]
    assert service["PrivateTmp"] == ["yes"]
    assert service["StateDirectory"] == ["tablectl"]
    state = Path("/var/lib") / service["StateDirectory"][0]
    assert DEFAULT_JOURNAL_DIR.is_relative_to(state)
    assert str(state) in words(service["ReadWritePaths"])
    journal = load_config(EXAMPLES / "table.toml").journal.dir
    assert journal.is_relative_to(state)
    # tablectl config check cautions against folders outside these two.
    assert state == STATE_DIRECTORY
    assert Path("/var/log") / service["LogsDirectory"][0] == LOGS_DIRECTORY


def _systemd_analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        if os.environ.get("CI"):
            pytest.fail("systemd-analyze is missing: CI installs the Debian package systemd")
        pytest.skip("systemd-analyze not installed (Debian package systemd)")
    return tool


def _installable_copy(tmp_path: Path) -> Path:
    """The unit with ExecStart's program swapped for one that exists here.

    verify checks that the program is executable; tablectl is not installed in
    /opt here. Only that word changes (the test above pins the real line).
    """
    text = UNIT.read_text(encoding="utf-8")
    assert text.count(f"ExecStart={INSTALLED_TABLECTL} ") == 1
    copy = tmp_path / "tablectl.service"
    copy.write_text(
        text.replace(f"ExecStart={INSTALLED_TABLECTL} ", f"ExecStart={sys.executable} "),
        encoding="utf-8",
    )
    return copy


def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    """systemd-analyze verify: no error and no warning (an unknown key is only a warning)."""
    tool = _systemd_analyze()
    copy = _installable_copy(tmp_path)
    result = subprocess.run(
        [tool, "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_systemd_analyze_security_rates_the_hardening_ok(tmp_path: Path) -> None:
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
    assert "Overall exposure level for tablectl.service" in result.stdout


def test_systemd_analyze_verify_catches_a_misspelt_key(tmp_path: Path) -> None:
    """The verify check bites: a misspelt hardening key is reported."""
    tool = _systemd_analyze()
    copy = _installable_copy(tmp_path)
    copy.write_text(
        copy.read_text(encoding="utf-8").replace("ProtectSystem=", "ProtectSytem="),
        encoding="utf-8",
    )
    result = subprocess.run(
        [tool, "verify", "--man=no", str(copy)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Unknown key 'ProtectSytem'" in result.stderr
