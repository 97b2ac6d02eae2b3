"""docs/examples/tablectl-floor.service: the unit systemd-analyze accepts, running floor serve."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

UNIT = Path(__file__).parent.parent.parent / "docs" / "examples" / "tablectl-floor.service"
EXEC = "ExecStart=/opt/tablectl/.venv/bin/tablectl "


def analyze(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze not installed (Debian package systemd)")
    text = UNIT.read_text()
    assert text.count(EXEC) == 1
    copy = tmp_path / "tablectl-floor.service"
    # verify checks that the program exists; tablectl is not installed in /opt here.
    copy.write_text(text.replace(EXEC, f"ExecStart={sys.executable} "))
    return subprocess.run(
        [tool, *args, str(copy)], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_unit_runs_floor_serve_on_the_floors_config_as_its_own_user() -> None:
    text = UNIT.read_text()
    assert f"{EXEC}floor serve --config /etc/tablectl/floor/floor.toml\n" in text
    assert "User=tablectl-floor\n" in text
    assert "KillSignal=SIGTERM\n" in text


def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path) -> None:
    done = analyze(tmp_path, "verify", "--man=no")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr


def test_systemd_analyze_security_rates_the_hardening_ok(tmp_path: Path) -> None:
    done = analyze(tmp_path, "security", "--offline=yes", "--threshold=20", "--no-pager")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
