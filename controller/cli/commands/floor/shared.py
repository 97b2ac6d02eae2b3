"""What every ``tablectl floor`` command shares (docs/floor.md): its exit codes, floor.toml as
``--config`` names it, and the database owner's connection. Apart from the commands' own
modules, so a command that needs only these (``floor user``, ``floor software``, ``floor key``,
``floor dispute``, ``floor web``) does not import what ``floor recall`` and ``floor verify``
report with (docs/performance.md, Process start)."""

from __future__ import annotations

import argparse
import sys
from typing import Final

import psycopg

from controller.floor.floortoml import FloorConfig, load
from controller.poker.engine.tablesetup import ConfigError

EXIT_OK: Final = 0
EXIT_PROBLEM: Final = 1
EXIT_USAGE: Final = 2


def floor_config(args: argparse.Namespace, name: str) -> FloorConfig | None:
    """floor.toml as ``--config`` names it, or None after saying why (every floor command)."""
    try:
        return load(args.config)
    except ConfigError as error:
        print(f"tablectl floor {name}: {error}", file=sys.stderr)
        return None


def owner_dsn(config: FloorConfig, given: str | None) -> str:
    """The database owner's connection (``--owner-dsn``, or the writer's database over the
    local socket as the user running the command: the DBA's)."""
    if given is not None:
        return given
    dbname = psycopg.conninfo.conninfo_to_dict(config.writer.conninfo).get("dbname")
    return psycopg.conninfo.make_conninfo(dbname=str(dbname))
