"""``tablectl sim --config table.toml``: the ports and deck files that table.toml names.

The controller opens the shoe and the panel and reads the decks' enrollment files where its
``table.toml`` names them (``[devices.shoe]`` and ``[devices.panel]`` path, ``[decks]`` a and
b). A simulator started for it must make exactly those, or its bot waits for a controller that
never finds the devices (docs/simulator.md, A bot dealing to a controller). The simulator's
links are ``DIR/shoe`` and ``DIR/panel`` in one folder, so the table.toml must name its ports
so (a keypad panel is emulated by umockdev where its path or USB identity names it:
simulator/keypad_testbed.py); what it cannot make (a URL, a udev match, other names, a name in
/dev or one a real device has, a deck file that holds another deck) is refused with what to
write or pass instead.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.config.settings import TableSettings
from controller.config.tabletoml import load_config
from controller.poker.engine import ConfigError
from drivers.keypad.backend import KeypadSettings
from drivers.seam.registry import DEFAULT_KIND
from drivers.seam.settings import DeviceSettings
from drivers.seam.tags import TagFamily
from simulator.decks import enrolled, make_decks
from simulator.keypad_testbed import KeypadBenchError, spec_for

#: Where the kernel's pseudo-terminals are: a link to one of them is a simulator's port.
PTS: Final = "/dev/pts/"
#: The real devices' folder, where udev makes their names (udev/README.md): no simulator's.
DEV: Final = Path("/dev")
#: A shoe of PN532 readers (docs/hardware.md): the simulator makes its readers' links
#: ``DIR/slot`` and ``DIR/discard`` (simulator/pn532/shoe.py), the table.toml's ``port`` and
#: ``discard_port``.
PN532: Final = "pn532"
PN532_LINKS: Final = ("slot", "discard")


@dataclass(frozen=True)
class Bench:
    """What the simulator makes for a table.toml."""

    #: The folder of the ``shoe`` and ``panel`` links.
    directory: Path
    #: Deck A's and deck B's enrollment files (``[decks] a`` and ``b``).
    decks: tuple[Path, Path]
    #: The serials the table.toml's devices must announce (None: any).
    shoe_serial: str | None
    panel_serial: str | None
    #: The shoe's kind: the protocol shoe ("tablectl") or PN532 readers ("pn532").
    shoe_kind: str = DEFAULT_KIND
    #: A keypad panel's settings (``[devices.panel] kind = "keypad"``): the simulator
    #: emulates that keypad with umockdev (simulator/keypad_testbed.py); None: the
    #: protocol panel at ``DIR/panel``.
    keypad: KeypadSettings | None = None
    #: The controller's display feed, which the simulator reads on a keypad bench.
    display: Path | None = None
    #: The table.toml.
    config: Path = Path("table.toml")


def take_bench(args: argparse.Namespace) -> Bench | None:
    """With ``--config``: the bench its table.toml names, and the options left out (``--dir``,
    the serials) taken from it; None without ``--config``. ValueError says what to write in
    the table.toml or pass instead."""
    if args.config is None:
        return None
    try:
        settings = load_config(args.config)
    except ConfigError as error:  # the loader's SettingsError lists every problem
        raise ValueError(f"--config {args.config}: {error}") from None
    bench = bench_of(settings, args.config, args.seed)
    if args.dir is not None and args.dir.absolute() != bench.directory:
        raise ValueError(
            f"--dir {args.dir}: the table.toml {args.config} names the ports "
            f"{bench.directory / 'shoe'} and {bench.directory / 'panel'}: pass --dir "
            f"{bench.directory}, or leave --dir out"
        )
    if args.decks is not None:
        raise ValueError(
            f"--decks {args.decks}: the table.toml {args.config} names the deck files "
            f"({bench.decks[0]}, {bench.decks[1]}): leave --decks out"
        )
    args.dir = bench.directory
    if bench.shoe_kind == PN532:
        args.shoe = PN532
    args.shoe_serial = args.shoe_serial or bench.shoe_serial
    args.panel_serial = args.panel_serial or bench.panel_serial
    return bench


def bench_of(settings: TableSettings, config: Path, seed: int) -> Bench:
    """The bench ``settings`` (read from ``config``) names; ValueError if the simulator of
    ``seed`` cannot make it."""
    family = TagFamily.ISO15693
    if settings.shoe.kind == PN532:
        shoe = _pn532_ports(settings.shoe, config)
        family = TagFamily.ISO14443A
    else:
        shoe = _port(settings.shoe, config)
    keypad = settings.panel if isinstance(settings.panel, KeypadSettings) else None
    if keypad is not None:
        try:
            spec_for(keypad)  # a keypad umockdev can emulate
        except KeypadBenchError as error:
            raise ValueError(f"--config {config}: {error}") from None
    panel = shoe.parent / "panel" if keypad is not None else _port(settings.panel, config)
    if shoe.parent != panel.parent:
        raise ValueError(
            f"--config {config}: the shoe is {shoe} and the panel {panel}: the simulator's "
            f"ports are in one folder: name them DIR/shoe and DIR/panel (e.g. path = "
            f'"{shoe.parent}/panel" in [devices.panel])'
        )
    decks = (settings.decks.a, settings.decks.b)
    for key, path, deck in zip(("a", "b"), decks, make_decks(seed, family), strict=True):
        _check_deck_file(config, key, path, enrolled(deck).dumps(), seed)
    return Bench(
        shoe.parent,
        decks,
        settings.shoe.serial_number(),
        settings.panel.serial_number(),
        settings.shoe.kind,
        keypad,
        settings.display_socket if keypad is not None else None,
        config,
    )


def _pn532_ports(device: DeviceSettings, config: Path) -> Path:
    """The slot reader's link a PN532 shoe's section names, ``DIR/slot``, its discard reader
    at ``DIR/discard``; ValueError if the simulator cannot make them."""
    ports = device.ports()
    wanted = (
        'give [devices.shoe] port = "DIR/slot" and discard_port = "DIR/discard" (the '
        "simulator makes its PN532 readers ptys linked from there)"
    )
    if len(ports) != len(PN532_LINKS):
        raise ValueError(f"--config {config}: [devices.shoe] has no discard_port: {wanted}")
    paths = []
    for port, name in zip(ports, PN532_LINKS, strict=True):
        path = Path(port.url or "")
        if not path.is_absolute() or path.name != name:
            raise ValueError(f"--config {config}: [devices.shoe] names {port.url}: {wanted}")
        _check_link(config, "shoe", path)
        paths.append(path)
    if paths[0].parent != paths[1].parent:
        raise ValueError(f"--config {config}: the readers are in two folders: {wanted}")
    return paths[0]


def _port(device: DeviceSettings, config: Path) -> Path:
    """The link ``device``'s section names, ``DIR/shoe`` or ``DIR/panel``; ValueError if the
    simulator cannot make it (the simulator emulates the protocol's devices, kind
    tablectl, one port a device, and PN532 readers: ``_pn532_ports``)."""
    name = device.role
    if device.kind != DEFAULT_KIND:
        raise ValueError(
            f"--config {config}: [devices.{name}] kind = {device.kind!r}: the bench simulates "
            f"kind {DEFAULT_KIND!r} (docs/protocol.md)"
            + (f" and a shoe of kind {PN532!r} (docs/hardware.md)" if name == "shoe" else "")
        )
    (port,) = device.ports()
    wanted = (
        f'give [devices.{name}] path = "DIR/{name}" (the simulator makes its {name} a pty '
        f"linked from DIR/{name})"
    )
    if port.url is None or not port.url.startswith("/"):
        named = port.url if port.url is not None else "a udev match"
        raise ValueError(f"--config {config}: [devices.{name}] names {named}: {wanted}")
    path = Path(port.url)
    if path.name != name:
        raise ValueError(f"--config {config}: [devices.{name}] path = {path}: {wanted}")
    _check_link(config, name, path)
    return path


def _check_link(config: Path, name: str, path: Path) -> None:
    """ValueError if the simulator may not make its link at ``path``: in /dev, or where
    something that is not a simulator's link is."""
    if DEV in path.parents:
        raise ValueError(
            f"--config {config}: [devices.{name}] path = {path}: {DEV} holds the real devices' "
            "names (udev/README.md), no simulator's: give a bench's folder, e.g. path = "
            f'"/tmp/bench/{name}" (docs/simulator.md, A bot dealing to a controller)'
        )
    if os.path.lexists(path) and not _a_pty_link(path):
        raise ValueError(
            f"--config {config}: [devices.{name}] path = {path} is there already and is no "
            "simulator's port (a real device's name?): the simulator makes its ports only where "
            "none is; give a bench's table.toml (docs/simulator.md, A bot dealing to a controller)"
        )


def _a_pty_link(path: Path) -> bool:
    """Whether ``path`` is a link to a pseudo-terminal (one a simulator made, maybe left over)."""
    try:
        return os.readlink(path).startswith(PTS)
    except OSError:  # not a link
        return False


def _check_deck_file(config: Path, key: str, path: Path, text: str, seed: int) -> None:
    """The simulator writes its deck where ``[decks] <key>`` names it only if that file is not
    there or holds that deck already: it never overwrites a deck enrolled from a real shoe, nor
    another seed's, which a running controller may hold (docs/simulator.md)."""
    try:
        there = path.read_bytes()
    except FileNotFoundError:
        return
    except OSError as error:
        raise ValueError(
            f"--config {config}: [decks] {key} = {path}: cannot read it ({error.strerror})"
        ) from None
    if there != text.encode("ascii"):
        raise ValueError(
            f"--config {config}: [decks] {key} = {path} holds another deck (enrolled from a real "
            f"shoe, or written by another --seed): the simulator overwrites no deck but its own "
            f"for --seed {seed}; pass the seed that wrote it, or remove the file (and restart "
            "the controller, which reads it at start)"
        )
