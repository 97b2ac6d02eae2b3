"""The widgets of the dealer's display: each draws one part of a TableView.

Every widget keeps the part it last drew and redraws only when its part changed
(``PartStatic``). Top to bottom: the game line (``HeaderBar``), the alarms and the
pausing devices (``AlarmBanner``, ``DeviceBanner``), the table (``TableGrid``: the
``SeatBox``es clockwise around the ``Felt``, which holds the pot, the next card, the
dealer's task, the seat to act and the showdown) and the log (``LogPanel``).
``controller.display.app`` puts them on the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Generic, TypeVar

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Grid, Horizontal, Vertical
from textual.events import Resize
from textual.widget import Widget
from textual.widgets import Digits, Static

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
