"""``tablectl run``: one table from its ``table.toml``, until SIGTERM or SIGINT.

The settings are loaded and checked by ``controller.config.tabletoml``; here they become
drivers, decks, the journal and the controller, and the loop runs on the main
thread; the dealer's display attaches from a process of its own (``table/displayfeed.py``).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import Any, Final

import structlog

from controller.config.settings import TableSettings
from controller.display.view import TableView
from controller.history import attest
from controller.journal import JournalError, schema
from controller.journal.keeper import KeeperOptions
from controller.journal.tablekey import KeyFiles
from controller.table.control import ControlError, ControlServer
from controller.table.displayfeed import DisplayFeed, open_feed
from controller.table.loop import Controller
from controller.table.systemd import ServiceNotifier
from drivers.deck import Deck, DeckSet
from drivers.discovery import HotplugEvent, HotplugMonitor
from drivers.seam import registry
from drivers.seam.device import Device, DeviceHeld, OpenOptions, Panel, Shoe
from drivers.seam.events import PANEL, SHOE, EventSink
from drivers.seam.settings import Port


class StartError(Exception):
    """The table cannot open: the message says what to do."""


def watched_path(port: Port) -> str | None:
    """The device path udev may announce this port under, or None.

    A URL (``socket://``, ``sim://``) and a path that leads to a pseudo-terminal
    (``/dev/pts/N``, or the simulator's link to one) have no udev device and no
    uevents: the backend's reconnect backoff (2 s at most) is all they get. Any
    other path (``/dev/tablectl/shoe``, ``/dev/serial/by-id/...``, a device not
    yet plugged in) is watched: the device whose node or link it is wakes the backend.
    """
    path = port.url
    if path is None or not path.startswith("/"):
        return None
    if os.path.realpath(path).startswith("/dev/pts/"):
        return None
    return path


def hotplug_monitor(settings: TableSettings, controller: Controller) -> HotplugMonitor | None:
    """A monitor that reopens a device the moment udev says it is back; None if no device
    of the table has a udev device to watch. Each backend's ports say where they are and in
    which udev subsystem (drivers/seam/settings.py ``Port``)."""
    devices: dict[str, Device] = {SHOE: controller.shoe, PANEL: controller.panel}
    ports = {
        port.name: (role, port)
        for role, device in ((SHOE, settings.shoe), (PANEL, settings.panel))
        for port in device.ports()
    }
    identities = [port.identity for _, port in ports.values() if port.identity is not None]
    paths = {
        name: path for name, (_, port) in ports.items() if (path := watched_path(port)) is not None
    }
    if not identities and not paths:
        return None
    matched = {identity.role for identity in identities}
    subsystems = [port.subsystem for _, port in ports.values()]

    def device_event(event: HotplugEvent) -> None:
        role, _ = ports.get(event.role, (None, None))
        device = devices.get(role) if role is not None else None
        if event.action != "add" or device is None:
            return  # a removal is seen by the backend itself: its port fails
        # A matched device may come back at another node.
        node = event.node if event.role in matched and event.node else None
        device.replugged(event.role, node)

    return HotplugMonitor(
        identities, None, paths=paths, on_event=device_event, subsystems=subsystems
    )


def load_decks(settings: TableSettings) -> DeckSet:
    """Both decks, the configured one in play (rules-interpretation.md, Shuffle, cut and decks)."""
    a, b = Deck.load(settings.decks.a), Deck.load(settings.decks.b)
    active = a if settings.decks.active == "a" else b
    return DeckSet(a, b, active=active.name)


def build_controller(
    settings: TableSettings,
    display: Callable[[TableView], None] | None = None,
    repeat_window: float = 0.5,
) -> Controller:
    """The controller of the configured table, its journal replayed, drivers not yet started."""
    shoe_backend = registry.shoe_backend(settings.shoe.kind)
    panel_backend = registry.panel_backend(settings.panel.kind)
    options = OpenOptions(ack_after_commit=True, repeat_window=repeat_window)

    def drivers(events: EventSink[Any]) -> tuple[Shoe, Panel]:
        return (
            shoe_backend.open(settings.shoe, events, options),
            panel_backend.open(settings.panel, events, options),
        )

    journal = settings.journal
    software = software_record(settings)
    return Controller.build(
        table_id=settings.table_id,
        spec=settings.game,
        config=settings.table_setup(),
        journal=journal,
        keeper=KeeperOptions(
            journal.keep_days, floor=settings.floor is not None, fsync=journal.fsync
        ),
        decks=load_decks(settings),
        make_drivers=drivers,
        display=display,
        alternate_decks=settings.decks.alternate,
        software=software,
        keys=KeyFiles.read(settings.keys),
    )


def software_record(settings: TableSettings) -> schema.SoftwareData:
    """The ``software`` record of this start: the installed product's files and the
    configuration's, as ``tablectl attest`` reads them (controller/history/attest.py;
    13:69E-1.28B(d))."""
    try:
        found = attest.installed(Path(settings.source))
    except attest.AttestError as error:
        raise StartError(f"which software runs cannot be read: {error}") from None
    return schema.SoftwareData(found.version, dict(found.files), dict(found.config), found.digest)


def refuse_root() -> None:
    """The service runs as an unprivileged user in group tablectl (docs/deploy.md)."""
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        raise StartError(
            "refusing to run as root: run as the user tablectl (group tablectl owns the devices "
            "and the journal; docs/deploy.md)"
        )


def stop_on_signals(stop: threading.Event) -> None:
    """SIGTERM and SIGINT set ``stop``: the loop finishes the event in hand, then closes.

    Installed before the journal is opened (``tablectl run``): a signal during the start is
    not lost nor fatal, and the table closes once the replay is done, its journal closed,
    as after any other stop (docs/app.md, Stopping)."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        structlog.get_logger("controller.table").info(
            "signal", signal=signal.Signals(signum).name, detail="finishing and closing"
        )
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


