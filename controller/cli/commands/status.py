"""``tablectl status``: what a technician asks first, in one look.

The configured shoe and panel (their paths, what udev finds), the journal's head
and its verification (``journal verify``'s check, the whole chain), the table as
the journal leaves it (replayed as a start replays it: ``SinceCheckpoint`` into a
``TableCore``), and whether the controller answers on its control socket. What it
prints is read on a technician's screen: no face-down card, only what the table
itself announces (``controller.poker.announce``).
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
from controller.config.tabletoml import SettingsError, TableSettings, load_config
from controller.journal import Record, verify
from controller.journal.tablekey import JournaledKey
from controller.journal.tablerecords import RecordFormatError
from controller.logs.jsonreport import print_report
from controller.poker.announce import announce, facts
from controller.poker.engine.events import ActionRequired, Alarm
from controller.poker.words import counted
from controller.table.control import SHOW, ControlError, send
from controller.table.core import CheckpointMismatch, ReplayMismatch, SinceCheckpoint, TableCore
from drivers.discovery import scan
from drivers.seam.registry import DEFAULT_KIND
from drivers.seam.settings import Port

EXIT_WELL: Final = 0
#: The journal fails verification or cannot be replayed, or an alarm holds the hand.
EXIT_TROUBLE: Final = 1
EXIT_USAGE: Final = 2
#: How long to wait for a running controller's answer: it answers within one event.
ANSWER_TIMEOUT: Final = 3.0


@dataclass(frozen=True)
class DeviceCheck:
    """One configured device: where it is named, and whether it is there."""

    role: str
    #: As table.toml names it: a path, a URL, or ``usb VID:PID serial SERIAL``.
    configured: str
    #: The path it is opened at (a path, or the udev rules' stable name); None for a URL.
    path: str | None
    #: Whether ``path`` exists now; None for a URL (``socket://``, ``sim://``).
    exists: bool | None
    #: The tty udev finds for a USB match (what ``tablectl devices`` finds); None otherwise.
    udev_node: str | None
    #: Its backend (``[devices.<role>] kind``, drivers/seam/registry.py).
    kind: str = DEFAULT_KIND


@dataclass(frozen=True)
class JournalCheck:
    """The journal's head and its verification."""

    directory: str
    #: The hash of its first record: one journal's name among others (a copy keeps it).
    journal_id: str | None
    records: int
    last_seq: int | None
    last_time: str | None
    #: ``SEQ:HASH`` of the last record, for ``journal verify --anchor``.
    anchor: str | None
    intact: bool
    #: ``journal verify``'s first line without a key: the links, the signatures not checked
    #: (docs/journal.md, Verdicts).
    verdict: str
    problem: str | None


@dataclass(frozen=True)
class AlarmCheck:
    """An integrity alarm holding the hand (rules-interpretation.md, Integrity), as the table
    announced it."""

    text: str
    read: str
    point: str
    reason: str
    expected: str


@dataclass(frozen=True)
class TableCheck:
    """The table as the journal leaves it."""

    phase: str
    #: None before the first hand.
    hand: int | None
    #: The seat the table waits on to act; None if it waits for no seat's action.
    to_act: int | None
    #: What the table waits for, in the dealer's words ("Seat 3, face down.").
    next: str
    alarms: list[AlarmCheck]
    #: The devices that held the table at the journal's last record.
    paused_by: list[str]


@dataclass(frozen=True)
class KeyCheck:
    """Which key signs the journal's end (docs/journal.md, Signed checkpoints), read from the
    journal (the key file is the service user's alone)."""

    #: The key in force at the journal's end; None: its checkpoints are not signed.
    key_id: str | None
    signed: bool


@dataclass(frozen=True)
class ControllerCheck:
    """Whether ``tablectl run`` answers on its control socket."""

    socket: str
    running: bool
    #: Its answer to ``show`` (the seats and stacks), or why it could not be asked.
    answer: str


