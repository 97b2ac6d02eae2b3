"""Runs the seam's umockdev tests (umockdev_seam_hotplug.py: the hotplug monitor and
``tablectl status`` in a backend's udev subsystem) under ``umockdev-run``, where the real
libudev sees an emulated keypad."""

from __future__ import annotations

from pathlib import Path

from test_umockdev import run_pytest_under_umockdev, tools_or_skip

HERE = Path(__file__).resolve().parent


def test_the_monitor_and_status_find_a_device_in_its_backends_subsystem() -> None:
    tools_or_skip("umockdev-run")
    run_pytest_under_umockdev([HERE / "umockdev_seam_hotplug.py"], [])
