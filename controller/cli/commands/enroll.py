"""tablectl enroll: read a new deck through the shoe and write its deck file.

The technician passes the deck through the dealing slot in new-deck order
(2c 2d 2h 2s 3c ... As), or in any order naming each card as its tag is
read (--any-order). A tag read twice, a tag of the other deck, a missing
card, or (in new-deck order) reads the shoe lost refuses the enrollment and
writes nothing.
"""

from __future__ import annotations

import argparse
import queue
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import structlog

from controller.cli.commands._paths import OUTPUT_FILE_IN_FOLDER, READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import LogLevel, LogSettings
from controller.config.tabletoml import SettingsError, load_config
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.cards import Card, CardError
from controller.poker.inputs import ReadPoint
from controller.tomlcheck import Problem, Section
from drivers.deck import Deck, DeckError, Enrollment
from drivers.seam import registry
from drivers.seam.device import DeviceHeld, OpenOptions
from drivers.seam.events import (
    SHOE,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    Feed,
    HelloOutcome,
    ShoeState,
    TagRead,
)
from drivers.seam.settings import DeviceSettings

#: Exit statuses.
OK, REFUSED, NO_SHOE = 0, 1, 2

#: The log without --config: standard error, warnings and worse. The technician reads the
#: enrollment's own lines on the terminal; the drivers' info lines (ports, hellos, 52 reads)
#: would bury them, while a lost link or a refused shoe still shows.
TERMINAL_LOG: Final = LogSettings(level=LogLevel.WARNING)
#: How the lines that say why an enrollment failed begin (the log line's ``reason``).
_FAILURES: Final = ("error: ", "enrollment refused: ")
_TAG_REFUSED: Final = (
    "a tag the deck cannot take (read twice, of the other deck, or past 52 cards): "
    "the terminal names it"
)


@dataclass(frozen=True)
class EnrollRequest:
    """What to enroll and from where."""

    path: Path
    name: str
    #: The shoe, as its backend's settings (drivers/seam/settings.py).
    shoe: DeviceSettings
    any_order: bool = False
    other_deck: Path | None = None
    #: Give up if the shoe is silent this long (no hello, or no next card).
    timeout: float = 60.0
    force: bool = False
    #: RFID repeats of a tag within this many seconds are one read (docs/protocol.md, 7).
    repeat_window: float = 0.5


