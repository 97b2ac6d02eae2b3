"""The equipment's sections of ``table.toml``: [devices] (the shoe and the panel), [decks],
[journal], [log], [control], [display] and [keys].

Each reader takes its ``Section`` (controller.tomlcheck), records every problem it finds
there and returns None when it found one (an optional section left out gives its defaults).
``controller.config.tabletoml`` runs them over the whole file. Pure: no I/O (a path is checked
as text, never opened).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Final

from controller.config.game import SECTION_KEYS
from controller.config.settings import (
    BAUDRATES,
    DECK_NAMES,
    DEFAULT_BAUDRATE,
    DEFAULT_HANDS_PER_FILE,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_JOURNAL_DIR,
    DEFAULT_KEEP_DAYS,
    DEFAULT_MAX_BYTES,
    DEFAULT_PRIVATE_KEY,
    DEVICE_NAMES,
    HEARTBEAT_INTERVAL,
    MAX_HEARTBEAT_TIMEOUT,
    MAX_SOCKET_PATH,
    MINIMUM_KEEP_DAYS,
    ControlSettings,
    DeckSettings,
    DeviceSettings,
    DisplaySettings,
    JournalSettings,
    KeySettings,
    LogFormat,
    LogLevel,
    LogSettings,
    UdevMatch,
)
from controller.tomlcheck import MISSING, Problem, Section

#: docs/protocol.md, Common field types: ``token``, the form of a device's serial number.
_SERIAL: Final = re.compile(r"[A-Za-z0-9._-]{1,16}")
#: A USB vendor or product id as lsusb and udev (ID_VENDOR_ID) show it.
_USB_ID: Final = re.compile(r"[0-9A-Fa-f]{4}")
#: A pyserial URL: ``scheme://rest`` (socket://, rfc2217://, loop://, the simulator's sim://).
_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")


def _read_device(section: Section) -> DeviceSettings | None:
    before = len(section.problems)
    ways = [name for name in ("path", "url") if section.has(name)]
    matched = [name for name in ("vendor_id", "product_id") if section.has(name)]
    ways_text = (
        "either 'path' (a device, e.g. /dev/tablectl/shoe), or 'url' (a pyserial URL, e.g. "
        "sim://shoe), or a udev match: 'vendor_id', 'product_id' and 'serial'"
    )
    url: str | None = None
    match: UdevMatch | None = None
    serial = section.string(
        "serial",
        pattern=_SERIAL,
        what="the device's serial number: 1 to 16 letters, digits, '.', '_' or '-'",
        required=bool(matched) and not ways,
    )
    if len(ways) + bool(matched) != 1:
        given = {name: section.data[name] for name in (*ways, *matched)}
        section.problems.append(Problem(section.prefix, given or MISSING, f"expected {ways_text}"))
    elif ways == ["path"]:
        url = section.string(
            "path",
            what="an absolute device path, e.g. /dev/tablectl/shoe",
            pattern=re.compile(r"/\S+"),
            required=True,
        )
    elif ways == ["url"]:
        url = section.string(
            "url",
            pattern=_URL,
            what="a pyserial URL 'scheme://...', e.g. sim://shoe",
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
            match = UdevMatch(vendor.lower(), product.lower(), serial)
    baudrate = section.integer("baudrate", DEFAULT_BAUDRATE)
    if baudrate is not None and baudrate not in BAUDRATES:
        section.fail(
            "baudrate", f"expected one of {', '.join(map(str, BAUDRATES))} (docs/protocol.md, 1)"
        )
    timeout = section.seconds(
        "heartbeat_timeout",
        DEFAULT_HEARTBEAT_TIMEOUT,
        above=HEARTBEAT_INTERVAL,
        maximum=MAX_HEARTBEAT_TIMEOUT,
    )
    if len(section.problems) > before or baudrate is None or timeout is None:
        return None
    name = section.prefix.rsplit(".", 1)[-1]
    return DeviceSettings(name, url, match, serial, baudrate, timeout)


def read_decks(section: Section, base: Path) -> DeckSettings | None:
    before = len(section.problems)
    what = "the path of a deck's enrollment file (one card a line: code and tag UID)"
    a = section.path("a", base, what=what, required=True)
    b = section.path("b", base, what=what, required=True)
    active = section.choice("active", DECK_NAMES, "a")
    # rules-interpretation.md, Shuffle, cut and decks: with a shuffler the two decks alternate.
    alternate = section.boolean("alternate", True)
    if a is not None and b is not None and a == b:
        # rules-interpretation.md, Integrity: a table keeps two decks; one file cannot enroll both.
        section.fail("b", "expected a different file from decks.a: the table keeps two decks")
    if (
        len(section.problems) > before
        or a is None
        or b is None
        or active is None
        or alternate is None
    ):
        return None
    return DeckSettings(a, b, active, alternate)


def read_journal(section: Section | None, base: Path) -> JournalSettings | None:
    if section is None:
        return JournalSettings()
    before = len(section.problems)
    directory = section.path(
        "dir", base, what="the journal's folder", required=False, default=DEFAULT_JOURNAL_DIR
    )
    fsync = section.boolean("fsync", True)
    hands = section.integer("hands_per_file", DEFAULT_HANDS_PER_FILE, minimum=1)
    size = section.integer("max_bytes", DEFAULT_MAX_BYTES, minimum=1)
    keep = section.integer(
        "keep_days",
        DEFAULT_KEEP_DAYS,
        minimum=MINIMUM_KEEP_DAYS,
        what="the days rotated journal files are kept (13:69E-1.31(b): game history is kept "
        "at least one year)",
    )
    if len(section.problems) > before:
        return None
    if directory is None or fsync is None or hands is None or size is None or keep is None:
        return None
    return JournalSettings(directory, fsync, hands, size, keep)


def read_keys(section: Section | None, base: Path) -> KeySettings | None:
    """``[keys]``: where the table's private key is (``tablectl keys init`` writes it)."""
    if section is None:
        return KeySettings()
    key = section.path(
        "private_key",
        base,
        what="the path of the table's Ed25519 private key (tablectl keys init)",
        required=False,
        default=DEFAULT_PRIVATE_KEY,
    )
    return None if key is None else KeySettings(key)


