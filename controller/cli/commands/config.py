"""``tablectl config check``: load table.toml as ``tablectl run`` will, and say what it found."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG, FloorLinkSettings
from controller.config.tabletoml import (
    DeckSettings,
    JournalSettings,
    LogSettings,
    SettingsError,
    TableSettings,
    load_config,
)
from controller.logs.jsonreport import print_report
from controller.poker.engine import Stakes
from controller.poker.games.spec import ForcedBet
from controller.poker.words import counted
from controller.tomlcheck import show
from drivers.seam.registry import DEFAULT_KIND
from drivers.seam.settings import DeviceSettings

#: The unit's StateDirectory= and LogsDirectory=: the only folders it may write.
STATE_DIRECTORY: Final = Path("/var/lib/tablectl")
LOGS_DIRECTORY: Final = Path("/var/log/tablectl")
#: pyserial URL schemes that reach a device over the network (the unit allows no IP).
NETWORK_SCHEMES: Final = ("socket", "rfc2217")

EXIT_VALID: Final = 0
EXIT_INVALID: Final = 1
EXIT_USAGE: Final = 2


@dataclass(frozen=True)
class ProblemJson:
    """One mistake in the file: the key, the value found there (as TOML writes it), what is
    allowed."""

    key: str
    value: str
    expected: str


@dataclass(frozen=True)
class SeatStack:
    """A seat's chips at the opening (``[stacks]``)."""

    seat: int
    chips: int


@dataclass(frozen=True)
class TableJson:
    """The settings, as ``tablectl run`` will use them."""

    table_id: str
    game: str
    rule: str
    seats: list[int]
    #: The dealer's position (stud) or the button's seat (triple draw).
    dealer: int
    button_moves: bool
    stakes: Stakes
    stacks: list[SeatStack]
    shoe: DeviceSettings
    panel: DeviceSettings
    decks: DeckSettings
    journal: JournalSettings
    log: LogSettings
    control_socket: str

    @classmethod
    def of(cls, settings: TableSettings) -> TableJson:
        """The loaded settings' facts."""
        return cls(
            table_id=settings.table_id,
            game=settings.game.name,
            rule=settings.game.rule,
            seats=list(settings.seats),
            dealer=settings.dealer,
            button_moves=settings.game.button_moves,
            stakes=settings.stakes,
            stacks=[SeatStack(seat, chips) for seat, chips in sorted(settings.stacks.items())],
            shoe=settings.shoe,
            panel=settings.panel,
            decks=settings.decks,
            journal=settings.journal,
            log=settings.log,
            control_socket=str(settings.control_socket),
        )


