"""The ``tablectl`` command line: one sub-command per module in ``controller.cli.commands``.

Each command module defines ``register(subparsers)``, which adds its parser and
sets ``run`` (a function of the parsed arguments returning the exit status).
Every module in the ``controller.cli.commands`` package is a command, named after it
(``import_phh`` is ``import-phh``): adding a command is adding its module. A module whose
name begins with ``_`` is the commands' own and no command: ``_options``, the options the
journal's readers share; ``_paths``, the path arguments' types and checks; ``_journal_hold``,
the actions ``tablectl journal hold``, ``release`` and ``holds``, which belong under
``journal`` only; ``_floor_*``, the floor's.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence
from typing import Final

from controller import __version__
from controller.cli import commands
from controller.cli.commands._paths import PathError

#: The status of a command given a path it cannot use (controller/cli/commands/_paths.py): a
#: usage error, as argparse's own.
EXIT_PATH: Final = 2
#: The status of a command whose reader went away (``tablectl recall | head``), as a shell
#: reports a process ended by SIGPIPE (128 + 13).
EXIT_BROKEN_PIPE: Final = 141


def command_modules() -> list[str]:
    """The sub-command modules, in name order (the order ``--help`` lists them)."""
    return sorted(
        f"{commands.__name__}.{info.name}"
        for info in pkgutil.iter_modules(commands.__path__)
        if not info.name.startswith("_")
    )


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser, with every registered sub-command."""
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Controller of a live casino poker table: card shoe, dealer panel, journal.",
    )
    parser.add_argument("--version", action="version", version=f"tablectl {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(name).register(subparsers)
    _name_commands(subparsers)
    return parser


def _name_commands(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Each command's parser gives its name (``tablectl journal verify``) to the parsed
    arguments, for the errors ``main`` prints on the command's behalf."""
    for command in subparsers.choices.values():
        command.set_defaults(command_name=command.prog)
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _name_commands(action)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tablectl`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 2
    try:
        status: int = run(args)
        sys.stdout.flush()  # inside the try: a reader gone is found here, not at exit
    except PathError as error:  # a path argument the work found unusable: one line, no traceback
        print(f"{args.command_name}: {error}", file=sys.stderr)
        return EXIT_PATH
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    return status


def _silence_stdout() -> None:
    """Point stdout at /dev/null: its reader is gone (``| head`` read enough), so the
    interpreter's last flush at exit must not fail again with a traceback."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


if __name__ == "__main__":
    sys.exit(main())
