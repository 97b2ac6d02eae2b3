"""``tablectl display --demo``: the dealer's display on its demonstration scenes.

``--demo`` cycles through the scenes of :mod:`controller.display.demo` (or shows
one, ``--scene``); ``--screenshot FILE`` renders a scene headless to an SVG at
``--size`` and exits, for reviews and documentation. The display of a live table
runs in the controller's own process (``tablectl run --display``, ``tablectl
demo``): without ``--demo`` this command says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Final

from controller.display.demo import SCENES

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
    """The options of ``tablectl display`` and ``python -m controller.display``."""
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
        help="the dealer's display on its demonstration scenes (a live table: run --display)",
        description="Show the dealer's display on its demonstration scenes (--demo), one "
        "scene (--scene) or a screenshot of one (--screenshot). A live table's display runs "
        "in its controller: 'tablectl run --config FILE --display', or 'tablectl demo'. "
        "Exit status: 0 done, 2 without --demo.",
    )
    add_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the display; returns the exit status."""
    if not args.demo:
        print(
            "tablectl display: expected --demo (the demonstration scenes); a live table's "
            "display is `tablectl run --config FILE --display`, and a simulated table's "
            "`tablectl demo`",
            file=sys.stderr,
        )
        return 2
    # Textual loads here, not when ``tablectl`` builds its parser for another command.
    from controller.display.demo_app import (  # noqa: PLC0415 -- lazy: Textual costs ~0.3 s
        DemoDisplay,
        screenshot,
    )

    names = [args.scene] if args.scene else list(SCENES)
    if args.screenshot is not None:
        args.screenshot.write_text(asyncio.run(screenshot(SCENES[names[0]](), args.size)))
        return 0
    DemoDisplay([SCENES[name]() for name in names], args.interval).run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m controller.display``."""
    parser = argparse.ArgumentParser(
        prog="python -m controller.display", description="The dealer's display."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))
