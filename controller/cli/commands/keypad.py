"""tablectl keypad: list the keypads udev knows, and try one's keys before it is the panel.

``tablectl keypad`` lists every evdev node with keys (``ID_INPUT_KEY``) and says why each
is, or is not, the keypad named by ``--path`` or ``--usb``. ``tablectl keypad --try`` grabs
that keypad (as the controller will) and prints each key as it is pressed: its kernel name
and the button the key map gives it, so a technician can write ``[devices.panel.keys]`` and
check a relabelled keypad (docs/hardware-keypad.md, Testing a keypad). Run it with the
controller stopped: the controller's grab would refuse it, naming the controller.
"""

from __future__ import annotations

import argparse
import errno
import select
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from drivers.keypad.driver import KeypadGrabbed, open_node
from drivers.keypad.finder import STABLE_NAME, Keypad, Wanted, find_node, scan
from drivers.keypad.keycaps import keycap_sheet
from drivers.keypad.keymap import (
    Chord,
    Dropped,
    KeyFilter,
    KeyMap,
    Pressed,
    key_name,
    read_keymap,
)
from drivers.seam.settings import DeviceIdentity


def register(subparsers: Any) -> None:
    """Add ``keypad`` to the ``tablectl`` command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "keypad",
        help=help_line("keypad"),
        description="List the input devices with keys and say why each is, or is not, the "
        f"keypad named by --path (default {STABLE_NAME}) or --usb; with --try, grab it and "
        "print each key pressed and its button; with --keycaps, print the key map's keycap "
        "sheet. Exit status: 0 found (or tried, or printed), 1 not found or not grabbed, "
        "2 usage error.",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--path", metavar="PATH", help=f"the keypad's path (default {STABLE_NAME})")
    where.add_argument(
        "--usb", metavar="VID:PID:SERIAL", help="the keypad's USB identity, e.g. 04d9:1203:KP0001"
    )
    parser.add_argument(
        "--try", dest="try_keys", action="store_true", help="grab it and print each key pressed"
    )
    parser.add_argument(
        "--config",
        metavar="FILE",
        type=READ_FILE,
        help="take the key map from this table.toml's [devices.panel.keys] (default: the "
        "default map)",
    )
    parser.add_argument(
        "--keycaps",
        action="store_true",
        help="print the key map's printable keycap sheet (SVG, A4) and stop",
    )
    parser.add_argument(
        "--presses", type=int, metavar="N", help="with --try: stop after N keys (default: Ctrl-C)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        wanted = (
            Wanted(identity=DeviceIdentity.parse("panel", args.usb))
            if args.usb
            else Wanted(path=args.path or STABLE_NAME)
        )
        keymap = _keymap(args.config)
    except ValueError as exc:
        print(f"tablectl keypad: {exc}", file=sys.stderr)
        return 2
    if args.keycaps:
        try:
            sys.stdout.write(keycap_sheet(keymap))
        except ValueError as exc:
            print(f"tablectl keypad: --keycaps: {exc}", file=sys.stderr)
            return 2
        return 0
    if not args.try_keys:
        return report(scan(wanted), wanted, print)
    return try_keys(wanted, keymap, args.presses, print)


def _keymap(config: Path | None) -> KeyMap:
    if config is None:
        keymap, _ = read_keymap(None)
        assert keymap is not None
        return keymap
    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"--config {config}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"--config {config}: not text; expected a table.toml (UTF-8)") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"--config {config}: {exc}; expected a table.toml (TOML)") from None
    panel = data.get("devices", {}).get("panel", {})
    keymap, problems = read_keymap(panel.get("keys") if isinstance(panel, dict) else None)
    if keymap is None:
        raise ValueError(
            f"--config {config}: " + "; ".join(f"{p.key}: {p.expected}" for p in problems)
        )
    return keymap


def report(found: list[Keypad], wanted: Wanted, say: Callable[[str], None]) -> int:
    """Print each keypad and whether it is the one wanted; 0 if it was found."""
    if not found:
        say("no input devices with keys (udev knows none; is the keypad plugged in?)")
    for keypad in found:
        for line in keypad.lines():
            say(line)
    if any(keypad.wanted for keypad in found):
        return 0
    say(f"the keypad {wanted} was not found")
    return 1


def try_keys(
    wanted: Wanted, keymap: KeyMap, presses: int | None, say: Callable[[str], None]
) -> int:
    """Grab the keypad and say each key pressed until ``presses`` keys (or Ctrl-C)."""
    path = wanted.path if wanted.path and "://" in wanted.path else find_node(wanted)
    if path is None:
        say(f"the keypad {wanted} was not found (tablectl keypad lists what is plugged in)")
        return 1
    try:
        node = open_node(path)
    except OSError as exc:
        say(f"cannot open the keypad {path}: {exc.strerror or exc}")
        return 1
    try:
        try:
            node.grab()
        except OSError as exc:
            busy = exc.errno == errno.EBUSY
            say(str(KeypadGrabbed.of(path)) if busy else f"cannot grab {path}: {exc}")
            return 1
        say(f"{path} ({node.name}) grabbed: press keys (Ctrl-C to stop)")
        keys = KeyFilter(keymap)
        count = 0
        while presses is None or count < presses:
            select.select([node.fileno()], [], [])
            try:
                events = list(node.read())
            except BlockingIOError:
                continue
            for event in events:
                verdict = keys.feed(event.type, event.code, event.value)
                if verdict is None:
                    continue
                count += 1
                say(_said(verdict))
    except KeyboardInterrupt:
        return 0
    finally:
        node.close()
    return 0


def _said(verdict: Pressed | Chord | Dropped) -> str:
    if isinstance(verdict, Dropped):
        return "events dropped by the kernel (SYN_DROPPED): press again"
    name = key_name(verdict.code)
    if isinstance(verdict, Chord):
        held = ", ".join(key_name(code) for code in verdict.held)
        return f"{name:<16} refused: a chord (pressed while {held} was held)"
    if verdict.button is None:
        return f"{name:<16} on no button"
    return f"{name:<16} {verdict.button.value}"
