"""The dealer's display attached to a running controller (controller/display/attach.py), headless
with Textual's pilot, over the real socket: it draws the table the controller publishes, says so
when the controller goes away, shows the table again when it is back, and quitting it leaves
the table running (docs/display.md, Attaching to the table)."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path

from apphelp import PATIENCE, sim_table
from display_harness import settle
from test_app_feed import welcomed_dealer
from test_app_secrets import screen_text
from textual.pilot import Pilot

from controller.display.app import ConfirmQuit, DealerDisplay
from controller.display.attach import (
    KEEPS_RUNNING,
    NOT_REACHED,
    AttachedDisplay,
    Backoff,
    LinkBanner,
)
from controller.display.demo import SCENES
from controller.display.view import TableView
from controller.display.widgets import SeatBox
from controller.table.displayfeed import DisplayFeed
from controller.table.loop import wait_until

#: A queue the display under test cannot fill however late the machine runs it: these tests
#: are of what it shows, not of when a slow display is dropped (tests/app/test_app_feed.py).
READING = 100_000
#: Short waits between attempts: the test waits on what the screen shows, not on these.
QUICK = Backoff(0.02, 0.1)


class Feeds:
    """The controller's display: every view it built, to whichever feed is open now."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.built: list[TableView] = []
        self.feed = DisplayFeed(path, "SIM-1", queue_views=READING)

    def __call__(self, view: TableView) -> None:
        self.built.append(view)
        self.feed(view)

    def reopen(self) -> None:
        self.feed = DisplayFeed(self.path, "SIM-1", queue_views=READING)
        if self.built:
            self.feed(self.built[-1])
        self.feed.start()


def flat(app: DealerDisplay) -> str:
    """The screen's text, its lines joined by spaces, the boxes' borders left out: a banner
    wrapped over two lines reads as one sentence."""
    rows = (row.strip().strip("┃┏┓┗┛━│").strip() for row in screen_text(app).splitlines())
    return " ".join(row for row in rows if row)


def attached(
    path: Path,
    script: Callable[[AttachedDisplay, Pilot[None]], Awaitable[None]],
    table_id: str | None = "SIM-1",
) -> None:
    async def session() -> None:
        app = AttachedDisplay(path, table_id=table_id, backoff=QUICK)
        async with app.run_test(size=(120, 40)) as pilot:
            await script(app, pilot)

    asyncio.run(session())


def test_it_follows_the_table_says_when_it_is_gone_and_shows_it_again(tmp_path: Path) -> None:
    """The display draws the view the controller publishes and follows a hand; when
    the controller stops it says "CONTROLLER NOT REACHABLE: ..., retrying" over the last
    table, dimmed; when the controller is back it shows the table again, by itself."""
    feeds = Feeds(tmp_path / "d.sock")
    with sim_table(tmp_path, "mambo", seats=3, display=feeds) as table:
        feeds.feed.start()

        async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
            assert await settle(pilot, lambda: app.linked and app.view == feeds.built[-1], PATIENCE)
            await asyncio.to_thread(welcomed_dealer(table, 1).run)
            assert await settle(pilot, lambda: app.view == feeds.built[-1], PATIENCE)
            shown = flat(app)
            assert "SIM-1" in shown
            assert "NOT REACHABLE" not in shown
            assert not app.query_one(LinkBanner).display
            assert (
                app.farewell() == "closed; table SIM-1 keeps running (the display only showed it)"
            )

            await asyncio.to_thread(table.stop_controller)
            feeds.feed.close()
            assert await settle(pilot, lambda: "NOT REACHABLE" in flat(app), PATIENCE)
            shown = flat(app)
            assert "CONTROLLER NOT REACHABLE: the controller closed the feed" in shown
            assert shown.lower().count("not reachable") == 1
            assert "retrying in" in shown
            assert "deal nothing until it is back" in shown
            assert app.default_screen.has_class("-stale")
            assert "SIM-1" in shown, "the last table stays, dimmed"
            # Closed now, the display could not say the table keeps running: it may have stopped.
            assert app.farewell() == (
                f"closed; table SIM-1 has not been reached since {app.last_view_at}: "
                "the controller closed the feed (stopping or restarting)"
            )

            feeds.reopen()
            await asyncio.to_thread(table.start_controller)
            assert await settle(pilot, lambda: app.linked and app.view == feeds.built[-1], PATIENCE)
            assert await settle(pilot, lambda: "NOT REACHABLE" not in flat(app), PATIENCE)
            assert not app.default_screen.has_class("-stale")
            assert app.links == 2

        try:
            attached(feeds.path, script)
        finally:
            feeds.feed.close()


