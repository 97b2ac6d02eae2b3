"""The keypad bench's reading of the controller's display feed (simulator/display_watch.py):
a real unix socket speaking the feed (controller/display/wire.py), the watch attached to it as
``tablectl sim`` attaches to a controller's ``[display] socket``."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path

from controller.display import wire
from controller.display.demo import device_lost_scene
from controller.display.view import DeviceState, DeviceView, TableView
from simulator.display_watch import DisplayWatch

PATIENCE = 10.0


@contextmanager
def feed(path: Path, view: TableView) -> Iterator[threading.Event]:
    """A display feed at ``path`` that gives ``view`` to the one reader it accepts."""
    served = threading.Event()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen(1)

        def serve() -> None:
            conn, _ = server.accept()
            with conn:
                conn.sendall(wire.hello_line("T-1") + wire.view_line(view))
                served.wait()

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            yield served
        finally:
            served.set()
            thread.join()


def answer_once_attached(watch: DisplayWatch) -> str | None:
    deadline = time.monotonic() + PATIENCE
    while watch.view is None:
        assert time.monotonic() < deadline, "the watch never read the feed's view"
        time.sleep(0.01)
    return watch.ready()


def test_no_press_while_a_device_other_than_the_keypad_pauses_the_table(tmp_path: Path) -> None:
    """A paused table refuses every press (rules-interpretation.md, Integrity, A paused table
    takes no press): with the shoe lost and the keypad held, the bench is not ready to press,
    and says why in the display's words."""
    lost = DeviceView("shoe", DeviceState.LOST, "Table paused: shoe lost.")
    view = replace(device_lost_scene(), devices=(lost, DeviceView("panel")))
    path = tmp_path / "display.sock"
    with feed(path, view), DisplayWatch(path) as watch:
        why = answer_once_attached(watch)
    assert why == "the controller's table is paused: Table paused: shoe lost."


def test_a_press_is_ready_with_the_keypad_held_and_nothing_paused(tmp_path: Path) -> None:
    view = replace(device_lost_scene(), devices=(DeviceView("shoe"), DeviceView("panel")))
    path = tmp_path / "display.sock"
    with feed(path, view), DisplayWatch(path) as watch:
        assert answer_once_attached(watch) is None
