"""Reading the keys every backend that opens a port may share: where the port is (``path``,
``url``, or a udev match of ``vendor_id``, ``product_id`` and ``serial``), checked with the
configuration's ``Section`` (controller/tomlcheck.py) so that each problem names its key.
A backend calls ``read_port`` from its ``read_settings``. Pure: a path is checked as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from controller.tomlcheck import MISSING, Problem, Section
from drivers.seam.settings import DeviceIdentity

#: The keys ``read_port`` reads.
PORT_KEYS: Final = ("path", "url", "vendor_id", "product_id", "serial")
#: docs/protocol.md, Common field types: ``token``, the form of a device's serial number.
SERIAL: Final = re.compile(r"[A-Za-z0-9._-]{1,16}")
#: A USB vendor or product id as lsusb and udev (ID_VENDOR_ID) show it.
_USB_ID: Final = re.compile(r"[0-9A-Fa-f]{4}")
#: A pyserial URL: ``scheme://rest`` (socket://, rfc2217://, loop://, the simulator's sim://).
_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")


@dataclass(frozen=True, slots=True)
class PortKeys:
    """Where a port is, as its section says: exactly one of ``url`` and ``identity``."""

    url: str | None
    identity: DeviceIdentity | None
    #: The serial number given (the identity's, or one the device must announce).
    serial: str | None


def read_port(section: Section, role: str) -> PortKeys | None:
    """The port of ``role`` (its path, URL or udev match); None after recording a problem."""
    before = len(section.problems)
    ways = [name for name in ("path", "url") if section.has(name)]
    matched = [name for name in ("vendor_id", "product_id") if section.has(name)]
    ways_text = (
        f"either 'path' (a device, e.g. /dev/tablectl/{role}), or 'url' (a pyserial URL, e.g. "
        f"sim://{role}), or a udev match: 'vendor_id', 'product_id' and 'serial'"
    )
    url: str | None = None
    identity: DeviceIdentity | None = None
    serial = section.string(
        "serial",
        pattern=SERIAL,
        what="the device's serial number: 1 to 16 letters, digits, '.', '_' or '-'",
        required=bool(matched) and not ways,
    )
    if len(ways) + bool(matched) != 1:
        given = {name: section.data[name] for name in (*ways, *matched)}
        section.problems.append(Problem(section.prefix, given or MISSING, f"expected {ways_text}"))
    elif ways == ["path"]:
        url = section.string(
            "path",
            what=f"an absolute device path, e.g. /dev/tablectl/{role}",
            pattern=re.compile(r"/\S+"),
            required=True,
        )
    elif ways == ["url"]:
        url = section.string(
            "url",
            pattern=_URL,
            what=f"a pyserial URL 'scheme://...', e.g. sim://{role}",
            required=True,
        )
    else:
        ids = {
            name: section.string(
                name,
                pattern=_USB_ID,
                what='four hex digits as lsusb shows them, e.g. "1209"',
                required=True,
            )
            for name in ("vendor_id", "product_id")
        }
        vendor, product = ids["vendor_id"], ids["product_id"]
        if vendor and product and serial:
            identity = DeviceIdentity(role, vendor.lower(), product.lower(), serial)
    if len(section.problems) > before:
        return None
    return PortKeys(url, identity, serial)
