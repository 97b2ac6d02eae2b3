"""Finding the keypad among the input devices udev knows, and seeing it come and go.

A keypad is an evdev node (``/dev/input/eventN``) of the ``input`` subsystem that udev's
``input_id`` builtin marks ``ID_INPUT_KEY=1``. It is the table's keypad when one of its
names is the configured path (the udev rule's ``/dev/tablectl/keypad``, udev's own
``/dev/input/by-id/usb-...-event-kbd``, or the node), or when its USB vendor, product and
serial are the configured identity (udev's ``ID_VENDOR_ID``, ``ID_MODEL_ID``,
``ID_SERIAL_SHORT`` on the node). ``judge`` is the pure rule; ``scan`` and ``find_node``
apply it to what libudev knows; ``KeypadWatch`` is a udev monitor of the input subsystem
whose socket the driver's reading thread waits on beside the keypad's own node.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import pyudev

from drivers.seam.settings import STABLE_DIR, DeviceIdentity

#: The kernel's evdev nodes: one per input device, the one python-evdev opens.
EVENT_PREFIX: Final = "/dev/input/event"
#: The name the keypad's udev rule gives it (udev/70-tablectl-keypad.rules).
STABLE_NAME: Final = f"{STABLE_DIR}/keypad"


@dataclass(frozen=True, slots=True)
class Wanted:
    """How the table's configuration names its keypad: a path, or a USB identity."""

    path: str | None = None
    identity: DeviceIdentity | None = None

    def __str__(self) -> str:
        if self.path is not None:
            return self.path
        assert self.identity is not None
        return f"USB {self.identity.text}"


@dataclass(frozen=True, slots=True)
class Keypad:
    """An evdev node of a device with keys, as udev knows it, and whether it is the table's."""

    node: str
    name: str
    vendor_id: str
    model_id: str
    serial: str
    links: tuple[str, ...]
    #: Why it is the table's keypad, or why not.
    reason: str
    wanted: bool

    def lines(self, *, judged: bool = True) -> list[str]:
        """How ``tablectl keypad`` and ``tablectl devices`` list it: its node, name, USB
        identity and serial, its other names, and (``judged``) whether it is the keypad
        wanted, and why."""
        usb = f"usb {self.vendor_id or '----'}:{self.model_id or '----'}"
        out = [f"{self.node}  {self.name or '(no name)'}  {usb}  serial {self.serial or '-'}"]
        if self.links:
            out.append(f"    names: {' '.join(self.links)}")
        if judged:
            out.append(f"    {'=> the keypad: ' if self.wanted else ''}{self.reason}")
        return out


def judge(properties: Mapping[str, str], wanted: Wanted) -> Keypad | None:
    """The keypad an input device's udev properties describe (None: not an evdev node with
    keys), and whether it is the one ``wanted``."""
    node = properties.get("DEVNAME", "")
    if not node.startswith(EVENT_PREFIX) or properties.get("ID_INPUT_KEY") != "1":
        return None
    links = tuple(properties.get("DEVLINKS", "").split())
    found = {
        "vendor": properties.get("ID_VENDOR_ID", "").lower(),
        "product": properties.get("ID_MODEL_ID", "").lower(),
        "serial": properties.get("ID_SERIAL_SHORT", ""),
    }
    if wanted.path is not None:
        names = (node, *links)
        ok = wanted.path in names or os.path.realpath(wanted.path) == node
        reason = f"is {wanted.path}" if ok else f"not {wanted.path}"
    else:
        identity = wanted.identity
        assert identity is not None
        want = {
            "vendor": identity.vendor_id,
            "product": identity.model_id,
            "serial": identity.serial,
        }
        wrong = [f"{k} {found[k] or 'none'} (want {v})" for k, v in want.items() if found[k] != v]
        ok = not wrong
        reason = f"USB {identity.text} matches" if ok else "not the keypad: " + ", ".join(wrong)
    return Keypad(
        node=node,
        name=properties.get("NAME", "").strip('"'),
        vendor_id=found["vendor"],
        model_id=found["product"],
        serial=found["serial"],
        links=links,
        reason=reason,
        wanted=ok,
    )


def _properties(device: Any) -> dict[str, str]:
    properties = {key: str(device.properties.get(key, "")) for key in device.properties}
    parent = device.parent
    if "NAME" not in properties and parent is not None:
        # The device's name is its input parent's (the node itself has none).
        properties["NAME"] = str(parent.properties.get("NAME", ""))
    return properties


def scan(wanted: Wanted, context: pyudev.Context | None = None) -> list[Keypad]:
    """Every evdev node with keys libudev knows, judged (``tablectl keypad``)."""
    context = context or pyudev.Context()
    found = (judge(_properties(d), wanted) for d in context.list_devices(subsystem="input"))
    return sorted((k for k in found if k is not None), key=lambda k: k.node)


def find_node(wanted: Wanted, context: pyudev.Context | None = None) -> str | None:
    """The node of the keypad ``wanted``, or None if it is not plugged in.

    A path is taken as it is where udev does not know it (a node made by hand, a container
    without udev's database): opening it says whether it is there.
    """
    matches = [k.node for k in scan(wanted, context) if k.wanted]
    if matches:
        return matches[0]
    if wanted.path is not None and os.path.exists(wanted.path):
        return wanted.path
    return None


@dataclass(frozen=True, slots=True)
class Change:
    """udev saw an evdev node with keys come (``add``) or go (``remove``)."""

    action: str
    node: str
    #: It is the keypad the table wants (a remove: by its node, judged when it came).
    wanted: bool


class KeypadWatch:
    """A udev monitor of the input subsystem: ``fileno`` to wait on, ``changes`` to read.

    Opened on the caller's thread, read on the driver's; raises ``OSError`` at ``open`` where
    udev's netlink socket cannot be opened (a container without it): the driver then finds a
    replugged keypad by trying again, and an unplugged one by its read failing (ENODEV).
    """

    def __init__(self, wanted: Wanted, context: pyudev.Context | None = None) -> None:
        self.wanted = wanted
        self._monitor = pyudev.Monitor.from_netlink(context or pyudev.Context())
        self._monitor.filter_by("input")
        self._monitor.start()

    def fileno(self) -> int:
        return int(self._monitor.fileno())

    def changes(self, current: str | None) -> list[Change]:
        """The changes waiting (never blocks); ``current`` is the node the driver has open,
        so that its removal is known after its properties are gone."""
        out: list[Change] = []
        while True:
            device = self._monitor.poll(timeout=0)
            if device is None:
                return out
            action = str(device.action)
            keypad = judge(_properties(device), self.wanted)
            node = str(device.device_node or device.properties.get("DEVNAME", ""))
            if action == "remove" and node and node == current:
                out.append(Change(action, node, True))
            elif action == "add" and keypad is not None:
                out.append(Change(action, keypad.node, keypad.wanted))

    def close(self) -> None:
        # libudev closes the netlink socket when its last reference goes.
        del self._monitor
