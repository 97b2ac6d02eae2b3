"""The dealer's display attached to a running controller over its display socket.

``tablectl display --config table.toml`` runs :class:`AttachedDisplay`: it reads the
controller's feed (``controller.display.wire``: a hello, then views) and draws each
view as the in-process display does. The controller never waits on it, and it acts
on nothing: the display has no key that changes the table (the floor's changes are
``tablectl seat``), so quitting or restarting it leaves the table as it is.

When the controller cannot be reached (not started, restarting, stopped) the display
says so at the top ("CONTROLLER NOT REACHABLE: ..., retrying in 2 s"), dims the last
table it showed, and tries again with a bounded backoff; the table comes back on the
screen as soon as the controller answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.widgets import Static

from controller.display import wire
from controller.display.app import DealerDisplay
from controller.display.view import SeatView, TableView

#: What quitting says in the attached display: it is only a screen on the table.
KEEPS_RUNNING: Final = (
    "The table keeps running: only this screen closes. Start the display again to follow it."
)
#: What it says while the controller is not reached: whether the table runs is not known.
NOT_REACHED: Final = (
    "Only this screen closes; the table is not reachable from here now (see the banner). "
    "Start the display again to follow it."
)


@dataclass(frozen=True, slots=True)
class Backoff:
    """How long the display waits between attempts: ``first``, doubling to ``most``."""

    first: float = 0.5
    most: float = 5.0

    def __post_init__(self) -> None:
        if not 0 < self.first <= self.most:
            raise ValueError(
                f"backoff {self.first:g} to {self.most:g} s: expected 0 < first <= most"
            )

    def after(self, delay: float) -> float:
        """The wait after one of ``delay``."""
        return min(delay * 2, self.most)


#: Before the first view: the display has no table to draw yet (never a made-up one).
_NO_TABLE_YET: Final = TableView(game="", table_id="", seats=(SeatView(1), SeatView(2)))


class LinkBanner(Static):
    """Whether the controller is reached: hidden while it is, red when it is not."""


class AttachedDisplay(DealerDisplay):
    """The dealer's display following a controller's feed at ``path``."""

    QUIT_NOTE: ClassVar[str] = KEEPS_RUNNING
    CSS = (
        DealerDisplay.CSS
        + """
    #link { height: auto; padding: 0 1; background: #8a6d00; color: #ffffff; text-style: bold; }
    #link.-lost { background: #b00020; border: heavy #ff5f5f; }
    Screen.-stale #table, Screen.-stale #header, Screen.-stale #log { opacity: 45%; }
    """
    )

    def __init__(
        self,
        path: Path,
        *,
        table_id: str | None = None,
        backoff: Backoff | None = None,
        exit_on_sigterm: bool = False,
    ) -> None:
        super().__init__(_NO_TABLE_YET)
        #: systemd stops the display with SIGTERM: leave the terminal as a quit does.
        self.exit_on_sigterm = exit_on_sigterm
        self.path = path
        #: The table this display is for (from table.toml); None: whatever answers at path.
        self.table_id = table_id
        self.backoff = backoff or Backoff()
        #: The controller answers: hello read, views flowing.
        self.linked = False
        #: Why the controller was last not reached; "" before the first try.
        self.problem = ""
        #: Attempts since the feed was last read, and feeds read since the start.
        self.attempts = 0
        self.links = 0
        #: The table whose feed was last read (its hello's id); None while none was reached.
        self.reached: str | None = None
        self._table_up = False
        #: When the last view came, as the banner says it while the controller is away.
        self.last_view_at = ""

    def compose(self) -> ComposeResult:
        # The table's widgets are mounted under the banner with the first view (``_take``).
        yield LinkBanner(Text(f"Connecting to the controller at {self.path} ..."), id="link")

    def on_mount(self) -> None:
        super().on_mount()
        if self.exit_on_sigterm:
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self.exit)
        self.run_worker(self._follow(), name="feed", exclusive=True)

    # --- the feed ------------------------------------------------------------------------

    async def _follow(self) -> None:
        delay = self.backoff.first
        while True:
            self.attempts += 1
            try:
                await self._read_feed()
            except (OSError, wire.FeedError, ValueError) as error:
                self.problem = self._reason(error)
            else:
                self.problem = "the controller closed the feed (stopping or restarting)"
            if self.linked:  # the feed was read: the next wait starts short again
                self.linked, delay = False, self.backoff.first
            self._unreachable(delay)
            await asyncio.sleep(delay)
            delay = self.backoff.after(delay)

    async def _read_feed(self) -> None:
        """Read the feed at ``path`` until it ends; raises what went wrong."""
        reader, writer = await asyncio.open_unix_connection(str(self.path), limit=wire.MAX_LINE)
        try:
            hello = self._check_hello(wire.decode_line(await reader.readline()))
            self.linked, self.attempts, self.reached = True, 0, hello.table_id
            self.links += 1
            while line := await reader.readline():
                message = wire.decode_line(line)
                if not isinstance(message, TableView):
                    raise wire.FeedError("a second hello: expected views after the first")
                await self._take(message)
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()

    def _check_hello(self, hello: wire.Hello | TableView) -> wire.Hello:
        if not isinstance(hello, wire.Hello):
            raise wire.FeedError("the feed began with a view: expected its hello first")
        if hello.version != wire.VERSION:
            raise wire.FeedError(
                f"feed version {hello.version}: this display reads version {wire.VERSION}; "
                "install the same tablectl as the controller's"
            )
        if self.table_id is not None and hello.table_id != self.table_id:
            raise wire.FeedError(
                f"the feed is table {hello.table_id}'s: expected table {self.table_id} "
                "(check [display] socket in table.toml)"
            )
        return hello

    def _reason(self, error: Exception) -> str:
        where = str(self.path)
        if isinstance(error, FileNotFoundError):
            return f"no display socket at {where} (is the table running?)"
        if isinstance(error, ConnectionRefusedError):
            return f"no controller answers at {where} (the table stopped)"
        if isinstance(error, PermissionError):
            return f"permission denied at {where}; expected a user in group tablectl"
        if isinstance(error, wire.FeedError):
            return str(error)
        if isinstance(error, ValueError):  # a line past the reader's limit
            return f"a feed line longer than {wire.MAX_LINE} bytes: {error}"
        return f"{where}: {error.strerror or error}"  # type: ignore[attr-defined]

    # --- the screen ----------------------------------------------------------------------

    def _banner(self) -> LinkBanner | None:
        """The banner; None once the display is closing (its widgets are going)."""
        if self._exit or self._closing:
            return None
        try:
            return self.query_one(LinkBanner)
        except NoMatches:
            return None

    async def _take(self, view: TableView) -> None:
        """Show ``view``; the first one lays the table out under the banner."""
        banner = self._banner()
        if banner is None:
            return
        self.last_view_at = time.strftime("%H:%M:%S")
        banner.display = False
        self.default_screen.set_class(False, "-stale")
        if not self._table_up:
            self.view = view
            await self.default_screen.mount_all(list(DealerDisplay.compose(self)))
            self._table_up = True
            return
        await self.apply(view)

    def _unreachable(self, delay: float) -> None:
        banner = self._banner()
        if banner is None:
            return
        # The label says it once; the rest is why and when the display tries again.
        text = Text.assemble(
            ("CONTROLLER NOT REACHABLE: ", "bold"), f"{self.problem}, retrying in {delay:g} s"
        )
        if self._table_up:
            text.append(
                f". The table below is as it was at {self.last_view_at}: deal nothing until "
                "it is back."
            )
        banner.update(text)
        banner.add_class("-lost")
        banner.display = True
        self.default_screen.set_class(self._table_up, "-stale")

    def quit_note(self) -> str:
        """The quit question's note: the table keeps running only while its feed is read."""
        return self.QUIT_NOTE if self.linked else NOT_REACHED

    def farewell(self) -> str:
        """What the display says of the table as it closes, as far as it knows: the table
        keeps running only if its feed is being read now; one reached before and not since
        may have stopped; and at a socket where no table answered, none was reached."""
        if self.reached is None:
            if not self.problem:  # closed before the first try was answered
                return f"closed; no table was reached at {self.path}"
            # Most reasons name the socket already (no display socket at ...).
            where = "" if str(self.path) in self.problem else f" at {self.path}"
            return f"closed; no table was reached{where}: {self.problem}"
        table = f"table {self.reached}"
        if self.linked:
            return f"closed; {table} keeps running (the display only showed it)"
        since = f" since {self.last_view_at}" if self.last_view_at else ""
        return f"closed; {table} has not been reached{since}: {self.problem}"
