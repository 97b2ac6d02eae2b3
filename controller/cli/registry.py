"""The commands of ``tablectl``, by name: each one's line in ``tablectl --help`` and a loader of
the function that adds its parser (controller/cli/lazy.py). The command line imports only the
command it runs; ``tablectl --help`` lists them all from here, importing none (docs/app.md, The
command line: one command loaded).

Adding a command is adding its module to ``controller.cli.commands`` (``register(subparsers)``,
its ``add_parser`` taking its line from ``help_line``) and its entry here, in name order (the
order ``--help`` lists them); tests/test_cli_registry.py checks that every module is here and
that every loader returns its module's ``register``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from controller.cli.lazy import Loader

#: A command's ``register``: adds its parser (and its sub-commands') to ``tablectl``'s. (The
#: quotes: argparse's class takes no type argument when the program runs, only for mypy.)
Register = Callable[["argparse._SubParsersAction[argparse.ArgumentParser]"], None]


@dataclass(frozen=True)
class Command:
    """A command as the command line knows it before it is loaded."""

    #: Its line in ``tablectl --help``.
    summary: str
    #: Imports its module and returns its ``register``.
    load: Loader[Register]


def _attest() -> Register:
    from controller.cli.commands.attest import register  # noqa: PLC0415

    return register


def _config() -> Register:
    from controller.cli.commands.config import register  # noqa: PLC0415

    return register


def _demo() -> Register:
    from controller.cli.commands.demo import register  # noqa: PLC0415

    return register


def _devices() -> Register:
    from controller.cli.commands.devices import register  # noqa: PLC0415

    return register


def _display() -> Register:
    from controller.cli.commands.display import register  # noqa: PLC0415

    return register


def _dispute() -> Register:
    from controller.cli.commands.dispute import register  # noqa: PLC0415

    return register


def _enroll() -> Register:
    from controller.cli.commands.enroll import register  # noqa: PLC0415

    return register


def _export() -> Register:
    from controller.cli.commands.export import register  # noqa: PLC0415

    return register


def _floor() -> Register:
    from controller.cli.commands.floor import register  # noqa: PLC0415

    return register


def _forward() -> Register:
    from controller.cli.commands.forward import register  # noqa: PLC0415

    return register


def _import_phh() -> Register:
    from controller.cli.commands.import_phh import register  # noqa: PLC0415

    return register


def _journal() -> Register:
    from controller.cli.commands.journal import register  # noqa: PLC0415

    return register


def _keypad() -> Register:
    from controller.cli.commands.keypad import register  # noqa: PLC0415

    return register


def _keys() -> Register:
    from controller.cli.commands.keys import register  # noqa: PLC0415

    return register


def _recall() -> Register:
    from controller.cli.commands.recall import register  # noqa: PLC0415

    return register


def _replay() -> Register:
    from controller.cli.commands.replay import register  # noqa: PLC0415

    return register


def _run() -> Register:
    from controller.cli.commands.run import register  # noqa: PLC0415

    return register


def _seat() -> Register:
    from controller.cli.commands.seat import register  # noqa: PLC0415

    return register


def _showdown() -> Register:
    from controller.cli.commands.showdown import register  # noqa: PLC0415

    return register


def _sim() -> Register:
    from controller.cli.commands.sim import register  # noqa: PLC0415

    return register


def _status() -> Register:
    from controller.cli.commands.status import register  # noqa: PLC0415

    return register


#: Every command, in name order.
COMMANDS: Final[Mapping[str, Command]] = {
    "attest": Command(
        "the digest of the installed software and configuration, or a challenge's answer", _attest
    ),
    "config": Command("check the table's configuration", _config),
    "demo": Command(
        "watch a simulated table dealt and settled (no hardware, no configuration)", _demo
    ),
    "devices": Command(
        "list tty devices and keypads, and whether each is the shoe or the panel", _devices
    ),
    "display": Command(
        "the dealer's display: attach to the running table, or the demonstration scenes", _display
    ),
    "dispute": Command(
        "put everything about one disputed hand in a folder; check such a folder offline", _dispute
    ),
    "enroll": Command("read a deck through the shoe and write its deck file", _enroll),
    "export": Command("export the journal's hands as PHH hand histories", _export),
    "floor": Command(
        "the casino floor: store every table's journal, recall and verify from it", _floor
    ),
    "forward": Command(
        "send the table's journal to the floor (NATS JetStream), record by record", _forward
    ),
    "import-phh": Command("print a PHH hand history as a hand script", _import_phh),
    "journal": Command("check the table's journal", _journal),
    "keypad": Command("list keypads, or try one's keys and the key map", _keypad),
    "keys": Command("make, rotate or show the table's signing key", _keys),
    "recall": Command(
        "show the last hands: cards, actions and settlement (also while the table runs)", _recall
    ),
    "replay": Command("replay a hand script and print the engine's events as JSON lines", _replay),
    "run": Command(
        "run the table: shoe and panel to the engine, journal, panel, log and display feed", _run
    ),
    "seat": Command(
        "a player sits down, leaves or rebuys, between hands (the running table)", _seat
    ),
    "showdown": Command("deal a random showdown and call each hand and the winners", _showdown),
    "sim": Command(
        "run the simulated card shoe and dealer panel, with a technician's console", _sim
    ),
    "status": Command("the table at a glance: devices, journal, hand, alarms, controller", _status),
}


def help_line(name: str) -> str:
    """The line ``tablectl --help`` shows for the command ``name``, for its own ``add_parser``."""
    return COMMANDS[name].summary