@dataclass(frozen=True)
class StatusReport:
    """Everything ``tablectl status`` found; ``--json`` prints it as one object."""

    config: str
    table_id: str
    game: str
    devices: list[DeviceCheck]
    #: Why udev could not be asked (a container without /sys), or None.
    udev_problem: str | None
    journal: JournalCheck
    #: None if the journal could not be replayed (``table_problem`` says why).
    table: TableCheck | None
    table_problem: str | None
    controller: ControllerCheck
    signing: KeyCheck
    #: Exit status 0: the journal verifies and replays, and no alarm is open.
    well: bool


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``status``."""
    parser = subparsers.add_parser(
        "status",
        help=help_line("status"),
        description="Show the configured shoe and panel, the journal's head and whether it "
        "verifies, the table's phase, hand, seat to act and open alarms (replayed from the "
        "journal), and whether the controller answers. Exit status: 0 all well, 1 the "
        "journal is not intact or cannot be replayed, or an alarm is open, 2 usage error.",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default: {DEFAULT_CONFIG})",
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object (docs/app.md, tablectl status)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Look; print; return the exit status."""
    try:
        settings = load_config(args.config)
    except SettingsError as error:
        print(f"tablectl status: {error}", file=sys.stderr)
        return EXIT_USAGE
    directory = settings.journal.dir
    if not directory.is_dir():
        print(
            f"tablectl status: journal {directory} ([journal] dir of {args.config}): no such "
            "folder; expected the journal tablectl run writes",
            file=sys.stderr,
        )
        return EXIT_USAGE
    report = status(settings)
    if args.json:
        print_report(report)
    else:
        print("\n".join(lines(report)))
    return EXIT_WELL if report.well else EXIT_TROUBLE


def status(settings: TableSettings) -> StatusReport:
    """Look at the devices, the journal, the table and the controller."""
    devices, udev_problem = check_devices(settings)
    journal, since = check_journal(settings.journal.dir)
    signing = check_signing(since)  # before the replay takes the records
    table, table_problem = replay(settings, since) if journal.intact else (None, None)
    if not journal.intact:
        table_problem = "not replayed: the journal is not intact"
    return StatusReport(
        config=settings.source,
        table_id=settings.table_id,
        game=f"{settings.game.name} ({settings.game.rule})",
        devices=devices,
        udev_problem=udev_problem,
        journal=journal,
        table=table,
        table_problem=table_problem,
        controller=check_controller(settings.control_socket),
        signing=signing,
        well=journal.intact and table is not None and not table.alarms,
    )


def check_devices(settings: TableSettings) -> tuple[list[DeviceCheck], str | None]:
    """Each port of each device as configured, and the device udev finds for a USB match
    (in the port's udev subsystem: drivers/seam/settings.py ``Port``)."""
    ports = [
        (device.kind, port) for device in (settings.shoe, settings.panel) for port in device.ports()
    ]
    nodes: dict[str, str] = {}
    problem = None
    for subsystem in dict.fromkeys(port.subsystem for _, port in ports):
        wanted = [
            port.identity
            for _, port in ports
            if port.identity is not None and port.subsystem == subsystem
        ]
        if not wanted:
            continue
        try:
            for found in scan(wanted, subsystem=subsystem):
                if found.verdict.role is not None:
                    nodes.setdefault(found.verdict.role, found.node)
        except OSError as error:  # no udev here: the paths are still checked
            problem = f"udev cannot be read: {error}"
    return [_device(kind, port, nodes.get(port.name)) for kind, port in ports], problem


def _device(kind: str, port: Port, node: str | None) -> DeviceCheck:
    wanted = port.identity
    if wanted is not None:
        configured = f"usb {wanted.vendor_id}:{wanted.model_id} serial {wanted.serial}"
        path: str | None = node or wanted.stable_name
    else:
        configured = port.url or ""
        path = None if "://" in configured else configured
    return DeviceCheck(
        role=port.name,
        configured=configured,
        path=path,
        exists=None if path is None else Path(path).exists(),
        udev_node=node,
        kind=kind,
    )


@dataclass
class _Head:
    """The first record ``verify`` checks, and the records from the last checkpoint on."""

    since: SinceCheckpoint
    first: Record | None = None

    def __call__(self, record: Record) -> None:
        if self.first is None:
            self.first = record
        self.since(record)


def check_journal(directory: Path) -> tuple[JournalCheck, SinceCheckpoint]:
    """``journal verify``'s whole check; the records a start would replay, collected on the way."""
    head = _Head(SinceCheckpoint())
    report = verify(directory, progress=head)
    last = report.last
    check = JournalCheck(
        directory=str(directory),
        journal_id=head.first.hash if head.first is not None else None,
        records=report.records,
        last_seq=last.seq if last else None,
        last_time=last.ts if last else None,
        anchor=f"{last.seq}:{last.hash}" if last else None,
        intact=report.intact,
        verdict=report.summary()[0],
        problem=str(report.problem) if report.problem is not None else None,
    )
    return check, head.since


