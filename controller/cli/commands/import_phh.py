"""``tablectl import-phh FILE``: a PHH hand history written out as a hand script.

Reads one PHH hand (TOML; fixed-limit 2-7 triple draw, variant ``F2L3D``, and
the stud games as tablectl's export writes them, ``F5S`` and ``FMB/6``) and
prints it as a hand script (docs/hand-script.md) that ``tablectl replay`` plays
through the engine, its players in the file's ``seats``, at the file's stakes
(the chip, raise cap and rake of tablectl's ``_tablectl_`` fields). Exit status: 0
when the hand was converted, 1 when tablectl does not convert it (another variant;
rules that differ from docs/rules-interpretation.md; a hand that does not settle
as the file records: its ``_tablectl_rake``, its ``finishing_stacks``; the reason on
standard error), 2 when the file cannot be read.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from controller.cli.commands._paths import READ_FILE, PathError, read_text
from controller.cli.registry import help_line
from controller.history.phh.convert import to_hand_script
from controller.history.phh.parse import PhhError, PhhUnsupported, read_phh


def register(subparsers: Any) -> None:
    """Add the ``import-phh`` command to the ``tablectl`` parser."""
    parser = subparsers.add_parser(
        "import-phh",
        help=help_line("import-phh"),
        description="Read one PHH hand history (TOML) and print it as a hand script "
        "(docs/hand-script.md) that 'tablectl replay' plays, its players in the file's seats, "
        "at its stakes (tablectl's _tablectl_chip, _tablectl_cap and _tablectl_rake_* "
        "fields: the hand settles as the table did, rake included). "
        "PHH variants converted: F2L3D (fixed-limit Triple Draw 2-7, 14.12A), and F5S and "
        "FMB/6 as tablectl export writes them (Five-Card Stud, 14.13; Mambo Stud, 14.13A). "
        "Exit status: 0 converted, 1 not converted "
        "(another variant; rules that differ from docs/rules-interpretation.md; a hand that "
        "does not settle as the file records, its _tablectl_rake and finishing_stacks: the "
        "reason is printed), 2 the file cannot be read.",
    )
    parser.add_argument("file", type=READ_FILE, help="a PHH file (one hand)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Convert ``args.file``; return the exit status."""
    source = str(args.file)
    try:
        text = read_text(args.file, "file")
    except PathError as error:  # not there, not readable, or not text
        print(error, file=sys.stderr)
        return 2
    try:
        hand = read_phh(text, source)
    except PhhUnsupported as why:  # another variant
        return _not_converted(source, why)
    except PhhError as error:  # its message names the file
        print(error, file=sys.stderr)
        return 2
    try:
        converted = to_hand_script(hand)
    except PhhUnsupported as why:  # rules that differ from docs/rules-interpretation.md
        return _not_converted(source, why)
    except ValueError as error:  # PhhError, and a card code the file spells wrongly
        print(f"{source}: {error}", file=sys.stderr)
        return 2
    sys.stdout.write(f"# converted from {source}\n{converted.script()}")
    return 0


def _not_converted(source: str, why: PhhUnsupported) -> int:
    print(f"{source}: not converted: {why}", file=sys.stderr)
    return 1
