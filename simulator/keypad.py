"""A USB keypad in this process, for the keypad panel (``[devices.panel] kind = "keypad"``).

There is no ``/dev/uinput`` to make a real input device with, so the simulator's keypad is
an evdev node of its own: ``SimKeypad`` holds the keys, and each open of
``sim://keypad`` (``sim://<table>/keypad``) is a ``SimNode`` that the keypad driver reads as
it reads python-evdev's ``InputDevice``: a descriptor to wait on (a pipe), and the kernel's
``struct input_event``s written to it as a USB keyboard's reports give them (the scan code,
the key, the report). It fails as the kernel does: an unplugged keypad's node reads
``ENODEV`` and will not open, and a second grab while another program holds it is
``EBUSY`` (docs/testing.md, What umockdev does not emulate: the tests at the seam use this).
Making the first ``SimKeypad`` registers ``sim://`` with the driver's URL openers, as the
serial devices register ``sim://`` with pyserial.
"""

from __future__ import annotations

import errno
import os
import struct
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Final

from evdev import ecodes

from controller.poker.inputs import Button
from drivers.keypad import driver
from drivers.keypad.backend import KeypadSettings
from drivers.keypad.keymap import DEFAULT_KEYS, STANDARD_17_KEYS, KeyMap, key_code
from simulator.table_actions import TableActions

SCHEME: Final = "sim"
DEFAULT_TABLE: Final = "default"
#: ``struct input_event`` on this machine: a ``struct timeval``, type, code, value.
INPUT_EVENT: Final = struct.Struct("@llHHi")
#: The USB HID usage page of a keyboard's keys, as the kernel's MSC_SCAN reports it.
_SCAN_PAGE: Final = 0x70000

_keypads: dict[tuple[str, str], SimKeypad] = {}
_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class Event:
    """One kernel input event as the driver reads it."""

    type: int
    code: int
    value: int


class SimNode:
    """One open of the simulated keypad's evdev node."""

    def __init__(self, keypad: SimKeypad) -> None:
        self.keypad = keypad
        self.name = keypad.name
        self.uniq = keypad.serial
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        self.grabbed = False
        self.closed = False
        self.gone = False

    def fileno(self) -> int:
        return self._read

    def capabilities(self) -> dict[int, list[int]]:
        return {
            ecodes.EV_KEY: sorted(self.keypad.codes),
            ecodes.EV_MSC: [ecodes.MSC_SCAN],
        }

    def grab(self) -> None:
        self.keypad.grab(self)

    def read(self) -> Iterator[Event]:
        if self.gone:
            raise OSError(errno.ENODEV, os.strerror(errno.ENODEV))
        data = os.read(self._read, INPUT_EVENT.size * 64)  # BlockingIOError when empty
        for _sec, _usec, type_, code, value in INPUT_EVENT.iter_unpack(data):
            yield Event(type_, code, value)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.keypad.closed(self)
        os.close(self._read)
        os.close(self._write)

    def deliver(self, data: bytes) -> None:
        if not self.closed:
            os.write(self._write, data)

    def unplugged(self) -> None:
        """Reads fail from now on (ENODEV); a byte wakes a reader waiting on the node."""
        self.gone = True
        if not self.closed:
            os.write(self._write, b"\0")


