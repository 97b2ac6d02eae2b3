"""The controller's dealer's display, read by the simulator as a dealer reads the screen.

A keypad has no light and no line of text (docs/hardware-keypad.md), so a bench whose panel
is a keypad cannot read what the controller shows on its panel, nor see it acknowledge a
press. ``DisplayWatch`` attaches to the controller's display feed (``[display] socket``,
docs/display.md, The socket), as ``tablectl display`` does, and keeps the last view: whether
the controller holds the keypad and would take a press (``ready``: its panel is connected
and no device pauses the table), and whether it has taken
a press the bot's own table took (``taken``: the display shows the same hand, seat to act and
dealer's prompt). It attaches again whenever the feed ends (the controller restarted).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path
from typing import Final

from controller.display import wire
from controller.display.view import TableView
from controller.poker.engine import Table
from controller.table.viewbuilder import action_prompt, dealer_prompt
from drivers.seam.events import PANEL

#: How often the reading thread tries to attach again, and looks up to see whether to stop.
POLL: Final = 0.1
#: The longest line read: a view is a few kilobytes.
MAX_LINE: Final = 1 << 20


class DisplayWatch:
    """The last view a controller's display feed at ``path`` gave (none while detached)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._view: TableView | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sim-display-watch", daemon=True)

    def __enter__(self) -> DisplayWatch:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    @property
    def view(self) -> TableView | None:
        with self._lock:
            return self._view

    def holds_keypad(self) -> str | None:
        """Why no controller holds the keypad now (None: one does, its panel connected)."""
        view = self.view
        if view is None:
            return f"no controller's display at {self.path} (is tablectl run started?)"
        panel = next((d for d in view.devices if d.name == PANEL), None)
        if panel is not None and panel.pauses:
            return f"the controller has no keypad: {panel.message or panel.state.value}"
        return None

    def ready(self) -> str | None:
        """Why a press now would reach no controller, or be refused by it (None: a controller
        holds the keypad and no device pauses its table: a paused table refuses every press,
        rules-interpretation.md, Integrity, A paused table takes no press)."""
        why = self.holds_keypad()
        view = self.view
        if why is not None or view is None:
            return why
        paused = next((d for d in view.devices if d.pauses), None)
        if paused is not None:
            return f"the controller's table is paused: {paused.message or paused.state.value}"
        return None

    def taken(self, table: Table) -> str | None:
        """Why the display does not yet show what ``table`` (the bot's, after its press)
        waits for; None once it does: the same hand, seat to act and dealer's prompt."""
        view = self.view
        if view is None:
            return f"no controller's display at {self.path}"
        pending = table.pending
        wanted = (table.state.hand or None, action_prompt(pending), dealer_prompt(pending))
        shown = (view.hand_number, view.to_act, view.dealer_prompt)
        if shown == wanted:
            return None
        return f"the controller's display shows {_said(shown)}; the bot's table {_said(wanted)}"

    def _run(self) -> None:
        while not self._stop.is_set():
            with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX) as sock:
                sock.settimeout(POLL)
                sock.connect(str(self.path))
                self._read(sock)
            with self._lock:
                self._view = None
            self._stop.wait(POLL)

    def _read(self, sock: socket.socket) -> None:
        """Keep each view until the feed ends or ``stop``."""
        pending = b""
        while not self._stop.is_set():
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            if not data:
                return
            pending += data
            *lines, pending = pending.split(b"\n")
            if len(pending) > MAX_LINE:
                return
            for line in lines:
                try:
                    message = wire.decode_line(line)
                except wire.FeedError:
                    return  # not a feed this simulator reads: as detached
                if isinstance(message, TableView):
                    with self._lock:
                        self._view = message


def _said(state: tuple[object, ...]) -> str:
    hand, prompt, dealer = state
    seat = getattr(prompt, "seat", None)
    act = f"seat {seat} to act" if seat is not None else "no seat to act"
    return f"hand {hand or '-'}, {act}" + (f", {dealer!r}" if dealer else "")
