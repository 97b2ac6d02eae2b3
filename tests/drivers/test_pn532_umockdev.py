"""udev/98-tablectl-pn532.rules under the real ``udevadm test`` (umockdev_pn532_rules.py), in
a private mount namespace, as test_umockdev.py runs the protocol devices' rules."""

from __future__ import annotations

from pathlib import Path

from test_umockdev import NAMESPACE_SCRIPT, ROOT, free_gid, run_pytest_under_umockdev, tools_or_skip

HERE = Path(__file__).resolve().parent


def test_the_pn532_readers_udev_rules_under_udevadm(tmp_path: Path) -> None:
    tools_or_skip("umockdev-run", "udevadm", "unshare")
    wrapper = [
        "unshare", "--mount", "--propagation", "private", "--",
        "sh", "-c", NAMESPACE_SCRIPT, "namespace", str(tmp_path),
        str(ROOT / "udev" / "98-tablectl-pn532.rules"), str(free_gid()),
    ]  # fmt: skip
    run_pytest_under_umockdev([HERE / "umockdev_pn532_rules.py"], wrapper)
