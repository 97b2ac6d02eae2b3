"""``tablectl floor web`` and ``tablectl floor user add|passwd|list|disable`` declared
(docs/floor-web.md): argparse only; what they run is controller/cli/commands/floor/web_run.py,
loaded when they run (Starlette, uvicorn, argon2 and psycopg are the ``floor`` extra's)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.lazy import Lazy, Runner

Action = Callable[[str, str], argparse.ArgumentParser]
#: As controller/floor/web/dbschema.py ROLES (not imported: that module needs psycopg).
ROLES: Final = ("supervisor", "surveillance", "auditor", "admin", "broadcaster")


def register(action: Action) -> None:
    """Add ``web`` and ``user`` to ``floor``'s actions (``action`` adds one with --config;
    each runs what it imports, imported then: controller/cli/lazy.py)."""
    web = action("web", "serve the floor's web view (logins, the floor page), until SIGTERM")
    web.set_defaults(run=Lazy(_web))
    user = action("user", "add, change, list or disable the web view's users (the DBA)")
    user.add_argument(
        "--owner-dsn",
        metavar="DSN",
        help="the database owner's libpq connection (default: the floor.toml's database, as the "
        "user running this, over the local socket)",
    )
    what = user.add_subparsers(
        title="user actions", metavar="USER_ACTION", dest="run_user", required=True
    )

    def sub(name: str, text: str) -> argparse.ArgumentParser:
        return what.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")

    add = sub("add", "a new user with a role and a password")
    add.add_argument("name", help="the user's name (lower case)")
    add.add_argument("--role", required=True, choices=ROLES, help="what they may see")
    passwd = sub("passwd", "a new password (every session of theirs ends)")
    passwd.add_argument("name", help="the user's name")
    for chosen in (add, passwd):
        chosen.add_argument(
            "--password-file",
            type=READ_FILE,
            metavar="FILE",
            help="read the password from the file's first line (default: from the terminal)",
        )
    disable = sub("disable", "the user may no longer log in; their sessions end")
    disable.add_argument("name", help="the user's name")
    sub("list", "every user, their role and state")
    user.set_defaults(run=Lazy(_user))


def _web() -> Runner:
    from controller.cli.commands.floor.web_run import run_web  # noqa: PLC0415

    return run_web


def _user() -> Runner:
    from controller.cli.commands.floor.web_run import run_user  # noqa: PLC0415

    return run_user