#: What each of the table's sockets serves, and the key that moves it (docs/deploy.md).
_SOCKETS: Final = {
    "control": ("seat changes (tablectl seat)", "[control] socket"),
    "display": ("the dealer's display (tablectl display)", "[display] socket"),
}


def sockets_without_folder(settings: TableSettings) -> tuple[str, ...]:
    """The table's sockets left at their default in a folder that does not exist (``control``,
    ``display``), said in one warning with what to set; ``tablectl run`` opens the table
    without them.

    The default folder, /run/tablectl, is the unit's: its ``RuntimeDirectory=tablectl`` makes
    it before the start (docs/deploy.md, 7), and then this says nothing. A bench run without
    the unit has none, and two errors at every start would say only that. A socket the
    configuration names is bound, or its error logged (``serve``): it was asked for.
    """
    paths = {"control": settings.control_socket, "display": settings.display_socket}
    configured = {"control": settings.control, "display": settings.display}
    off = tuple(
        name
        for name, path in paths.items()
        if configured[name] is None and not path.parent.is_dir()
    )
    if off:
        structlog.get_logger("controller.table").warning(
            "socket_folder_missing",
            folder=", ".join(sorted({str(paths[name].parent) for name in off})),
            off=" and ".join(_SOCKETS[name][0] for name in off),
            todo="run the table under its systemd unit (RuntimeDirectory=tablectl makes "
            "/run/tablectl), or set "
            + " and ".join(_SOCKETS[name][1] for name in off)
            + " in table.toml to a path in a folder the table's user may write "
            "(docs/deploy.md, Configuration reference)",
        )
    return off


def start_watching(monitor: HotplugMonitor | None) -> HotplugMonitor | None:
    """Start the hotplug monitor; None (and a warning) if udev cannot be watched here."""
    if monitor is None:
        return None
    try:
        monitor.start()
    except OSError as error:
        structlog.get_logger("controller.table").warning(
            "hotplug_unavailable",
            error=str(error),
            detail="a replugged device is reopened by the driver's backoff (2 s at most)",
        )
        return None
    return monitor


def serve(
    controller: Controller,
    stop: threading.Event,
    *,
    control: ControlServer | None = None,
    hotplug: HotplugMonitor | None = None,
    notify: ServiceNotifier | None = None,
    feed: DisplayFeed | None = None,
) -> bool:
    """Run the table until ``stop``; always close (drivers stopped, journal closed, logged).

    ``control``, if given, takes the floor's seat changes while the table runs
    (docs/app.md, Seat changes); if its socket cannot be bound, that is logged and the
    table runs without it. ``hotplug`` (see ``hotplug_monitor``) is started beside the
    drivers and stopped before they close. ``notify`` (systemd's ``Type=notify``,
    controller/table/systemd.py) hears READY once the drivers are started, the status after
    each announcement, the watchdog from the loop, and STOPPING as the table closes.
    ``feed`` (the controller's ``display``, controller/table/displayfeed.py) publishes the dealer's
    display to ``tablectl display``; if its socket cannot be bound, that is logged and the
    table runs without it. It closes last, after the table's last view.

    False if the journal failed: nothing more was acknowledged (docs/journal.md, a failed
    write or fsync); the service exits and systemd starts it again, and the reopened journal
    checks what is really on disk.

    Raises ``DeviceHeld`` if another program holds a device's port: a second controller on
    the table's devices is refused before anything binds or reads, the table closed
    (docs/drivers.md, One controller per device).
    """
    try:
        controller.claim()
    except DeviceHeld:
        controller.close()
        raise
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
    feed = open_feed(feed)
    controller.start()
    watching = start_watching(hotplug)
    if notify is not None:
        controller.listeners.append(lambda table, events: notify.announced(table.core, events))
        notify.ready(controller.core, controller.events)
    try:
        controller.run(stop)
    except JournalError as error:
        structlog.get_logger("controller.table").critical(
            "journal_failed",
            hand=controller.log_hand,  # the hand it stopped in (none before the first)
            error=error.in_full(),
            todo="stopping: nothing more is acknowledged",
        )
        return False
    finally:
        if notify is not None:
            notify.stopping()
        if control is not None:
            control.close()
        if watching is not None:
            watching.stop()
        controller.close()
        if notify is not None:
            notify.close()  # after the close's drain, which may answer a last probe
        if feed is not None:
            feed.close()
    return True
