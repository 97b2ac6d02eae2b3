"""The dealer's display: a full-screen Textual app that follows the table live.

Feed it views with :meth:`DealerDisplay.show`, from any thread: the newest view
wins, so a burst of reads never leaves the screen behind the table. Each widget
keeps the part of the view it last drew and redraws only when its part changed
(the widgets are in ``controller.display.widgets``).

What the dealer sees, top to bottom: the game line with the device lights; the
alarms, full width in red (and a device that pauses the table in amber); the table, seats
clockwise from the dealer's left around the felt, which holds the pot, the
board, the next card and the seat to act in large digits with the panel
buttons it may press; the last announcements at the bottom.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import ClassVar, Final

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.events import Resize
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Footer, Static

from controller.display import render
from controller.display.view import TableView
from controller.display.widgets import (
    NARROW_WIDTH,
    AlarmBanner,
    DeviceBanner,
    HeaderBar,
    LogPanel,
    SeatBox,
    TableGrid,
)


class HelpScreen(ModalScreen[None]):
    """How to read the display, and its keys."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,question_mark,q", "dismiss", "Close"),
    ]

    def compose(self) -> ComposeResult:
        yield Static(HELP_TEXT, id="help")

    def action_dismiss(self) -> None:  # type: ignore[override]  # a key binding takes no result
        self.dismiss(None)


class ConfirmQuit(ModalScreen[bool]):
    """Ask before closing the display in the middle of a hand; ``note`` says what becomes
    of the table (the display's ``QUIT_NOTE``)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "Quit"),
        Binding("n,escape", "answer(False)", "Stay"),
    ]

    def __init__(self, note: str) -> None:
        super().__init__()
        self.note = note

    def compose(self) -> ComposeResult:
        yield Static(
            Text.assemble(
                "A hand is in progress.\n\nClose the dealer's display? ",
                self.note,
                "\n\n",
                ("y", "bold"),
                " close    ",
                ("n", "bold"),
                " stay",
            ),
            id="confirm",
        )

    def action_answer(self, quit_display: bool) -> None:
        self.dismiss(quit_display)


HELP_TEXT: Final = """\
[b]THE DEALER'S DISPLAY[/b]

[b]Top line[/b]  game, table, hand number, street, stakes and house rules; the shoe and panel
   lights on the right.
[b]Red banner[/b]  an integrity alarm: the hand is held. Do what the arrow says (usually: put
   the card aside and press UNDO, or press MISDEAL).
[b]Amber banner[/b]  a device is lost, refused or in a fault: the table is paused; the banner
   says what brings it back. A button pressed meanwhile is refused (the log says so): press
   it again once the banner is gone.
[b]Seats[/b]  clockwise from seat 1 on your left. Face-up cards by rank and suit; blue backs are
   hole cards. A white D marks the button. Borders: yellow TO ACT, blue NEXT CARD,
   green WINS at the showdown; greyed seats are out of the hand.
[b]Felt[/b]  the pot (side pots with their seats), the board, the next card and where it goes,
   the seat to act in large digits with the panel buttons it may press and what each does.
[b]Bottom[/b]  the last announcements.