def check_signing(since: SinceCheckpoint) -> KeyCheck:
    """The key the journal's end is signed by, as a start finds it."""
    signed_by = JournaledKey()
    try:
        for record in since.records:
            signed_by(record)
    except RecordFormatError:
        signed_by.key_id = None  # the replay names the record
    return KeyCheck(signed_by.key_id, signed_by.key_id is not None)


def replay(settings: TableSettings, since: SinceCheckpoint) -> tuple[TableCheck | None, str | None]:
    """The table the journal leaves, replayed as ``tablectl run`` replays it at a start."""
    core = TableCore(settings.game, settings.table_setup())
    try:
        since.feed(core)
    except (ReplayMismatch, CheckpointMismatch, RecordFormatError) as error:
        return None, f"the journal cannot be replayed: {error}"
    table = core.table
    pending = table.pending
    alarms = []
    if isinstance(pending, Alarm):
        shown = facts(pending)  # the one rule of what the table may be told (poker/announce.py)
        alarms.append(
            AlarmCheck(
                text=announce(pending),
                read=str(shown.get("read", "")),
                point=pending.point,
                reason=str(shown.get("reason", "")),  # the other deck's card: "a card"
                expected=str(shown.get("expected", "")),
            )
        )
    return (
        TableCheck(
            phase=table.phase,
            hand=table.hand_number or None,
            to_act=pending.seat if isinstance(pending, ActionRequired) else None,
            next=announce(pending),
            alarms=alarms,
            paused_by=core.paused_by,
        ),
        None,
    )


def check_controller(path: Path) -> ControllerCheck:
    """Ask the controller to ``show`` its seats: it answers only if ``tablectl run`` runs."""
    try:
        answer = send(path, {"change": SHOW}, timeout=ANSWER_TIMEOUT)
    except (ControlError, OSError) as error:
        return ControllerCheck(str(path), running=False, answer=str(error))
    text = answer.get("text") if answer.get("ok") is True else answer.get("reason")
    return ControllerCheck(str(path), running=True, answer=str(text))


def lines(report: StatusReport) -> list[str]:
    """The report for a person: a few lines, the trouble first."""
    verdict = "all well" if report.well else "TROUBLE"
    out = [f"table {report.table_id}, {report.game}: {verdict}"]
    for device in report.devices:
        out.append(f"  {device.role}: {_device_line(device)}")
    if report.udev_problem:
        out.append(f"  {report.udev_problem}")
    journal = report.journal
    head = f"seq {journal.last_seq} at {journal.last_time}" if journal.last_seq else "no records"
    out.append(f"  {journal.verdict}; {counted(journal.records, 'record')}, {head}")
    if journal.journal_id:
        out.append(f"    journal id {journal.journal_id}; anchor {journal.anchor}")
    if journal.problem:
        out.append(f"    first bad record: {journal.problem}")
    if report.signing.signed:
        out.append(f"  checkpoints: signed by key {report.signing.key_id}")
    else:
        out.append(
            "  checkpoints: NOT SIGNED: the table has no key (tablectl keys init; "
            "docs/deploy.md, The table's key)"
        )
    out.extend(_table_lines(report))
    controller = report.controller
    if controller.running:
        out.append(f"  controller: running ({controller.socket}): {controller.answer}")
    else:
        out.append(f"  controller: not running: {controller.answer}")
    return out


def _device_line(device: DeviceCheck) -> str:
    # The default kind goes unsaid, as table.toml may leave it out (docs/drivers.md).
    kind = "" if device.kind == DEFAULT_KIND else f"{device.kind}: "
    if device.path is None:
        return f"{kind}{device.configured} (a URL: not a file to look for)"
    where = (
        device.configured
        if device.configured == device.path
        else (f"{device.configured} at {device.path}")
    )
    return f"{kind}{where}: {'present' if device.exists else 'MISSING'}"


def _table_lines(report: StatusReport) -> list[str]:
    table = report.table
    if table is None:
        return [f"  table: {report.table_problem}"]
    hand = f"hand {table.hand}" if table.hand is not None else "no hand dealt yet"
    out = [f"  table: {hand}, {table.phase}; next: {table.next}"]
    out.extend(f"  ALARM: {alarm.text}" for alarm in table.alarms)
    if table.paused_by:
        out.append(f"  paused by the {' and the '.join(table.paused_by)} (as last journaled)")
    return out
