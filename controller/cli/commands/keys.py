"""``tablectl keys init | rotate | show``: the table's Ed25519 key that signs its checkpoints
(docs/deploy.md, The table's key; docs/journal.md, Signed checkpoints)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import OUTPUT_FILE, READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG, KeySettings
from controller.config.tabletoml import SettingsError, load_config
from controller.journal import keyfiles
from controller.journal.tablekey import TableKeyError, read_key

EXIT_DONE: Final = 0
#: Refused: a key is there already (init), none to replace or a rotation pending (rotate), no
#: key (show), or a file that cannot be read or written.
EXIT_REFUSED: Final = 1
EXIT_USAGE: Final = 2


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``keys`` and its actions."""
    parser = subparsers.add_parser(
        "keys",
        help=help_line("keys"),
        description="The table's Ed25519 key, which signs every checkpoint of its journal: "
        "'tablectl keys init' at install, 'tablectl keys rotate' to replace it, 'tablectl keys "
        "show'. Exit status: 0 done, 1 refused (the reason is printed), 2 usage error.",
    )
    parser.set_defaults(run=lambda _args: _usage(parser))
    actions = parser.add_subparsers(title="actions", metavar="ACTION")
    for name, run, text in (
        ("init", run_init, "make the table's key (refuses to replace one)"),
        ("rotate", run_rotate, "replace the key; the table journals the hand-over at its start"),
        ("show", run_show, "print the key's id and public key"),
    ):
        action = actions.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        where = action.add_mutually_exclusive_group()
        where.add_argument(
            "--config",
            type=READ_FILE,
            default=None,
            metavar="FILE",
            help=f"the table's configuration: the key is its [keys] private_key "
            f"(default: {DEFAULT_CONFIG})",
        )
        where.add_argument(
            "--private-key",
            # A missing key is the command's to say (init makes it, rotate and show refuse).
            type=OUTPUT_FILE,
            default=None,
            metavar="FILE",
            help="the private key's file itself (a bench without table.toml)",
        )
        action.set_defaults(run=run, action=name)


def run_init(args: argparse.Namespace) -> int:
    """``keys init``: make the key and its table.pub; print its id and public key."""
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    try:
        made = keyfiles.init(settings)
    except TableKeyError as error:
        return _refused(args, str(error))
    print(f"made the table's key {made.key.key_id} in {made.key.path}")
    _print_key(made, settings)
    print(
        "register the public key with the floor (docs/deploy.md, The table's key); "
        "the table journals it at its next start"
    )
    return EXIT_DONE


def run_rotate(args: argparse.Namespace) -> int:
    """``keys rotate``: a new key in place, the old kept for the hand-over."""
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    try:
        made = keyfiles.rotate(settings)
    except TableKeyError as error:
        return _refused(args, str(error))
    assert made.replaced is not None  # a rotation replaces a key
    print(
        f"made the table's new key {made.key.key_id} in {made.key.path}, replacing "
        f"{made.replaced.key_id} (kept as {settings.old_private_key} until the hand-over is "
        "journaled)"
    )
    _print_key(made, settings)
    print(
        "restart the table (systemctl restart tablectl): it journals the hand-over signed by "
        f"{made.replaced.key_id} and deletes the old key; register the new public key with "
        "the floor (docs/deploy.md, The table's key)"
    )
    return EXIT_DONE


def run_show(args: argparse.Namespace) -> int:
    """``keys show``: the key's file, id and public key, and a rotation not yet journaled."""
    settings = _settings(args)
    if settings is None:
        return EXIT_USAGE
    try:
        key = read_key(settings.private_key)
        old = read_key(settings.old_private_key)
    except TableKeyError as error:
        return _refused(args, str(error))
    if key is None:
        return _refused(
            args,
            f"no key at {settings.private_key}: the table runs unsigned; make its key with "
            "tablectl keys init",
        )
    print(f"private key: {key.path}")
    print(f"key id: {key.key_id}")
    print(f"public key: {key.public_key}")
    if old is not None:
        print(
            f"rotation pending: {old.key_id} ({old.path}) hands over to {key.key_id} at the "
            "table's next start"
        )
    return EXIT_DONE


def _print_key(made: keyfiles.Made, settings: KeySettings) -> None:
    print(f"key id: {made.key.key_id}")
    print(f"public key: {made.key.public_key}")
    print(f"public key file: {made.public_file}")
    if made.owner is not None:
        print(f"owned by {made.owner}, mode 0600 (its folder 0700)")
    elif os.geteuid() == 0:
        print(
            f"caution: no user {keyfiles.SERVICE_USER}: {settings.private_key} stays root's, "
            "and the service cannot read it (docs/deploy.md, step 2)",
            file=sys.stderr,
        )


def _settings(args: argparse.Namespace) -> KeySettings | None:
    if args.private_key is not None:
        return KeySettings(Path(os.path.abspath(args.private_key)))
    try:
        return load_config(args.config or DEFAULT_CONFIG).keys
    except SettingsError as error:
        print(f"tablectl keys {args.action}: {error}", file=sys.stderr)
        return None


def _refused(args: argparse.Namespace, reason: str) -> int:
    print(f"tablectl keys {args.action}: {reason}", file=sys.stderr)
    return EXIT_REFUSED


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return EXIT_USAGE
