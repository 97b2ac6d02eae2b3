"""The keypad's key map and what a key event means: pure, no I/O.

``KeyMap`` ties each of the panel's eight buttons (``controller.poker.inputs.Button``)
to one key, named as the kernel names it (``KEY_KP1``); ``read_keymap`` reads and
checks ``[devices.panel.keys]`` and names every problem at once. ``KeyFilter``
turns the kernel's key events into presses: key-down only, auto-repeat and
key-up ignored, and a chord refused (docs/hardware-keypad.md, Chords).
The kernel's key codes come from python-evdev's ``ecodes``, generated from the
kernel's own headers when python-evdev is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from evdev import ecodes

from controller.poker.inputs import Button

#: The kernel's event types and values this module reads (linux/input-event-codes.h).
EV_SYN: Final = ecodes.EV_SYN
EV_KEY: Final = ecodes.EV_KEY
SYN_REPORT: Final = ecodes.SYN_REPORT
SYN_DROPPED: Final = ecodes.SYN_DROPPED
KEY_UP: Final = 0
KEY_DOWN: Final = 1
#: The kernel's (or the keypad's) auto-repeat of a key held down.
KEY_REPEAT: Final = 2

#: The seventeen keys of a standard USB numeric keypad, row by row as they stand
#: (docs/hardware-keypad.md, The default map).
STANDARD_17_KEYS: Final = (
    "KEY_NUMLOCK", "KEY_KPSLASH", "KEY_KPASTERISK", "KEY_KPMINUS",
    "KEY_KP7", "KEY_KP8", "KEY_KP9", "KEY_KPPLUS",
    "KEY_KP4", "KEY_KP5", "KEY_KP6",
    "KEY_KP1", "KEY_KP2", "KEY_KP3", "KEY_KPENTER",
    "KEY_KP0", "KEY_KPDOT",
)  # fmt: skip

#: The default map (docs/hardware-keypad.md, The default map): the hand's three common acts
#: on the bottom row of digits under three fingers, draw done on the wide 0 below them, a new
#: hand on the tall Enter, all in alone on 9, and misdeal and undo on the top row, away from
#: the rest. NumLock is never mapped: some keypads keep NumLock in their firmware and change
#: what the other keys send when it is toggled.
DEFAULT_KEYS: Final[Mapping[Button, str]] = MappingProxyType(
    {
        Button.NEW_HAND: "KEY_KPENTER",
        Button.FOLD: "KEY_KP1",
        Button.CHECK_CALL: "KEY_KP2",
        Button.BET_RAISE: "KEY_KP3",
        Button.ALL_IN: "KEY_KP9",
        Button.DRAW_DONE: "KEY_KP0",
        Button.MISDEAL: "KEY_KPSLASH",
        Button.UNDO: "KEY_KPMINUS",
    }
)

#: What the technician sees on the keycap of each default key (docs/hardware-keypad.md).
KEYCAP_LABELS: Final[Mapping[Button, str]] = MappingProxyType(
    {
        Button.NEW_HAND: "NEW HAND",
        Button.FOLD: "FOLD",
        Button.CHECK_CALL: "CHECK CALL",
        Button.BET_RAISE: "BET RAISE",
        Button.ALL_IN: "ALL IN",
        Button.DRAW_DONE: "DRAW DONE",
        Button.MISDEAL: "MISDEAL",
        Button.UNDO: "UNDO",
    }
)


#: ``KEY_`` names that are no key: the limits, "no key" and a range's start.
_NOT_KEYS: Final = frozenset({"KEY_MAX", "KEY_CNT", "KEY_RESERVED", "KEY_MIN_INTERESTING"})


def key_code(name: str) -> int | None:
    """The kernel's code of ``KEY_*`` name ``name``, or None if the kernel has no such key.

    Only ``KEY_`` names count: a ``BTN_`` (a mouse's or a gamepad's) is not a key of a keypad.
    """
    if not name.startswith("KEY_") or name in _NOT_KEYS:
        return None
    code = ecodes.ecodes.get(name)
    return code if isinstance(code, int) and code in ecodes.KEY else None


def key_name(code: int) -> str:
    """The kernel's name of key ``code`` (its first, where the kernel has aliases)."""
    names = ecodes.KEY.get(code)
    if names is None:
        return f"key code {code}"
    return names if isinstance(names, str) else names[0]


@dataclass(frozen=True, slots=True)
class KeyProblem:
    """One thing wrong in ``[devices.panel.keys]``: the key, the value found, what is expected."""

    key: str
    value: object
    expected: str


@dataclass(frozen=True, slots=True)
class KeyMap:
    """Which key is which button: one key a button, one button a key, all eight mapped."""

    #: Button to the kernel's key name, as the configuration wrote it.
    keys: Mapping[Button, str]
    #: The kernel's key code to its button.
    buttons: Mapping[int, Button] = field(init=False)

    def __post_init__(self) -> None:
        problems = check_keys(dict(self.keys))
        if problems:
            raise ValueError("; ".join(f"{p.key}: {p.expected}" for p in problems))
        by_code = {key_code(name): button for button, name in self.keys.items()}
        object.__setattr__(self, "keys", MappingProxyType(dict(self.keys)))
        object.__setattr__(
            self, "buttons", MappingProxyType({c: b for c, b in by_code.items() if c is not None})
        )

    def button_of(self, code: int) -> Button | None:
        return self.buttons.get(code)

    @property
    def codes(self) -> frozenset[int]:
        return frozenset(self.buttons)


