"""The ``tablectl`` command line: one sub-command per module in ``controller.commands``.

Each command module defines ``register(subparsers)``, which adds its parser and
sets ``run`` (a function of the parsed arguments returning the exit status).
Every module in the ``controller.commands`` package is a command: adding a
command is adding its module.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from controller import __version__, commands


def command_modules() -> list[str]:
    """The sub-command modules, in name order (the order ``--help`` lists them)."""
    return sorted(
        f"{commands.__name__}.{info.name}" for info in pkgutil.iter_modules(commands.__path__)
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tablectl`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.print_help()
        return 2
    status: int = run(args)
    return status


if __name__ == "__main__":
    sys.exit(main())
