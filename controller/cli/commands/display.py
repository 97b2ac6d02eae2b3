"""``tablectl display``: the dealer's display of a running table, or its demonstration scenes.

``tablectl display --config table.toml`` (or ``--socket PATH``) attaches to the running
controller's display socket (``[display] socket``) and shows its table
(:mod:`controller.display.attach`); it reconnects by itself when the controller goes
and comes back, and quitting it leaves the table running (docs/display.md).

``--demo`` cycles through the scenes of :mod:`controller.display.demo` (or shows
one, ``--scene``); ``--screenshot FILE`` renders a scene headless to an SVG at
``--size`` and exits, for reviews and documentation.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from pathlib import Path
from typing import Final

from controller.cli.commands._paths import READ_FILE
from controller.cli.registry import help_line
from controller.config.settings import DEFAULT_CONFIG
from controller.config.tabletoml import SettingsError, load_config
from controller.display.demo import SCENES
from controller.display.view import TableView

EXIT_DONE: Final = 0
EXIT_USAGE: Final = 2

#: The smallest screenshot that still shows a table.
MIN_SIZE: Final = (40, 12)


def _size(text: str) -> tuple[int, int]:
    columns, sep, rows = text.partition("x")
    if not sep or not columns.isdigit() or not rows.isdigit():
        raise argparse.ArgumentTypeError(f"size {text!r}: expected COLUMNSxROWS, e.g. 120x40")
    size = int(columns), int(rows)
    if size[0] < MIN_SIZE[0] or size[1] < MIN_SIZE[1]:
        raise argparse.ArgumentTypeError(
            f"size {text!r}: expected at least {MIN_SIZE[0]}x{MIN_SIZE[1]}"
        )
    return size


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"interval {text!r}: expected seconds above 0, e.g. 5")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``tablectl display``."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--config",
        type=READ_FILE,
        metavar="FILE",
        help=f"the table's configuration: attach to its [display] socket (default: "
        f"{DEFAULT_CONFIG})",
    )
    where.add_argument(
        "--socket",
        type=Path,
        metavar="PATH",
        help="attach to the display socket at PATH instead (no configuration read)",
    )
    parser.add_argument("--demo", action="store_true", help="show the demonstration scenes")
    parser.add_argument(
        "--scene", choices=sorted(SCENES), help="show only this scene (default: cycle all)"
    )
    parser.add_argument(
        "--interval", type=_seconds, default=6.0, help="seconds per scene (default 6)"
    )
    parser.add_argument(
        "--screenshot", type=Path, metavar="FILE", help="write the scene as SVG and exit"
    )
    parser.add_argument(
        "--size", type=_size, default=(120, 40), help="screenshot size (default 120x40)"
    )


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``tablectl display``."""
    parser = subparsers.add_parser(
        "display",
        help=help_line("display"),
        description="Show the dealer's display of the running table: attach to its display "
        "socket ([display] socket of --config, or --socket), follow it, and reconnect by "
        "itself when the controller goes away; q quits the display, never the table. Or "
        "show the demonstration scenes (--demo), one scene (--scene) or a screenshot of one "
        "(--screenshot). Exit status: 0 done, 2 a configuration that cannot be read, "
        "options that do not go together, or a --screenshot file that cannot be written.",
    )
    add_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the display; returns the exit status."""
    if not args.demo:
        if args.scene or args.screenshot is not None:
            print(
                "tablectl display: --scene and --screenshot show the demonstration scenes: "
                "expected --demo with them",
                file=sys.stderr,
            )
            return EXIT_USAGE
        return attach(args)
    if args.config is not None or args.socket is not None:
        print(
            "tablectl display: --demo shows the demonstration scenes, not a table: expected "
            "--config or --socket without --demo",
            file=sys.stderr,
        )
        return EXIT_USAGE
    # Textual loads here, not when ``tablectl`` builds its parser for another command.
    from controller.display.demo_app import (  # noqa: PLC0415 -- lazy: Textual costs ~0.3 s
        DemoDisplay,
    )

    names = [args.scene] if args.scene else list(SCENES)
    if args.screenshot is not None:
        return _screenshot(args.screenshot, SCENES[names[0]](), args.size)
    DemoDisplay([SCENES[name]() for name in names], args.interval).run()
    return EXIT_DONE


def _screenshot(path: Path, view: TableView, size: tuple[int, int]) -> int:
    """Write ``view`` drawn at ``size`` to ``path`` as SVG; the exit status."""
    from controller.display.demo_app import screenshot  # noqa: PLC0415 -- lazy, as above

    # Opened before the scene is drawn: a path that cannot take the file is said at once.
    try:
        out = path.open("w", encoding="utf-8")
    except OSError as error:
        return _unwritable(path, _why_not_opened(path, error))
    with out:
        try:
            out.write(asyncio.run(screenshot(view, size)))
            out.flush()
        except OSError as error:
            return _unwritable(path, f"cannot write it: {error.strerror}")
    return EXIT_DONE


def _why_not_opened(path: Path, error: OSError) -> str:
    """Why ``--screenshot``'s file could not be opened for writing, in the dealer's words."""
    if isinstance(error, IsADirectoryError):
        return "it is a folder"
    if isinstance(error, FileNotFoundError) and not path.parent.is_dir():
        return f"no folder {path.parent}"
    if isinstance(error, NotADirectoryError):
        return f"{path.parent} is not a folder"
    return f"cannot write it: {error.strerror}"


def _unwritable(path: Path, why: str) -> int:
    """Say that ``--screenshot`` cannot be written and why, on one line; the usage status."""
    print(
        f"tablectl display: --screenshot {path}: {why}; expected a writable file path in an "
        "existing folder",
        file=sys.stderr,
    )
    return EXIT_USAGE


def attach(args: argparse.Namespace) -> int:
    """Follow the running table's display socket until the dealer quits."""
    table_id: str | None = None
    socket: Path | None = args.socket
    if socket is None:
        config = args.config or DEFAULT_CONFIG
        try:
            settings = load_config(config)
        except (SettingsError, OSError) as error:
            print(f"tablectl display: {error}", file=sys.stderr)
            return EXIT_USAGE
        socket, table_id = settings.display_socket, settings.table_id
    from controller.display.attach import (  # noqa: PLC0415 -- lazy: Textual costs ~0.3 s
        AttachedDisplay,
    )

    app = AttachedDisplay(socket, table_id=table_id, exit_on_sigterm=True)
    app.run()
    print(f"tablectl display: {app.farewell()}")
    return EXIT_DONE
