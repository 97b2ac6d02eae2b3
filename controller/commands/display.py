"""``tablectl display``: the dealer's display, for now with the demonstration scenes.

``--demo`` cycles through the scenes of :mod:`controller.display.demo` (or shows
one, ``--scene``); ``--screenshot FILE`` renders a scene headless to an SVG at
``--size`` and exits, for reviews and documentation. Following a live table
needs the engine adapter, which is not written yet: without ``--demo`` the
command says so and exits with status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar, Final

from textual.binding import Binding, BindingType

from controller.display.app import DealerDisplay
from controller.display.demo import SCENES
from controller.display.view import TableView

#: At most this many redraws before a screenshot is taken as it is.
SETTLE_ROUNDS: Final = 20


def _size(text: str) -> tuple[int, int]:
    columns, sep, rows = text.partition("x")
    if not sep or not columns.isdigit() or not rows.isdigit():
        raise argparse.ArgumentTypeError(f"size {text!r}: expected COLUMNSxROWS, e.g. 120x40")
    return int(columns), int(rows)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if value <= 0:
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
    parser = subparsers.add_parser("display", help="the dealer's display (demo scenes for now)")
    add_arguments(parser)
    parser.set_defaults(run=run)


class DemoDisplay(DealerDisplay):
    """The display cycling through demonstration views: a new one every ``interval`` seconds.

    ``n`` shows the next view at once. The timer lives here, at the edge, not in
    the display, which only ever shows what it is given.
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("n", "next_view", "Next scene")]

    def __init__(self, views: Sequence[TableView], interval: float) -> None:
        if not views:
            raise ValueError("demo: expected at least one view to show")
        super().__init__(views[0])
        self.views = tuple(views)
        self.interval = interval
        self.position = 0
        #: Scene changes so far, by the timer or by ``n``.
        self.steps = 0

    def on_mount(self) -> None:
        if len(self.views) > 1:
            self.set_interval(self.interval, self.action_next_view)

    def action_next_view(self) -> None:
        """Show the next demonstration view (after the last, the first again)."""
        self.position = (self.position + 1) % len(self.views)
        self.steps += 1
        self.show(self.views[self.position])


async def screenshot(view: TableView, size: tuple[int, int]) -> str:
    """The display showing ``view`` at ``size``, as SVG, rendered without a terminal."""
    app = DealerDisplay(view)
    async with app.run_test(size=size) as pilot:
        # Seat boxes redraw once laid out: wait until two pictures in a row agree.
        previous, svg = "", app.export_screenshot()
        for _ in range(SETTLE_ROUNDS):
            if svg == previous:
                break
            await pilot.pause()
            previous, svg = svg, app.export_screenshot()
        return svg


def run(args: argparse.Namespace) -> int:
    """Run the display; returns the exit status."""
    if not args.demo:
        print(
            "tablectl display: following a live table needs the engine adapter (not yet "
            "available); use --demo to see the demonstration scenes",
            file=sys.stderr,
        )
        return 2
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
