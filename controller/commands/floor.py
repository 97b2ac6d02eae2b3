"""``tablectl floor setup|serve|recall|verify --config floor.toml``: the casino floor's store of
every table's journal (docs/floor.md)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import nats.errors
import psycopg

from controller.app.recall import format_hand
from controller.commands.recall import RecalledHand
from controller.engine.config import ConfigError
from controller.floor import report, store
from controller.floor.config import FloorConfig, load, read_secret
from controller.jsonreport import print_report
from controller.logsetup import configure_logging
from controller.settings import LogSettings

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


@dataclass(frozen=True)
class FloorRecallJson:
    """``floor recall --json``: the hands as ``tablectl recall --json`` gives them."""

    table: str
    hands: list[RecalledHand]


@dataclass(frozen=True)
class FloorVerifyJson:
    """``floor verify --json``: clean (no problem, no alarm), each chain walked, the alarms."""

    clean: bool
    chains: list[report.ChainReport]
    alarms: list[report.FloorAlarm]


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"N {text!r}: expected a whole number of hands, 1 or more")
    return int(text)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``floor`` and its sub-commands."""
    parser = subparsers.add_parser(
        "floor",
        help="the casino floor: store every table's journal, recall and verify from it",
        description="The floor's store of every table's journal (docs/floor.md). Exit status: "
        "0 done, 1 a problem found (verify) or the store failed, 2 usage or configuration error.",
    )
    actions = parser.add_subparsers(title="actions", metavar="ACTION")

    def action(name: str, help_text: str) -> argparse.ArgumentParser:
        sub = actions.add_parser(name, help=help_text, description=help_text)
        sub.add_argument(
            "--config", type=Path, required=True, metavar="FILE", help="the floor's floor.toml"
        )
        return sub

    setup = action("setup", "create or upgrade the floor's database and its roles (the DBA, once)")
    setup.add_argument(
        "--owner-dsn",
        metavar="DSN",
        help="the database owner's libpq connection (default: the floor.toml's database, as the "
        "user running this, over the local socket)",
    )
    setup.set_defaults(run=run_setup)
    action("serve", "store the tables' journals from JetStream, until SIGTERM").set_defaults(
        run=run_serve
    )
    recall = action("recall", "a table's last hands, from the floor's store")
    recall.add_argument("--table", required=True, metavar="ID", help="the table's id")
    recall.add_argument(
        "count", nargs="?", type=_count, default=10, metavar="N", help="how many (default 10)"
    )
    recall.add_argument("--json", action="store_true", help="one JSON object")
    recall.set_defaults(run=run_recall)
    verify = action("verify", "walk every stored chain; list the witness's alarms (exit 1 if any)")
    verify.add_argument("--table", metavar="ID", help="only this table's journals")
    verify.add_argument("--json", action="store_true", help="one JSON object")
    verify.set_defaults(run=run_verify)
    parser.set_defaults(run=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE


def _config(args: argparse.Namespace, name: str) -> FloorConfig | None:
    try:
        return load(args.config)
    except ConfigError as error:
        print(f"tablectl floor {name}: {error}", file=sys.stderr)
        return None


def run_setup(args: argparse.Namespace) -> int:
    config = _config(args, "setup")
    if config is None:
        return EXIT_USAGE
    owner = args.owner_dsn
    if owner is None:
        dbname = psycopg.conninfo.conninfo_to_dict(config.writer.conninfo).get("dbname")
        owner = psycopg.conninfo.make_conninfo(dbname=str(dbname))
    try:
        with psycopg.connect(owner, autocommit=True) as conn:
            applied = store.setup(conn)
            for database in (config.writer, config.reader):
                role = psycopg.conninfo.conninfo_to_dict(database.conninfo).get("user")
                if database.password_file is not None and role is not None:
                    store.set_password(conn, str(role), read_secret(database.password_file))
    except (psycopg.Error, store.StoreError, ConfigError) as error:
        print(f"tablectl floor setup: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    done = ", ".join(map(str, applied)) if applied else "none (up to date)"
    print(
        f"schema version {len(store.MIGRATIONS)}; applied now: {done}; roles {store.WRITER} "
        f"(writes) and {store.READER} (reads)"
    )
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    from controller.floor.serve import serve  # noqa: PLC0415 -- nats only for serve

    config = _config(args, "serve")
    if config is None:
        return EXIT_USAGE
    configure_logging(LogSettings(), table_id=None)
    try:
        serve(config)
    except (psycopg.Error, store.StoreError, ConfigError, OSError, nats.errors.Error) as error:
        print(f"tablectl floor serve: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _reader(config: FloorConfig) -> psycopg.Connection[tuple[object, ...]]:
    return psycopg.connect(config.reader.dsn())


def run_recall(args: argparse.Namespace) -> int:
    config = _config(args, "recall")
    if config is None:
        return EXIT_USAGE
    try:
        with _reader(config) as conn:
            shown = report.recall(conn, args.table, args.count)
    except (psycopg.Error, ConfigError) as error:
        print(f"tablectl floor recall: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except report.ReportError as error:
        print(f"tablectl floor recall: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_report(FloorRecallJson(args.table, [RecalledHand.of(hand) for hand in shown]))
    elif not shown:
        print(f"no hands of table {args.table} in the floor's store")
    else:
        print("\n\n".join(format_hand(hand) for hand in shown))
    return EXIT_OK


def run_verify(args: argparse.Namespace) -> int:
    config = _config(args, "verify")
    if config is None:
        return EXIT_USAGE
    try:
        with _reader(config) as conn:
            found = report.verify(conn, args.table)
    except (psycopg.Error, ConfigError) as error:
        print(f"tablectl floor verify: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except report.ReportError as error:
        print(f"tablectl floor verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_report(FloorVerifyJson(found.clean, found.chains, found.alarms))
    else:
        _print_verify(found)
    return EXIT_OK if found.clean else EXIT_PROBLEM


def _print_verify(found: report.VerifyReport) -> None:
    for chain in found.chains:
        state = "intact" if not chain.problems else "NOT INTACT"
        print(
            f"table {chain.table_id} journal {chain.journal_id}: {state}, {chain.records} "
            f"records, head {chain.head_seq}"
        )
        for problem in chain.problems:
            print(f"  {problem}")
    if not found.chains:
        print("the floor's store holds no journal")
    for alarm in found.alarms:
        print(
            f"ALARM {alarm.kind}: table {alarm.table_id} journal {alarm.journal_id} record "
            f"{alarm.seq} ({alarm.raised_at}): {alarm.message}"
        )
    print("clean" if found.clean else "NOT CLEAN")