def register(subparsers: Any) -> None:
    """Add ``enroll`` to the ``tablectl`` command line."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "enroll",
        help=help_line("enroll"),
        description="Read a new deck through the shoe and write its deck file. Pass the "
        "deck through the dealing slot in new-deck order (2c 2d 2h 2s 3c ... As), or in any "
        "order naming each card as its tag is read (--any-order). A tag read twice, a tag of "
        "the other deck, a missing card, or (in new-deck order) reads the shoe lost refuses "
        "the enrollment and writes nothing. Exit status: 0 written, 1 refused, 2 no shoe "
        "(the port does not exist, or the shoe was refused).",
    )
    parser.add_argument(
        "--deck", required=True, type=OUTPUT_FILE_IN_FOLDER, help="the deck file to write"
    )
    parser.add_argument(
        "--port",
        default="/dev/tablectl/shoe",
        help="the shoe's port or serial_for_url URL (default: %(default)s, udev's stable name)",
    )
    parser.add_argument("--name", help="the deck's name (default: the file's stem)")
    parser.add_argument("--any-order", action="store_true", help="name each card as it is read")
    parser.add_argument("--other-deck", type=READ_FILE, help="the table's other deck file")
    parser.add_argument(
        "--baudrate", type=int, default=115_200, help="the port's speed (default %(default)s)"
    )
    parser.add_argument("--serial", help="the shoe's serial number, if it must match")
    parser.add_argument(
        "--kind",
        choices=registry.kinds(SHOE),
        default=registry.DEFAULT_KIND,
        help="the shoe's backend, as [devices.shoe] kind (default %(default)s; docs/drivers.md)",
    )
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds of silence allowed")
    parser.add_argument("--force", action="store_true", help="overwrite an existing deck file")
    parser.add_argument(
        "--config",
        type=READ_FILE,
        metavar="FILE",
        help="log as this table's configuration says ([log]; its table id on every line), "
        "as tablectl run does (default: warnings only, to standard error)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """The ``enroll`` command: talk to the technician on the terminal."""
    shoe = shoe_settings(args.kind, args.port, args.baudrate, args.serial)
    if isinstance(shoe, list):
        for problem in shoe:
            print(f"tablectl enroll: {problem}", file=sys.stderr)
        return NO_SHOE
    request = EnrollRequest(
        path=args.deck,
        name=args.name or args.deck.stem,
        shoe=shoe,
        any_order=args.any_order,
        other_deck=args.other_deck,
        timeout=args.timeout,
        force=args.force,
    )
    try:
        if args.config is None:
            configure_logging(TERMINAL_LOG, table_id=None)
        else:
            settings = load_config(args.config)
            configure_logging(settings.log, table_id=settings.table_id)
    except SettingsError as error:
        print(f"tablectl enroll: {error}", file=sys.stderr)
        return NO_SHOE
    try:
        return enroll(request, ask=input, say=print)
    finally:
        reset_logging()


#: The options that give a shoe's table.toml keys (``[devices.shoe]``), for its problems.
_OPTIONS: Final = {
    "path": "--port",
    "url": "--port",
    "port": "--port",
    "baudrate": "--baudrate",
    "baud": "--baudrate",
    "serial": "--serial",
}


def shoe_settings(
    kind: str, port: str, baudrate: int, serial: str | None
) -> DeviceSettings | list[str]:
    """The shoe the options name, read by its backend as ``[devices.shoe]`` would be (so
    it is checked as the table's configuration is); or each problem, naming its option."""
    backend = registry.shoe_backend(kind)
    data = backend.section_for_port(port, baudrate, serial)
    problems: list[Problem] = []
    section = Section(problems, "", data, ("kind", *backend.keys), {})
    settings = backend.read_settings(section)
    if settings is None or problems:
        return [f"{_OPTIONS.get(p.key, p.key)} {p.value!s}: {p.expected}" for p in problems] or [
            f"--kind {kind}: the shoe's settings cannot be read"
        ]
    return settings


def enroll(request: EnrollRequest, ask: Callable[[str], str], say: Callable[[str], None]) -> int:
    """Run one enrollment; returns the exit status. Nothing is written unless all 52 are in.
    The outcome is logged too: ``deck_enrolled``, or ``enrollment_refused`` with the reason
    (never the tags: the deck file is the one place that pairs them with the cards)."""
    failures: list[str] = []

    def tell(line: str) -> None:
        if line.startswith(_FAILURES):
            # A tag's UID beside its card would let the log name a card from its read (the
            # drivers log UIDs): the log gets the kind of refusal, the terminal the tag.
            failures.append(_TAG_REFUSED if "tag " in line else line.partition(": ")[2])
        say(line)

    log = structlog.get_logger("controller.enroll").bind(
        deck=request.name, file=str(request.path), port=_where(request.shoe)
    )
    status = _enroll(request, ask, tell)
    if status == OK:
        log.info("deck_enrolled", cards=52, any_order=request.any_order)
    else:
        log.warning("enrollment_refused", status=status, reason=failures[-1] if failures else "")
    return status


def _enroll(request: EnrollRequest, ask: Callable[[str], str], say: Callable[[str], None]) -> int:
    if request.path.exists() and not request.force:
        say(f"error: {request.path} exists; pass --force to replace it")
        return REFUSED
    try:
        other = Deck.load(request.other_deck).cards if request.other_deck else {}
    except DeckError as exc:
        say(f"error: {exc}")
        return REFUSED
    for port in request.shoe.ports():
        url = port.url
        # A URL (socket://...) is not a file; a USB match is found by the backend.
        if url is not None and "://" not in url and not Path(url).exists():
            say(
                f"error: port {url} does not exist; expected the shoe's serial port, e.g. "
                "/dev/tablectl/shoe (udev's stable name, udev/README.md) or /dev/ttyACM0, "
                "or a URL such as socket://HOST:PORT"
            )
            return NO_SHOE
    enrollment = Enrollment(request.name, other)
    events: queue.Queue[Any] = queue.Queue()
    backend = registry.shoe_backend(request.shoe.kind)
    shoe = backend.open(request.shoe, events, OpenOptions(repeat_window=request.repeat_window))
    try:
        shoe.start()
    except DeviceHeld as error:  # a running table's shoe: its reads are the table's
        say(f"error: {error}; stop the table (or the program) that holds it before enrolling")
        return NO_SHOE
    try:
        status = _session(request, enrollment, events, ask, say)
    finally:
        shoe.stop()
    if status != OK:
        return status
    deck = enrollment.finish()
    deck.save(request.path)
    say(f"wrote {request.path}: deck {deck.name}, 52 cards")
    return OK


def _session(
    request: EnrollRequest,
    enrollment: Enrollment,
    events: queue.Queue[Any],
    ask: Callable[[str], str],
    say: Callable[[str], None],
) -> int:
    say(f"waiting for the shoe on {_where(request.shoe)} ...")
    while enrollment.missing:
        try:
            event = events.get(timeout=request.timeout)
        except queue.Empty:
            return _refuse(enrollment, say, f"nothing from the shoe for {request.timeout:g} s")
        if isinstance(event, DeviceUp) and event.outcome in _READS_LOST:
            status = _reads_lost(request, enrollment, event, say)
            if status != OK:
                return status
        elif isinstance(event, DeviceUp):
            say(f"shoe {event.model} serial {event.serial} ready")
            say(_instructions(request))
        elif isinstance(event, DeviceRefused):
            say(f"error: {event.reason}")
            return NO_SHOE
        elif isinstance(event, DeviceDown):
            say(f"shoe connection lost ({event.reason}); reconnecting, keep the cards")
        elif isinstance(event, ShoeState) and event.feed is Feed.EMPTY:
            return _refuse(enrollment, say, "the shoe is empty")
        elif isinstance(event, TagRead):
            status = _tag(request, enrollment, event, ask, say)
            if status != OK:
                return status
    return OK


#: A DeviceUp that says the shoe's reads may have been lost (docs/protocol.md 4 and 5).
_READS_LOST = (HelloOutcome.LOST, HelloOutcome.RESTARTED)


def _reads_lost(
    request: EnrollRequest,
    enrollment: Enrollment,
    event: DeviceUp,
    say: Callable[[str], None],
) -> int:
    """Reads the shoe sent may be lost: in new-deck order each card after a lost read
    would take the tag before it, so the enrollment is refused; in any order the technician
    names each card, so a lost card is only one still missing."""
    what = (
        f"the shoe's sentences {event.lost} were lost"
        if event.lost is not None
        else "the shoe restarted, losing the reads it had not sent"
    )
    if not request.any_order:
        return _refuse(
            enrollment, say, f"{what}; in new-deck order every later card would be misnamed"
        )
    say(f"warning: {what}; pass again any card not listed")
    return OK


def _instructions(request: EnrollRequest) -> str:
    if request.any_order:
        return f"deal deck {request.name} through the slot; name each card as it is read"
    return f"deal deck {request.name} through the slot in new-deck order: 2c 2d 2h 2s 3c ... As"


def _tag(
    request: EnrollRequest,
    enrollment: Enrollment,
    read: TagRead,
    ask: Callable[[str], str],
    say: Callable[[str], None],
) -> int:
    if read.point is not ReadPoint.DEALING_SLOT:
        say(f"tag {read.uid} read at the discard reader: ignored, deal through the slot")
        return OK
    try:
        enrollment.check_tag(read.uid)
    except DeckError as exc:
        return _refuse(enrollment, say, str(exc))
    card = _ask_card(enrollment, read.uid, ask, say) if request.any_order else None
    card = enrollment.add(read.uid, card)
    say(f"{52 - len(enrollment.missing):2d}/52  {card.code:3s} {read.uid}")
    return OK


def _ask_card(
    enrollment: Enrollment, uid: str, ask: Callable[[str], str], say: Callable[[str], None]
) -> Card:
    while True:
        answer = ask(f"tag {uid}: which card? ")
        try:
            card = Card.parse(answer)
        except CardError as exc:
            say(str(exc))
            continue
        if card in enrollment.cards.values():
            say(f"{card} is already enrolled; name the card this tag is on")
            continue
        return card


def _refuse(enrollment: Enrollment, say: Callable[[str], None], why: str) -> int:
    say(f"enrollment refused: {why}")
    if enrollment.missing:
        say(enrollment.missing_text())
    say("nothing was written")
    return REFUSED


def _where(shoe: DeviceSettings) -> str:
    """The shoe's ports, as the terminal and the log name them."""
    return ", ".join(
        port.url or (port.identity.text if port.identity else port.name) for port in shoe.ports()
    )
