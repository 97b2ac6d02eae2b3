"""What a command runs, and each command of ``tablectl`` itself, is imported when it is used, not
when the command line starts (docs/app.md, The command line: one command loaded).

One mechanism for both: a *loader*, a function that imports one name and returns it
(``from controller.cli.commands import status; return status.register``). A function, not a
``"module:function"`` string as python-can's backend table has, so that mypy checks the import
and the type of what it returns; tests/test_cli_registry.py calls every loader.

The top level's are controller/cli/registry.py's (each command's parser, loaded for the command
run); the floor's actions' are controller/cli/commands/floor/: their modules need the ``floor``
extra (psycopg, Starlette, uvicorn, argon2), which a table PC's commands never do (``make demo``
installs no psycopg), so ``Lazy`` says a missing psycopg in one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, TypeVar

T = TypeVar("T")
#: A function that imports what it names and returns it.
Loader = Callable[[], T]
#: A command: its arguments in, its exit status out.
Runner = Callable[[argparse.Namespace], int]
EXIT_PROBLEM: Final = 1
#: What a missing psycopg means, and how to get it.
NO_PSYCOPG: Final = (
    "tablectl floor: psycopg (PostgreSQL's client) is not installed: the floor needs tablectl's "
    "floor extra (pip install 'tablectl[floor]'; in this checkout: make floor-demo)"
)


@dataclass(frozen=True)
class Lazy:
    """A command that runs what ``load`` imports and returns, imported only when the command
    runs (its module needs the ``floor`` extra: a missing psycopg is said, not a traceback)."""

    load: Loader[Runner]

    def __call__(self, args: argparse.Namespace) -> int:
        try:
            runner = self.load()
        except ModuleNotFoundError as error:
            if error.name != "psycopg":
                raise
            print(NO_PSYCOPG, file=sys.stderr)
            return EXIT_PROBLEM
        return runner(args)
