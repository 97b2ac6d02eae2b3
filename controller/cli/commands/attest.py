"""``tablectl attest [--config table.toml] [--seed HEX] [--json] [--list]``: which software this
table runs, as an inspector checks it (N.J.A.C. 13:69E-1.28B(d): a device's software validated
from outside, as a Game Authentication Terminal does; docs/deploy.md, Which software runs).

Without ``--seed``: the digest the table journals in its ``software`` record at every start
(controller/history/attest.py makes both). With ``--seed``: the keyed digest, HMAC-SHA256 by the
seed of every file read anew, which the inspector compares with the one their own copy of the
approved release gives for the same seed: a table cannot answer it from a list kept aside.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.history import attest
from controller.logs.jsonreport import print_report

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


@dataclass(frozen=True)
class AttestJson:
    """``attest --json``: the version, the files counted, and the digest or the challenge's
    answer (the seed echoed); the manifest's lines with ``--list``."""

    version: str
    product_files: int
    config_files: list[str]
    digest: str | None
    seed: str | None
    keyed_digest: str | None
    manifest: list[str] | None


def _seed(text: str) -> bytes:
    try:
        return attest.parse_seed(text)
    except attest.AttestError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``attest``."""
    parser = subparsers.add_parser(
        "attest",
        help=help_line("attest"),
        description="Print the SHA-256 digest over every file of the installed tablectl "
        "(packages controller, drivers, simulator) and the configuration file: the digest "
        "the table journals at every start and the floor approves. With --seed, the keyed "
        "digest instead (HMAC-SHA256 by the seed of every file), as a Game Authentication "
        "Terminal challenges a device (13:69E-1.28B(d)). Exit status: 0 printed, 1 a product "
        "file could not be read, 2 usage error (a bad seed, the configuration unreadable).",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration, in the digest (default: {DEFAULT_CONFIG})",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        metavar="HEX",
        help=f"the challenge's seed: at least {attest.SEED_BYTES} bytes as hex digits; prints "
        "the keyed digest",
    )
    parser.add_argument(
        "--list", action="store_true", help="print the manifest too: one line a file"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the digest (or the keyed digest); return the exit status."""
    config: Path = args.config
    try:
        config_files = attest.config_files(config)
        for path in config_files:
            attest.file_sha256(path)  # readable: else a usage error, not the product's fault
    except attest.AttestError as error:
        print(f"tablectl attest: --config {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        files = attest.package_files()
        found = attest.manifest(files, config_files, attest.installed_version())
        seed: bytes | None = args.seed
        keyed = None if seed is None else attest.keyed_digest(seed, files, config_files)
    except attest.AttestError as error:
        print(f"tablectl attest: {error}", file=sys.stderr)
        return EXIT_PROBLEM
    report = AttestJson(
        version=found.version,
        product_files=len(found.files),
        config_files=sorted(found.config),
        digest=found.digest if seed is None else None,
        seed=None if seed is None else seed.hex(),
        keyed_digest=keyed,
        manifest=found.lines if args.list else None,
    )
    if args.json:
        print_report(report)
    else:
        _print(report)
    return EXIT_OK


def _print(report: AttestJson) -> None:
    if report.manifest is not None:
        print("\n".join(report.manifest))
    if report.keyed_digest is not None:
        print(f"seed          {report.seed}")
        print(f"keyed digest  {report.keyed_digest}")
    else:
        print(f"digest        {report.digest}")
    print(f"version       tablectl {report.version}")
    configs = ", ".join(report.config_files)
    print(f"files         {report.product_files} of the product, configuration {configs}")
