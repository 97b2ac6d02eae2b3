"""The demonstration display: the dealer's display stepping through demo views.

Kept apart from :mod:`controller.cli.commands.display` so that ``tablectl`` loads
Textual only when the display runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import ClassVar, Final

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.timer import Timer
from textual.widgets import Static

from controller.display.app import HELP_TEXT, DealerDisplay, HelpScreen
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


#: The demo's training keys (docs/display.md, Dealer training): the key, the action's name
#: (``simulator.training.Trainer.actions``) and what it does, for the help.
TRAINING_KEYS: Final = (
    ("a", "alarm", "a card of the other deck passes the slot: an integrity alarm"),
    ("u", "undo", "press UNDO (put the stray card aside first)"),
    ("m", "misdeal", "press MISDEAL: the hand is void, every bet returned"),
    ("s", "shoe", "unplug the shoe's cable, or plug it back in"),
    ("j", "jam", "a card sticks in the shoe's slot, or is freed"),
)

TRAINING_HELP: Final = "\n\n[b]DEALER TRAINING[/b] (the demo only)  make the table go wrong:\n" + (
    "\n".join(f"[b]{key}[/b] {name}: {what}" for key, name, what in TRAINING_KEYS)
)


class TrainingHelp(HelpScreen):
    """The display's help, and the demo's training keys."""

    def compose(self) -> ComposeResult:
        yield Static(HELP_TEXT + TRAINING_HELP, id="help")


class TrainingNote(Static):
    """What the last training key did, for a moment. It has a line of its own below the log
    lines, not a toast over the screen's corner, which covered them (docs/display.md, Dealer
    training)."""


class TrainingDisplay(DealerDisplay):
    """The live demo's display with keys for a dealer's training: each makes the simulated
    table go wrong (or presses undo or misdeal), and the screen shows what the real table
    would show. ``actions`` does each key's work (by name, ``TRAINING_KEYS``) and says it in a
    few words, shown for ``NOTE_SECONDS`` below the log."""

    CSS = (
        DealerDisplay.CSS
        + """
    #training-note {
        display: none; height: auto; padding: 0 1;
        background: #005f87; color: #ffffff; text-style: bold;
    }
    #training-note.-shown { display: block; }
    """
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding(key, f"train('{name}')", name.capitalize()) for key, name, _what in TRAINING_KEYS
    ]
    #: How long a training key's note shows.
    NOTE_SECONDS: ClassVar[float] = 4.0

    def __init__(self, view: TableView, actions: Mapping[str, Callable[[], str]]) -> None:
        missing = {name for _key, name, _what in TRAINING_KEYS} - set(actions)
        if missing:
            raise ValueError(f"training: no action for {sorted(missing)}; expected one a key")
        super().__init__(view)
        self.actions = dict(actions)
        self._note_timer: Timer | None = None
        # Held, not queried: the note's timer may fire while the app closes, when the screen
        # that held the note is gone and a query of it finds nothing.
        self._note = TrainingNote(id="training-note")

    def compose(self) -> ComposeResult:
        yield from super().compose()
        # After the log in the screen's column (the footer is docked): the grid above gives
        # it the line, so nothing is drawn over another.
        yield self._note

    def action_train(self, name: str) -> None:
        """Do one training key's work; what it did shows for a moment below the log."""
        note = self._note
        note.update(self.actions[name]())
        note.add_class("-shown")
        if self._note_timer is not None:
            self._note_timer.stop()
        self._note_timer = self.set_timer(self.NOTE_SECONDS, self._hide_note)

    def _hide_note(self) -> None:
        self._note_timer = None
        self._note.remove_class("-shown")

    def action_help(self) -> None:
        """How to read the display, and the training keys."""
        self.push_screen(TrainingHelp())
