"""The ``keypad`` backend: ``[devices.panel] kind = "keypad"``, a USB keypad as the panel.

Its keys (docs/hardware-keypad.md, Configuration): where the keypad is, as every backend
that opens a port says it (``path``: the udev rule's ``/dev/tablectl/keypad`` or udev's
``/dev/input/by-id/...-event-kbd``; ``url``: the simulator's ``sim://keypad``; or a udev
match of ``vendor_id``, ``product_id`` and ``serial``), and ``[devices.panel.keys]``, the key
map (``keymap.read_keymap``; none: the default map).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Final

from controller.tomlcheck import MISSING, Problem
from drivers.keypad.driver import FEATURES, KeypadPanel
from drivers.keypad.finder import Wanted
from drivers.keypad.keymap import DEFAULT_KEYS, KeyMap, read_keymap
from drivers.seam.device import OpenOptions, Panel, PanelBackend
from drivers.seam.events import PANEL, EventSink, LinkEvent, PanelEvent
from drivers.seam.keys import PORT_KEYS, read_port
from drivers.seam.settings import DeviceIdentity, DeviceSettings, Port

if TYPE_CHECKING:
    from controller.tomlcheck import Section

KIND: Final = "keypad"
#: The section's keys besides ``kind``: where the keypad is, and its key map.
KEYS: Final = (*PORT_KEYS, "keys")


@dataclass(frozen=True, slots=True)
class KeypadSettings(DeviceSettings):
    """Where the keypad is (a path or URL, or a USB identity) and its key map."""

    path: str | None
    identity: DeviceIdentity | None
    keymap: KeyMap
    role: str = PANEL
    kind: str = KIND

    def serial_number(self) -> str | None:
        return self.identity.serial if self.identity is not None else None

    @property
    def wanted(self) -> Wanted:
        return Wanted(self.path, self.identity)

    def ports(self) -> tuple[Port, ...]:
        return (Port(PANEL, self.path, self.identity, "input"),)

    def describe(self) -> str:
        where = str(self.wanted)
        mapped = "the default key map" if self.keymap.keys == DEFAULT_KEYS else "its key map"
        return f"a USB keypad at {where}, {mapped}, no lights or text"


def read_keypad_settings(section: Section) -> KeypadSettings | None:
    """A ``[devices.panel]`` section of kind ``keypad``; None after recording a problem."""
    before = len(section.problems)
    port = read_port(section, PANEL)
    keys = section.data.get("keys")
    if keys is not None and not isinstance(keys, dict):
        section.fail("keys", 'expected a [devices.panel.keys] section: button = "KEY_..."')
        return None
    keymap, problems = read_keymap(keys)
    section.problems.extend(
        Problem(p.key, MISSING if p.value is None else p.value, p.expected) for p in problems
    )
    if len(section.problems) > before or port is None or keymap is None:
        return None
    return KeypadSettings(port.url, port.identity, keymap)


class KeypadBackend(PanelBackend):
    """A USB keypad (any HID keypad; docs/hardware-keypad.md) read through evdev."""

    role: ClassVar[str] = PANEL
    kind: ClassVar[str] = KIND
    summary: ClassVar[str] = "a USB keypad read through evdev: buttons only, no lights or text"
    keys: ClassVar[tuple[str, ...]] = KEYS
    #: What it has besides its buttons: nothing (``tablectl status`` says so).
    features: ClassVar = FEATURES

    @classmethod
    def read_settings(cls, section: Section) -> KeypadSettings | None:
        return read_keypad_settings(section)

    @classmethod
    def open(
        cls,
        settings: DeviceSettings,
        events: EventSink[PanelEvent | LinkEvent],
        options: OpenOptions,
    ) -> Panel:
        if not isinstance(settings, KeypadSettings):
            raise TypeError(f"{settings.role} of kind {settings.kind}: not a keypad")
        return KeypadPanel(settings.wanted, settings.keymap, events)
