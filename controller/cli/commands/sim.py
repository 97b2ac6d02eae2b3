"""``tablectl sim``: run the simulated shoe and panel on ptys, with the technician's console.

Starts both devices behind stable links (``<dir>/shoe``, ``<dir>/panel``),
writes the two decks' enrollment files, prints where everything is, and
takes console commands from the terminal (history and completion) or, piped,
from stdin. docs/simulator.md is the technician's guide. This module only declares the
command; what it runs is ``simulator/command.py``, loaded when it runs.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any, TextIO

from controller.cli.commands._options import repeat_window
from controller.cli.commands._paths import (
    OUTPUT_FILE_IN_FOLDER,
    OUTPUT_FOLDER,
    READ_FILE,
    make_folder,
)
from controller.cli.registry import help_line
from controller.poker.games import GAMES
from drivers.tablectl.sentences import PROTOCOL_VERSION

HISTORY_FILE = Path("~/.tablectl_sim_history")


def default_directory() -> Path:
    """Where the links go: /run/tablectl-sim if we may write there, else a per-user folder."""
    if os.access("/run", os.W_OK):
        return Path("/run/tablectl-sim")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.access(runtime, os.W_OK):
        return Path(runtime) / "tablectl-sim"
    return Path(tempfile.gettempdir()) / f"tablectl-sim-{os.getuid()}"


def register(subparsers: Any) -> None:
    """Add ``tablectl sim``."""
    parser = subparsers.add_parser(
        "sim",
        help=help_line("sim"),
        description=(
            "Run a virtual shoe and panel on pseudo-terminals that the controller (or any serial "
            "terminal) opens as hardware, and take console commands: deal, press, fault, state. "
            "Type 'help' at the prompt. See docs/simulator.md. Exit status: 0 done, 1 a piped "
            "console command failed, 2 usage error (a bad option or table.toml, a folder it "
            "cannot use or another simulator serves), 128+N stopped by signal N (Ctrl-C, "
            "SIGTERM, SIGHUP)."
        ),
    )
    parser.add_argument(
        "--dir",
        type=OUTPUT_FOLDER,
        default=None,
        help="folder for the 'shoe' and 'panel' links (default: the folder the --config "
        f"table.toml names for them, else {default_directory()})",
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the tags, shuffles and faults (default 0)"
    )
    parser.add_argument(
        "--decks",
        type=OUTPUT_FOLDER,
        default=None,
        metavar="DIR",
        help="folder for the decks' enrollment files deck-A.txt, deck-B.txt (default: --dir; "
        "with --config, the files its [decks] names)",
    )
    parser.add_argument(
        "--config",
        type=READ_FILE,
        default=None,
        metavar="FILE",
        help="the controller's table.toml: make the ports and deck files it names (its "
        "[devices.shoe] and [devices.panel] path, DIR/shoe and DIR/panel, its [decks] a and b, "
        'the serials; a keypad panel, kind = "keypad": that keypad, emulated by umockdev, '
        "and the line that starts the controller on it); a bot takes the game, seats, dealer, "
        "stakes and stacks from it, and waits for that controller to welcome the shoe and the "
        "panel (or hold the keypad) before dealing",
    )
    parser.add_argument(
        "--shoe-serial",
        default=None,
        metavar="S",
        help="the shoe's serial (default: the --config table.toml's, else the simulated shoe's "
        "own)",
    )
    parser.add_argument(
        "--panel-serial",
        default=None,
        metavar="S",
        help="the panel's serial (default: the --config table.toml's, else the simulated "
        "panel's own)",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        default=PROTOCOL_VERSION,
        help="protocol version the devices claim (another one tests the host's refusal)",
    )
    parser.add_argument(
        "--shoe",
        choices=("tablectl", "pn532"),
        default="tablectl",
        help="the shoe: the protocol shoe at DIR/shoe (default), or PN532 readers at DIR/slot "
        "and DIR/discard, the cards' NTAG213 tags pitched past them (docs/hardware.md)",
    )
    parser.add_argument(
        "--watch", action="store_true", help="print the panel's light and text when they change"
    )
    parser.add_argument(
        "--history",
        type=OUTPUT_FILE_IN_FOLDER,
        default=HISTORY_FILE,
        metavar="FILE",
        help=f"the console's history file at a terminal (default {HISTORY_FILE})",
    )
    add_bot_options(parser)
    parser.set_defaults(run=run)


def add_bot_options(parser: argparse.ArgumentParser) -> None:
    """The dealer bot's options of ``tablectl sim``."""
    group = parser.add_argument_group(
        "dealer bot", "let a bot deal through the devices (docs/simulator.md, Dealer bots)"
    )
    group.add_argument(
        "--bot",
        nargs="+",
        metavar="KIND",
        help="'random' (legal random hands) or 'script FILE' (a hand script, played exactly)",
    )
    group.add_argument(
        "--game",
        choices=sorted(GAMES),
        default=None,
        help="the random bot's game (default mambo, or the --config table.toml's)",
    )
    group.add_argument("--hands", type=int, default=None, help="hands to play (default: no end)")
    group.add_argument("--seats", type=int, default=6, help="occupied seats 1..N (default 6)")
    group.add_argument(
        "--buy-in",
        type=int,
        default=None,
        help="known stacks of this many chips, bought again when a seat runs out "
        "(default: unknown stacks, as a table.toml without [stacks]); with --config, the "
        "table.toml's stacks, a seat that runs out bought back through its controller "
        "(default there: no rebuys; a broke seat sits out)",
    )
    group.add_argument(
        "--pace",
        choices=("human", "fast"),
        default="human",
        help="a dealer's pace, to watch (default), or as fast as the devices take it",
    )
    group.add_argument(
        "--repeat-window",
        type=repeat_window,
        default=0.5,
        metavar="SECONDS",
        help="the controller's RFID repeat window, its tablectl run --repeat-window (default "
        "0.5): the bot's shuffles outlast it; shorter only with a controller run with the same",
    )


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """Run the simulator (loaded now, not before: simulator/command.py)."""
    from simulator.command import run_sim  # noqa: PLC0415 -- the simulator only for sim

    if args.dir is None and args.config is None:  # with --config: the table.toml's folder
        args.dir = default_directory()
    if args.config is None:  # with --config, the table.toml names them (simulator/bench.py)
        # Made here, so a folder that cannot be made is named with its option (exit 2).
        for option, folder in (("--decks", args.decks), ("--dir", args.dir)):
            if folder is not None:
                make_folder(folder, option)
    return run_sim(args, stdin, stdout)
