"""Run the dealer's display headless for a test: a view in, the running app and its pilot out."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from textual.pilot import Pilot

from controller.display.app import DealerDisplay
from controller.display.view import TableView

T = TypeVar("T")

WIDE = (120, 40)
SMALL = (80, 24)


def run_display(
    view: TableView,
    script: Callable[[DealerDisplay, Pilot[None]], Awaitable[T]],
    size: tuple[int, int] = WIDE,
) -> T:
    """Start the display on ``view`` at ``size``, run ``script`` against it, close it."""

    async def session() -> T:
        app = DealerDisplay(view)
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            return await script(app, pilot)

    return asyncio.run(session())


async def settle(pilot: Pilot[None], done: Callable[[], bool], seconds: float = 5.0) -> bool:
    """Let the app run until ``done()`` holds or ``seconds`` pass (a loaded CI machine is slow)."""
    for _ in range(int(seconds / 0.02)):
        if done():
            return True
        await pilot.pause(0.02)
    return done()
