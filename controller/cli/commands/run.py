"""``tablectl run --config table.toml``: run one live table until SIGTERM or SIGINT.

The dealer's display is a process of its own that attaches to the running table
(``tablectl display --config table.toml``, docs/display.md): the table publishes
its view on the display socket and never waits on a display.
"""

from __future__ import annotations

import argparse
import sys
import threading
from typing import Final

from controller.cli.commands._options import repeat_window
from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import SettingsError, load_config
from controller.journal import JournalError
from controller.journal.tablekey import TableKeyError
from controller.journal.tablerecords import RecordFormatError
from controller.logs.logsetup import configure_logging
from controller.table.control import ControlServer
from controller.table.core import CheckpointMismatch, ReplayMismatch
from controller.table.displayfeed import DisplayFeed
from controller.table.service import (
    StartError,
    build_controller,
    hotplug_monitor,
    refuse_root,
    serve,
    sockets_without_folder,
    stop_on_signals,
)
from controller.table.systemd import NotifyError, ServiceNotifier
from drivers.deck import DeckError
from drivers.seam.device import DeviceHeld

EXIT_STOPPED: Final = 0
EXIT_FAILED: Final = 1
EXIT_USAGE: Final = 2

#: ``run --display`` is gone: the display attaches to the running table instead.
DISPLAY_MOVED: Final = (
    "tablectl run: --display is no longer an option of run: run the table without it "
    "(`tablectl run --config FILE`), and the dealer's display beside it on the screen's "
    "terminal (`tablectl display --config FILE`); the display attaches to the running "
    "table, and quitting it leaves the table running (docs/display.md)"
)

#: What stops a table from opening; each message says what to look at.
START_ERRORS: Final = (
    SettingsError,
    StartError,
    JournalError,
    ReplayMismatch,
    CheckpointMismatch,
    RecordFormatError,
    DeckError,
    NotifyError,
    TableKeyError,  # the table's key file, or a journal signed by another key
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = subparsers.add_parser(
        "run",
        help=help_line("run"),
        description="Run one live table from its configuration until SIGTERM or SIGINT. "
        "The journal is replayed first: a hand in progress resumes where it stopped. The "
        "dealer's display attaches to it: tablectl display --config FILE. "
        "Exit status: 0 stopped, 1 the table could not open (the reason is printed), "
        "2 --display (gone: the display attaches).",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default: {DEFAULT_CONFIG})",
    )
    parser.add_argument(
        "--display",
        action="store_true",
        help="no longer shows the display (exits 2): the dealer's display attaches to the "
        "running table, tablectl display --config FILE",
    )
    parser.add_argument(
        "--repeat-window",
        type=repeat_window,
        default=0.5,
        metavar="SECONDS",
        help="the shoe's RFID repeat window (docs/protocol.md, 7; default 0.5): shorter only "
        "for a simulated dealer who shuffles faster than a person",
    )
    parser.add_argument(
        "--as-root",
        action="store_true",
        help="allow running as root (a bench or a container with no other user; never the "
        "service, which runs as the unprivileged user tablectl)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Open the table and run it; return the exit status."""
    if args.display:
        print(DISPLAY_MOVED, file=sys.stderr)
        return EXIT_USAGE
    try:
        if not args.as_root:
            try:
                refuse_root()
            except StartError as error:  # the service's words; the flag is this command's
                raise StartError(
                    f"{error}; on a bench or in a container with no other user, pass --as-root"
                ) from None
        settings = load_config(args.config, files=True)
        configure_logging(settings.log, table_id=settings.table_id)
        # Before the journal opens: a stop asked during the start closes the table once the
        # replay is done (docs/app.md, Stopping), never kills it half-open.
        stop = threading.Event()
        stop_on_signals(stop)
        # Under systemd's Type=notify: NOTIFY_SOCKET and WATCHDOG_USEC; None elsewhere.
        notify = ServiceNotifier.from_environment()
        off = sockets_without_folder(settings)
        feed = None if "display" in off else DisplayFeed(settings.display_socket, settings.table_id)
        controller = build_controller(settings, display=feed, repeat_window=args.repeat_window)
        control = (
            None if "control" in off else ControlServer(settings.control_socket, controller.events)
        )
    except START_ERRORS as error:
        print(f"tablectl run: {_reason(error)}", file=sys.stderr)
        return EXIT_FAILED
    if stop.is_set():  # a signal during the replay: nothing was started yet
        controller.close()
        return EXIT_STOPPED
    hotplug = hotplug_monitor(settings, controller)
    try:
        served = serve(controller, stop, control=control, hotplug=hotplug, notify=notify, feed=feed)
    except DeviceHeld as error:
        print(f"tablectl run: {error}; {port_held_todo(error)}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_STOPPED if served else EXIT_FAILED


def port_held_todo(error: DeviceHeld) -> str:
    """What a technician does about a device port another program holds."""
    section = f"[devices.{error.device}]" if error.device else "[devices]"
    return (
        "one controller per table's devices: stop the one that holds it, or point this "
        f"table.toml's {section} at this table's own device (docs/deploy.md, Two "
        "controllers on one table's devices)"
    )


#: After a record or file the start refused: what a technician does (docs/journal.md).
DAMAGED_JOURNAL_TODO: Final = (
    "the table stays closed: copy the journal as it is, run tablectl journal verify, and see "
    "docs/journal.md, When the journal refuses to open"
)


def _reason(error: Exception) -> str:
    """One line: a journal's problem names the journal's full path (the table's configuration
    may name several tables' journals alike: ``journal``) and, for a bad record or file,
    what to do (a file system error says its own)."""
    if not isinstance(error, JournalError):
        return str(error)
    if error.whole_journal:
        return error.in_full()
    return f"{error.in_full()}; {DAMAGED_JOURNAL_TODO}"