def check_keys(keys: Mapping[Button, object]) -> list[KeyProblem]:
    """Every problem of a button-to-key map: an unknown key name, a key on two buttons, a
    button mapped twice (two keys), a button with no key."""
    problems: list[KeyProblem] = []
    owner: dict[int, Button] = {}
    where = "devices.panel.keys"
    for button in Button:
        value = keys.get(button)
        key = f"{where}.{button.value}"
        if value is None:
            problems.append(
                KeyProblem(key, None, f"button {button.value} has no key: expected a KEY_* name")
            )
            continue
        if isinstance(value, list):
            problems.append(
                KeyProblem(
                    key,
                    value,
                    f"button {button.value} is mapped twice ({', '.join(map(str, value))}): "
                    "expected one key",
                )
            )
            continue
        if not isinstance(value, str):
            problems.append(KeyProblem(key, value, 'expected a key\'s name, e.g. "KEY_KP1"'))
            continue
        code = key_code(value)
        if code is None:
            problems.append(
                KeyProblem(
                    key,
                    value,
                    f"unknown key name {value!r}: expected the kernel's KEY_* name (e.g. "
                    "KEY_KP1; `tablectl keypad --try` shows each key's name as it is pressed)",
                )
            )
            continue
        if code in owner:
            first = owner[code]
            problems.append(
                KeyProblem(
                    key,
                    value,
                    f"key {value} is mapped to two buttons ({first.value} and {button.value}): "
                    "expected another key",
                )
            )
            continue
        owner[code] = button
    return problems


def read_keymap(table: Mapping[str, object] | None) -> tuple[KeyMap | None, list[KeyProblem]]:
    """``[devices.panel.keys]`` (button name = "KEY_*") as a KeyMap, or None and its problems.

    No table: the default map. A table replaces the default whole, so it names all eight
    buttons; a key that is not a button's name is a problem too.
    """
    if table is None:
        return KeyMap(DEFAULT_KEYS), []
    problems: list[KeyProblem] = []
    names = [button.value for button in Button]
    for name, value in table.items():
        if name not in names:
            problems.append(
                KeyProblem(
                    f"devices.panel.keys.{name}",
                    value,
                    f"no such button; expected one of: {', '.join(names)}",
                )
            )
    keys = {button: table[button.value] for button in Button if button.value in table}
    problems.extend(check_keys(keys))
    if problems:
        return None, problems
    return KeyMap({button: str(value) for button, value in keys.items()}), []


# --- What a key event means -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Pressed:
    """A key went down alone: the button's press (``button`` None: the key is on no button)."""

    code: int
    button: Button | None


@dataclass(frozen=True, slots=True)
class Chord:
    """A key went down while another was held: refused, never a press."""

    code: int
    held: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Dropped:
    """The kernel dropped events (SYN_DROPPED): its buffer overflowed before they were read."""


KeyVerdict = Pressed | Chord | Dropped


class KeyFilter:
    """Turns the kernel's key events into presses (docs/hardware-keypad.md, Chords).

    A key counts when it goes down and no other key is held; a key that goes down while
    another is held is a ``Chord`` (the first key's press has already counted; the second
    is refused, never a second press). A key's auto-repeat (value 2) and its release are not
    presses. After ``SYN_DROPPED`` the events up to the next ``SYN_REPORT`` are ignored (the
    kernel's rule for a dropped buffer) and no key is taken as held.
    """

    def __init__(self, keymap: KeyMap) -> None:
        self.keymap = keymap
        self._held: set[int] = set()
        self._dropping = False

    @property
    def held(self) -> frozenset[int]:
        return frozenset(self._held)

    def reset(self) -> None:
        """Forget the keys held (the device was closed: its releases will never come)."""
        self._held.clear()
        self._dropping = False

    def _sync(self, code: int) -> Dropped | None:
        if code == SYN_DROPPED:
            self._dropping = True
            self._held.clear()
            return Dropped()
        if code == SYN_REPORT:
            self._dropping = False
        return None

    def feed(self, type_: int, code: int, value: int) -> KeyVerdict | None:
        """One kernel event; returns what it means, or None for an event that means nothing."""
        if type_ == EV_SYN:
            return self._sync(code)
        if type_ != EV_KEY or self._dropping:
            return None
        if value == KEY_UP:
            self._held.discard(code)
            return None
        if value != KEY_DOWN:
            return None  # auto-repeat (2), or a value the kernel does not send for a key
        others = tuple(sorted(self._held - {code}))
        self._held.add(code)
        if others:
            return Chord(code, others)
        return Pressed(code, self.keymap.button_of(code))
