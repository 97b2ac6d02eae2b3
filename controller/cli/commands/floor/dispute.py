"""What ``tablectl floor dispute --table T --hand N --out DIR --config floor.toml`` runs
(docs/floor.md, Disputes): the dispute bundle of a hand read from the floor's store as the
reader role (controller/floor/disputestore.py), written as ``tablectl dispute`` writes the
table's."""

from __future__ import annotations

import argparse
import sys

import psycopg

from controller.cli.commands.dispute import write
from controller.cli.commands.floor import db
from controller.cli.commands.floor.shared import EXIT_PROBLEM, EXIT_USAGE, floor_config
from controller.floor import disputestore, report
from controller.history import dispute
from controller.poker.engine.tablesetup import ConfigError


def run_dispute(args: argparse.Namespace) -> int:
    """Make the bundle from the store; return the exit status."""
    config = floor_config(args, "dispute")
    if config is None:
        return EXIT_USAGE
    try:
        with db.connect(config.reader.dsn(), db.READER) as conn:
            held = disputestore.current(conn, args.table)
            bounds = disputestore.bounds(conn, held, args.hand)
            lines = disputestore.lines(conn, held, bounds)
    except (psycopg.Error, ConfigError, db.Unreachable) as error:
        print(f"tablectl floor dispute: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    except (report.ReportError, disputestore.NotHeld) as error:
        print(f"tablectl floor dispute: {error}", file=sys.stderr)
        return EXIT_USAGE
    except dispute.DisputeError as error:  # the store cannot tell the hand as asked
        print(f"tablectl floor dispute: {error}", file=sys.stderr)
        return EXIT_PROBLEM
    where = f"the floor's store (table {held.table}, journal {held.journal})"
    return write(
        args,
        table_id=held.table,
        lines=lines,
        bounds=bounds,
        made_from=where,
        command="floor dispute",
    )
