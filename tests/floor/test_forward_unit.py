"""docs/examples/tablectl-forward.service: systemd accepts it (``systemd-analyze verify`` and
``security``, as tests/test_service_unit.py does for the controller's), and its keys agree with
what the forwarder is: the installed command, its own read-only user in group tablectl,
Type=notify, after the controller and the network but never bound to them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from test_service_unit import EXAMPLES, INSTALLED_TABLECTL, Unit, _systemd_analyze, read_unit, words

from controller.config.settings import DEFAULT_CONFIG

FORWARD_UNIT = EXAMPLES / "tablectl-forward.service"


@pytest.fixture(scope="module")
def unit() -> Unit:
    return read_unit(FORWARD_UNIT.read_text(encoding="utf-8"))


def test_it_runs_the_installed_forwarder_as_its_own_user(unit: Unit) -> None:
    service = unit["Service"]
    assert service["ExecStart"] == [f"{INSTALLED_TABLECTL} forward --config {DEFAULT_CONFIG}"]
    assert service["User"] == ["tablectl-forward"]
    assert service["Group"] == ["tablectl"]  # reads the journal and table.toml, writes neither
    assert service["Type"] == ["notify"]  # tablectl forward says READY=1 (cli/commands/forward.py)
    assert service["NotifyAccess"] == ["main"]
    assert service["Restart"] == ["on-failure"]
    assert service["ProtectSystem"] == ["strict"]
    assert "ReadWritePaths" not in service  # it writes nothing
    assert set(words(service["RestrictAddressFamilies"])) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_it_follows_the_controller_and_the_network_without_being_bound_to_them(
    unit: Unit,
) -> None:
    """The journal is the outbox: either side restarts alone."""
    for key in ("Wants", "After"):
        assert {"tablectl.service", "network-online.target"} <= set(words(unit["Unit"][key]))
    assert "BindsTo" not in unit["Unit"]
    assert "PartOf" not in unit["Unit"]


def _installable_copy(tmp_path: Path) -> Path:
    text = FORWARD_UNIT.read_text(encoding="utf-8")
    assert text.count(f"ExecStart={INSTALLED_TABLECTL} ") == 1
    copy = tmp_path / "tablectl-forward.service"
    copy.write_text(
        text.replace(f"ExecStart={INSTALLED_TABLECTL} ", f"ExecStart={sys.executable} "),
        encoding="utf-8",
    )
    return copy


def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    result = subprocess.run(
        [_systemd_analyze(), "verify", "--man=no", str(_installable_copy(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", result.stderr


def test_systemd_analyze_security_rates_the_hardening_ok(tmp_path: Path) -> None:
    result = subprocess.run(
        [
            _systemd_analyze(),
            "security",
            "--offline=yes",
            "--threshold=20",
            "--no-pager",
            str(_installable_copy(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr
