"""How the table's configuration names a device: one settings family for every backend.

``DeviceSettings`` is what a backend's ``read_settings`` returns for its ``[devices.<role>]``
section of table.toml: each backend subclasses it with its own keys (a frozen dataclass),
and says through ``ports`` where its device is reached, so that the application finds it,
watches it for hotplug and reports it without knowing the backend. ``DeviceIdentity`` is a
USB device's udev identity (vendor, product, serial), for both the configuration's match and
discovery (drivers/discovery.py). Pure: no I/O.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Final

#: Where the project's udev rules put a table's devices (udev/99-tablectl.rules).
STABLE_DIR: Final = "/dev/tablectl"


@dataclass(frozen=True, slots=True)
class DeviceIdentity:
    """A USB device as udev knows it: ``role`` plays it if vendor, product and serial match."""

    role: str
    vendor_id: str  # four lowercase hex digits, as udev's ID_VENDOR_ID
    model_id: str  # four lowercase hex digits, as udev's ID_MODEL_ID
    serial: str  # udev's ID_SERIAL_SHORT

    def __post_init__(self) -> None:
        for name in ("vendor_id", "model_id"):
            value = getattr(self, name)
            if len(value) != 4 or any(c not in "0123456789abcdef" for c in value):
                raise ValueError(f"{self.role} {name} {value!r}: expected 4 lowercase hex digits")
        if not self.serial:
            raise ValueError(f"{self.role} serial: expected the device's USB serial number")

    @property
    def stable_name(self) -> str:
        """The name the udev rules give the device (udev/99-tablectl.rules)."""
        return f"{STABLE_DIR}/{self.role}"

    @property
    def text(self) -> str:
        """``VID:PID:SERIAL``, as the command line and the log give it."""
        return f"{self.vendor_id}:{self.model_id}:{self.serial}"

    @classmethod
    def parse(cls, role: str, text: str) -> DeviceIdentity:
        """``VID:PID:SERIAL`` (``1209:7ab1:SHOE0001``) as a command line gives it."""
        parts = text.split(":")
        if len(parts) != 3:
            raise ValueError(f"{role} {text!r}: expected VENDOR:PRODUCT:SERIAL, e.g. 1209:7ab1:SN1")
        return cls(role, parts[0].lower(), parts[1].lower(), parts[2])


@dataclass(frozen=True, slots=True)
class Port:
    """One port a device is reached at: a path or URL (``url``), or its USB ``identity``.

    ``name`` is the device's role (``shoe``), or ``role.part`` for a device of several ports
    (two readers of one shoe); the hotplug monitor reports a port by it. ``subsystem`` is the
    udev subsystem the port appears in (``tty``, ``input``)."""

    name: str
    url: str | None
    identity: DeviceIdentity | None
    subsystem: str = "tty"


class DeviceSettings(ABC):
    """One ``[devices.<role>]`` section as its backend read it (each backend's settings
    subclass this, as a frozen dataclass of its own keys)."""

    __slots__ = ()

    #: "shoe" or "panel" (``drivers.seam.events.ROLES``); a field of each subclass.
    role: str
    #: The backend's name in the registry (``[devices.<role>] kind``); a field of each
    #: subclass, defaulting to its backend's kind.
    kind: str

    @abstractmethod
    def ports(self) -> tuple[Port, ...]:
        """Where the device is reached, for discovery, hotplug and ``tablectl status``."""

    @abstractmethod
    def describe(self) -> str:
        """One line for ``tablectl config``: the kind, where the device is, its keys."""

    def serial_number(self) -> str | None:
        """The serial number the device must announce or be found by; None: any. Two
        devices of a table never share one (the host tells them apart by it)."""
        return None