def read_control(section: Section | None, base: Path) -> ControlSettings | None:
    socket = _socket(section, base, "the path of the control socket (tablectl seat)")
    return None if socket is None else ControlSettings(socket)


def read_display(section: Section | None, base: Path) -> DisplaySettings | None:
    socket = _socket(section, base, "the path of the display feed's socket (tablectl display)")
    return None if socket is None else DisplaySettings(socket)


def _socket(section: Section | None, base: Path, what: str) -> Path | None:
    """A section's ``socket`` key: a path a unix socket can take, or None (not given, or a
    problem recorded)."""
    if section is None:
        return None
    socket = section.path("socket", base, what=what, required=False)
    if socket is None:
        return None
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        section.fail(
            "socket", f"expected a path of at most {MAX_SOCKET_PATH} bytes (a unix socket's limit)"
        )
        return None
    return socket


def read_log(section: Section | None, base: Path) -> LogSettings | None:
    if section is None:
        return LogSettings()
    before = len(section.problems)
    level = section.choice("level", [level.value for level in LogLevel], LogLevel.INFO.value)
    form = section.choice("format", [form.value for form in LogFormat], LogFormat.AUTO.value)
    file = section.path(
        "file", base, what="the path of a log file (no key: standard error)", required=False
    )
    if len(section.problems) > before or level is None or form is None:
        return None
    return LogSettings(LogLevel(level), LogFormat(form), file)


def read_devices(top: Section) -> tuple[DeviceSettings, DeviceSettings] | None:
    devices_section = top.section("devices", SECTION_KEYS["devices"], required=True)
    if devices_section is None:
        return None
    found = []
    for name in DEVICE_NAMES:
        section = devices_section.section(name, SECTION_KEYS[f"devices.{name}"], required=True)
        found.append(_read_device(section) if section else None)
    shoe, panel = found
    if shoe is None or panel is None:
        return None
    if shoe.url is not None and shoe.url == panel.url:
        devices_section.problems.append(
            Problem("devices.panel.url", panel.url, "expected a different port from the shoe's")
        )
        return None
    if shoe.serial is not None and shoe.serial == panel.serial:
        devices_section.problems.append(
            Problem(
                "devices.panel.serial",
                panel.serial,
                "expected a different serial number "
                "from the shoe's: the host tells the two devices apart by it",
            )
        )
        return None
    return shoe, panel