class SimKeypad:
    """A 17-key USB keypad (or one of ``keys``), plugged in, its node at ``url``."""

    def __init__(
        self,
        table: str = DEFAULT_TABLE,
        *,
        keys: tuple[str, ...] = STANDARD_17_KEYS,
        name: str = "Tablectl Simulated Keypad",
        serial: str = "SIMKP0001",
    ) -> None:
        self.table = table
        self.name = name
        self.serial = serial
        codes = [key_code(key) for key in keys]
        self.codes = frozenset(code for code in codes if code is not None)
        self.plugged = True
        #: Another program's grab: a grab of ours fails with EBUSY while it is held.
        self.held_elsewhere = False
        self._nodes: list[SimNode] = []
        self._grabber: SimNode | None = None
        self._node_lock = threading.Lock()
        with _lock:
            if (table, "keypad") in _keypads:
                raise ValueError(f"{self.url} is taken: close the other simulated keypad first")
            _keypads[(table, "keypad")] = self
            driver.URL_OPENERS.setdefault(SCHEME, open_url)

    @property
    def url(self) -> str:
        return "sim://keypad" if self.table == DEFAULT_TABLE else f"sim://{self.table}/keypad"

    # --- The driver's side ------------------------------------------------------------------

    def open(self) -> SimNode:
        with self._node_lock:
            if not self.plugged:
                raise FileNotFoundError(errno.ENOENT, f"{self.url}: the keypad is unplugged")
            node = SimNode(self)
            self._nodes.append(node)
            return node

    def grab(self, node: SimNode) -> None:
        with self._node_lock:
            if self.held_elsewhere or (self._grabber is not None and self._grabber is not node):
                raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))
            self._grabber = node
            node.grabbed = True

    def closed(self, node: SimNode) -> None:
        with self._node_lock:
            if node in self._nodes:
                self._nodes.remove(node)
            if self._grabber is node:
                self._grabber = None

    # --- The bench's side ---------------------------------------------------------------

    def key(self, name: str, value: int) -> None:
        """Key ``name`` goes down (1), repeats (2) or comes up (0), as a USB keyboard's
        report: to the grabbing open only, or to every open if none grabs."""
        code = key_code(name)
        if code is None or code not in self.codes:
            raise ValueError(f"the simulated keypad has no key {name!r}")
        frame = b"".join(
            INPUT_EVENT.pack(0, 0, t, c, v)
            for t, c, v in (
                (ecodes.EV_MSC, ecodes.MSC_SCAN, _SCAN_PAGE + code),
                (ecodes.EV_KEY, code, value),
                (ecodes.EV_SYN, ecodes.SYN_REPORT, 0),
            )
        )
        with self._node_lock:
            targets = [self._grabber] if self._grabber is not None else list(self._nodes)
        for node in targets:
            if node is not None:
                node.deliver(frame)

    def tap(self, name: str) -> None:
        """Press and release key ``name``."""
        self.key(name, 1)
        self.key(name, 0)

    def unplug(self) -> None:
        with self._node_lock:
            self.plugged = False
            nodes = list(self._nodes)
        for node in nodes:
            node.unplugged()

    def plug(self) -> None:
        with self._node_lock:
            self.plugged = True

    def close(self) -> None:
        """Free ``url`` (the opens stay the driver's to close)."""
        with _lock:
            if _keypads.get((self.table, "keypad")) is self:
                del _keypads[(self.table, "keypad")]


def parse_url(url: str) -> tuple[str, str]:
    parts = urllib.parse.urlsplit(url)
    path = parts.path.strip("/")
    table, device = (parts.netloc, path) if path else (DEFAULT_TABLE, parts.netloc)
    if parts.scheme != SCHEME or device != "keypad" or not table:
        raise FileNotFoundError(
            errno.ENOENT, f"{url}: expected sim://keypad or sim://<table>/keypad"
        )
    return table, device


def open_url(url: str) -> SimNode:
    """The driver's opener of ``sim://keypad``: a new open of that simulated keypad."""
    key = parse_url(url)
    with _lock:
        keypad = _keypads.get(key)
    if keypad is None:
        raise FileNotFoundError(errno.ENOENT, f"{url}: no simulated keypad in this process")
    return keypad.open()


def fit_keypad(sim: TableActions, keypad: SimKeypad, keymap: KeyMap) -> None:
    """The dealer's presses on ``sim`` (the bot's, the trainer's) go to ``keypad`` from now
    on: a press of a button is a tap of the key ``keymap`` gives it, as a dealer's finger on a
    keypad panel."""

    def tap(button: Button) -> None:
        keypad.tap(keymap.keys[button])

    sim.presses = tap


@contextmanager
def keypad_panel(
    table: str, keymap: KeyMap | None = None
) -> Iterator[tuple[SimKeypad, KeypadSettings]]:
    """A simulated keypad named for ``table`` and the panel settings that reach it (the
    default map unless ``keymap``), for ``SimTable(devices={"panel": settings})``; the
    keypad's name is freed after the block."""
    keypad = SimKeypad(table)
    try:
        yield keypad, KeypadSettings(keypad.url, None, keymap or KeyMap(DEFAULT_KEYS))
    finally:
        keypad.close()
