"""``tablectl demo``: the controller against the simulator with the random dealer.

On the dealer's display by default (``q`` quits); ``--headless --game G --hands N``
plays N hands without it and prints a summary. No hardware, no configuration.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Final

from controller.app.demo import run_headless, run_on_display
from controller.games import GAMES
from controller.logsetup import configure_logging, reset_logging
from controller.settings import LogSettings

DEFAULT_GAME: Final = "mambo"
EXIT_OK: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2
#: Stopped by Ctrl-C (SIGINT): 128 + 2, as a shell reports a process ended by it.
EXIT_INTERRUPTED: Final = 130


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"hands {text!r}: expected a whole number, 1 or more")
    return int(text)


def _pace(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value <= 10:
        raise argparse.ArgumentTypeError(f"pace {text!r}: expected 0 to 10 seconds per action")
    return value


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``demo``."""
    parser = subparsers.add_parser(
        "demo",
        help="watch a simulated table dealt and settled (no hardware, no configuration)",
        description="Run the controller against the simulated shoe and panel, dealt by a "
        "random dealer. On the dealer's display until q; or --headless, which plays --hands "
        "hands and prints a summary (a progress bar at a terminal). Exit status: 0 done, "
        "1 the journal did not verify intact, 2 usage error (a --dir that holds a journal), "
        "130 stopped by Ctrl-C.",
    )
    parser.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=DEFAULT_GAME,
        help="the game dealt (default %(default)s)",
    )
    parser.add_argument("--headless", action="store_true", help="no display: print a summary")
    parser.add_argument(
        "--hands", type=_positive, default=10, help="hands to play headless (default 10)"
    )
    parser.add_argument("--seed", type=int, default=0, help="the shuffles' and dealer's seed")
    parser.add_argument(
        "--pace",
        type=_pace,
        default=0.15,
        help="seconds between the dealer's actions on the display (default 0.15: a hand "
        "takes a few seconds)",
    )
    parser.add_argument(
        "--dir",
        type=Path,
        metavar="DIR",
        help="keep the journal and decks here (default: a temporary folder, removed after)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; return the exit status."""
    directory: Path | None = args.dir
    try:
        if directory is not None:
            problem = _unusable(directory)
            if problem is not None:
                print(f"tablectl demo: --dir {directory}: {problem}", file=sys.stderr)
                return EXIT_USAGE
            return _run_in(args, directory, kept=True)
        with tempfile.TemporaryDirectory(prefix="tablectl-demo-") as folder:
            return _run_in(args, Path(folder), kept=False)
    except KeyboardInterrupt:  # Ctrl-C: the table is closed and its journal whole
        where = f"; the journal is in {directory / 'journal'}" if directory is not None else ""
        print(f"\ntablectl demo: stopped (Ctrl-C){where}", file=sys.stderr)
        return EXIT_INTERRUPTED


def _unusable(directory: Path) -> str | None:
    """Why ``--dir`` cannot hold a new demo table (made if missing), or None.

    A folder holding a journal is refused: the demo deals a new table from hand 1, while a
    controller started on that journal resumes its table where it stopped.
    """
    if directory.exists() and not directory.is_dir():
        return "it is not a folder; expected a folder to write to (made if missing)"
    journal = directory / "journal"
    if journal.is_dir() and any(journal.glob("journal-*.jsonl")):
        return (
            f"it already holds a journal ({journal}); the demo starts a new table: give a "
            "new or empty folder"
        )
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make the folder: {error.strerror}; expected a folder to write to"
    return None


def _run_in(args: argparse.Namespace, directory: Path, *, kept: bool) -> int:
    # The log goes to a file beside the journal: neither the screen nor the summary is its place.
    configure_logging(LogSettings(file=directory / "tablectl.log"), table_id="DEMO-1")
    try:
        return _play(args, directory, kept=kept)
    finally:
        reset_logging()


def _play(args: argparse.Namespace, directory: Path, *, kept: bool) -> int:
    if not args.headless:
        run_on_display(args.game, directory, seed=args.seed, pace=args.pace)
        return EXIT_OK
    summary = run_headless(args.game, args.hands, directory, seed=args.seed, progress=sys.stderr)
    print("\n".join(summary.lines(journal_kept=kept)))
    return EXIT_OK if summary.journal_intact else EXIT_FAILED
