"""Discovery's pure rule (which tty is the shoe or the panel, and why) and the monitor's life.

The same code against the real libudev with emulated devices is in
umockdev_hotplug.py (run by test_umockdev.py).
"""

from __future__ import annotations

import queue

import pytest

from controller.cli.main import main
from drivers.discovery import HotplugEvent, HotplugMonitor, judge
from drivers.seam.settings import DeviceIdentity

SHOE = DeviceIdentity("shoe", "1209", "7ab1", "SHOE0001")
PANEL = DeviceIdentity("panel", "1209", "7ab2", "PANEL0001")


def props(
    vendor: str = "1209", model: str = "7ab1", serial: str = "SHOE0001", links: str = ""
) -> dict[str, str]:
    out = {"ID_VENDOR_ID": vendor, "ID_MODEL_ID": model, "ID_SERIAL_SHORT": serial}
    if links:
        out["DEVLINKS"] = links
    return out


def test_vendor_product_and_serial_together_make_the_shoe() -> None:
    """All three of the configured USB identity must match."""
    verdict = judge(props(), [SHOE, PANEL])
    assert verdict.role == "shoe"
    assert verdict.reasons == ("shoe: vendor 1209, product 7ab1 and serial SHOE0001 match",)


def test_another_serial_number_is_not_the_shoe_and_the_reason_says_so() -> None:
    """A second shoe of the same model is not this table's shoe."""
    verdict = judge(props(serial="SHOE0002"), [SHOE, PANEL])
    assert verdict.role is None
    assert verdict.reasons == (
        "not the shoe: serial SHOE0002 (want SHOE0001)",
        "not the panel: product 7ab1 (want 7ab2), serial SHOE0002 (want PANEL0001)",
    )


def test_the_stable_name_from_the_udev_rules_is_enough() -> None:
    """A tty carrying /dev/tablectl/panel is the panel, with or without a configured identity."""
    assert judge(props("0000", "0000", "", "/dev/tablectl/shoe"), []).role == "shoe"
    verdict = judge(
        props("0000", "0000", "", "/dev/serial/by-id/x /dev/tablectl/panel"), [SHOE, PANEL]
    )
    assert verdict.role == "panel"


def test_a_device_without_usb_properties_is_neither() -> None:
    """A built-in serial port has no USB ids: none, said as such."""
    verdict = judge({}, [SHOE])
    assert verdict.reasons == (
        "not the shoe: vendor none (want 1209), product none (want 7ab1), "
        "serial none (want SHOE0001)",
    )


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("1209:7ab1", "VENDOR:PRODUCT:SERIAL"),
        ("12:7ab1:S", "4 lowercase hex"),
        ("1209:7ab1:", "serial"),
    ],
)
def test_a_bad_identity_on_the_command_line_is_explained(text: str, match: str) -> None:
    """VID:PID:SERIAL that is not one is refused with what was expected."""
    with pytest.raises(ValueError, match=match):
        DeviceIdentity.parse("shoe", text)


def test_tablectl_devices_refuses_a_bad_identity(capsys: pytest.CaptureFixture[str]) -> None:
    """The command says what is wrong with its argument and exits 2."""
    assert main(["devices", "--shoe", "1209-7ab1"]) == 2
    assert (
        "tablectl devices: shoe '1209-7ab1': expected VENDOR:PRODUCT:SERIAL"
        in capsys.readouterr().err
    )


def test_the_hotplug_monitor_starts_and_stops_releasing_its_socket() -> None:
    """The monitor's thread ends and its netlink socket closes (the fixture checks both)."""
    events: queue.Queue[HotplugEvent] = queue.Queue()
    with HotplugMonitor([SHOE], events):
        pass
    assert events.empty()
