"""The equipment's sections of ``table.toml``: [devices] (the shoe and the panel, each read by
its backend: drivers/seam/registry.py), [decks], [journal], [log], [control], [display] and
[keys].

Each reader takes its ``Section`` (controller.tomlcheck), records every problem it finds there
and returns None when it found one (an optional section left out gives its defaults).
``controller.config.tabletoml`` runs them over the whole file. Pure: no I/O (a path is checked as
text, never opened).
"""

from __future__ import annotations

import os
from pathlib import Path

from controller.config.game import SECTION_KEYS
from controller.config.settings import (
    DECK_NAMES,
    DEFAULT_HANDS_PER_FILE,
    DEFAULT_JOURNAL_DIR,
    DEFAULT_KEEP_DAYS,
    DEFAULT_MAX_BYTES,
    DEFAULT_PRIVATE_KEY,
    MAX_SOCKET_PATH,
    MINIMUM_KEEP_DAYS,
    ControlSettings,
    DeckSettings,
    DisplaySettings,
    JournalSettings,
    KeySettings,
    LogFormat,
    LogLevel,
    LogSettings,
)
from controller.tomlcheck import Problem, Section
from drivers.seam.events import ROLES
from drivers.seam.registry import DEFAULT_KIND, kinds
from drivers.seam.registry import backend as backend_of
from drivers.seam.settings import DeviceSettings


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
    """``[devices.shoe]`` and ``[devices.panel]``: each section's ``kind`` names its backend
    (``drivers.seam.registry``; "tablectl" when absent), and the backend reads the section's
    other keys, each problem naming its key (docs/drivers.md, The registry)."""
    devices_section = top.section("devices", SECTION_KEYS["devices"], required=True)
    if devices_section is None:
        return None
    found = [_read_device(devices_section, role) for role in ROLES]
    shoe, panel = found
    if shoe is None or panel is None:
        return None
    shoe_urls = {port.url for port in shoe.ports() if port.url is not None}
    for port in panel.ports():
        if port.url is not None and port.url in shoe_urls:
            devices_section.problems.append(
                Problem("devices.panel.url", port.url, "expected a different port from the shoe's")
            )
            return None
    serial = shoe.serial_number()
    if serial is not None and serial == panel.serial_number():
        devices_section.problems.append(
            Problem(
                "devices.panel.serial",
                serial,
                "expected a different serial number "
                "from the shoe's: the host tells the two devices apart by it",
            )
        )
        return None
    return shoe, panel


def _read_device(devices: Section, role: str) -> DeviceSettings | None:
    """One device's section, read by the backend its ``kind`` names."""
    section = devices.section(role, None, required=True)
    if section is None:
        return None
    kind = section.choice("kind", kinds(role), DEFAULT_KIND)
    if kind is None:
        return None
    try:
        backend = backend_of(role, kind)
    except ImportError as error:  # a backend's own library missing on this host
        section.fail("kind", f"expected a kind whose backend this host can load ({error})")
        return None
    # The backend's keys, checked here for every backend: an unknown one is named, with a
    # "did you mean" among that backend's keys.
    checked = Section(
        section.problems, section.prefix, section.data, ("kind", *backend.keys), section.sections
    )
    return backend.read_settings(checked)
