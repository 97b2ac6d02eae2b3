"""What ``tablectl floor recall|verify --config floor.toml`` run (docs/floor.md):
loaded only when one of them runs (controller/cli/commands/floor/__init__.py declares them), so
psycopg,
the ``floor`` extra, is needed only by the floor and never by a table's commands."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

import psycopg

from controller.cli.commands.floor import db
from controller.cli.commands.floor.shared import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    floor_config,
)
from controller.floor import report
from controller.floor.floortoml import FloorConfig
from controller.history.recall import HandRecord, RecalledHand, format_hand
from controller.logs.jsonreport import print_report
from controller.poker.engine.tablesetup import ConfigError
from controller.poker.words import counted


@dataclass(frozen=True)
class FloorRecallJson:
    """``floor recall --json``: the hands as ``tablectl recall --json`` gives them."""

    table: str
    hands: list[RecalledHand]
    #: Records of the recalled hands that fail their check, and the chain_broken alarms.
    broken: list[report.BrokenRecord]
    alarms: list[report.FloorAlarm]


@dataclass(frozen=True)
class FloorVerifyJson:
    """``floor verify --json``: clean (no chain with a problem, no open alarm), each chain
    walked, the alarms (each with its acknowledgement, or null: open)."""

    clean: bool
    chains: list[report.ChainReport]
    alarms: list[report.FloorAlarm]
    open_alarms: int
    #: Why the acknowledgements could not be read (every alarm then counted open), or null.
    acknowledgements_unread: str | None


def _reader(config: FloorConfig) -> psycopg.Connection[tuple[object, ...]]:
    return db.connect(config.reader.dsn(), db.READER)


def run_recall(args: argparse.Namespace) -> int:
    config = floor_config(args, "recall")
    if config is None:
        return EXIT_USAGE
    try:
        with _reader(config) as conn:
            found = report.recall(conn, args.table, args.count)
    except (psycopg.Error, ConfigError, db.Unreachable) as error:
        print(f"tablectl floor recall: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except report.ReportError as error:
        print(f"tablectl floor recall: {error}", file=sys.stderr)
        return EXIT_USAGE
    shown = found.hands
    if args.json:
        recalled = [RecalledHand.of(hand) for hand in shown]
        print_report(FloorRecallJson(args.table, recalled, found.broken, found.alarms))
    elif not shown and not found.broken:
        print(f"no hands of table {args.table} in the floor's store")
    else:
        told = "\n\n".join(_recalled(found, hand) for hand in shown)
        print("\n\n".join(filter(None, [told, *_broken_lines(found)])))
    # A record that fails its check is evidence the store was changed (docs/floor.md, The
    # chain walk): the recall says so and exits 1, as floor verify does.
    return EXIT_PROBLEM if found.broken else EXIT_OK


def _recalled(found: report.Recall, hand: HandRecord) -> str:
    """A hand as recall prints it; one a broken record cut short says so, not "in progress"."""
    text = format_hand(hand)
    cut = found.cut(hand)
    if cut is None:
        return text
    head, _, rest = text.partition("\n")
    head = head.removesuffix(" (in progress)") + " (NOT INTACT)"
    told = (
        "no record of the hand before it is intact"
        if cut.told_to is None
        else f"the hand is told up to record {cut.told_to}"
    )
    return f"{head}\n{rest}\n  NOT INTACT: record {cut.seq} fails its check: {told}"


def _broken_lines(found: report.Recall) -> list[str]:
    """Each record that fails its check, and the floor's chain_broken alarms on the journal."""
    if not found.broken:
        return []
    lines = [f"NOT INTACT: journal {found.journal_id} holds records that fail their check:"]
    for broken in found.broken:
        where = f"hand {broken.hand}'s" if broken.hand is not None else "between hands, the"
        lines.append(f"  record {broken.seq} ({where} record): {broken.why}")
    lines.append("  every other record told above re-hashes and links")
    for alarm in found.alarms:
        ack = alarm.acknowledged
        state = "open" if ack is None else f"acknowledged by {ack.user}"
        where = f"at record {alarm.seq}, raised {alarm.raised_at}"
        lines.append(f"alarm {alarm.kind} ({state}) {where}")
    if not found.alarms:
        lines.append("no chain_broken alarm yet: floor serve's next walk raises it")
    return ["\n".join(lines)]


def run_verify(args: argparse.Namespace) -> int:
    config = floor_config(args, "verify")
    if config is None:
        return EXIT_USAGE
    try:
        with _reader(config) as conn:
            found = report.verify(conn, args.table)
    except (psycopg.Error, ConfigError, db.Unreachable) as error:
        print(f"tablectl floor verify: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except report.ReportError as error:
        print(f"tablectl floor verify: {error}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print_report(
            FloorVerifyJson(
                found.clean, found.chains, found.alarms, len(found.open_alarms), found.acks_unread
            )
        )
    else:
        _print_verify(found)
    return EXIT_OK if found.clean else EXIT_PROBLEM


def _print_verify(found: report.VerifyReport) -> None:
    """Each chain's verdict first (docs/journal.md, Verdicts), then the open alarms, then the
    acknowledged ones (by whom, when), then clean or NOT CLEAN and why."""
    for chain in found.chains:
        print(
            f"table {chain.table_id} journal {chain.journal_id}: {chain.verdict}; "
            f"{chain.records} records, head {chain.head_seq}"
        )
        for problem in chain.problems:
            print(f"  {problem}")
        print(f"  signatures: {chain.signatures}")
    if not found.chains:
        print("the floor's store holds no journal")
    if found.acks_unread is not None:
        print(f"note: {found.acks_unread}")
    for alarm in found.open_alarms:
        print(
            f"ALARM {alarm.kind} (open): table {alarm.table_id} journal {alarm.journal_id} "
            f"record {alarm.seq} ({alarm.raised_at}): {alarm.message}"
        )
    for alarm in found.alarms:
        ack = alarm.acknowledged
        if ack is not None:
            print(
                f"alarm {alarm.kind} (acknowledged by {ack.user} at {ack.at}: {ack.note}): "
                f"table {alarm.table_id} journal {alarm.journal_id} record {alarm.seq} "
                f"({alarm.raised_at}): {alarm.message}"
            )
    broken = sum(1 for chain in found.chains if chain.problems)
    acked = len(found.alarms) - len(found.open_alarms)
    said_acked = f"; {counted(acked, 'alarm')} acknowledged" if acked else ""
    if found.clean:
        print(f"clean{said_acked}")
    else:
        why = [counted(broken, "chain") + " with a problem"] if broken else []
        why += [counted(len(found.open_alarms), "open alarm")] if found.open_alarms else []
        print(f"NOT CLEAN: {', '.join(why)}{said_acked}")
