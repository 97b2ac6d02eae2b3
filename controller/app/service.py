"""``tablectl run``: one table from its ``table.toml``, until SIGTERM or SIGINT.

The settings are loaded and checked by ``controller.config``; here they become
drivers, decks, the journal and the controller, and the loop runs on the main
thread (with ``--display``, on a thread beside the dealer's display).
"""

from __future__ import annotations

import os
import queue
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

import structlog

from controller.app.control import ControlError, ControlServer
from controller.app.loop import Controller, JournalOptions
from controller.display.view import TableView
from controller.journal import JournalError
from controller.settings import DeviceSettings, TableSettings
from drivers.deck import Deck, DeckSet
from drivers.discovery import DeviceIdentity, find_port
from drivers.panel import PanelDriver
from drivers.shoe import ShoeDriver
from drivers.transport import LinkSettings


class StartError(Exception):
    """The table cannot open: the message says what to do."""


def device_url(device: DeviceSettings) -> str:
    """The port to open for a device: its path or URL, or the tty udev finds for its match."""
    if device.url is not None:
        return device.url
    match = device.match
    assert match is not None  # the loader sets exactly one of url and match
    found = find_port(DeviceIdentity(device.name, match.vendor_id, match.product_id, match.serial))
    if found is None:
        raise StartError(
            f"devices.{device.name}: no tty matches vendor_id {match.vendor_id}, product_id "
            f"{match.product_id}, serial {match.serial}; plug the {device.name} in "
            "(tablectl devices lists what is connected)"
        )
    return found.node


def link_settings(device: DeviceSettings) -> LinkSettings:
    """The driver's settings for a configured device."""
    return LinkSettings(
        device_url(device),
        baudrate=device.baudrate,
        expected_serial=device.serial,
        heartbeat_timeout=device.heartbeat_timeout,
    )


def load_decks(settings: TableSettings) -> DeckSet:
    """Both decks, the configured one in play (NOTES.md, Shuffle, cut and decks)."""
    a, b = Deck.load(settings.decks.a), Deck.load(settings.decks.b)
    active = a if settings.decks.active == "a" else b
    return DeckSet(a, b, active=active.name)


def build_controller(
    settings: TableSettings,
    display: Callable[[TableView], None] | None = None,
    repeat_window: float = 0.5,
) -> Controller:
    """The controller of the configured table, its journal replayed, drivers not yet started."""
    shoe_link, panel_link = link_settings(settings.shoe), link_settings(settings.panel)

    def drivers(events: queue.Queue[Any]) -> tuple[ShoeDriver, PanelDriver]:
        return (
            ShoeDriver(shoe_link, events, repeat_window=repeat_window, ack_after_commit=True),
            PanelDriver(panel_link, events, ack_after_commit=True),
        )

    journal = settings.journal
    return Controller.build(
        table_id=settings.table_id,
        spec=settings.game,
        config=settings.table_config(),
        journal=JournalOptions(
            journal.dir, journal.fsync, journal.hands_per_file, journal.max_bytes
        ),
        decks=load_decks(settings),
        make_drivers=drivers,
        display=display,
    )


def refuse_root() -> None:
    """The service runs as an unprivileged user in group tablectl (docs/deploy.md)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        raise StartError(
            "refusing to run as root: run as the user tablectl (group tablectl owns the devices "
            "and the journal; docs/deploy.md)"
        )


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop``: the loop finishes the event in hand, then closes."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        structlog.get_logger("controller.table").info(
            "signal", signal=signal.Signals(signum).name, detail="finishing and closing"
        )
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def serve(
    controller: Controller, stop: threading.Event, control: ControlServer | None = None
) -> bool:
    """Run the table until ``stop``; always close (drivers stopped, journal closed, logged).

    ``control``, if given, takes the floor's seat changes while the table runs
    (docs/app.md, Seat changes); if its socket cannot be bound, that is logged and the
    table runs without it.

    False if the journal failed: nothing more was acknowledged (docs/journal.md, a failed
    write or fsync); the service exits and systemd starts it again, and the reopened journal
    checks what is really on disk.
    """
    if control is not None:
        try:
            control.start()
        except ControlError as error:
            # The table deals without it: only seat changes wait until the socket is fixed.
            structlog.get_logger("controller.table").error(
                "control_socket_unavailable",
                error=str(error),
                todo="seat changes (tablectl seat) are refused until the table restarts "
                "with a usable [control] socket",
            )
            control = None
    controller.start()
    try:
        controller.run(stop)
    except JournalError as error:
        structlog.get_logger("controller.table").critical(
            "journal_failed", error=str(error), todo="stopping: nothing more is acknowledged"
        )
        return False
    finally:
        if control is not None:
            control.close()
        controller.close()
    return True
