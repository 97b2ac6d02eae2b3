"""``tablectl export``: every settled hand of the journal as a PHH hand history file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.app.phh import ExportError, export_hands
from controller.app.recall import hands
from controller.config import SettingsError, load_config
from controller.journal import JournalError, JournalReader, Record
from controller.settings import DEFAULT_CONFIG
from controller.words import counted


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``export``."""
    parser = subparsers.add_parser(
        "export",
        help="export the journal's hands as PHH hand histories",
        description="Write every settled hand of the journal as a PHH hand history file "
        "(hand-N.phh, the only format) in --out. The stakes come from the table's "
        "configuration; a stack the table does not know is written inf. Exit status: "
        "0 written, 1 the journal or configuration is not usable, 2 usage error.",
    )
    parser.add_argument(
        "--config",
        type=Path,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default {DEFAULT_CONFIG}): its stakes, table id "
        "and [journal] dir",
    )
    parser.add_argument(
        "--journal",
        type=Path,
        metavar="DIR",
        help="the journal directory (default: the configuration's [journal] dir)",
    )
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="the folder to write the files to"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Export; return the exit status."""
    try:
        settings = load_config(args.config)
        directory: Path = args.journal or settings.journal.dir
        records: list[Record] = list(JournalReader(directory))
        exported = export_hands(hands(records), settings.stakes, settings.table_id)
    except (SettingsError, JournalError, ExportError, FileNotFoundError) as error:
        print(f"tablectl export: {error}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for number, text in exported:
        (args.out / f"hand-{number}.phh").write_text(text, encoding="utf-8")
    print(f"{counted(len(exported), 'hand')} written to {args.out}")
    return 0
