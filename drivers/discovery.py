"""Finding the shoe and the panel among udev's devices, and seeing them come and go.

A device is the shoe (or the panel) if it carries the stable name the
project's udev rules give it (``/dev/tablectl/shoe``), or if its USB vendor
ID, product ID and serial number are the ones the table's configuration
names. ``judge`` is the pure rule; ``scan`` applies it to what libudev knows;
``HotplugMonitor`` watches udev on a thread and hands add and remove events
to a queue (and wakes the matching driver, so it reconnects at once). Each backend's port
says which udev subsystem it is in (``drivers.seam.settings.Port``: ``tty`` for a serial
device, ``input`` for a keypad); a monitor watches every subsystem its ports are in.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pyudev
import structlog

from drivers.seam.events import ROLES
from drivers.seam.settings import STABLE_DIR, DeviceIdentity


@dataclass(frozen=True, slots=True)
class Verdict:
    """Which role a tty device plays (None: neither) and why, one reason per identity."""

    role: str | None
    reasons: tuple[str, ...]


def judge(
    properties: Mapping[str, str],
    identities: Iterable[DeviceIdentity],
    paths: Mapping[str, str] | None = None,
) -> Verdict:
    """Decide from a tty device's udev properties whether it is one of ``identities``.

    ``paths`` maps a role to the device path a configuration names instead of an
    identity (``/dev/serial/by-id/...``, ``/dev/ttyACM0``): the tty whose node or
    one of whose links is that path plays the role.
    """
    links = properties.get("DEVLINKS", "").split()
    found = {
        "vendor": properties.get("ID_VENDOR_ID", "").lower(),
        "product": properties.get("ID_MODEL_ID", "").lower(),
        "serial": properties.get("ID_SERIAL_SHORT", ""),
    }
    reasons = []
    for link in links:
        # The udev rules match vendor, product and serial; their name alone is enough.
        if link.startswith(STABLE_DIR + "/") and link.rsplit("/", 1)[1] in ROLES:
            role = link.rsplit("/", 1)[1]
            return Verdict(role, (f"{role}: has the stable name {link}",))
    node = properties.get("DEVNAME", "")
    for role, path in (paths or {}).items():
        if path == node or path in links:
            return Verdict(role, (f"{role}: is the configured path {path}",))
    for identity in identities:
        wanted = {
            "vendor": identity.vendor_id,
            "product": identity.model_id,
            "serial": identity.serial,
        }
        wrong = [
            f"{key} {found[key] or 'none'} (want {value})"
            for key, value in wanted.items()
            if found[key] != value
        ]
        if not wrong:
            reasons.append(
                f"{identity.role}: vendor {identity.vendor_id}, product {identity.model_id} "
                f"and serial {identity.serial} match"
            )
            return Verdict(identity.role, tuple(reasons))
        reasons.append(f"not the {identity.role}: " + ", ".join(wrong))
    return Verdict(None, tuple(reasons))


@dataclass(frozen=True, slots=True)
class Candidate:
    """A tty device libudev knows, what it is, and the verdict on it."""

    node: str
    sys_path: str
    vendor_id: str
    model_id: str
    serial: str
    links: tuple[str, ...]
    verdict: Verdict


def candidate(
    device: Any,
    identities: Iterable[DeviceIdentity],
    paths: Mapping[str, str] | None = None,
) -> Candidate:
    """Judge one pyudev tty device."""
    properties = {key: str(device.properties.get(key, "")) for key in device.properties}
    return Candidate(
        node=str(device.device_node or properties.get("DEVNAME", "")),
        sys_path=str(device.sys_path),
        vendor_id=properties.get("ID_VENDOR_ID", ""),
        model_id=properties.get("ID_MODEL_ID", ""),
        serial=properties.get("ID_SERIAL_SHORT", ""),
        links=tuple(properties.get("DEVLINKS", "").split()),
        verdict=judge(properties, identities, paths),
    )


def scan(
    identities: Iterable[DeviceIdentity],
    context: pyudev.Context | None = None,
    subsystem: str = "tty",
) -> list[Candidate]:
    """Every device of ``subsystem`` with a hardware parent (virtual consoles skipped),
    judged."""
    context = context or pyudev.Context()
    identities = tuple(identities)
    return [
        candidate(device, identities)
        for device in context.list_devices(subsystem=subsystem)
        if "/virtual/" not in device.sys_path
    ]


def find_port(
    identity: DeviceIdentity, context: pyudev.Context | None = None, subsystem: str = "tty"
) -> Candidate | None:
    """The device of ``subsystem`` that is ``identity``, or None."""
    return next(
        (c for c in scan([identity], context, subsystem) if c.verdict.role == identity.role),
        None,
    )


@dataclass(frozen=True, slots=True)
class HotplugEvent:
    """A device of the table came (``add``) or went (``remove``)."""

    role: str
    action: str
    node: str


class HotplugMonitor:
    """Watches udev for the table's devices on a thread; events go to ``events``.

    ``on_add`` maps a role to what to call when that device comes back
    (a driver's ``wake``), so the driver reopens its port at once instead of
    at the end of its backoff. ``on_event`` is called with every event of the
    table's devices (``tablectl run`` moves a udev-matched driver to the node
    the device came back at). ``paths`` names devices by path (see ``judge``);
    ``subsystems``, the udev subsystems watched.
    ``events`` may be None when nobody reads them.
    """

    def __init__(
        self,
        identities: Iterable[DeviceIdentity],
        events: queue.Queue[HotplugEvent] | None,
        on_add: Mapping[str, Callable[[], None]] | None = None,
        context: pyudev.Context | None = None,
        *,
        paths: Mapping[str, str] | None = None,
        on_event: Callable[[HotplugEvent], None] | None = None,
        subsystems: Iterable[str] = ("tty",),
    ) -> None:
        self.identities = tuple(identities)
        #: The udev subsystems the table's ports are in (``Port.subsystem``).
        self.subsystems = tuple(dict.fromkeys(subsystems))
        self.paths = dict(paths or {})
        self.events = events
        self.on_add = dict(on_add or {})
        self.on_event = on_event
        self._context = context or pyudev.Context()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._log = structlog.get_logger("drivers.discovery")

    def start(self) -> None:
        """Start watching; returns once the monitor is listening.

        Raises ``OSError`` here, on the caller's thread, if udev's netlink
        socket cannot be opened (a container without it).
        """
        monitor = pyudev.Monitor.from_netlink(self._context)
        for subsystem in self.subsystems:
            monitor.filter_by(subsystem)
        monitor.start()
        self._thread = threading.Thread(
            target=self._run, args=(monitor,), name="tablectl-hotplug", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop watching and release the udev socket."""
        self._stopping.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> HotplugMonitor:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self, monitor: pyudev.Monitor) -> None:
        try:
            while not self._stopping.is_set():
                device = monitor.poll(timeout=0.05)
                if device is not None:
                    self._seen(device)
        finally:
            # libudev closes the netlink socket when the last reference goes.
            del monitor

    def _seen(self, device: Any) -> None:
        found = candidate(device, self.identities, self.paths)
        role = found.verdict.role
        action = str(device.action)
        if role is None or action not in ("add", "remove"):
            return
        self._log.info("hotplug", role=role, action=action, node=found.node)
        event = HotplugEvent(role, action, found.node)
        if self.events is not None:
            self.events.put(event)
        if self.on_event is not None:
            self.on_event(event)
        wake = self.on_add.get(role)
        if action == "add" and wake is not None:
            wake()