@dataclass(frozen=True)
class CheckJson:
    """``config check --json``: valid with the settings and cautions, or every mistake."""

    source: str
    valid: bool
    problems: list[ProblemJson]
    #: None when not valid.
    table: TableJson | None
    cautions: list[str]


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``config`` and its ``check`` sub-command."""
    parser = subparsers.add_parser(
        "config",
        help=help_line("config"),
        description="Check the table's configuration (table.toml) before a start: "
        "'tablectl config check'.",
    )
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="load table.toml, list every mistake in it, or summarise it",
        description="Load the table's configuration as 'tablectl run' does. Exit status: "
        "0 valid (a summary is printed), 1 not valid (every mistake is listed), 2 usage error.",
    )
    check.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the configuration file (default: {DEFAULT_CONFIG})",
    )
    check.add_argument(
        "--files",
        action="store_true",
        help="also read the deck files it names, as at start-up (52 cards, no tag in both decks)",
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (docs/app.md, tablectl config check)",
    )
    check.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    """Check ``args.config``; print the summary or the problems; return the exit status."""
    try:
        settings = load_config(args.config, files=args.files)
    except SettingsError as error:
        if args.json:
            problems = [ProblemJson(p.key, show(p.value), p.expected) for p in error.problems]
            print_report(CheckJson(error.source, False, problems, None, []))
        else:
            print(error, file=sys.stderr)
        return EXIT_INVALID
    if args.json:
        report = CheckJson(settings.source, True, [], TableJson.of(settings), cautions(settings))
        print_report(report)
        return EXIT_VALID
    print(summary(settings))
    for caution in cautions(settings):
        print(f"caution: {caution}")
    return EXIT_VALID


def summary(settings: TableSettings) -> str:
    """The settings in a few lines, as a supervisor checks them against the posted stakes."""
    stakes = settings.stakes
    seats = ", ".join(map(str, settings.seats))
    where = "button" if settings.game.button_moves else "dealer"
    rake = (
        f"rake {stakes.rake_percent}%"
        + (f" up to {stakes.rake_cap}" if stakes.rake_cap is not None else "")
        if stakes.rake_percent
        else "no rake"
    )
    forced = (
        f"blinds {stakes.small_blind}/{stakes.big_blind}"
        if settings.game.forced_bet is ForcedBet.BLINDS
        else f"bring-in {stakes.bring_in or f'the small bet ({stakes.small_bet})'}"
    )
    journal = settings.journal
    log = settings.log
    return "\n".join(
        [
            f"{settings.source}: valid",
            f"table {settings.table_id}: {settings.game.name} ({settings.game.rule}), "
            f"seats {seats}, {where} {settings.dealer}",
            f"stakes: ante {stakes.ante}, {forced}, bets {stakes.small_bet}/{stakes.big_bet}, "
            f"cap {stakes.cap}, chip {stakes.chip}, {rake}",
            f"shoe: {_device(settings.shoe)}",
            f"panel: {_device(settings.panel)}",
            f"decks: a {settings.decks.a}, b {settings.decks.b}; {settings.decks.active} in play",
            f"journal: {journal.dir}, fsync {'on' if journal.fsync else 'OFF'}, "
            f"{counted(journal.hands_per_file, 'hand')} or "
            f"{counted(journal.max_bytes, 'byte')} a file",
            f"log: {log.level.value}, {log.format.value}, to {log.file or 'standard error'}",
            *_floor(settings.floor),
        ]
    )


def _floor(floor: FloorLinkSettings | None) -> list[str]:
    """[floor]'s line, where there is one (tablectl forward; docs/floor.md)."""
    if floor is None:
        return []
    tls = ""
    if floor.tls:
        tls = f", TLS trusting {floor.tls_ca or 'the system CAs'}"
        tls += f", certificate {floor.tls_cert}" if floor.tls_cert else ""
    return [f"floor: {', '.join(floor.servers)} as {floor.user}{tls}"]


def cautions(settings: TableSettings) -> list[str]:
    """Valid settings that will not work as meant under docs/examples/tablectl.service."""
    found = []
    journal, log = settings.journal, settings.log
    if not journal.fsync:
        found.append(
            "journal.fsync = false: a power cut may lose acknowledged records "
            "(for tests and benchmarks only)"
        )
    if not journal.dir.is_relative_to(STATE_DIRECTORY):
        found.append(
            f"journal.dir = {journal.dir} is outside {STATE_DIRECTORY}, where the example unit "
            "lets the service write: add it to the unit's ReadWritePaths="
        )
    if log.file is not None and not log.file.is_relative_to(LOGS_DIRECTORY):
        found.append(
            f"log.file = {log.file} is outside {LOGS_DIRECTORY}, where the example unit "
            "lets the service write: add its folder to the unit's ReadWritePaths="
        )
    key = settings.keys.private_key
    if not key.is_relative_to(STATE_DIRECTORY):
        found.append(
            f"keys.private_key = {key} is outside {STATE_DIRECTORY}, where the example unit "
            "lets the service write: it could not delete table.key.old after a rotation; add "
            "its folder to the unit's ReadWritePaths="
        )
    for port in (*settings.shoe.ports(), *settings.panel.ports()):
        scheme = port.url.partition("://")[0] if port.url else ""
        if scheme in NETWORK_SCHEMES:
            found.append(
                f"devices.{port.name}.url = {port.url}: a network URL needs AF_INET (or "
                "AF_INET6) in the example unit's RestrictAddressFamilies="
            )
    return found


def _device(device: DeviceSettings) -> str:
    """The device's line: its backend's own words, after its kind unless it is the default."""
    kind = "" if device.kind == DEFAULT_KIND else f"{device.kind}: "
    return kind + device.describe()


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
