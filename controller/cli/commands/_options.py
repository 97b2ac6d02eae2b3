"""Options several commands share: where the journal is (``--journal`` or ``--config``), and the
RFID repeat window (``tablectl run`` and ``tablectl sim``, which must be given the same)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import READ_FILE, READ_FOLDER
from controller.config.settings import DEFAULT_JOURNAL_DIR
from controller.config.tabletoml import load_config

#: The longest repeat window taken: an hour, far past any dealer's pause between two cards.
MAX_REPEAT_WINDOW: Final = 3600.0


def repeat_window(text: str) -> float:
    """``--repeat-window SECONDS``: more than 0 and under an hour (argparse names the option).
    Zero, a negative number or nan would take a card lingering in the field for a new read
    each time it is seen (docs/protocol.md, 7)."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 < seconds < MAX_REPEAT_WINDOW:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected a number of seconds above 0 and under {MAX_REPEAT_WINDOW:g}"
        )
    return seconds


def add_journal_options(parser: argparse.ArgumentParser) -> None:
    """``--journal DIR`` or ``--config FILE`` (its ``[journal] dir``), not both."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--journal",
        type=READ_FOLDER,
        default=DEFAULT_JOURNAL_DIR,
        metavar="DIR",
        help=f"the journal directory (default: {DEFAULT_JOURNAL_DIR})",
    )
    where.add_argument(
        "--config",
        type=READ_FILE,
        metavar="FILE",
        help="the table's configuration (table.toml): the journal is its [journal] dir",
    )


def journal_dir(args: argparse.Namespace) -> Path:
    """The journal the options of ``add_journal_options`` name; SettingsError naming the
    configuration file and what is wrong in it, if ``--config`` cannot be read."""
    if args.config is None:
        directory: Path = args.journal
        return directory
    return load_config(args.config).journal.dir
