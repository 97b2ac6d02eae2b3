"""The console's words: reading a command's arguments, and completing them.

A bad argument is a ``UsageError`` whose message names the argument and what was
expected; the console prints it and goes on (``simulator.console``).
"""

from __future__ import annotations

from collections.abc import Callable

from simulator.table import DEVICES


class UsageError(ValueError):
    """A command given the wrong arguments; the message shows the expected form."""


def as_number(command: str, name: str, text: str, kind: Callable[[str], float]) -> float:
    """``text`` as ``kind`` (int or float); UsageError naming ``name`` and what was expected."""
    try:
        return kind(text)
    except ValueError:
        expected = "a whole number" if kind is int else "a number"
        raise UsageError(f"{name} {text!r}: expected {expected}") from None


def as_device(text: str) -> str:
    """``text`` as a device's name; UsageError naming the devices otherwise."""
    if text not in DEVICES:
        raise UsageError(f"device {text!r}: expected {' or '.join(DEVICES)}")
    return text


def completions(options: list[str], text: str) -> list[str]:
    """The ``options`` that complete ``text`` (readline's completion)."""
    return [option for option in options if option.startswith(text)]
