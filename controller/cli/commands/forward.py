"""``tablectl forward --config table.toml``: send the table's journal to the floor's NATS
JetStream, its own process beside ``tablectl run`` (docs/floor.md, The forwarder;
docs/examples/tablectl-forward.service).

Runs until SIGTERM or SIGINT, riding out a broker that is down or slow; ``--until-caught-up``
stops with 0 once the stream holds the whole journal as it is (tests, a technician, the
floor's demo). Under systemd's ``Type=notify`` it says READY=1 once its configuration is read,
then STATUS= where it stands (seqs and counts, never a record's content).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import ssl
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

import structlog

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.floorlink import POLL, floor_file_problems
from controller.config.settings import DEFAULT_CONFIG, TableSettings
from controller.config.tabletoml import SettingsError, load_config
from controller.forwarder import LOGGER
from controller.journal import JournalError
from controller.logs.logsetup import configure_logging
from controller.table.systemd import Notifier, NotifyError, socket_address
from controller.tomlcheck import Problem

if TYPE_CHECKING:
    from controller.forwarder.forward import Forwarder, Progress

EXIT_STOPPED: Final = 0
EXIT_FAILED: Final = 1
EXIT_NO_FLOOR: Final = 2

NO_FLOOR: Final = (
    "{source} has no [floor] section: this table forwards nothing. To forward its journal, "
    "add [floor] with servers, user and password_file (docs/deploy.md, Configuration "
    "reference; docs/floor.md, The forwarder)"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``forward``."""
    parser = subparsers.add_parser(
        "forward",
        help=help_line("forward"),
        description="Follow the table's journal and publish every record to the table's own "
        "subject on the floor's NATS JetStream, exactly once and in order, resuming where the "
        "stream stands. A broker that is down or slow is waited for. Exit status: 0 stopped "
        "(or caught up, with --until-caught-up), 1 it could not start or the journal does not "
        "verify (the reason is printed), 2 table.toml has no [floor] section.",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default: {DEFAULT_CONFIG}): its [floor] and "
        "[journal] dir",
    )
    parser.add_argument(
        "--until-caught-up",
        action="store_true",
        help="exit 0 once the stream holds every record the journal holds now",
    )
    parser.add_argument(
        "--poll",
        type=_seconds,
        default=POLL,
        metavar="SECONDS",
        help="the longest wait between two looks at the journal's end (default "
        f"{POLL:g}): a record written wakes the forwarder at once where inotify can watch "
        "the journal's folder; elsewhere it is read this often",
    )
    parser.add_argument(
        "--status-every",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help="how often a status line (seq acked, records behind) is logged (default 60)",
    )
    parser.set_defaults(run=run)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of seconds, 0 to 3600")
    return value


def run(args: argparse.Namespace) -> int:
    """Read the configuration, then forward until stopped; the exit status."""
    try:
        settings = load_config(args.config)
        if settings.floor is None:
            print(f"tablectl forward: {NO_FLOOR.format(source=args.config)}", file=sys.stderr)
            return EXIT_NO_FLOOR
        problems = floor_file_problems(settings.floor)
        if problems:
            raise SettingsError(str(args.config), problems)
        notifier = _notifier()
        forwarder = _forwarder(settings, args, notifier)
    except SettingsError as error:
        print(f"tablectl forward: {error}", file=sys.stderr)
        return EXIT_FAILED
    try:
        return asyncio.run(_serve(forwarder, notifier, until_caught_up=args.until_caught_up))
    except JournalError as error:
        structlog.get_logger(LOGGER).error("forward_stopped", error=error.in_full())
        print(f"tablectl forward: {error.in_full()}; nothing more is sent", file=sys.stderr)
        return EXIT_FAILED


def _forwarder(
    settings: TableSettings, args: argparse.Namespace, notifier: Notifier | None
) -> Forwarder:
    """The forwarder ``settings`` describe, logging configured; SettingsError for TLS files
    that are not a certificate and its key."""
    # Lazy: nats-py is loaded only by this command, not by every tablectl command's parser.
    from controller.forwarder.forward import Forwarder  # noqa: PLC0415

    assert settings.floor is not None
    try:
        forwarder = Forwarder(
            settings.table_id,
            settings.journal.dir,
            settings.floor,
            poll=args.poll,
            status_every=args.status_every,
            on_status=None if notifier is None else _status_to(notifier),
        )
    except (ssl.SSLError, OSError) as error:
        floor = settings.floor
        files = f"tls_ca {floor.tls_ca}, tls_cert {floor.tls_cert}, tls_key {floor.tls_key}"
        raise SettingsError(
            str(args.config),
            [Problem("floor", files, f"expected PEM certificates and a key that fit: {error}")],
        ) from None
    configure_logging(settings.log, table_id=settings.table_id)
    return forwarder


def _notifier() -> Notifier | None:
    value = os.environ.get("NOTIFY_SOCKET")
    if not value:
        return None
    try:
        return Notifier(socket_address(value))
    except NotifyError as error:
        raise SettingsError(
            "(environment)", [Problem("NOTIFY_SOCKET", value, str(error))]
        ) from None


def _status_to(notifier: Notifier) -> Callable[[Progress], None]:
    def send(progress: Progress) -> None:
        notifier.send({"STATUS": progress.line()})

    return send


async def _serve(forwarder: Forwarder, notifier: Notifier | None, *, until_caught_up: bool) -> int:
    """Forward until SIGTERM or SIGINT (0), or until caught up."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, task.cancel)
    if notifier is not None:
        notifier.send({"READY": "1", "STATUS": "starting: asking the floor where it stands"}, 1.0)
    try:
        await forwarder.run(until_caught_up=until_caught_up)
    except asyncio.CancelledError:
        pass  # a signal: stop as asked
    finally:
        if notifier is not None:
            notifier.send({"STOPPING": "1", "STATUS": forwarder.progress.line()}, 1.0)
            notifier.close()
    return EXIT_STOPPED
