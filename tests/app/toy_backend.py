"""A shoe backend written as docs/drivers.md (Adding a backend) says: its own module, its
own settings and keys, registered by one entry; a device that numbers nothing and takes no
acknowledgement. Its "reader" is the test: ``read`` is a tag under the slot."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

from controller.poker.inputs import ReadPoint
from controller.tomlcheck import Section
from drivers.seam.device import OpenOptions, Shoe, ShoeBackend
from drivers.seam.events import (
    SEQ_MODULUS,
    SHOE,
    DeviceUp,
    EventSink,
    HelloOutcome,
    TagRead,
)
from drivers.seam.settings import DeviceSettings, Port


@dataclass(frozen=True, slots=True)
class ToySettings(DeviceSettings):
    port: str
    role: str = SHOE
    kind: str = "toy"

    def ports(self) -> tuple[Port, ...]:
        return (Port(self.role, self.port, None, "tty"),)

    def describe(self) -> str:
        return f"a toy reader at {self.port}"


class ToyReader:
    """The ``Shoe`` protocol's members, and ``read`` for the test."""

    device = SHOE

    def __init__(self, events: EventSink[Any], options: OpenOptions) -> None:
        self.events = events
        self.clock = options.clock
        self.boot: str | None = None
        self.running = False
        self.acknowledges = False
        self.points = frozenset({ReadPoint.DEALING_SLOT})
        self.committed: list[int] = []
        self._seq = 0

    def claim(self) -> None:
        pass

    def start(self) -> None:
        # A host session: a boot id of the host's (docs/drivers.md, Devices without sequence
        # numbers), numbers from 0.
        self.running = True
        self.boot = "H" + secrets.token_hex(4).upper()[:7]
        self._seq = 0
        self.events.put(DeviceUp(SHOE, self.boot, "", HelloOutcome.NEW_SESSION, model="TOY"))

    def stop(self) -> None:
        self.running = False

    def replugged(self, port: str, node: str | None) -> None:
        pass

    def restore(self, boot: str, last_seq: int) -> None:
        pass  # nothing is resent: nothing to drop

    def restore_reads(self, boot: str, reads: Iterable[tuple[str, ReadPoint, int]]) -> None:
        pass

    def commit(self, seq: int) -> None:
        self.committed.append(seq)  # the controller may say it; the device hears nothing

    def line_totals(self) -> dict[str, object]:
        return {"reads": self._seq}

    def read(self, uid: str) -> None:
        read_ms = int(self.clock() * 1000) % 2**32
        self.events.put(TagRead(uid, ReadPoint.DEALING_SLOT, self._seq, read_ms))
        self._seq = (self._seq + 1) % SEQ_MODULUS


class ToyShoe(ShoeBackend):
    role: ClassVar[str] = SHOE
    kind: ClassVar[str] = "toy"
    summary: ClassVar[str] = "a test's shoe: the test reads the tags"
    keys: ClassVar[tuple[str, ...]] = ("port",)

    @classmethod
    def read_settings(cls, section: Section) -> ToySettings | None:
        port = section.string("port", what="the toy reader's port", required=True)
        return None if port is None else ToySettings(port)

    @classmethod
    def open(cls, settings: DeviceSettings, events: EventSink[Any], options: OpenOptions) -> Shoe:
        assert isinstance(settings, ToySettings)
        return ToyReader(events, options)
