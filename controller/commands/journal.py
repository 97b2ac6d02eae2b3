"""``tablectl journal verify``: check the journal's hash chain and name the first bad record."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Final

from controller.commands._options import add_journal_options, journal_dir
from controller.config import SettingsError
from controller.journal import Anchor, VerifyReport, verify
from controller.jsonreport import print_report

EXIT_INTACT: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


@dataclass(frozen=True)
class Head:
    """The chain's head: the last intact record."""

    seq: int
    time: str
    hash: str
    #: ``SEQ:HASH``, as ``--anchor`` takes it.
    anchor: str


@dataclass(frozen=True)
class AnchorResult:
    """With ``--anchor``: the anchor given and what became of it."""

    given: str
    #: matched, changed, cut_off or not_reached.
    check: str
    text: str


@dataclass(frozen=True)
class VerifyJson:
    """``journal verify --json``: the verdict and every fact the text gives."""

    journal: str
    intact: bool
    #: The text's first line: intact, NOT INTACT or TORN TAIL.
    verdict: str
    records: int
    files: list[str]
    head: Head | None
    problem: str | None
    torn: str | None
    set_aside: list[str]
    writer_open: bool
    anchor: AnchorResult | None

    @classmethod
    def of(cls, report: VerifyReport, anchor: Anchor | None) -> VerifyJson:
        """The report's facts, as plain values."""
        last = report.last
        return cls(
            journal=str(report.directory),
            intact=report.intact,
            verdict=report.summary()[0],
            records=report.records,
            files=[path.name for path in report.files],
            head=None
            if last is None
            else Head(last.seq, last.ts, last.hash, f"{last.seq}:{last.hash}"),
            problem=None if report.problem is None else str(report.problem),
            torn=None if report.torn is None else report.torn.describe(),
            set_aside=[path.name for path in report.set_aside],
            writer_open=report.writer_open,
            anchor=None
            if anchor is None or report.anchor is None
            else AnchorResult(str(anchor), report.anchor.name.lower(), report.anchor.value),
        )


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
    check.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (docs/app.md, tablectl journal verify)",
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
    if args.json:
        print_report(VerifyJson.of(report, args.anchor))
        return EXIT_INTACT if report.intact else EXIT_PROBLEM
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
