"""``tablectl export``: every settled hand of the journal as a PHH hand history file."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.cli.commands._paths import (
    OUTPUT_FOLDER,
    READ_FILE,
    READ_FOLDER,
    make_folder,
    write_text,
)
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import SettingsError, load_config
from controller.history.phh.export import ExportError, export_hands
from controller.history.recall import describe_stakes, hands
from controller.journal import JournalError, JournalReader, Record
from controller.journal.schema import SchemaError
from controller.poker.words import counted


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``export``."""
    parser = subparsers.add_parser(
        "export",
        help=help_line("export"),
        description="Write every settled hand of the journal as a PHH hand history file "
        "(hand-N.phh, the only format) in --out, at the stakes each hand was dealt under "
        "(a journal written before hands recorded them: the configuration's, and a note "
        "says which hands), the chip, raise cap and rake PHH has no field for, and the chips "
        "the table raked, as _tablectl_ fields that import-phh reads back; a stack the table "
        "does not know is written inf. Exit status: "
        "0 written, 1 the journal or configuration is not usable, 2 usage error.",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default {DEFAULT_CONFIG}): its table id, "
        "[journal] dir, and the stakes of hands the journal has none for",
    )
    parser.add_argument(
        "--journal",
        type=READ_FOLDER,
        metavar="DIR",
        help="the journal directory (default: the configuration's [journal] dir)",
    )
    parser.add_argument(
        "--out",
        type=OUTPUT_FOLDER,
        required=True,
        metavar="DIR",
        help="the folder to write the files to",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Export; return the exit status."""
    try:
        settings = load_config(args.config)
        directory: Path = args.journal or settings.journal.dir
        records: list[Record] = list(JournalReader(directory))
        told = hands(records)
        exported = export_hands(told, settings.stakes, settings.table_id)
    # SchemaError: a record of a newer tablectl, or one that does not fit (named by its seq).
    except (SettingsError, JournalError, ExportError, SchemaError, FileNotFoundError) as error:
        print(f"tablectl export: {error}", file=sys.stderr)
        return 1
    make_folder(args.out, "--out")
    for number, text in exported:
        write_text(args.out / f"hand-{number}.phh", text, "--out")
    print(f"{counted(len(exported), 'hand')} written to {args.out}")
    written = {number for number, _text in exported}
    unrecorded = [hand.number for hand in told if hand.number in written and hand.terms is None]
    if unrecorded:
        print(
            f"{hands_named(unrecorded)}: the journal does not record the stakes (written before "
            f"hands recorded them); written with the configuration's, "
            f'{describe_stakes(settings.stakes)} (_tablectl_stakes = "configuration")'
        )
    return 0


def hands_named(numbers: list[int]) -> str:
    """``hand 4``, ``hands 1-3, 7``: runs of numbers in order (an old journal holds many)."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    named = ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 1 else f"{run[0]}" for run in runs)
    return f"hand {named}" if len(numbers) == 1 else f"hands {named}"
