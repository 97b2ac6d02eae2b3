"""The demonstration display: the dealer's display stepping through demo views.

Kept apart from :mod:`controller.commands.display` so that ``tablectl`` loads
Textual only when the display runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, Final

from textual.binding import Binding, BindingType

from controller.display.app import DealerDisplay
from controller.display.view import TableView

#: At most this many redraws before a screenshot is taken as it is.
SETTLE_ROUNDS: Final = 20


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
