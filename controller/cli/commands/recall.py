"""``tablectl recall [N]``: the last N hands of the journal (default 10), oldest first."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from controller.cli.commands._options import add_journal_options, journal_dir
from controller.cli.registry import help_line
from controller.config.tabletoml import SettingsError
from controller.history.recall import RecalledHand, format_hand, hands
from controller.journal import JournalError, JournalReader, Record, schema
from controller.journal.files import journal_files, plain_size
from controller.logs.jsonreport import print_report
from controller.logs.progress import Progress


@dataclass(frozen=True)
class RecallReport:
    """``recall --json``: the hands, oldest first, and whether the journal read intact."""

    journal: str
    intact: bool
    #: The first bad record, when not intact (the hands before it are given).
    problem: str | None
    hands: list[RecalledHand]


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"N {text!r}: expected a whole number of hands, 1 or more")
    return int(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``recall``."""
    parser = subparsers.add_parser(
        "recall",
        help=help_line("recall"),
        description="Show the last N hands of the journal, oldest first, each with its cards, "
        "actions and settlement. Reads without stopping the table. Exit status: 0 shown, "
        "1 the journal is not intact (the hands before the problem are shown), 2 usage error.",
    )
    parser.add_argument(
        "count",
        nargs="?",
        type=_count,
        default=10,
        metavar="N",
        help="how many hands, the last ones (default 10)",
    )
    add_journal_options(parser)
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: the hands' lines and events (docs/app.md, tablectl recall)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the hands; return the exit status."""
    try:
        directory = journal_dir(args)
    except SettingsError as error:
        print(f"tablectl recall: {error}", file=sys.stderr)
        return 2
    if not directory.is_dir():
        print(f"tablectl recall: no journal directory {directory}", file=sys.stderr)
        return 2
    reader = JournalReader(directory)
    records: list[Record] = []
    problem: JournalError | None = None
    # A large journal takes a while: a progress bar at a terminal, nothing in a pipe.
    total = sum(plain_size(path) for _, path in journal_files(directory))
    bar = Progress(max(1, total // 1024), label="KiB read")
    read = 0
    try:
        for record in reader:
            records.append(record)
            read += len(record.line())
            if bar.enabled and len(records) % 1000 == 0:
                bar.update(read // 1024)
        if bar.done:
            bar.update(bar.total)  # finish the bar's line
    except JournalError as error:
        problem = error
    try:
        shown = hands(records, args.count)
    except schema.SchemaError as error:  # a newer tablectl's journal, or a damaged record
        print(f"tablectl recall: {error}", file=sys.stderr)
        return 1
    if args.json:
        print_report(
            RecallReport(
                journal=str(directory),
                intact=problem is None,
                problem=None if problem is None else str(problem),
                hands=[RecalledHand.of(hand) for hand in shown],
            )
        )
    elif not shown:
        print(f"no hands in the journal {directory}")
    else:
        print("\n\n".join(format_hand(hand) for hand in shown))
    if problem is not None:
        print(f"tablectl recall: the journal is not intact: {problem}", file=sys.stderr)
        return 1
    return 0
