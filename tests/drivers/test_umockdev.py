"""Runs the tests that need umockdev (emulated devices, real libudev) under ``umockdev-run``.

They cannot run in this process: umockdev's preload library must be loaded
before libudev. Where the tools are missing the tests fail under CI
(``.ci/run`` installs them) and are skipped elsewhere, with the reason.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent


def tools_or_skip(*tools: str) -> None:
    missing = [tool for tool in tools if shutil.which(tool) is None]
    try:
        import gi  # noqa: F401, PLC0415 -- only to learn whether PyGObject is installed
    except ImportError:
        missing.append("PyGObject (pip install 'PyGObject<3.51')")
    if missing:
        message = f"needs {', '.join(missing)} (Debian: umockdev gir1.2-umockdev-1.0 udev)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)


def run_pytest_under_umockdev(test_files: list[Path], wrapper: list[str]) -> None:
    command = [
        *wrapper,
        "umockdev-run",
        "--",
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        *map(str, test_files),
    ]
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert " passed" in output, output
    assert "skipped" not in output, output


#: Runs its arguments in a private mount namespace holding only our rules, a group
#: file with "tablectl", and scratch /dev and /run: nothing udevadm does reaches the
#: machine. $1 is a scratch directory, $2 the rules file, $3 a free group id.
NAMESPACE_SCRIPT = r"""
set -eu
scratch=$1 rules=$2 gid=$3
shift 3
mount -t tmpfs tablectl-rules /etc/udev/rules.d
cp "$rules" /etc/udev/rules.d/
cp /etc/group "$scratch/group"
echo "tablectl:x:$gid:" >> "$scratch/group"
mount --bind "$scratch/group" /etc/group
mkdir "$scratch/dev"
mount -t tmpfs tablectl-dev "$scratch/dev"
cp -a /dev/. "$scratch/dev/" 2>/dev/null || true
mount --bind /dev/pts "$scratch/dev/pts"
# A pty master must come from the devpts instance mounted beside it.
rm "$scratch/dev/ptmx"
ln -s pts/ptmx "$scratch/dev/ptmx"
mount --rbind "$scratch/dev" /dev
mount -t tmpfs tablectl-run /run
exec "$@"
"""


def free_gid() -> int:
    import grp  # noqa: PLC0415 -- only this test needs it

    used = {g.gr_gid for g in grp.getgrall()}
    return next(gid for gid in range(64_000, 65_000) if gid not in used)


def test_discovery_hotplug_and_udev_rules_against_real_libudev(tmp_path: Path) -> None:
    """Under umockdev-run, in a private mount namespace (one run: pytest starts slowly):
    umockdev_hotplug.py (scan, `tablectl devices`, the monitor, a mid-hand unplug),
    umockdev_run.py (tablectl run's monitor: a shoe plugged late, unplugged and replugged) and
    umockdev_rules.py (udevadm test: group, mode, name, properties; no other serial)."""
    tools_or_skip("umockdev-run", "udevadm", "unshare")
    wrapper = [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "--",
        "sh",
        "-c",
        NAMESPACE_SCRIPT,
        "namespace",
        str(tmp_path),
        str(ROOT / "udev" / "99-tablectl.rules"),
        str(free_gid()),
    ]
    tests = ["umockdev_hotplug.py", "umockdev_run.py", "umockdev_rules.py"]
    run_pytest_under_umockdev([HERE / name for name in tests], wrapper)
