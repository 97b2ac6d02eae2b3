"""The dealer's display beside a running controller: views flow from the loop's thread."""

from __future__ import annotations

import threading
from collections.abc import Callable

from controller.display.app import DealerDisplay
from controller.display.view import TableView


class DisplaySink:
    """Takes each view the controller builds; hands it to the display once there is one.

    The controller announces (and builds a first view) before the display exists;
    ``attach`` shows the newest view so far, then every later one.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._app: DealerDisplay | None = None
        self.latest: TableView | None = None

    def __call__(self, view: TableView) -> None:
        with self._lock:
            self.latest = view
            app = self._app
        if app is not None:
            app.show(view)

    def attach(self, app: DealerDisplay) -> None:
        with self._lock:
            self._app = app
            latest = self.latest
        if latest is not None:
            app.show(latest)


def run_with_display(
    sink: DisplaySink, work: Callable[[threading.Event], None], stop: threading.Event
) -> None:
    """Run ``work(stop)`` on a thread while the display runs here; ``q`` stops both.

    Setting ``stop`` from elsewhere (SIGTERM's or SIGINT's handler) stops both too:
    once ``work`` has finished (the table closed), the display is closed.
    """
    first = sink.latest
    if first is None:
        raise RuntimeError("the controller built no view before the display opened")
    app = DealerDisplay(first)
    sink.attach(app)

    def table() -> None:
        work(stop)
        if stop.is_set():  # stopped by a signal, not by a failed journal (the display shows it)
            app.close_soon()

    thread = threading.Thread(target=table, name="tablectl-table")
    thread.start()
    try:
        app.run()
    finally:
        stop.set()
        thread.join()
