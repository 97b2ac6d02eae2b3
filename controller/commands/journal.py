"""``tablectl journal verify``: check the journal's hash chain and name the first bad record."""

from __future__ import annotations

import argparse
import sys
from typing import Final

from controller.cli import add_journal_options, journal_dir
from controller.config import SettingsError
from controller.journal import Anchor, verify

EXIT_INTACT: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``journal`` and its ``verify`` sub-command."""
    parser = subparsers.add_parser(
        "journal",
        help="check the table's journal",
        description="Check the table's journal: 'tablectl journal verify'.",
    )
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    check = actions.add_parser(
        "verify",
        help="check every record and link of the hash chain",
        description="Check the journal's hash chain across its files. Exit status: 0 intact, "
        "1 a problem found (the first bad record is named), 2 usage error.",
    )
    add_journal_options(check)
    check.add_argument(
        "--anchor",
        type=_anchor,
        metavar="SEQ:HASH",
        help="a head noted earlier (verify prints it): that record must still be there, "
        "unchanged; this catches records cut off the end",
    )
    check.set_defaults(run=run_verify)


def run_verify(args: argparse.Namespace) -> int:
    """Verify the journal ``--journal`` or ``--config`` names; print the verdict; return the
    exit status."""
    try:
        directory = journal_dir(args)
    except SettingsError as error:
        print(f"tablectl journal verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        report = verify(directory, anchor=args.anchor)
    except FileNotFoundError as error:
        print(f"tablectl journal verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not report.files and report.problem is None:
        print(
            f"tablectl journal verify: no journal files (journal-NNNNNN.jsonl) in {directory}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    print("\n".join(report.summary()))
    if args.anchor is not None and report.anchor is not None:
        print(f"  anchor {args.anchor.seq}: {report.anchor}")
    return EXIT_INTACT if report.intact else EXIT_PROBLEM


def _anchor(text: str) -> Anchor:
    try:
        return Anchor.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
