"""What ``tablectl floor software approve|revoke|list`` and ``tablectl floor key register|list``
run (docs/floor.md, Software and keys; declared in
controller/cli/commands/floor/software.py, loaded when they run). The database owner's, on the
floor host (``--owner-dsn``, default: the floor.toml's database as the user running this, over
the local socket): floor serve's own role may read the approvals, never change them."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path

import psycopg

from controller.cli.commands.floor import db
from controller.cli.commands.floor.shared import (
    EXIT_OK,
    EXIT_PROBLEM,
    EXIT_USAGE,
    floor_config,
    owner_dsn,
)
from controller.floor import keys, software, store
from controller.journal import signing


def _by(args: argparse.Namespace, command: str) -> str | None:
    """The person named by --by ('' when not given: the login running this), or None after
    saying that a blank name is no name."""
    by = getattr(args, "by", None)
    if by is None:
        return ""
    if not by.strip():
        print(f"tablectl floor {command}: --by {by!r}: expected a person's name", file=sys.stderr)
        return None
    return str(by).strip()


def _said(error: psycopg.Error | store.StoreError | db.Unreachable) -> str:
    """The database's message alone (not its PL/pgSQL context lines)."""
    if isinstance(error, psycopg.Error) and error.diag.message_primary:
        return error.diag.message_primary
    return str(error).strip()


def run_software(args: argparse.Namespace) -> int:
    command = args.run_software
    config = floor_config(args, "software")
    by = _by(args, f"software {command}")
    if config is None or by is None:
        return EXIT_USAGE
    try:
        digest = software.checked_digest(args.digest) if command != "list" else ""
        with db.connect(owner_dsn(config, args.owner_dsn), db.OWNER, autocommit=True) as conn:
            store.check_version(conn)
            if command == "approve":
                if software.approve(conn, digest, args.version, args.note, by):
                    print(f"software {digest} approved: tablectl {args.version.strip()}")
                else:
                    print(f"software {digest} is approved already (tablectl floor software list)")
            elif command == "revoke":
                software.revoke(conn, digest, by)
                print(f"software {digest} revoked: a table that starts with it is alarmed")
            else:
                _print_software(software.approvals(conn), software.last_starts(conn))
    except software.ApprovalError as error:
        print(f"tablectl floor software {command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (psycopg.Error, store.StoreError, db.Unreachable) as error:
        print(f"tablectl floor software {command}: {_said(error)}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _print_software(approvals: list[software.Approval], starts: list[software.LastStart]) -> None:
    if not approvals:
        print("no software approved: tablectl floor software approve DIGEST --version V --note T")
    for a in approvals:
        state = "approved" if a.revoked_at is None else f"revoked {_when(a.revoked_at)}"
        print(
            f"{a.digest}\ttablectl {a.version}\t{state}\t"
            f"by {a.approved_by} {_when(a.approved_at)}\t{a.note}"
        )
    for s in starts:
        state = "approved" if s.approved else "NOT APPROVED"
        print(
            f"table {s.table_id}\tstarted {_when(s.at)}\t{s.digest}\ttablectl {s.version}\t{state}"
        )


def run_key(args: argparse.Namespace) -> int:
    command = args.run_key
    config = floor_config(args, "key")
    by = _by(args, f"key {command}")
    if config is None or by is None:
        return EXIT_USAGE
    try:
        public = _public_key(args.public_key) if command == "register" else ""
        with db.connect(owner_dsn(config, args.owner_dsn), db.OWNER, autocommit=True) as conn:
            store.check_version(conn)
            if command == "register":
                key_id, retired = keys.register(conn, args.table, public, by)
                was = "" if retired is None else f"; key {retired} retired"
                print(f"table {args.table}: key {key_id} registered, in force{was}")
            else:
                _print_keys(keys.registered(conn))
    except (signing.SigningError, OSError) as error:
        print(f"tablectl floor key {command}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except (psycopg.Error, store.StoreError, db.Unreachable) as error:
        print(f"tablectl floor key {command}: {_said(error)}", file=sys.stderr)
        return EXIT_PROBLEM
    return EXIT_OK


def _public_key(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise OSError(f"--public-key {path}: expected a readable table.pub ({error})") from None
    return signing.parse_public_text(text, source=str(path))


def _print_keys(found: list[keys.Registered]) -> None:
    if not found:
        print("no table keys: tablectl floor key register --table ID --public-key table.pub")
    for k in found:
        state = "in force" if k.retired_at is None else f"retired {_when(k.retired_at)}"
        print(
            f"table {k.table_id}\tkey {k.key_id}\t{state}\t"
            f"registered {_when(k.registered_at)} by {k.registered_by}\t{k.public_key}"
        )


def _when(at: datetime) -> str:
    return at.isoformat(timespec="seconds")
