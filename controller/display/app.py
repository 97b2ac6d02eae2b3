"""The dealer's display: a full-screen Textual app that follows the table live.

Feed it views with :meth:`DealerDisplay.show`, from any thread: the newest view
wins, so a burst of reads never leaves the screen behind the table. Each widget
keeps the part of the view it last drew and redraws only when its part changed.

What the dealer sees, top to bottom: the game line with the device lights; the
alarms, full width in red (and a device that pauses the table in amber); the table, seats
clockwise from the dealer's left around the felt, which holds the pot, the
board, the next card and the seat to act in large digits with the panel
buttons it may press; the last announcements at the bottom.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, Final, Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, Vertical
from textual.events import Resize
from textual.message import Message
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Digits, Footer, Static

from controller.display import render
from controller.display.layout import Cell, table_layout
from controller.display.view import (
    NO_CARD,
    ActionPrompt,
    AlarmView,
    Destination,
    DeviceView,
    NextCard,
    SeatStatus,
    SeatView,
    Severity,
    ShowdownView,
    ShownHand,
    TableView,
)

#: Announcements kept on screen; the journal keeps the rest.
LOG_LINES: Final = 4
#: Seat boxes with this many lines inside show cards two lines tall.
TALL_CARD_LINES: Final = 3
#: Below this many columns the log gives its lines to the table.
NARROW_WIDTH: Final = 100

Part = TypeVar("Part")


class PartStatic(Static, Generic[Part]):
    """A Static that draws one part of the view and redraws only when that part changed."""

    def __init__(self, part: Part, *, id: str | None = None, classes: str = "") -> None:
        super().__init__(id=id, classes=classes)
        self.part: Part = part
        #: How many times the part was drawn: proof that unchanged parts are left alone.
        self.draws = 0

    def on_mount(self) -> None:
        self._draw()

    def show(self, part: Part) -> None:
        """Draw ``part`` if it differs from what is on screen."""
        if part == self.part:
            return
        self.part = part
        self._draw()

    def _draw(self) -> None:
        self.draws += 1
        self.update(self.draw(self.part))
        self.restyle(self.part)

    def draw(self, part: Part) -> RenderableType:
        """The part as text (or any Rich renderable)."""
        raise NotImplementedError

    def restyle(self, part: Part) -> None:
        """Set the classes that depend on the part (hidden, highlighted)."""


class HeaderBar(PartStatic[render.Heading]):
    """Game, table, hand, street and stakes on the left, device lights on the right."""

    def draw(self, part: render.Heading) -> Text:
        lights = render.devices_text(part.devices)
        room = max(0, self.size.width - lights.cell_len - 1)
        header = render.header_text(part)
        if header.cell_len > room:
            # The stakes matter more than the house rules: drop the rules first.
            header = render.header_text(part, rules=False)
        if header.cell_len > room:
            # The device lights matter more than the stakes: cut the game line, never them.
            header = render.header_text(part, stakes=False)
            header.truncate(room, overflow="ellipsis")
        gap = max(1, self.size.width - header.cell_len - lights.cell_len)
        return Text.assemble(header, " " * gap, lights)

    def on_resize(self, event: Resize) -> None:
        self.update(self.draw(self.part))


class AlarmBanner(PartStatic[tuple[AlarmView, ...]]):
    """Every open alarm, full width in red: what happened and what to do."""

    def draw(self, part: tuple[AlarmView, ...]) -> Text:
        return Text("\n").join(render.alarm_text(alarm) for alarm in part)

    def restyle(self, part: tuple[AlarmView, ...]) -> None:
        self.display = bool(part)
        # Warnings alone do not hold the hand: amber, not red.
        self.set_class(all(alarm.severity is Severity.WARNING for alarm in part), "-warnings")


class DeviceBanner(PartStatic[tuple[DeviceView, ...]]):
    """The devices that pause the table, in amber: lost, refused or in a fault, each with
    what brings the table back."""

    def draw(self, part: tuple[DeviceView, ...]) -> Text:
        return render.device_banner_text(part)

    def restyle(self, part: tuple[DeviceView, ...]) -> None:
        self.display = bool(part)


@dataclass(frozen=True, slots=True)
class SeatPart:
    """What a seat box shows: the seat, and what the rest of the view says about it."""

    seat: SeatView
    to_act: bool = False
    next_card: bool = False
    #: The seat's hand at the last showdown, and the chips it won there.
    shown: ShownHand | None = None
    won: int = 0

    @classmethod
    def of(cls, view: TableView, seat: SeatView) -> SeatPart:
        """The part of ``view`` that concerns ``seat``."""
        number = seat.number
        showdown = view.showdown
        shown = None
        if showdown is not None:
            shown = next((hand for hand in showdown.hands if hand.seat == number), None)
        return cls(
            seat,
            to_act=view.to_act is not None and view.to_act.seat == number,
            next_card=view.next_card.seat == number,
            shown=shown,
            won=0 if showdown is None else showdown.won_by(number),
        )


class SeatBox(PartStatic[SeatPart]):
    """A seat: its name and marker on the border, its cards, stack and bet inside.

    At a showdown the seat also shows what its hand makes and what it won.
    """

    def restyle(self, part: SeatPart) -> None:
        seat = part.seat
        # The title sits in the top border, between the corners and a cell of margin each.
        self.border_title = render.seat_title(seat, room=self.outer_size.width - 4)
        self.border_subtitle = render.seat_tag(
            seat, to_act=part.to_act, next_card=part.next_card, won=part.won
        )
        self.set_class(part.to_act, "-to-act")
        self.set_class(part.next_card and not part.to_act, "-next-card")
        self.set_class(part.won > 0, "-winner")
        self.set_class(not seat.in_hand, "-out")
        self.set_class(seat.status is SeatStatus.ALL_IN, "-all-in")

    def draw(self, part: SeatPart) -> Text:
        flat_lines = 2 + (part.shown is not None)
        body = render.seat_body(
            part.seat,
            width=self.content_size.width,
            tall=self.content_size.height > flat_lines,
        )
        if part.shown is not None:
            body.append("\n")
            body.append_text(render.hand_description(part.shown))
        return body

    def on_resize(self, event: Resize) -> None:
        self._draw()


class PotPanel(PartStatic[render.Pots]):
    """The pot total, the side pots with their seats, and the board."""

    def draw(self, part: render.Pots) -> Text:
        return render.pots_text(part)

    def restyle(self, part: render.Pots) -> None:
        # Between hands there is nothing in the middle to count.
        self.display = bool(part.pots or part.bets or part.community)


class NextCardPanel(PartStatic[NextCard]):
    """The next card the shoe must deal and where it goes, boxed in blue when one is due."""

    def draw(self, part: NextCard) -> Text:
        return render.next_card_text(part, boxed=part.destination is not Destination.NONE)

    def restyle(self, part: NextCard) -> None:
        due = part.destination is not Destination.NONE
        self.set_class(due, "-due")
        self.border_title = "NEXT CARD" if due else None


class DealerPromptPanel(PartStatic[str]):
    """What the dealer must do now when no seat acts and no card is due."""

    def draw(self, part: str) -> Text:
        return render.dealer_prompt_text(part)

    def restyle(self, part: str) -> None:
        self.display = bool(part)


class PromptText(PartStatic[ActionPrompt | None]):
    """Why the seat acts and the panel buttons it may press."""

    def draw(self, part: ActionPrompt | None) -> Text:
        return Text() if part is None else render.prompt_text(part)


class ShowdownPanel(PartStatic[ShowdownView | None]):
    """The last showdown: hands, winners, split pots and odd chips."""

    def draw(self, part: ShowdownView | None) -> RenderableType:
        if part is None:
            return Text()
        # On a small screen the seat boxes carry the hands; the felt keeps the pots' division.
        return render.showdown_renderable(part, hands=self.app.size.width >= NARROW_WIDTH)

    def on_resize(self, event: Resize) -> None:
        self._draw()

    def restyle(self, part: ShowdownView | None) -> None:
        self.display = part is not None


class LogPanel(PartStatic[tuple[str, ...]]):
    """The last few announcements, newest at the bottom."""

    def draw(self, part: tuple[str, ...]) -> Text:
        return render.log_text(part[-LOG_LINES:])


class ActPanel(Horizontal):
    """The seat to act in large digits beside its reason and options.

    While a device pauses the table the panel stays, greyed, so the
    dealer knows where the hand resumes.
    """

    def __init__(self, prompt: ActionPrompt | None, *, paused: bool = False) -> None:
        super().__init__(id="act")
        self.prompt = prompt
        self.paused = paused

    def compose(self) -> ComposeResult:
        yield Digits("", id="act-digits")
        yield PromptText(self.prompt, id="act-prompt")

    def on_mount(self) -> None:
        self._apply()

    def show(self, prompt: ActionPrompt | None, *, paused: bool) -> None:
        """Show the seat to act, or hide the panel when no one is to act."""
        self.query_one(PromptText).show(prompt)
        if (prompt, paused) != (self.prompt, self.paused):
            self.prompt, self.paused = prompt, paused
            self._apply()

    def _apply(self) -> None:
        prompt = self.prompt
        self.display = prompt is not None
        self.set_class(self.paused, "-paused")
        title = "SEAT TO ACT" if prompt is None else f"SEAT {prompt.seat} TO ACT"
        self.border_title = title + (" · PAUSED" if self.paused else "")
        self.query_one(Digits).update("" if prompt is None else str(prompt.seat))


class Felt(Vertical):
    """The middle of the table: pot and board, next card, seat to act, showdown."""

    def __init__(self, view: TableView) -> None:
        super().__init__(id="felt")
        self.view = view

    def compose(self) -> ComposeResult:
        yield PotPanel(render.Pots.of(self.view), id="pots")
        yield NextCardPanel(self.view.next_card, id="next-card")
        yield DealerPromptPanel(self.view.dealer_prompt, id="dealer-prompt")
        yield ActPanel(self.view.to_act, paused=bool(self.view.pausing_devices))
        yield ShowdownPanel(self.view.showdown, id="showdown")

    def on_mount(self) -> None:
        self._place_next_card()

    def _place_next_card(self) -> None:
        # "No card expected" says nothing the dealer's own task does not: it gives its lines
        # to the task and the showdown (a live showdown's division was cut off at 120x40).
        idle = self.view.next_card == NO_CARD and bool(self.view.dealer_prompt)
        self.query_one(NextCardPanel).display = not idle

    def show(self, view: TableView) -> None:
        """Bring the felt up to ``view``."""
        self.view = view
        self.query_one(PotPanel).show(render.Pots.of(view))
        self.query_one(NextCardPanel).show(view.next_card)
        self._place_next_card()
        self.query_one(DealerPromptPanel).show(view.dealer_prompt)
        self.query_one(ActPanel).show(view.to_act, paused=bool(view.pausing_devices))
        self.query_one(ShowdownPanel).show(view.showdown)


class TableGrid(Grid):
    """The seats clockwise around the felt, laid out for the number of seats."""

    def __init__(self, view: TableView) -> None:
        super().__init__(id="table")
        self.view = view
        self.seat_numbers = tuple(seat.number for seat in view.seats)

    def compose(self) -> ComposeResult:
        layout = table_layout(len(self.view.seats))
        self.styles.grid_size_columns = layout.columns
        self.styles.grid_size_rows = layout.rows
        # A felt one column wide gets two shares of the width, so it is never narrower
        # than half the table.
        inner = layout.columns - 2
        felt_share = "2fr" if inner == 1 else "1fr"
        self.styles.grid_columns = " ".join(["1fr", *[felt_share] * inner, "1fr"])
        placed: dict[tuple[int, int], Widget] = {}
        for seat, cell in zip(self.view.seats, layout.seats, strict=True):
            placed[cell.row, cell.column] = SeatBox(
                SeatPart.of(self.view, seat), id=f"seat-{seat.number}", classes="seat"
            )
        felt = Felt(self.view)
        _span(felt, layout.felt)
        placed[layout.felt.row, layout.felt.column] = felt
        covered = {
            (layout.felt.row + r, layout.felt.column + c)
            for r in range(layout.felt.row_span)
            for c in range(layout.felt.column_span)
        }
        # The grid places children row by row, so empty corners need a spacer each.
        for row in range(layout.rows):
            for column in range(layout.columns):
                if (row, column) in placed:
                    yield placed[row, column]
                elif (row, column) not in covered:
                    yield Static(classes="spacer")

    def show(self, view: TableView) -> None:
        """Update the seats and the felt in place (same seats as when it was built)."""
        self.view = view
        for seat in view.seats:
            self.query_one(f"#seat-{seat.number}", SeatBox).show(SeatPart.of(view, seat))
        self.query_one(Felt).show(view)


def _span(widget: Widget, cell: Cell) -> None:
    widget.styles.row_span = cell.row_span
    widget.styles.column_span = cell.column_span


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
   says what brings it back.
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
        # A view that arrives while the display closes has no screen left to draw on.
        if view is not None and not (self._exit or self._closing):
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

        self.push_screen(ConfirmQuit(self.QUIT_NOTE), answered)


def seat_boxes(app: DealerDisplay) -> Iterable[SeatBox]:
    """The seat widgets on screen, in seat order."""
    return sorted(app.query(SeatBox), key=lambda box: box.part.seat.number)
