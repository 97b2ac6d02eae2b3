"""``tablectl journal verify``: check the journal's hash chain (and with ``--public-key`` its
checkpoints' signatures) and name the first bad record."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.cli.commands import _journal_hold
from controller.cli.commands._options import add_journal_options, journal_dir
from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.tabletoml import SettingsError
from controller.journal import Anchor, Record, VerifyReport, schema, signing, verify
from controller.journal.verify_signatures import SignatureCheck
from controller.logs.jsonreport import print_report

#: The record of which software a start ran (controller/history/attest.py; 13:69E-1.28B(d)).
SOFTWARE: Final = "software"

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
    #: The text's first line: the links and the signatures (docs/journal.md, Verdicts).
    verdict: str
    #: intact, broken or torn.
    links: str
    #: good (checked with --public-key), bad, not checked (no key given) or not judged (the
    #: links broke first).
    signatures_checked: str
    records: int
    files: list[str]
    head: Head | None
    problem: str | None
    torn: str | None
    set_aside: list[str]
    writer_open: bool
    anchor: AnchorResult | None
    #: With ``--public-key``: what the signatures' check covered (None: not asked).
    signatures: str | None = None
    #: The software in force at the journal's end: its last start's ``software`` record
    #: (docs/journal.md, The software record); None: the journal has none.
    software: SoftwareInForce | None = None

    @classmethod
    def of(
        cls, report: VerifyReport, anchor: Anchor | None, software: SoftwareInForce | None = None
    ) -> VerifyJson:
        """The report's facts, as plain values."""
        last = report.last
        return cls(
            journal=str(report.directory),
            intact=report.intact,
            verdict=report.summary()[0],
            links=report.verdict.links.value,
            signatures_checked=report.verdict.signatures.value,
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
            signatures=report.checked,
            software=software,
        )


@dataclass(frozen=True)
class SoftwareInForce:
    """The last ``software`` record of a journal: which software its last start ran."""

    seq: int
    digest: str
    version: str

    def line(self) -> str:
        return (
            f"  software: {self.digest} (tablectl {self.version}), journaled at record {self.seq}"
        )


@dataclass
class _SoftwareSeen:
    """Keeps the last ``software`` record verify has checked (verify's ``progress``)."""

    last: SoftwareInForce | None = None

    def __call__(self, record: Record) -> None:
        if record.kind != SOFTWARE:
            return
        try:
            data = schema.decode(record)
        except schema.SchemaError:
            return  # verify checks the chain; a record's data is recall's and the floor's to read
        assert isinstance(data, schema.SoftwareData)
        self.last = SoftwareInForce(record.seq, data.digest, data.version)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``journal`` and its ``verify`` sub-command."""
    parser = subparsers.add_parser(
        "journal",
        help=help_line("journal"),
        description="Check the table's journal: 'tablectl journal verify'; hold a disputed "
        "hand from retention: 'tablectl journal hold', 'release', 'holds'.",
    )
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    check = actions.add_parser(
        "verify",
        help="check every record and link of the hash chain",
        description="Check the journal's hash chain across its files, and with --public-key "
        "its signatures. The first line is the verdict (docs/journal.md, Verdicts): the links "
        "(intact, NOT INTACT at a record, or a TORN TAIL) and the signatures (GOOD, checked with "
        "the key given; BAD; or NOT CHECKED: no key given, so a chain re-hashed by a forger "
        "would pass). Exit status: 0 links intact and signatures GOOD or NOT CHECKED (the first "
        "line says which), 1 links not intact, a torn tail or a signature BAD (the first bad "
        "record is named), 2 usage error.",
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
        "--public-key",
        type=READ_FILE,
        metavar="FILE",
        help="the table's public key (table.pub, as registered with the floor): every "
        "checkpoint must be signed by the key in force, every new key handed over by the "
        "one before, and the key in FILE must be one of them (docs/journal.md, Signed "
        "checkpoints)",
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (docs/app.md, tablectl journal verify)",
    )
    check.set_defaults(run=run_verify)
    _journal_hold.register(actions)


def run_verify(args: argparse.Namespace) -> int:
    """Verify the journal ``--journal`` or ``--config`` names; print the verdict; return the
    exit status."""
    try:
        directory = journal_dir(args)
    except SettingsError as error:
        print(f"tablectl journal verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    signatures = None
    if args.public_key is not None:
        signatures = _signature_check(args.public_key)
        if signatures is None:
            return EXIT_USAGE
    try:
        seen = _SoftwareSeen()
        report = verify(directory, anchor=args.anchor, check=signatures, progress=seen)
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
        print_report(VerifyJson.of(report, args.anchor, seen.last))
        return report.verdict.exit_status
    print("\n".join(report.summary()))
    if seen.last is not None:
        print(seen.last.line())
    if args.anchor is not None and report.anchor is not None:
        print(f"  anchor {args.anchor.seq}: {report.anchor}")
    return report.verdict.exit_status


def _signature_check(path: Path) -> SignatureCheck | None:
    """The check of the key in ``path``; None (the reason printed) if it is no public key."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        print(
            f"tablectl journal verify: --public-key {path}: expected a readable table.pub "
            f"({reason})",
            file=sys.stderr,
        )
        return None
    try:
        return SignatureCheck(signing.parse_public_text(text, source=f"--public-key {path}"))
    except signing.SigningError as error:
        print(f"tablectl journal verify: {error}", file=sys.stderr)
        return None


def _anchor(text: str) -> Anchor:
    try:
        return Anchor.parse(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
