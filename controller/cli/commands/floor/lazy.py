"""The floor's commands run what they import only when they run: their modules need the
``floor`` extra (psycopg, Starlette, uvicorn, argon2), which a table PC's commands never do
(``make demo`` installs no psycopg)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Final

#: A command: its arguments in, its exit status out.
Runner = Callable[[argparse.Namespace], int]
EXIT_PROBLEM: Final = 1
#: What a missing psycopg means, and how to get it.
NO_PSYCOPG: Final = (
    "tablectl floor: psycopg (PostgreSQL's client) is not installed: the floor needs tablectl's "
    "floor extra (pip install 'tablectl[floor]'; in this checkout: make floor-demo)"
)


def lazy(load: Callable[[], Runner]) -> Runner:
    """The command ``load`` imports and returns, imported only when the command runs (its module
    needs the ``floor`` extra: a missing psycopg is said, not a traceback)."""

    def run(args: argparse.Namespace) -> int:
        try:
            runner = load()
        except ModuleNotFoundError as error:
            if error.name != "psycopg":
                raise
            print(NO_PSYCOPG, file=sys.stderr)
            return EXIT_PROBLEM
        return runner(args)

    return run