[b]?[/b] this help    [b]q[/b] quit (asks during a hand)    [b]Esc[/b] close this help"""


class DealerDisplay(App[None]):
    """The screen beside the dealer: shows the newest TableView it was given."""

    TITLE = "tablectl dealer's display"
    CSS = """
    Screen { background: #101418; layout: vertical; }
    #header { height: 1; background: #1c2530; }
    #alarms {
        height: auto; padding: 0 1; margin: 0 0 0 0;
        background: #b00020; color: #ffffff; text-style: bold;
        border: heavy #ff5f5f;
    }
    #alarms.-warnings { background: #8a6d00; border: heavy #ffd75f; }
    #devices {
        height: auto; padding: 0 1;
        background: #b35900; color: #ffffff; text-style: bold;
        border: heavy #ffaf00;
    }
    #table { height: 1fr; grid-gutter: 0 1; padding: 0 1; }
    .spacer { background: #101418; }
    .seat {
        height: 1fr; padding: 0 1; overflow: hidden hidden;
        background: #1c2530; border: round #5f7080;
        border-title-color: #ffffff; border-title-style: bold;
        border-subtitle-style: bold;
    }
    .seat.-out { color: #6c7a89; border: round #3a4450; border-title-color: #6c7a89; }
    .seat.-all-in { border-subtitle-color: #ff8787; }
    .seat.-next-card {
        border: heavy #5fd7ff; border-subtitle-color: #5fd7ff; border-subtitle-background: #101418;
    }
    .seat.-winner {
        border: heavy #5fd75f; border-subtitle-color: #101418; border-subtitle-background: #5fd75f;
    }
    .seat.-to-act {
        background: #3a3000; border: heavy #ffd75f;
        border-subtitle-color: #101418; border-subtitle-background: #ffd75f;
    }
    #felt {
        height: 1fr; padding: 0 1; overflow: hidden hidden;
        background: #0d4a2b; border: round #1f7a4a; align-vertical: middle;
    }
    #pots { height: auto; }
    #next-card { height: auto; margin: 1 0 0 0; }
    #next-card.-due {
        padding: 0 1; background: #0a3a22;
        border: heavy #5fd7ff; border-title-color: #101418; border-title-background: #5fd7ff;
        border-title-style: bold;
    }
    #dealer-prompt { height: auto; margin: 1 0 0 0; }
    #act {
        height: auto; margin: 1 0 0 0; padding: 0 1;
        border: heavy #ffd75f; border-title-color: #101418; border-title-background: #ffd75f;
        border-title-style: bold; background: #0a3a22;
    }
    #act.-paused { border: heavy #6c7a89; border-title-background: #6c7a89; color: #9aa5b1; }
    #act.-paused #act-digits { color: #6c7a89; }
    #act.-paused #act-prompt { text-opacity: 60%; }
    #act-digits { color: #ffd75f; text-style: bold; width: auto; margin: 0 3 0 1; }
    #act-prompt { width: 1fr; height: auto; }
    #showdown { height: auto; margin: 1 0 0 0; }
    #log {
        height: auto; max-height: 4; padding: 0 1; background: #1c2530;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    .narrow #log { display: none; }
    .narrow #next-card, .narrow #dealer-prompt, .narrow #act, .narrow #showdown { margin: 0; }
    .narrow #table { grid-gutter: 0 0; padding: 0; }
    HelpScreen, ConfirmQuit { align: center middle; }
    #help, #confirm {
        width: auto; max-width: 100; height: auto; padding: 1 2;
        background: #1c2530; border: thick #ffd75f;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit_display", "Quit"),
        Binding("question_mark", "help", "Help", key_display="?"),
    ]

    #: What quitting does to the table, as the quit prompt says it: this display runs in the
    #: table's own process (``tablectl demo``), so the table stops with it. The display
    #: attached to a running controller keeps it running (controller/display/attach.py).
    QUIT_NOTE: ClassVar[str] = "The table stops too: it runs in this display's process."

    class ViewReady(Message):
        """A newer view is waiting in the display's slot."""

    class CloseRequested(Message):
        """The table has closed (SIGTERM or SIGINT): the display goes too."""

    def __init__(self, view: TableView) -> None:
        super().__init__()
        self.view = view
        self._pending: TableView | None = None
        self._lock = threading.Lock()

    def compose(self) -> ComposeResult:
        yield HeaderBar(render.Heading.of(self.view), id="header")
        yield AlarmBanner(self.view.alarms, id="alarms")
        yield DeviceBanner(self.view.pausing_devices, id="devices")
        yield TableGrid(self.view)
        yield LogPanel(self.view.log, id="log")
        yield Footer(show_command_palette=False)

    def on_resize(self, event: Resize) -> None:
        # The table's screen, even while the help or a question is on top of it.
        self.default_screen.set_class(event.size.width < NARROW_WIDTH, "narrow")

    def on_mount(self) -> None:
        self.default_screen.set_class(self.size.width < NARROW_WIDTH, "narrow")

    def show(self, view: TableView) -> None:
        """Show ``view`` as soon as the screen can; safe to call from any thread.

        Views that arrive faster than the screen draws are skipped: only the
        newest one is drawn.
        """
        with self._lock:
            waiting = self._pending is not None
            self._pending = view
        if not waiting and not self.post_message(self.ViewReady()):
            # The display has closed: nothing will draw this view, or wake for the next.
            with self._lock:
                self._pending = None

    def close_soon(self) -> None:
        """Exit the display without asking; safe to call from any thread, before or while it
        runs (a closed display ignores it)."""
        self.post_message(self.CloseRequested())

    def on_dealer_display_close_requested(self, message: CloseRequested) -> None:
        self.exit()

    async def on_dealer_display_view_ready(self, message: ViewReady) -> None:
        with self._lock:
            view, self._pending = self._pending, None
        # A view that arrives while the display closes has no screen left to draw on: the
        # closing takes the screens down (``_running`` already false) before the message loop
        # ends, and the table's thread may hand over a view until then.
        if view is not None and self._running and not (self._exit or self._closing):
            await self.apply(view)

    async def apply(self, view: TableView) -> None:
        """Bring every part of the screen up to ``view``, redrawing only what changed.

        A new alarm or a device newly pausing the table also rings the terminal's bell.
        """
        previous, self.view = self.view, view
        if set(view.alarms) - set(previous.alarms) or (
            set(view.pausing_devices) - set(previous.pausing_devices)
        ):
            self.bell()
        # App queries look in the table's screen, also while the help is on top of it.
        self.query_one(HeaderBar).show(render.Heading.of(view))
        self.query_one(AlarmBanner).show(view.alarms)
        self.query_one(DeviceBanner).show(view.pausing_devices)
        grid = self.query_one(TableGrid)
        if grid.seat_numbers == tuple(seat.number for seat in view.seats):
            grid.show(view)
        else:
            # Seats joined or left: lay the table out afresh.
            await grid.remove()
            await self.default_screen.mount(TableGrid(view), before=self.query_one(LogPanel))
        self.query_one(LogPanel).show(view.log)

    def action_help(self) -> None:
        """Show how to read the display."""
        self.push_screen(HelpScreen())

    def action_quit_display(self) -> None:
        """Quit, asking first if a hand is in progress."""
        if not self.view.hand_in_progress:
            self.exit()
            return

        def answered(quit_display: bool | None) -> None:
            if quit_display:
                self.exit()

        self.push_screen(ConfirmQuit(self.quit_note()), answered)

    def quit_note(self) -> str:
        """What the quit question says becomes of the table, now."""
        return self.QUIT_NOTE


def seat_boxes(app: DealerDisplay) -> Iterable[SeatBox]:
    """The seat widgets on screen, in seat order."""
    return sorted(app.query(SeatBox), key=lambda box: box.part.seat.number)
