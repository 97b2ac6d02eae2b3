"""What ``tablectl floor setup|serve --config floor.toml`` run (docs/floor.md): loaded only when
one of them runs (controller/cli/commands/floor/__init__.py declares them), apart from what
``floor recall`` and ``floor verify`` run, whose reports they do not need (docs/performance.md,
Process start)."""

from __future__ import annotations

import argparse
import sys

import nats.errors
import psycopg

from controller.cli.commands.floor import db
from controller.cli.commands.floor.shared import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    floor_config,
    owner_dsn,
)
from controller.config.settings import LogSettings
from controller.floor import store
from controller.floor.floortoml import read_secret
from controller.floor.web import dbschema as web_schema
from controller.logs.logsetup import configure_logging
from controller.poker.engine.tablesetup import ConfigError


def run_setup(args: argparse.Namespace) -> int:
    config = floor_config(args, "setup")
    if config is None:
        return EXIT_USAGE
    owner = owner_dsn(config, args.owner_dsn)
    try:
        with db.connect(owner, db.OWNER, autocommit=True) as conn:
            applied = store.setup(conn)
            # The web view's users and logs (its own schema) and its own role, [web] user.
            web_applied = web_schema.setup(conn, config.web.user)
            for database in (config.writer, config.reader, config.web_database):
                role = psycopg.conninfo.conninfo_to_dict(database.conninfo).get("user")
                if database.password_file is not None and role is not None:
                    store.set_password(conn, str(role), read_secret(database.password_file))
    except (psycopg.Error, store.StoreError, ConfigError, db.Unreachable) as error:
        print(f"tablectl floor setup: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    done = ", ".join(map(str, applied)) if applied else "none (up to date)"
    web_done = ", ".join(map(str, web_applied)) if web_applied else "none (up to date)"
    print(
        f"schema version {len(store.MIGRATIONS)}; applied now: {done}; web schema version "
        f"{len(web_schema.MIGRATIONS)}; applied now: {web_done}; roles {store.WRITER} "
        f"(writes), {store.READER} (reads) and {config.web.user} (the web view)"
    )
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    from controller.floor.serve import serve  # noqa: PLC0415 -- nats only for serve

    config = floor_config(args, "serve")
    if config is None:
        return EXIT_USAGE
    configure_logging(LogSettings(), table_id=None)
    try:
        serve(config)
    except (psycopg.Error, store.StoreError, ConfigError, OSError, nats.errors.Error) as error:
        print(f"tablectl floor serve: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK
