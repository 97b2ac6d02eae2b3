"""tablectl devices: list the tty devices and the keypads, and say why each is, or is not,
the shoe or the panel.

The tty devices (a protocol shoe or panel, a PN532 reader) are judged by ``drivers.discovery``;
the keypads (evdev nodes with keys, ``ID_INPUT_KEY``) by the keypad driver's own finder
(``drivers.keypad.finder``), as ``tablectl keypad`` lists them (docs/hardware-keypad.md,
Testing a keypad).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.tabletoml import SettingsError, load_config
from controller.logs.jsonreport import print_report
from drivers.discovery import Candidate, scan
from drivers.keypad import finder
from drivers.keypad.finder import STABLE_NAME, Keypad, Wanted
from drivers.seam.events import PANEL
from drivers.seam.settings import DeviceIdentity


@dataclass(frozen=True)
class DevicesJson:
    """``devices --json``: every tty device and every keypad with its verdict, and the named
    roles not found."""

    #: Each as libudev knows it: node, sys_path, vendor_id, model_id, serial, links, and
    #: verdict (role: "shoe", "panel" or null; reasons: one line per identity named).
    devices: list[Candidate]
    #: Each evdev node with keys: node, name, vendor_id, model_id, serial, links, reason,
    #: wanted (it is the panel's keypad).
    keypads: list[Keypad]
    #: The keypad the panel is, as named (null: the panel is not a keypad).
    keypad: str | None
    missing: list[str]


@dataclass(frozen=True)
class Wants:
    """What the options name: the tty devices' identities, and the panel's keypad."""

    identities: list[DeviceIdentity]
    #: The keypad the keypads are judged against (None: the panel is no keypad).
    keypad: Wanted | None
    #: Whether the panel must be found (named by --panel or --config).
    panel_named: bool
    #: Why no keypad is the panel (``keypad`` None).
    no_keypad: str = ""


def register(subparsers: Any) -> None:
    """Add ``devices`` to the ``tablectl`` command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "devices",
        help=help_line("devices"),
        description="List the tty devices and the keypads (input devices with keys), and say "
        "why each is, or is not, the shoe or the panel named by --shoe and --panel, or by the "
        f"--config table.toml (a keypad panel: its [devices.panel]; none named: {STABLE_NAME}), "
        "as udev matches them. To press a keypad's keys, tablectl keypad --try. Exit status: 0 "
        "every named device found, 1 one is missing, 2 usage error.",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        metavar="FILE",
        help="the table.toml whose [devices.shoe] and [devices.panel] are looked for (not with "
        "--shoe or --panel)",
    )
    parser.add_argument(
        "--shoe", metavar="VID:PID:SERIAL", help="the shoe's USB identity, e.g. 1209:7ab1:SHOE0001"
    )
    parser.add_argument(
        "--panel",
        metavar="VID:PID:SERIAL",
        help="the panel's USB identity, a protocol panel's or a keypad's, e.g. 1209:7ab2:PANEL0001",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (docs/app.md, tablectl devices)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List what libudev knows; 0 if every named device was found, 1 if one is missing."""
    try:
        wants = _wants(args)
    except (ValueError, SettingsError) as exc:
        print(f"tablectl devices: {exc}", file=sys.stderr)
        return 2
    candidates = scan(wants.identities)
    keypads = finder.scan(wants.keypad or Wanted(path=STABLE_NAME))
    missing = missing_roles(candidates, wants, keypads)
    if args.json:
        keypad = None if wants.keypad is None else str(wants.keypad)
        print_report(DevicesJson(candidates, keypads, keypad, missing))
        return 1 if missing else 0
    return report(candidates, keypads, wants, print)


def _wants(args: argparse.Namespace) -> Wants:
    if args.config is None:
        identities = [
            DeviceIdentity.parse(role, text)
            for role, text in (("shoe", args.shoe), ("panel", args.panel))
            if text
        ]
        panel = next((i for i in identities if i.role == PANEL), None)
        if panel is None:
            return Wants(identities, Wanted(path=STABLE_NAME), panel_named=False)
        # A panel named by its USB identity may be a keypad as well as a protocol panel.
        return Wants(identities, Wanted(identity=panel), panel_named=True)
    if args.shoe is not None or args.panel is not None:
        option = "--shoe" if args.shoe is not None else "--panel"
        raise ValueError(
            f"{option}: the --config table.toml names the shoe and the panel; give one or the other"
        )
    settings = load_config(args.config)
    ports = [port for device in (settings.shoe, settings.panel) for port in device.ports()]
    identities = [
        port.identity for port in ports if port.subsystem == "tty" and port.identity is not None
    ]
    keypad: Wanted | None = next(
        (Wanted(p.url, p.identity) for p in ports if p.subsystem == "input"), None
    )
    why = "" if keypad is not None else f"its panel is kind {settings.panel.kind!r}, no keypad"
    return Wants(identities, keypad, panel_named=keypad is not None, no_keypad=why)


def missing_roles(
    candidates: list[Candidate], wants: Wants, keypads: Iterable[Keypad] = ()
) -> list[str]:
    """The roles named that no device plays (the panel: a tty device or the keypad)."""
    played = {c.verdict.role for c in candidates}
    if wants.panel_named and any(k.wanted for k in keypads):
        played.add(PANEL)
    roles = [i.role for i in wants.identities]
    if wants.panel_named and PANEL not in roles:
        roles.append(PANEL)
    return [role for role in roles if role not in played]


def report(
    candidates: list[Candidate],
    keypads: list[Keypad],
    wants: Wants,
    say: Callable[[str], None],
) -> int:
    """Print each device and its verdict; the status says whether all named ones were found."""
    if not candidates:
        say("no tty devices with a hardware parent")
    for found in candidates:
        usb = f"usb {found.vendor_id or '----'}:{found.model_id or '----'}"
        say(f"{found.node}  {usb}  serial {found.serial or '-'}  ({found.sys_path})")
        if found.links:
            say(f"    names: {' '.join(found.links)}")
        if found.verdict.role:
            say(f"    => the {found.verdict.role}")
        for reason in found.verdict.reasons:
            say(f"    {reason}")
    _report_keypads(keypads, wants, say)
    missing = missing_roles(candidates, wants, keypads)
    for role in missing:
        say(f"the {role} was not found")
    return 1 if missing else 0


def _report_keypads(keypads: list[Keypad], wants: Wants, say: Callable[[str], None]) -> None:
    if wants.keypad is None:
        whose = wants.no_keypad
    elif wants.panel_named:
        whose = f"the panel is {wants.keypad}"
    else:  # nothing named: the name the keypad's udev rule gives a keypad panel
        whose = f"a keypad panel is {wants.keypad}"
    if not keypads:
        say(f"no keypads (input devices with keys); {whose}")
    else:
        say(f"keypads (input devices with keys; {whose}; tablectl keypad --try presses them):")
    for keypad in keypads:
        for line in keypad.lines(judged=wants.keypad is not None):
            say(line)
