"""``tablectl floor software approve|revoke|list`` and ``tablectl floor key register|list``
declared (docs/floor.md, Software and keys): argparse only; what they run is
controller/cli/commands/floor/software_run.py, loaded when they run (psycopg is the ``floor``
extra's). Both are the database owner's, on the floor host, like ``floor user``."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.lazy import Lazy, Runner

Action = Callable[[str, str], argparse.ArgumentParser]
OWNER_DSN_HELP: Final = (
    "the database owner's libpq connection (default: the floor.toml's database, as the user "
    "running this, over the local socket)"
)


def _subs(
    parser: argparse.ArgumentParser, dest: str
) -> Callable[[str, str], argparse.ArgumentParser]:
    parser.add_argument("--owner-dsn", metavar="DSN", help=OWNER_DSN_HELP)
    what = parser.add_subparsers(title="actions", metavar="ACTION", dest=dest, required=True)

    def sub(name: str, text: str) -> argparse.ArgumentParser:
        return what.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")

    return sub


def _by(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--by",
        metavar="NAME",
        help="the person making the change, as the change log records it (default: the login "
        "running this)",
    )


def register(action: Action) -> None:
    """Add ``software`` and ``key`` to ``floor``'s actions (``action`` adds one with --config;
    each runs what it imports, imported then: controller/cli/lazy.py)."""
    software = action(
        "software", "approve, revoke or list the software digests the tables may start with"
    )
    sub = _subs(software, "run_software")
    approve = sub("approve", "approve a digest tablectl attest printed for a release")
    approve.add_argument("digest", help="the digest: 64 hex digits (tablectl attest)")
    approve.add_argument("--version", required=True, help="the tablectl version it is of")
    approve.add_argument(
        "--note", required=True, help="what was checked: the laboratory's letter, the tables"
    )
    revoke = sub("revoke", "a digest no longer approved: a table that starts with it is alarmed")
    revoke.add_argument("digest", help="the digest approved before")
    for parser in (approve, revoke):
        _by(parser)
    sub("list", "the digests approved and revoked, and what each table last started with")
    software.set_defaults(run=Lazy(_software))

    key = action("key", "register or list the tables' Ed25519 public keys")
    sub = _subs(key, "run_key")
    register_key = sub("register", "register a table's public key (at install, from table.pub)")
    register_key.add_argument("--table", required=True, metavar="ID", help="the table's id")
    register_key.add_argument(
        "--public-key",
        required=True,
        type=READ_FILE,
        metavar="FILE",
        help="the table's table.pub (tablectl keys init writes it)",
    )
    _by(register_key)
    sub("list", "every table's keys, the one in force and those retired")
    key.set_defaults(run=Lazy(_key))


def _software() -> Runner:
    from controller.cli.commands.floor.software_run import run_software  # noqa: PLC0415

    return run_software


def _key() -> Runner:
    from controller.cli.commands.floor.software_run import run_key  # noqa: PLC0415

    return run_key
