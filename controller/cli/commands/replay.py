"""``tablectl replay [--game GAME] SCRIPT``: replay a hand script, one JSON event per line.

The script (docs/hand-script.md) gives the table's setup and its inputs; every
engine output event is printed to standard output as one JSON object. A line
that cannot be read is reported on standard error as ``file:line: what was
expected``; ``--keep-going`` skips it and goes on, the default stops there.
Exit status: 0 when every line was read, 1 when a line was bad, 2 when the
script or its setup cannot be used at all.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli.commands._paths import READ_FILE, PathError, read_text
from controller.cli.registry import help_line
from controller.history.script import HandScript, ScriptError, ScriptLine, parse_script
from controller.poker.engine import ConfigError, Table
from controller.poker.engine.events import to_json
from controller.poker.games import GAMES


def register(subparsers: Any) -> None:
    """Add the ``replay`` command to the ``tablectl`` parser."""
    parser = subparsers.add_parser(
        "replay",
        help=help_line("replay"),
        description="Replay a hand script (docs/hand-script.md): its setup and inputs "
        "through the engine, every event printed as one JSON object a line. A bad line is "
        "reported on standard error as file:line: what was expected. Exit status: 0 every "
        "line read, 1 a line was bad, 2 the script or its setup cannot be used.",
    )
    parser.add_argument(
        "--game",
        choices=sorted(GAMES),
        help="the game; required unless the script's setup names it (they must agree)",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="report a bad line and go on with the next (default: stop at the first)",
    )
    parser.add_argument("script", type=READ_FILE, help="the hand script (docs/hand-script.md)")
    parser.set_defaults(run=run)


class _Unusable(Exception):
    """The script or its setup cannot be replayed at all (exit status 2)."""


def _load(args: argparse.Namespace) -> tuple[Table, HandScript]:
    source = str(args.script)
    try:
        text = read_text(args.script, "script")
    except PathError as error:  # not there, not readable, or not text
        raise _Unusable(str(error)) from None
    try:
        script = parse_script(text, source)
    except ScriptError as error:
        raise _Unusable(str(error)) from None
    game = args.game or script.game
    if game is None:
        raise _Unusable(f"{source}: no game: give --game or a 'game' line in the setup")
    if script.game is not None and args.game is not None and script.game != args.game:
        raise _Unusable(f"{source}: the script is for {script.game!r} but --game is {args.game!r}")
    if game not in GAMES:
        raise _Unusable(f"{source}: unknown game {game!r}; expected one of {sorted(GAMES)}")
    try:
        return Table(GAMES[game], script.config), script
    except ConfigError as error:
        raise _Unusable(f"{source}: {error}") from None


def run(args: argparse.Namespace) -> int:
    """Replay ``args.script``; return the exit status."""
    try:
        table, script = _load(args)
    except _Unusable as error:
        print(error, file=sys.stderr)
        return 2
    items: list[ScriptLine | ScriptError] = [*script.lines, *script.errors]
    items.sort(key=lambda item: item.line)
    status = 0
    out = sys.stdout
    for item in items:
        if isinstance(item, ScriptError):
            print(item, file=sys.stderr)
            status = 1
            if not args.keep_going:
                break
            continue
        for event in table.apply(item.input):
            out.write(to_json(event) + "\n")
    return status
