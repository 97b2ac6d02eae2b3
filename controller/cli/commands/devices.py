"""tablectl devices: list the tty devices and say why each is, or is not, the shoe or panel."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controller.cli.registry import help_line
from controller.logs.jsonreport import print_report
from drivers.discovery import Candidate, scan
from drivers.seam.settings import DeviceIdentity


@dataclass(frozen=True)
class DevicesJson:
    """``devices --json``: every tty device with its verdict, and the named roles not found."""

    #: Each as libudev knows it: node, sys_path, vendor_id, model_id, serial, links, and
    #: verdict (role: "shoe", "panel" or null; reasons: one line per identity named).
    devices: list[Candidate]
    missing: list[str]


def register(subparsers: Any) -> None:
    """Add ``devices`` to the ``tablectl`` command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "devices",
        help=help_line("devices"),
        description="List the tty devices and say why each is, or is not, the shoe or the "
        "panel named by --shoe and --panel (as udev matches them). Exit status: 0 every named "
        "device found, 1 one is missing, 2 usage error.",
    )
    parser.add_argument(
        "--shoe", metavar="VID:PID:SERIAL", help="the shoe's USB identity, e.g. 1209:7ab1:SHOE0001"
    )
    parser.add_argument(
        "--panel",
        metavar="VID:PID:SERIAL",
        help="the panel's USB identity, e.g. 1209:7ab2:PANEL0001",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (docs/app.md, tablectl devices)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List what libudev knows; 0 if every named device was found, 1 if one is missing."""
    try:
        identities = [
            DeviceIdentity.parse(role, text)
            for role, text in (("shoe", args.shoe), ("panel", args.panel))
            if text
        ]
    except ValueError as exc:
        print(f"tablectl devices: {exc}", file=sys.stderr)
        return 2
    candidates = scan(identities)
    if args.json:
        missing = missing_roles(candidates, identities)
        print_report(DevicesJson(candidates, missing))
        return 1 if missing else 0
    return report(candidates, identities, print)


def missing_roles(candidates: list[Candidate], identities: Iterable[DeviceIdentity]) -> list[str]:
    """The roles named that no device plays."""
    return [i.role for i in identities if not any(c.verdict.role == i.role for c in candidates)]


def report(
    candidates: list[Candidate], identities: Iterable[DeviceIdentity], say: Callable[[str], None]
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
    missing = missing_roles(candidates, identities)
    for role in missing:
        say(f"the {role} was not found")
    return 1 if missing else 0
