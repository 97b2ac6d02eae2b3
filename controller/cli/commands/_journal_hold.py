"""``tablectl journal hold``, ``release`` and ``holds``: a hand under dispute kept from
retention until released (docs/journal.md, Retention; 13:69E-1.31(b))."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from controller.cli.commands._options import add_journal_options, journal_dir
from controller.config.tabletoml import SettingsError
from controller.journal import retention

EXIT_OK: Final = 0
EXIT_USAGE: Final = 2
#: What each action's help says of its exit status (the codes ``_act`` returns).
EXIT_STATUS: Final = (
    "Exit status: 0 done, 2 refused or usage error (the reason is printed: no such journal, "
    "a configuration that cannot be read, a hand not held)."
)


def register(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``hold``, ``release`` and ``holds`` to ``tablectl journal``."""
    hold = actions.add_parser(
        "hold",
        help="keep a disputed hand's journal files from retention until released",
        description="Hold hand N: retention ([journal] keep_days) deletes neither the file "
        "where it starts nor the one before it until 'tablectl journal release --hand N'. "
        f"{EXIT_STATUS}",
    )
    add_journal_options(hold)
    hold.add_argument("--hand", type=_hand, required=True, metavar="N", help="the hand number")
    hold.add_argument(
        "--reason", required=True, metavar="TEXT", help="why: the dispute's reference"
    )
    hold.set_defaults(run=run_hold)
    release = actions.add_parser(
        "release",
        help="release a disputed hand's hold",
        description="Release hand N's hold: retention may delete its files once they are "
        f"old. {EXIT_STATUS}",
    )
    add_journal_options(release)
    release.add_argument("--hand", type=_hand, required=True, metavar="N", help="the hand")
    release.set_defaults(run=run_release)
    listing = actions.add_parser(
        "holds",
        help="list the hands held from retention",
        description="List the hands held from retention, with when and why each was held. "
        f"{EXIT_STATUS}",
    )
    add_journal_options(listing)
    listing.set_defaults(run=run_holds)


def run_hold(args: argparse.Namespace) -> int:
    return _act("hold", args, lambda d: _held(retention.hold(d, args.hand, args.reason, _now())))


def run_release(args: argparse.Namespace) -> int:
    def release(directory: Path) -> str:
        released = retention.release(directory, args.hand)
        return f"hand {released.hand} released (held since {released.since}: {released.reason})"

    return _act("release", args, release)


def run_holds(args: argparse.Namespace) -> int:
    return _act("holds", args, lambda d: _held(retention.holds(d)))


def _act(name: str, args: argparse.Namespace, act: Callable[[Path], str]) -> int:
    try:
        directory = journal_dir(args)
    except SettingsError as error:
        print(f"tablectl journal {name}: {error}", file=sys.stderr)
        return EXIT_USAGE
    if not directory.is_dir():
        print(f"tablectl journal {name}: no journal directory {directory}", file=sys.stderr)
        return EXIT_USAGE
    try:
        print(act(directory))
    except (retention.RetentionError, OSError) as error:
        print(f"tablectl journal {name}: {error}", file=sys.stderr)
        return EXIT_USAGE
    return EXIT_OK


def _held(holds: list[retention.Hold]) -> str:
    if not holds:
        return "no hand is held"
    return "\n".join(f"hand {h.hand} held since {h.since}: {h.reason}" for h in holds)


def _now() -> datetime:
    return datetime.now(UTC)


def _hand(text: str) -> int:
    if not text.isdecimal() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"hand {text!r}: expected a hand number, 1 or more")
    return int(text)
