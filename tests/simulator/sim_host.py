"""A minimal host for the simulator's tests, built only from the drivers' pure codec.

It plays the host's part of docs/protocol.md (query, welcome, acknowledge
every sequenced sentence) so the device side can be tested before, and
independently of, the drivers' transports.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import serial
from devtime import WAIT

from drivers.tablectl import panel, shoe
from drivers.tablectl.panel import Press
from drivers.tablectl.sentences import Codec, DecodeError, Heartbeat, Hello, Query, Sentence
from drivers.tablectl.session import Delivery, HostReceiver
from drivers.tablectl.shoe import CardSeen, ShoeStatus


@dataclass
class MiniHost:
    """The host's end of one device link: decode, answer, and keep what was accepted."""

    device: str
    codec: Codec = field(init=False)
    receiver: HostReceiver = field(init=False)
    accepted: list[Sentence] = field(default_factory=list)
    heard: list[Sentence] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)
    deliveries: list[Delivery] = field(default_factory=list)
    ack: bool = True

    def __post_init__(self) -> None:
        self.codec = shoe.host_codec() if self.device == "shoe" else panel.host_codec()
        self.receiver = HostReceiver(self.device)

    def query(self) -> bytes:
        return self.codec.encode(Query())

    def feed(self, data: bytes) -> bytes:
        """Take the device's bytes; return the host's answer bytes."""
        reply = bytearray()
        for item in self.codec.feed(data):
            if isinstance(item, DecodeError):
                self.errors.append(item)
                continue
            self.heard.append(item)
            if isinstance(item, Hello):
                reply += self.codec.encode(self.receiver.on_hello(item).reply)
            elif isinstance(item, Heartbeat):
                again = self.receiver.on_heartbeat(item)
                if again is not None and self.ack:
                    reply += self.codec.encode(again)
            elif isinstance(item, CardSeen | ShoeStatus | Press):
                delivery, ack = self.receiver.on_sequenced(item.seq)
                self.deliveries.append(delivery)
                if delivery is Delivery.ACCEPTED:
                    self.accepted.append(item)
                if ack is not None and self.ack:
                    reply += self.codec.encode(ack)
        return bytes(reply)

    @property
    def cards(self) -> list[str]:
        return [s.uid for s in self.accepted if isinstance(s, CardSeen)]

    @property
    def buttons(self) -> list[str]:
        return [s.button.value for s in self.accepted if isinstance(s, Press)]


class PortHost:
    """A MiniHost on a real serial port (a pty or a ``sim://`` URL), run from the test's thread."""

    def __init__(self, port: serial.SerialBase, device: str) -> None:
        assert isinstance(port, serial.SerialBase)
        self.port = port
        self.host = MiniHost(device)

    def connect(self, timeout: float = WAIT) -> None:
        """Query the device and wait for the welcome to be sent."""
        self.port.write(self.host.query())
        self.until(lambda: self.host.receiver.boot is not None, timeout)

    def pump(self) -> None:
        """Read what has come and answer it."""
        data = self.port.read(self.port.in_waiting or 1)
        if data:
            reply = self.host.feed(data)
            if reply:
                self.port.write(reply)

    def until(self, condition: Callable[[], bool], timeout: float = WAIT) -> None:
        """Pump until ``condition`` holds; fail after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not condition():
            assert time.monotonic() < deadline, "timed out waiting on the simulator"
            self.pump()
