"""``tablectl seat``: the floor's seat changes between hands, sent to the running controller.

    tablectl seat --config table.toml sit 3 --chips 500
    tablectl seat --config table.toml leave 3
    tablectl seat --config table.toml rebuy 3 --chips 200
    tablectl seat --config table.toml show

The controller journals each change, applies it between hands only and answers
(docs/app.md, Seat changes); this command prints the answer.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import SettingsError, load_config
from controller.journal import JsonObject, JsonValue
from controller.logs.jsonreport import print_report
from controller.table.control import SHOW, ControlError, send
from controller.table.seating import LEAVE, REBUY, SIT

EXIT_DONE: Final = 0
EXIT_REFUSED: Final = 1
EXIT_UNREACHABLE: Final = 2
SEAT_HELP: Final = "the seat's number, from 1 to the game's most seats"


@dataclass(frozen=True)
class SeatJson:
    """An occupied seat and its chips behind (None: the table does not know them)."""

    seat: int
    chips: int | None


@dataclass(frozen=True)
class ShowJson:
    """``seat show --json``: the running table's seats, as ``show`` prints them."""

    #: The current or last hand; None before the first.
    hand: int | None
    #: True while a hand is in play (a seat change waits for its end).
    in_hand: bool
    seats: list[SeatJson]
    #: The controller's sentence, as ``show`` prints it.
    text: str

    @classmethod
    def of(cls, answer: JsonObject) -> ShowJson:
        """The controller's answer, checked; ControlError naming what is missing."""
        seats, hand, in_hand = answer.get("seats"), answer.get("hand"), answer.get("in_hand")
        if not (
            isinstance(seats, list)
            and all(_seat_entry(entry) for entry in seats)
            and (hand is None or isinstance(hand, int))
            and isinstance(in_hand, bool)
        ):
            raise ControlError(
                f"the controller answered {answer!r}; expected hand, in_hand and seats (a "
                "controller older than this tablectl answers show with text only: restart it)"
            )
        return cls(
            hand,
            in_hand,
            [SeatJson(int(str(e["seat"])), _chips(e)) for e in seats if isinstance(e, dict)],
            str(answer.get("text", "")),
        )


def _seat_entry(entry: JsonValue) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("seat"), int)
        and (entry.get("chips") is None or isinstance(entry.get("chips"), int))
    )


def _chips(entry: JsonObject) -> int | None:
    chips = entry.get("chips")
    return chips if isinstance(chips, int) else None


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``seat`` and its changes."""
    parser = subparsers.add_parser(
        "seat",
        help=help_line("seat"),
        description="Send a seat change to the running controller of the table; it is "
        "journaled and applied between hands only. Exit status: 0 done, 1 refused (the "
        "reason is printed), 2 the controller could not be reached or the config is bad.",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=DEFAULT_CONFIG,
        metavar="FILE",
        help=f"the table's configuration (default {DEFAULT_CONFIG}); its [control] socket",
    )
    parser.set_defaults(run=lambda _args: _usage(parser))
    changes = parser.add_subparsers(title="changes", metavar="CHANGE")
    sit = changes.add_parser(
        SIT,
        help="a player sits down at SEAT with CHIPS",
        description="A player sits down at the empty SEAT with CHIPS, between hands.",
    )
    sit.add_argument("seat", type=int, help=SEAT_HELP)
    sit.add_argument("--chips", type=int, required=True, help="the chips the player sits with")
    sit.set_defaults(run=run, change=SIT)
    leave = changes.add_parser(
        LEAVE,
        help="the player at SEAT leaves",
        description="The player at SEAT leaves the table, between hands.",
    )
    leave.add_argument("seat", type=int, help=SEAT_HELP)
    leave.set_defaults(run=run, change=LEAVE, chips=None)
    rebuy = changes.add_parser(
        REBUY,
        help="the player at SEAT buys CHIPS more",
        description="The player at SEAT buys CHIPS more, between hands (table stakes).",
    )
    rebuy.add_argument("seat", type=int, help=SEAT_HELP)
    rebuy.add_argument("--chips", type=int, required=True, help="the chips bought")
    rebuy.set_defaults(run=run, change=REBUY)
    show = changes.add_parser(
        SHOW,
        help="the occupied seats and their stacks",
        description="Show the occupied seats and their stacks, as the running table has them.",
    )
    show.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object: hand, in_hand, seats (docs/app.md, tablectl seat)",
    )
    show.set_defaults(run=run, change=SHOW, seat=None, chips=None)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    print("tablectl seat: expected a change: sit, leave, rebuy or show", file=sys.stderr)
    return EXIT_UNREACHABLE


def run(args: argparse.Namespace) -> int:
    """Send the change; print the controller's answer."""
    try:
        settings = load_config(args.config)
    except (SettingsError, OSError) as error:
        print(f"tablectl seat: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    game = settings.game
    if args.seat is not None and not 1 <= args.seat <= game.max_seats:
        print(
            f"tablectl seat: refused: seat {args.seat} is out of range; {game.name} has "
            f"seats 1 to {game.max_seats} ({game.rule})",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    request: JsonObject = {"change": args.change}
    if args.seat is not None:
        request["seat"] = args.seat
    if args.chips is not None:
        request["chips"] = args.chips
    try:
        answer = send(settings.control_socket, request)
    except (ControlError, OSError) as error:
        print(f"tablectl seat: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    if answer.get("ok") is True:
        return _print_answer(answer, as_json=getattr(args, "json", False))
    print(f"tablectl seat: refused: {answer.get('reason')}", file=sys.stderr)
    return EXIT_REFUSED


def _print_answer(answer: JsonObject, *, as_json: bool) -> int:
    """The controller's sentence, or (``show --json``) its seats as one JSON object."""
    if not as_json:
        print(answer.get("text", "done"))
        return EXIT_DONE
    try:
        print_report(ShowJson.of(answer))
    except ControlError as error:
        print(f"tablectl seat: {error}", file=sys.stderr)
        return EXIT_UNREACHABLE
    return EXIT_DONE
