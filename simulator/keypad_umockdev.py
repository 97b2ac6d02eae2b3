"""A 17-key USB keypad as umockdev emulates it: its device description, its ioctl file, events.

Pure text and bytes (no umockdev needed to import it). ``KeypadSpec.description()`` is
the udev side in umockdev-record's format (the event node, its input parent, the USB
device; sysfs attributes and the properties udev's input_id and usb_id builtins give a
keyboard: ``ID_INPUT_KEY`` and the ``/dev/input/by-id/...-event-kbd`` link).
``KeypadSpec.ioctls()`` answers every ioctl python-evdev's ``InputDevice()`` issues at open,
each sized exactly as python-evdev asks (umockdev matches an ioctl by its number, and the
size is part of the number) and returning what the kernel's evdev.c returns for it.
EVIOCGRAB is not in the file: umockdev 0.17 answers it itself, always with success (and a
line for it makes umockdev-run crash) (docs/testing.md, What umockdev does not emulate).
``event_bytes`` is what the kernel writes to a reader: ``struct input_event`` on a 64-bit
machine. tests/fixtures/keypad/ holds the default keypad's files, for a technician's
``umockdev-run`` (test_keypad_emulation.py checks they are this module's).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable
from dataclasses import dataclass

from evdev import ecodes

from drivers.keypad.keymap import STANDARD_17_KEYS, key_code

#: The sizes python-evdev 2.0's input.c gives each ioctl (its buffers, from the kernel's
#: headers): EVIOCGBIT(0) ``EV_MAX/8 + 1``, any other type ``KEY_MAX/8 + 1``; names 256.
EV_BITS_SIZE = ecodes.EV_MAX // 8 + 1
CODE_BITS_SIZE = ecodes.KEY_MAX // 8 + 1
NAME_SIZE = 256
PROP_SIZE = (ecodes.INPUT_PROP_MAX + 7) // 8
LED_SIZE = (ecodes.LED_MAX + 7) // 8
#: ``struct input_event`` on x86-64: a ``struct timeval`` (two longs), type, code, value.
INPUT_EVENT = struct.Struct("@llHHi")
#: The kernel's evdev.c copies a bitmap in whole longs: ``BITS_TO_LONGS(max + 1)`` of them.
LONG = struct.calcsize("@l")


def _longs(maximum: int) -> int:
    return -(-(maximum + 1) // (8 * LONG)) * LONG


def bitmap(size: int, bits: Iterable[int]) -> bytes:
    out = bytearray(size)
    for bit in bits:
        out[bit // 8] |= 1 << (bit % 8)
    return bytes(out)


def sysfs_bitmap(bits: Iterable[int]) -> str:
    """A bitmap as the kernel's sysfs shows it: hex longs, the highest first, leading zero
    longs left out (input_print_bitmap in drivers/input/input.c)."""
    words = [0]
    for bit in bits:
        index = bit // (8 * LONG)
        words += [0] * (index + 1 - len(words))
        words[index] |= 1 << (bit % (8 * LONG))
    return " ".join(f"{word:x}" for word in reversed(words))


def _string(text: str) -> bytes:
    raw = text.encode("ascii")
    return raw + b"\0" * (NAME_SIZE - len(raw))


@dataclass(frozen=True)
class KeypadSpec:
    """One emulated keypad: its node, identity and keys (the kernel's names)."""

    event: str = "event5"
    vendor: str = "04d9"
    product: str = "1203"
    serial: str = "KP0001"
    name: str = "Tablectl Bench 17-key Keypad"
    keys: tuple[str, ...] = STANDARD_17_KEYS
    usb_port: str = "1-2"
    #: Names besides udev's by-id link, as a udev rule gives them (``/dev/tablectl/keypad``).
    links: tuple[str, ...] = ()

    @property
    def node(self) -> str:
        return f"/dev/input/{self.event}"

    @property
    def by_id(self) -> str:
        """The link udev's 60-persistent-input.rules makes for a keyboard's event node."""
        return f"/dev/input/by-id/usb-Tablectl_Keypad_{self.serial}-event-kbd"

    @property
    def usb_path(self) -> str:
        return f"/sys/devices/pci0000:00/0000:00:14.0/usb1/{self.usb_port}"

    @property
    def input_path(self) -> str:
        hid = f"0003:{self.vendor.upper()}:{self.product.upper()}.{self.usb_port[2:]:0>4}"
        # One input device a node: the kernel's numbers are unique, and so are sysfs's
        # /sys/class/input links umockdev makes of them.
        number = self.event.removeprefix("event")
        return f"{self.usb_path}/{self.usb_port}:1.0/{hid}/input/input{number}"

    @property
    def event_path(self) -> str:
        return f"{self.input_path}/{self.event}"

    @property
    def phys(self) -> str:
        return f"usb-0000:00:14.0-{self.usb_port.split('-', 1)[1]}/input0"

    def codes(self) -> list[int]:
        codes = [key_code(name) for name in self.keys]
        assert None not in codes, self.keys
        return [code for code in codes if code is not None]

    def description(self) -> str:
        """The device, its input parent and its USB device, in umockdev-record's format."""
        minor = 64 + int(self.event.removeprefix("event"))
        sysfs = self.event_path.removeprefix("/sys")
        return "\n".join(
            [
                f"P: {sysfs}",
                f"N: input/{self.event}",
                f"E: DEVNAME={self.node}",
                "E: MAJOR=13",
                f"E: MINOR={minor}",
                "E: SUBSYSTEM=input",
                "E: ID_INPUT=1",
                "E: ID_INPUT_KEY=1",
                "E: ID_INPUT_KEYBOARD=1",
                "E: ID_BUS=usb",
                f"E: ID_VENDOR_ID={self.vendor}",
                f"E: ID_MODEL_ID={self.product}",
                f"E: ID_SERIAL=Tablectl_Keypad_{self.serial}",
                f"E: ID_SERIAL_SHORT={self.serial}",
                f"E: DEVLINKS={' '.join((self.by_id, *self.links))}",
                f"A: dev=13:{minor}",
                "",
                f"P: {self.input_path.removeprefix('/sys')}",
                "E: SUBSYSTEM=input",
                f"E: PRODUCT=3/{int(self.vendor, 16):x}/{int(self.product, 16):x}/110",
                f'E: NAME="{self.name}"',
                f"A: name={self.name}",
                f"A: phys={self.phys}",
                f"A: uniq={self.serial}",
                # What udev's input_id builtin reads to set ID_INPUT_KEY and the rest.
                "A: capabilities/ev="
                + sysfs_bitmap([0, ecodes.EV_KEY, ecodes.EV_MSC, ecodes.EV_LED, ecodes.EV_REP]),
                "A: capabilities/key=" + sysfs_bitmap(self.codes()),
                "A: capabilities/msc=" + sysfs_bitmap([ecodes.MSC_SCAN]),
                "A: capabilities/led="
                + sysfs_bitmap([ecodes.LED_NUML, ecodes.LED_CAPSL, ecodes.LED_SCROLLL]),
                *(f"A: capabilities/{name}=0" for name in ("rel", "abs", "sw", "ff", "snd")),
                "A: properties=0",
                "",
                f"P: {self.usb_path.removeprefix('/sys')}",
                "E: SUBSYSTEM=usb",
                "E: DEVTYPE=usb_device",
                f"A: idVendor={self.vendor}",
                f"A: idProduct={self.product}",
                f"A: serial={self.serial}",
                "A: manufacturer=Tablectl",
                "A: product=Keypad",
                "",
            ]
        )

    def ioctls(self) -> str:
        """Every ioctl python-evdev's ``InputDevice()`` issues at open, and leds(), repeat,
        input_props(): ``NAME(offset) RETURN DATA`` (umockdev's ioctl tree text format)."""
        e = ecodes
        types = [e.EV_SYN, e.EV_KEY, e.EV_MSC, e.EV_LED, e.EV_REP]
        per_type = {
            # EVIOCGBIT(0, len) for EV_SYN's own bitmap: the event types again.
            e.EV_SYN: (bitmap(CODE_BITS_SIZE, types), _longs(e.EV_MAX)),
            e.EV_KEY: (bitmap(CODE_BITS_SIZE, self.codes()), _longs(e.KEY_MAX)),
            e.EV_MSC: (bitmap(CODE_BITS_SIZE, [e.MSC_SCAN]), _longs(e.MSC_MAX)),
            e.EV_LED: (
                bitmap(CODE_BITS_SIZE, [e.LED_NUML, e.LED_CAPSL, e.LED_SCROLLL]),
                _longs(e.LED_MAX),
            ),
            # evdev.c has no bitmap for EV_REP: EVIOCGBIT(EV_REP) is -EINVAL.
            e.EV_REP: (bytes(CODE_BITS_SIZE), -1),
        }
        name = self.name.encode("ascii")
        lines = [
            f"@DEV {self.node} (evdev)",
            "EVIOCGVERSION 0 " + struct.pack("@i", 0x010001).hex().upper(),
            "EVIOCGID 0 "
            + struct.pack("@HHHH", 3, int(self.vendor, 16), int(self.product, 16), 0x110)
            .hex()
            .upper(),
            # EVIOCGNAME, PHYS and UNIQ return the string's length with its NUL.
            f"EVIOCGNAME {len(name) + 1} " + _string(self.name).hex().upper(),
            f"EVIOCGPHYS {len(self.phys) + 1} " + _string(self.phys).hex().upper(),
            f"EVIOCGUNIQ {len(self.serial) + 1} " + _string(self.serial).hex().upper(),
            f"EVIOCGBIT(0) {min(_longs(e.EV_MAX), EV_BITS_SIZE)} "
            + bitmap(EV_BITS_SIZE, types).hex().upper(),
        ]
        for type_, (data, returned) in per_type.items():
            ret = returned if returned < 0 else min(returned, CODE_BITS_SIZE)
            lines.append(f"EVIOCGBIT({type_}) {ret} {data.hex().upper()}")
        lines += [
            "EVIOCGEFFECTS 0 " + struct.pack("@i", 0).hex().upper(),
            f"EVIOCGPROP {min(_longs(e.INPUT_PROP_MAX), PROP_SIZE)} "
            + bitmap(PROP_SIZE, []).hex().upper(),
            f"EVIOCGLED {min(_longs(e.LED_MAX), LED_SIZE)} "
            + bitmap(LED_SIZE, [e.LED_NUML]).hex().upper(),
            # The input core's default auto-repeat: 250 ms delay, a repeat every 33 ms.
            "EVIOCGREP 0 " + struct.pack("@II", 250, 33).hex().upper(),
        ]
        return "\n".join(lines) + "\n"


def event_bytes(type_: int, code: int, value: int, when: float = 0.0) -> bytes:
    sec = int(when)
    return INPUT_EVENT.pack(sec, round((when - sec) * 1_000_000), type_, code, value)


def key_frame(code: int, value: int, when: float = 0.0, scan: int | None = None) -> bytes:
    """A key event as a USB keyboard's report gives it: MSC_SCAN, the key, SYN_REPORT."""
    frame = b""
    if scan is not None:
        frame += event_bytes(ecodes.EV_MSC, ecodes.MSC_SCAN, scan, when)
    frame += event_bytes(ecodes.EV_KEY, code, value, when)
    return frame + event_bytes(ecodes.EV_SYN, ecodes.SYN_REPORT, 0, when)


def tap(name: str, when: float = 0.0) -> bytes:
    """A key pressed and released, as the kernel reports it."""
    code = key_code(name)
    assert code is not None, name
    return key_frame(code, 1, when) + key_frame(code, 0, when + 0.08)


def evemu_events(events: Iterable[tuple[float, int, int, int]]) -> str:
    """Events in evemu's format (``E: <sec>.<usec> <type> <code> <value>``), for
    ``umockdev-run -e``. The microseconds are written without a leading zero where that
    can be helped: umockdev 0.17 reads ``0.012345`` as octal (docs/testing.md)."""
    lines = ["# EVEMU 1.3"]
    for when, type_, code, value in events:
        sec = int(when)
        usec = round((when - sec) * 1_000_000)
        if usec and len(str(usec)) < 6:
            raise ValueError(
                f"event at {when}: its microseconds ({usec:06d}) start with 0, which "
                "umockdev reads as octal; choose a time whose microseconds have six digits"
            )
        lines.append(f"E: {sec}.{usec:06d} {type_:04x} {code:04x} {value}")
    return "\n".join(lines) + "\n"
