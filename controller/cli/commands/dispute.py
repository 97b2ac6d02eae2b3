"""``tablectl dispute --hand N --out DIR``: the dispute bundle of one hand from the table's journal;
``tablectl dispute verify DIR``: check a bundle offline (13:69E-1.31(b); docs/journal.md,
The dispute bundle). The bundle's format and checks are controller/history/dispute/."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import OUTPUT_FOLDER, READ_FILE, READ_FOLDER
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import SettingsError, load_config
from controller.history import dispute
from controller.journal import JournalError, JournalReader, schema, signing, verify
from controller.journal.verify_signatures import SignatureCheck
from controller.logs.jsonreport import print_report

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


def _hand(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"hand {text!r}: expected a hand number, 1 or more")
    return int(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``dispute`` and its ``verify``."""
    parser = subparsers.add_parser(
        "dispute",
        help=help_line("dispute"),
        description="Write the dispute bundle of hand N (docs/journal.md, The dispute bundle): "
        "its journal records from the signed checkpoint before it to the one after, its recall, "
        "PHH export, terms, the software record in force and the table's public key, each "
        "file's SHA-256 in manifest.json. 'tablectl dispute verify DIR' checks a bundle on any "
        "machine. Exit status: 0 written, 1 the journal does not verify or cannot tell the "
        "hand, 2 usage error (a hand not in the journal, --out not empty, a configuration or "
        "key that cannot be read).",
    )
    parser.add_argument("--hand", type=_hand, metavar="N", help="the hand's number")
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default {DEFAULT_CONFIG}): its table id, "
        "[journal] dir and [keys] (table.pub beside the private key)",
    )
    parser.add_argument(
        "--public-key",
        type=READ_FILE,
        metavar="FILE",
        help="the table's public key (default: table.pub beside [keys] private_key)",
    )
    parser.add_argument("--out", type=OUTPUT_FOLDER, metavar="DIR", help="a new or empty folder")
    parser.set_defaults(run=run_make)
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    check = actions.add_parser(
        "verify",
        help="check a dispute bundle offline",
        description="Check a dispute bundle with no table.toml: every file's SHA-256, the "
        "records' chain, the checkpoints' signatures, the recall, PHH, terms and software "
        "made again from the records and equal to the bundled ones (another software's, "
        "worded otherwise, noted, not failed). The first line is the verdict (docs/journal.md, "
        "Verdicts): the links, and the signatures GOOD (checked with --public-key), BAD, or NOT "
        "CHECKED (no key given: the bundle's own table.pub, which a forger could have made). "
        "Exit status: 0 links intact and signatures GOOD or NOT CHECKED (the first line says "
        "which), 1 a check failed (named), 2 usage error.",
    )
    check.add_argument("bundle", type=READ_FOLDER, metavar="DIR", help="the bundle's folder")
    check.add_argument(
        "--public-key",
        type=READ_FILE,
        metavar="FILE",
        help="the table's public key as the floor registered it (stronger than the bundle's "
        "own table.pub, which whoever made the bundle could have made too)",
    )
    check.add_argument("--json", action="store_true", help="print one JSON object")
    check.set_defaults(run=run_verify)


def public_key(path: Path, command: str) -> str | None:
    """The key of a table.pub file, or None after saying why it is none."""
    try:
        text = path.read_text(encoding="utf-8")
        return signing.parse_public_text(text, source=str(path))
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        print(
            f"tablectl {command}: {path}: expected a readable table.pub ({reason})", file=sys.stderr
        )
    except signing.SigningError as error:
        print(f"tablectl {command}: {error}", file=sys.stderr)
    return None