def test_before_any_controller_it_says_so_and_draws_no_table(tmp_path: Path) -> None:
    """Started before the table, the display draws no made-up table: it says the controller is
    not reachable and why, until the feed answers; then the table comes up."""
    path = tmp_path / "d.sock"
    feed = DisplayFeed(path, "SIM-1")
    feed(SCENES["bring-in"]())

    async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
        assert await settle(pilot, lambda: app.attempts >= 2, PATIENCE)
        shown = flat(app)
        assert f"no display socket at {path} (is the table running?)" in shown
        assert not list(app.query(SeatBox))
        feed.start()
        assert await settle(pilot, lambda: len(app.query(SeatBox)) == 11, PATIENCE)
        assert app.view == SCENES["bring-in"]()
        assert not app.query_one(LinkBanner).display

    try:
        attached(path, script, table_id=None)
    finally:
        feed.close()


def test_another_tables_feed_is_refused_on_screen(tmp_path: Path) -> None:
    """--config names the table: a feed of another table id (a wrong [display] socket) is not
    drawn; the screen says whose feed it is and what was expected."""
    path = tmp_path / "d.sock"
    with DisplayFeed(path, "MB-9") as feed:
        feed(SCENES["bring-in"]())

        async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
            assert await settle(pilot, lambda: "MB-9" in app.problem, PATIENCE)
            assert "the feed is table MB-9's: expected table SIM-1" in flat(app)
            assert not list(app.query(SeatBox))
            assert app.farewell() == (
                f"closed; no table was reached at {path}: the feed is table MB-9's: expected "
                "table SIM-1 (check [display] socket in table.toml)"
            )

        attached(path, script)


def test_quitting_the_attached_display_leaves_the_table_running(tmp_path: Path) -> None:
    """During a hand q asks, and the question says the table keeps running; after y
    the display is gone and the table deals the hand on to its end."""
    feeds = Feeds(tmp_path / "d.sock")
    with sim_table(tmp_path, "mambo", seats=3, display=feeds) as table:
        feeds.feed.start()
        acts = welcomed_dealer(table, 1).acts()
        asked: list[str] = []

        async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
            while not feeds.built[-1].hand_in_progress:
                await asyncio.to_thread(next, acts)  # each act once the controller took it
            assert await settle(pilot, lambda: app.view == feeds.built[-1], PATIENCE)
            assert app.view.hand_in_progress
            await pilot.press("q")
            assert await settle(pilot, lambda: isinstance(app.screen, ConfirmQuit), PATIENCE)
            asked.append(flat(app))
            await pilot.press("y")

        attached(feeds.path, script)
        assert KEEPS_RUNNING[:40] in " ".join(asked[0].split())
        assert "stops" not in asked[0]
        assert wait_until(lambda: feeds.feed.attached == 0, PATIENCE), "the display has left"
        for _act in acts:  # the table deals on without a display
            pass
        assert table.controller.core.finished == 1
        feeds.feed.close()


def test_quitting_while_the_table_is_not_reached_does_not_say_it_keeps_running(
    tmp_path: Path,
) -> None:
    """Mid-hand, the controller gone: q still asks, but the question does not say the table
    keeps running (the display cannot tell); it says the table is not reachable from here."""
    path = tmp_path / "d.sock"
    feed = DisplayFeed(path, "SIM-1")
    feed(SCENES["bring-in"]())  # a hand in progress
    feed.start()
    asked: list[str] = []

    async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
        assert await settle(pilot, lambda: app.linked and app.view.hand_in_progress, PATIENCE)
        feed.close()
        assert await settle(pilot, lambda: "NOT REACHABLE" in flat(app), PATIENCE)
        await pilot.press("q")
        assert await settle(pilot, lambda: isinstance(app.screen, ConfirmQuit), PATIENCE)
        asked.append(flat(app))
        await pilot.press("y")

    try:
        attached(path, script)
    finally:
        feed.close()
    assert NOT_REACHED[:50] in " ".join(asked[0].split())
    assert "keeps running" not in asked[0]


def test_the_in_process_display_says_quitting_stops_the_table() -> None:
    """tablectl demo runs its table in the display's process: there, the question says so."""

    async def session() -> str:
        app = DealerDisplay(SCENES["bring-in"]())
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("q")
            assert await settle(pilot, lambda: isinstance(app.screen, ConfirmQuit), PATIENCE)
            return screen_text(app)

    asked = " ".join(asyncio.run(session()).split())
    assert "The table stops too" in asked
    assert "keeps running" not in asked


def test_a_feed_of_another_version_is_refused_on_screen(tmp_path: Path) -> None:
    """A controller of another tablectl (its feed's version differs) is not drawn: the screen
    says which version it speaks and what to do."""
    path = tmp_path / "d.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    stop = threading.Event()

    def speak_version_2() -> None:
        server.settimeout(0.05)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn, contextlib.suppress(OSError):  # the display may leave first
                conn.sendall(b'{"type": "hello", "version": 2, "table_id": "SIM-1"}\n')

    thread = threading.Thread(target=speak_version_2, name="test-feed-v2")
    thread.start()

    async def script(app: AttachedDisplay, pilot: Pilot[None]) -> None:
        assert await settle(pilot, lambda: "version 2" in app.problem, PATIENCE)
        assert "feed version 2: this display reads version 1" in flat(app)
        assert not list(app.query(SeatBox))

    try:
        attached(path, script)
    finally:
        stop.set()
        thread.join()
        server.close()
