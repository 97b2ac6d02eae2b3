"""``tablectl floor setup|serve|recall|verify --config floor.toml``: the casino floor's store of
every table's journal (docs/floor.md); ``tablectl floor demo``: the whole floor on this machine,
its own servers and simulated tables included (docs/floor.md, The demo).

This module only declares the commands: what they run is controller/cli/commands/floor/run.py
(psycopg, the ``floor`` extra) and, for ``demo``, simulator/floordemo.py, each loaded when it
runs, so a table PC's commands never need either (``make demo`` installs no psycopg).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Final

from controller.cli.commands._paths import OUTPUT_FOLDER, READ_FILE
from controller.cli.commands.floor import software, web
from controller.cli.lazy import Lazy, Runner
from controller.cli.registry import help_line
from controller.poker.games import GAMES

EXIT_USAGE: Final = 2
DEMO_TABLES: Final = 3
DEMO_HANDS: Final = 20


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"N {text!r}: expected a whole number of hands, 1 or more")
    return int(text)


def _whole(what: str, most: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or not 1 <= int(text) <= most:
            raise argparse.ArgumentTypeError(
                f"{what} {text!r}: expected a whole number from 1 to {most}"
            )
        return int(text)

    return parse


# What each action runs, imported when it runs (each a function, so mypy checks the name and
# its type where a module and function named as text could not be).
def _setup() -> Runner:
    from controller.cli.commands.floor.serve_run import run_setup  # noqa: PLC0415

    return run_setup


def _serve() -> Runner:
    from controller.cli.commands.floor.serve_run import run_serve  # noqa: PLC0415

    return run_serve


def _recall() -> Runner:
    from controller.cli.commands.floor.run import run_recall  # noqa: PLC0415

    return run_recall


def _verify() -> Runner:
    from controller.cli.commands.floor.run import run_verify  # noqa: PLC0415

    return run_verify


def _dispute() -> Runner:
    from controller.cli.commands.floor.dispute import run_dispute  # noqa: PLC0415

    return run_dispute


def _demo() -> Runner:
    from simulator.floordemo import run_demo  # noqa: PLC0415

    return run_demo


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``floor`` and its sub-commands."""
    parser = subparsers.add_parser(
        "floor",
        help=help_line("floor"),
        description="The floor's store of every table's journal (docs/floor.md). Exit status: "
        "0 done, 1 a problem found (verify) or the store failed, 2 usage or configuration error.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION")

    def action(
        name: str, help_text: str, description: str | None = None
    ) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help_text, description=description or help_text)
        sub.add_argument(
            "--config", type=READ_FILE, required=True, metavar="FILE", help="the floor's floor.toml"
        )
        return sub

    setup = action("setup", "create or upgrade the floor's database and its roles (the DBA, once)")
    setup.add_argument(
        "--owner-dsn",
        metavar="DSN",
        help="the database owner's libpq connection (default: the floor.toml's database, as the "
        "user running this, over the local socket)",
    )
    setup.set_defaults(run=Lazy(_setup))
    action("serve", "store the tables' journals from JetStream, until SIGTERM").set_defaults(
        run=Lazy(_serve)
    )
    recall = action("recall", "a table's last hands, from the floor's store")
    recall.add_argument("--table", required=True, metavar="ID", help="the table's id")
    recall.add_argument(
        "count", nargs="?", type=_count, default=10, metavar="N", help="how many (default 10)"
    )
    recall.add_argument("--json", action="store_true", help="one JSON object")
    recall.set_defaults(run=Lazy(_recall))
    verify = action(
        "verify",
        "walk every stored chain; list the witness's alarms, open and acknowledged",
        "Walk every stored chain and say each one's verdict (docs/journal.md, Verdicts): its "
        "links, and its signatures GOOD (checked with the table's registered key), BAD (a "
        "signature refused, or a key not registered for the table) or NOT CHECKED (no key "
        "registered for the table). Then the witness's alarms: the open ones, and those a "
        "supervisor acknowledged (by whom, when). Exit status: 0 clean (every chain's links "
        "intact, no signature BAD, no open alarm), 1 a chain with a problem or an open alarm, "
        "or the store failed, 2 usage or configuration error.",
    )
    verify.add_argument("--table", metavar="ID", help="only this table's journals")
    verify.add_argument("--json", action="store_true", help="one JSON object")
    verify.set_defaults(run=Lazy(_verify))
    dispute = action(
        "dispute",
        "a hand's dispute bundle from the floor's store (checked by tablectl dispute verify)",
    )
    dispute.add_argument("--table", required=True, metavar="ID", help="the table's id")
    dispute.add_argument("--hand", required=True, type=_count, metavar="N", help="the hand")
    dispute.add_argument(
        "--out", required=True, type=OUTPUT_FOLDER, metavar="DIR", help="a new or empty folder"
    )
    # 13:69E-1.31(b); docs/floor.md, Disputes.
    dispute.set_defaults(run=Lazy(_dispute))
    _register_demo(actions)
    web.register(action)  # web, user (docs/floor-web.md)
    software.register(action)  # software, key (docs/floor.md, Software and keys)
    parser.set_defaults(run=lambda _args: _usage(parser))


def _register_demo(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    text = (
        "the whole floor on this machine: its own nats-server and PostgreSQL, N simulated "
        "tables dealt by the random dealer at full speed with their forwarders, and floor "
        "serve; prints what each table journaled, forwarded and the floor stored, the verdict of "
        "the floor's walk of its chain (docs/journal.md, Verdicts), and the lag (no "
        "configuration; docs/floor.md, The demo)"
    )
    demo = actions.add_parser(
        "demo",
        help="the whole floor on this machine, with simulated tables (no configuration)",
        description=text[0].upper() + text[1:] + ". Exit status: 0 every table's journal "
        "stored whole, its chain's links intact and no signature BAD, 1 a table's journal and "
        "the floor differ (named), or a part failed, 2 usage error or a server's binary "
        "missing (its Debian package named).",
    )
    demo.add_argument(
        "--tables",
        type=_whole("tables", 50),
        default=DEMO_TABLES,
        metavar="N",
        help=f"simulated tables (default {DEMO_TABLES})",
    )
    demo.add_argument(
        "--hands",
        type=_whole("hands", 10_000),
        default=DEMO_HANDS,
        metavar="H",
        help=f"hands each table deals (default {DEMO_HANDS})",
    )
    demo.add_argument(
        "--game", choices=sorted(GAMES), default="mambo", help="the game dealt (default mambo)"
    )
    demo.add_argument("--seed", type=int, default=0, help="the shuffles' and dealers' seed")
    demo.add_argument(
        "--keep",
        type=OUTPUT_FOLDER,
        metavar="DIR",
        help="keep every part's files here (journals, logs, configurations, the tables' keys "
        "and the floor's PostgreSQL, stopped; a new or empty folder) and print the commands "
        "that start it again and look at it; default: a temporary folder, removed after",
    )
    demo.add_argument(
        "--web",
        action="store_true",
        help="serve the floor's web view on loopback (a user of each role, random passwords "
        "printed once) from before the tables deal, so that the hands are seen as they are "
        "played, and after the summary until Ctrl-C or SIGTERM, which stop it as its normal "
        "end (exit status as above; docs/floor-web.md)",
    )
    # The simulator loads only now, as for tablectl demo: the controller's commands never do.
    demo.set_defaults(run=Lazy(_demo))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
