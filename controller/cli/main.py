"""The ``tablectl`` command line: one sub-command per module in ``controller.cli.commands``.

Each command module defines ``register(subparsers)``, which adds its parser and
sets ``run`` (a function of the parsed arguments returning the exit status).
Every module in the ``controller.cli.commands`` package is a command, named after it
(``import_phh`` is ``import-phh``), and listed in controller/cli/registry.py with its line
in ``--help``. A module whose name begins with ``_`` is the commands' own and no command:
``_options``, the options the journal's readers share; ``_paths``, the path arguments' types
and checks; ``_journal_hold``, the actions ``tablectl journal hold``, ``release`` and
``holds``, which belong under ``journal`` only.

A run loads one command: ``main`` finds which from the registry's names alone, then builds
that command's parser and lists the others by their line (docs/app.md, The command line: one
command loaded). ``build_parser`` builds every command's, for the tests that walk them all.
"""

from __future__ import annotations

import argparse
import os
import pkgutil
import sys
from collections.abc import Collection, Sequence
from typing import Any, Final

import controller
from controller.cli import commands
from controller.cli.commands._paths import PathError
from controller.cli.registry import COMMANDS

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


def build_parser(load: Collection[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser: every command's own parser, or only those named in ``load``.

    A command not loaded is listed by its line (controller/cli/registry.py), as ``--help``
    shows it, and its module is not imported: its parser takes any arguments and runs nothing
    (``main`` builds the one it runs).
    """
    parser = argparse.ArgumentParser(
        prog="tablectl",
        description="Controller of a live casino poker table: card shoe, dealer panel, journal.",
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name, command in COMMANDS.items():
        if load is None or name in load:
            command.load()(subparsers)
        else:
            listed = subparsers.add_parser(name, help=command.summary, add_help=False)
            listed.set_defaults(not_loaded=name)
    _name_commands(subparsers)
    return parser


class _Version(argparse._VersionAction):
    """``--version``: argparse's, the version looked up only when it is asked for
    (``controller.version``)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        self.version = f"tablectl {controller.version()}"
        super().__call__(parser, namespace, values, option_string)


def _parser_for(argv: Sequence[str] | None) -> argparse.ArgumentParser:
    """The parser ``argv`` needs: the command it names loaded, every other one only listed.

    Which command, argparse says, from a parser where none is loaded: parsing ``argv`` there
    stops where the full parser would (``--help``, ``--version``, an unknown command: each
    printed as the full parser prints it, for its list of commands is the same), and otherwise
    names the command whose parser then parses ``argv`` again, whole.
    """
    listing = build_parser(load=())
    named, _rest = listing.parse_known_args(argv)
    name: str | None = getattr(named, "not_loaded", None)
    return listing if name is None else build_parser(load=(name,))


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
    parser = _parser_for(argv)
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
