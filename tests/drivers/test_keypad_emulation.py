"""The emulated keypad's files: the committed fixtures are simulator/keypad_umockdev.py's, and each
ioctl of the file is sized as python-evdev's open asks (tests/fixtures/README.md, keypad/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from evdev import ecodes

from simulator.keypad_umockdev import (
    CODE_BITS_SIZE,
    EV_BITS_SIZE,
    LED_SIZE,
    NAME_SIZE,
    PROP_SIZE,
    KeypadSpec,
    evemu_events,
)

pytestmark = pytest.mark.fast

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "keypad"


def test_the_committed_fixtures_are_the_generators() -> None:
    """tests/fixtures/keypad/ cannot drift from the keypad the tests emulate."""
    spec = KeypadSpec()
    assert (FIXTURES / "keypad.umockdev").read_text(encoding="ascii") == spec.description()
    assert (FIXTURES / "keypad.ioctl").read_text(encoding="ascii") == spec.ioctls()


def test_each_ioctl_has_the_size_python_evdev_asks_and_the_kernels_return() -> None:
    """umockdev matches an ioctl by its number, whose size field must be python-evdev's
    buffer; a wrong size leaves python-evdev a failed ioctl (SystemError at open)."""
    sizes = {
        "EVIOCGVERSION": 4, "EVIOCGID": 8, "EVIOCGNAME": NAME_SIZE, "EVIOCGPHYS": NAME_SIZE,
        "EVIOCGUNIQ": NAME_SIZE, "EVIOCGBIT(0)": EV_BITS_SIZE, "EVIOCGEFFECTS": 4,
        "EVIOCGPROP": PROP_SIZE, "EVIOCGLED": LED_SIZE, "EVIOCGREP": 8,
    }  # fmt: skip
    seen: dict[str, list[tuple[int, int]]] = {}
    for line in KeypadSpec().ioctls().splitlines()[1:]:
        name, ret, data = line.split(" ")
        seen.setdefault(name, []).append((int(ret), len(data) // 2))
    for name, size in sizes.items():
        assert size in [s for _, s in seen[name]], name
    # One EVIOCGBIT a type python-evdev asks for (the types the keypad has), 96 bytes each.
    assert sorted(int(re.sub(r"\D", "", n)) for n in seen if n.startswith("EVIOCGBIT(")) == [
        0,
        ecodes.EV_KEY,
        ecodes.EV_MSC,
        ecodes.EV_LED,
        ecodes.EV_REP,
    ]
    assert seen["EVIOCGBIT(1)"] == [(CODE_BITS_SIZE, CODE_BITS_SIZE)]
    assert (EV_BITS_SIZE, EV_BITS_SIZE) in seen["EVIOCGBIT(0)"]
    # evdev.c has no EV_REP bitmap: -EINVAL, as the kernel answers.
    assert seen["EVIOCGBIT(20)"] == [(-1, CODE_BITS_SIZE)]
    # Strings return their length with the NUL, as evdev.c's str_to_user does.
    assert seen["EVIOCGNAME"] == [(len(KeypadSpec().name) + 1, NAME_SIZE)]
    assert "EVIOCGRAB" not in seen


def test_an_evemu_time_umockdev_would_read_as_octal_is_refused() -> None:
    """A time whose microseconds start with 0 is refused, naming why; others are written
    with six digits."""
    assert evemu_events([(1.5, 1, 79, 1)]).splitlines()[1] == "E: 1.500000 0001 004f 1"
    with pytest.raises(ValueError, match="start with 0, which umockdev reads as octal"):
        evemu_events([(1.012345, 1, 79, 1)])