def run_make(args: argparse.Namespace) -> int:
    """Make the bundle; return the exit status."""
    if args.hand is None or args.out is None:
        print(
            "tablectl dispute: expected --hand N and --out DIR (or: dispute verify DIR)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    try:
        settings = load_config(args.config)
    except SettingsError as error:
        print(f"tablectl dispute: {error}", file=sys.stderr)
        return EXIT_USAGE
    unkeyed = args.public_key is None and not settings.keys.private_key.exists()
    if unkeyed and not settings.keys.public_key.exists():
        print(
            f"tablectl dispute: the table signs nothing yet: no key at "
            f"{settings.keys.private_key} ([keys] private_key of {settings.source}), so its "
            "journal has no signed checkpoint to bound a bundle by; make the table's key with "
            "tablectl keys init (docs/deploy.md, The table's key), or give the key the journal "
            "was signed by: --public-key FILE",
            file=sys.stderr,
        )
        return EXIT_USAGE
    key = public_key(args.public_key or settings.keys.public_key, "dispute")
    if key is None:
        return EXIT_USAGE
    directory = settings.journal.dir
    where = f"the journal {directory}"
    try:
        bounds = _found(directory, key, args.hand, where)
    except _Refused as refused:
        print(f"tablectl dispute: {refused.message}", file=sys.stderr)
        return refused.status
    return write(
        args, table_id=settings.table_id, lines=_lines(directory, bounds), bounds=bounds,
        made_from=where,
    )  # fmt: skip


class _Refused(Exception):
    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.message, self.status = message, status


def _found(directory: Path, key: str, hand: int, where: str) -> dispute.Bounds:
    """The whole journal verified (chain and signatures by ``key``) and the hand's bounds found
    in one pass; _Refused with the message and exit status otherwise."""
    found = dispute.Finder(hand)
    try:
        report = verify(directory, check=SignatureCheck(key), progress=found)
    except FileNotFoundError:
        raise _Refused(f"no journal directory {directory}", EXIT_USAGE) from None
    except schema.SchemaError as error:
        raise _Refused(f"{where}: {error}", EXIT_PROBLEM) from None
    if not report.intact:
        said = "\n".join(report.summary())
        raise _Refused(f"{where} does not verify:\n{said}", EXIT_PROBLEM)
    try:
        return dispute.bounds(found, where)
    except dispute.DisputeError as error:
        raise _Refused(str(error), EXIT_PROBLEM if found.hand_starts else EXIT_USAGE) from None


def _lines(directory: Path, bounds: dispute.Bounds) -> list[bytes]:
    """The exact lines of the records in ``bounds`` (read again: the first pass kept none)."""
    lines = []
    for record in JournalReader(directory):
        if record.seq > bounds.last_seq:
            break
        if record.seq >= bounds.first_seq:
            lines.append(record.line().rstrip(b"\n"))
    return lines


def write(
    args: argparse.Namespace,
    *,
    table_id: str,
    lines: list[bytes],
    bounds: dispute.Bounds,
    made_from: str,
    command: str = "dispute",
) -> int:
    """Make, write and check the bundle of ``lines``; say where it is (table and floor)."""
    try:
        files = dispute.make(
            lines, hand=args.hand, table_id=table_id, where=bounds, made_from=made_from
        )
        dispute.write(args.out, files)
    except (dispute.DisputeError, JournalError, schema.SchemaError) as error:
        print(f"tablectl {command}: {error}", file=sys.stderr)
        return EXIT_USAGE if str(error).startswith("--out") else EXIT_PROBLEM
    except OSError as error:
        print(
            f"tablectl {command}: --out {args.out}: expected a new or empty folder to write "
            f"to: {error.strerror}",
            file=sys.stderr,
        )
        return EXIT_USAGE
    verdict = dispute.check(args.out)
    ends = (
        "the signed checkpoint after it"
        if bounds.ends == "checkpoint"
        else "the journal's end (no signed checkpoint follows the hand yet)"
    )
    begins = "the journal's first record" if bounds.begins == "genesis" else "a signed checkpoint"
    print(
        f"hand {args.hand}: dispute bundle written to {args.out}: records {bounds.first_seq} to "
        f"{bounds.last_seq}, from {begins} to {ends}; {len(files)} files"
    )
    if not verdict.verified:
        _print_verdict(verdict, None)
        return EXIT_PROBLEM
    return EXIT_OK


@dataclass(frozen=True)
class VerifyJson:
    """``dispute verify --json``: the verdict, the key used and each check."""

    bundle: str
    #: Nothing found wrong (exit 0): the links intact, no check failed.
    ok: bool
    #: ok, and the signatures GOOD, checked with the key given (--public-key): never without it.
    verified: bool
    hand: int | None
    table: str | None
    #: ``file`` (--public-key) or ``bundle`` (its own table.pub; weaker, see ``key_strength``).
    key_source: str
    key_strength: str
    #: The first line: the links and the signatures (docs/journal.md, Verdicts).
    verdict: str
    #: good (checked with --public-key), bad, not checked (no key given: the bundle's own
    #: table.pub only) or not judged (the links broke first).
    signatures_checked: str
    checks: list[dispute.Check]


def run_verify(args: argparse.Namespace) -> int:
    """Check the bundle; print the verdict; return the exit status."""
    if not args.bundle.is_dir():
        print(f"tablectl dispute verify: no bundle folder {args.bundle}", file=sys.stderr)
        return EXIT_USAGE
    given = None
    if args.public_key is not None:
        given = public_key(args.public_key, "dispute verify")
        if given is None:
            return EXIT_USAGE
    verdict = dispute.check(args.bundle, given)
    judged = verdict.judged(given)
    source = "file" if given is not None else "bundle"
    if args.json:
        manifest = verdict.manifest
        print_report(
            VerifyJson(
                str(args.bundle),
                judged.ok,
                judged.verified,
                None if manifest is None else manifest.hand,
                None if manifest is None else manifest.table_id,
                source,
                dispute.KEY_STRENGTH[source],
                judged.text(),
                judged.signatures.value,
                verdict.checks,
            )
        )
    else:
        _print_verdict(verdict, given)
    return judged.exit_status


def _print_verdict(verdict: dispute.Verdict, given: str | None) -> None:
    manifest = verdict.manifest
    what = "" if manifest is None else f" (table {manifest.table_id}, hand {manifest.hand})"
    print(f"dispute bundle {verdict.bundle}{what}: {verdict.judged(given).text()}")
    for check in verdict.checks:
        said = "note" if check.note else "ok" if check.ok else "FAILED"
        print(f"  {check.name}: {said}: {check.detail}")
