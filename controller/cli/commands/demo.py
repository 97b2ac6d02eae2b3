"""``tablectl demo``: the controller against the simulator with the random dealer.

On the dealer's display by default (``q`` quits); ``--headless --game G --hands N``
plays N hands without it and prints a summary. No hardware, no configuration.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import OUTPUT_FOLDER
from controller.cli.registry import help_line
from controller.config.settings import LogSettings
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.games import GAMES

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
        help=help_line("demo"),
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
        "--panel",
        choices=("tablectl", "keypad"),
        default="tablectl",
        help="the dealer's panel: the protocol panel (default), or a USB keypad panel on the "
        "simulator's keypad, the dealer's presses its keys through the default key map "
        "(docs/hardware-keypad.md)",
    )
    parser.add_argument(
        "--shoe",
        choices=("tablectl", "pn532"),
        default="tablectl",
        help="the shoe: the protocol shoe (default), or PN532 readers at the dealing slot and "
        "the discard reader, simulated on ptys, the cards' NTAG213 tags pitched past them "
        "(docs/hardware.md)",
    )
    parser.add_argument(
        "--dir",
        type=OUTPUT_FOLDER,
        metavar="DIR",
        help="keep the journal and decks here (default: a temporary folder, removed after)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the demo; return the exit status."""
    directory: Path | None = args.dir
    not_a_terminal = None if args.headless else _not_a_terminal()
    if not_a_terminal is not None:
        print(
            f"tablectl demo: {not_a_terminal} is not a terminal, and the dealer's display needs "
            "one; for a pipe or a file use --headless (e.g. tablectl demo --headless --hands 10)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    stop = threading.Event()
    signalled: list[int] = []
    where = f"; the journal is in {directory / 'journal'}" if directory is not None else ""
    try:
        with _stopped_by_signals(args.headless, stop, signalled):
            if directory is not None:
                problem = _unusable(directory)
                if problem is not None:
                    print(f"tablectl demo: --dir {directory}: {problem}", file=sys.stderr)
                    return EXIT_USAGE
                status = _run_in(args, directory, kept=True, stop=stop)
            else:
                with tempfile.TemporaryDirectory(prefix="tablectl-demo-") as folder:
                    status = _run_in(args, Path(folder), kept=False, stop=stop)
    except KeyboardInterrupt:  # Ctrl-C: the table is closed and its journal whole
        print(f"\ntablectl demo: stopped (Ctrl-C){where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Signalled as signal_:
        signalled.append(signal_.signum)
    if not signalled:
        return status
    # The table is closed, its journal whole, and a temporary folder removed by now.
    name = signal.Signals(signalled[0]).name
    with contextlib.suppress(OSError):  # after a SIGHUP the terminal may be gone
        print(f"tablectl demo: stopped by {name}{where}", file=sys.stderr)
    return 128 + signalled[0]


def _not_a_terminal() -> str | None:
    """The standard stream that is no terminal, or None: the display reads its keys from
    standard input and draws on standard error (Textual's way), and what it would print on
    standard output in a pipe is escape codes."""
    streams = (("standard output", sys.stdout), ("standard error", sys.stderr))
    for name, stream in (("standard input", sys.stdin), *streams):
        if stream is None or not stream.isatty():
            return name
    return None


class Signalled(BaseException):
    """SIGTERM or SIGHUP stopped a headless demo (a BaseException, as KeyboardInterrupt is:
    the ``with`` blocks on the way out close the table and remove a temporary folder)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


#: What a terminal closing (SIGHUP) or a service manager (SIGTERM) sends: their default ends
#: the process at once, and a temporary folder was left behind.
STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _stopped_by_signals(
    headless: bool, stop: threading.Event, signalled: list[int]
) -> Iterator[None]:
    """SIGTERM and SIGHUP stop the demo as Ctrl-C does: headless, by ``Signalled`` in the
    main thread; on the display, by ``stop`` (the table closes, then the display leaves the
    terminal as it found it, which an exception inside the display's loop would not do)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (a test may run the command elsewhere)
        return

    def on_signal(signum: int, _frame: object) -> None:
        for other in STOP_SIGNALS:  # a second signal must not cut the clean-up short
            signal.signal(other, signal.SIG_IGN)
        if headless:
            raise Signalled(signum)
        signalled.append(signum)
        stop.set()

    previous = {signum: signal.signal(signum, on_signal) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


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


def _run_in(args: argparse.Namespace, directory: Path, *, kept: bool, stop: threading.Event) -> int:
    # The log goes to a file beside the journal: neither the screen nor the summary is its place.
    configure_logging(LogSettings(file=directory / "tablectl.log"), table_id="DEMO-1")
    try:
        return _play(args, directory, kept=kept, stop=stop)
    finally:
        reset_logging()


def _play(args: argparse.Namespace, directory: Path, *, kept: bool, stop: threading.Event) -> int:
    # The simulator (and Textual) load only now: the controller's other commands never do.
    from simulator.demo import run_headless, run_on_display  # noqa: PLC0415

    if not args.headless:
        run_on_display(
            args.game,
            directory,
            seed=args.seed,
            pace=args.pace,
            stop=stop,
            panel=args.panel,
            shoe=args.shoe,
        )
        return EXIT_OK
    summary = run_headless(
        args.game,
        args.hands,
        directory,
        seed=args.seed,
        progress=sys.stderr,
        panel=args.panel,
        shoe=args.shoe,
    )
    print("\n".join(summary.lines(journal_kept=kept)))
    return EXIT_OK if summary.journal_intact else EXIT_FAILED
