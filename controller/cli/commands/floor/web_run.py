"""What ``tablectl floor web`` and ``tablectl floor user add|passwd|list|disable`` run
(docs/floor-web.md; declared in controller/cli/commands/floor/web.py, loaded when they run).

Users are the database owner's to change, on the floor host (``--owner-dsn``, default: the
floor.toml's database as the user running this, over the local socket). A password is read from
the terminal, twice, or from ``--password-file``: never from the command line, where ``ps`` and
the shell's history would show it.
"""

from __future__ import annotations

import argparse
import getpass
import sys

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
from controller.floor.floortoml import read_secret
from controller.floor.store import StoreError
from controller.floor.web import dbschema as web_schema
from controller.floor.web import users
from controller.logs.logsetup import configure_logging
from controller.poker.engine.tablesetup import ConfigError


def run_web(args: argparse.Namespace) -> int:
    from controller.floor.web.httpserver import serve  # noqa: PLC0415 -- uvicorn only for web

    config = floor_config(args, "web")
    if config is None:
        return EXIT_USAGE
    try:
        config.web.secret()
        # Its own role, [web] user; checked before the log is set up, as the other commands'
        # problems are said: one line on standard error.
        with db.connect(config.web_database.dsn(), db.WEB) as conn:
            web_schema.check_version(conn)
    except ConfigError as error:
        print(f"tablectl floor web: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (psycopg.Error, StoreError, db.Unreachable) as error:
        print(f"tablectl floor web: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    configure_logging(LogSettings(), table_id=None)
    try:
        serve(config)
    except OSError as error:
        print(f"tablectl floor web: {error}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _password(args: argparse.Namespace) -> str:
    if args.password_file is not None:
        return read_secret(args.password_file)
    if not sys.stdin.isatty():
        raise ConfigError("no terminal to read the password from: give --password-file FILE")
    first = getpass.getpass(f"password for {args.name}: ")
    if getpass.getpass("the same again: ") != first:
        raise ConfigError("the two passwords differ: nothing changed")
    return first


def run_user(args: argparse.Namespace) -> int:
    config = floor_config(args, "user")
    if config is None:
        return EXIT_USAGE
    command = args.run_user
    try:
        password = _password(args) if command in ("add", "passwd") else ""
        with db.connect(owner_dsn(config, args.owner_dsn), db.OWNER, autocommit=True) as conn:
            web_schema.check_version(conn)
            if command == "add":
                users.add(conn, args.name, args.role, password)
                print(f"user {args.name} added, role {args.role}")
            elif command == "passwd":
                users.passwd(conn, args.name, password)
                print(f"user {args.name}: a new password; their sessions have ended")
            elif command == "disable":
                users.disable(conn, args.name)
                print(f"user {args.name} disabled; their sessions end at their next request")
            else:
                _print_users(users.listed(conn))
    except (ConfigError, users.UserError) as error:
        print(f"tablectl floor user {command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (psycopg.Error, StoreError, db.Unreachable) as error:
        print(f"tablectl floor user {command}: {str(error).strip()}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _print_users(found: list[users.User]) -> None:
    if not found:
        print("no users: `tablectl floor user add NAME --role admin` makes the first")
    for user in found:
        state = "disabled" if user.disabled else "enabled"
        changed = user.password_changed_at.isoformat(timespec="seconds")
        print(f"{user.name}\t{user.role}\t{state}\tpassword set {changed}")
