"""What the virtual shoe and panel share: the device core, its identity, timing and link.

A device core speaks docs/protocol.md from the device's side, built on the
drivers' codec (``drivers.tablectl.shoe.device_codec``, ``drivers.tablectl.panel.device_codec``)
and their go-back-N sender (``drivers.tablectl.session.DeviceSender``). It is pure:
``receive(data, now)`` takes what the host wrote, ``poll(now)`` returns the
sentences to write now, each one whole (so faults can drop or garble one),
and ``next_deadline()`` says when ``poll`` next has work. Time is always
passed in; transports (simulator.transports) supply the bytes and the clock.
The shoe is ``simulator.virtualshoe.VirtualShoe``, the panel
``simulator.virtualpanel.VirtualPanel``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Final

from drivers.tablectl.panel import Press
from drivers.tablectl.sentences import (
    PROTOCOL_VERSION,
    Ack,
    Codec,
    DecodeError,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
)
from drivers.tablectl.session import WINDOW, DeviceSender
from drivers.tablectl.shoe import CardSeen, ShoeStatus

_TOKEN: Final = re.compile(r"[A-Za-z0-9._-]{1,16}")

#: docs/protocol.md section 10: heartbeat and hello repeat once a second, resend after 200 ms.
HEARTBEAT_INTERVAL: Final = 1.0
HELLO_INTERVAL: Final = 1.0
RESEND_AFTER: Final = 0.2
#: docs/protocol.md section 5: the device holds at least 256 waiting sentences.
STORE: Final = 256
#: How often ``next_deadline`` asks to be polled while sentences wait for an ack.
RESEND_POLL: Final = 0.02


class DeviceError(ValueError):
    """A technician's command the device cannot carry out; the message says why."""


@dataclass(frozen=True, slots=True)
class Identity:
    """What a device says in its hello (docs/protocol.md 3.1 ``HEL``)."""

    model: str
    serial: str
    firmware: str
    protocol: int = PROTOCOL_VERSION

    def __post_init__(self) -> None:
        # docs/protocol.md 3.1 HEL: model, serial and firmware are tokens; protocol 1..999.
        for name in ("model", "serial", "firmware"):
            value = getattr(self, name)
            if not _TOKEN.fullmatch(value):
                raise ValueError(
                    f"{name} {value!r}: expected 1 to 16 letters, digits, '.', '_' or '-'"
                )
        if not 1 <= self.protocol <= 999:
            raise ValueError(f"protocol {self.protocol}: expected a version from 1 to 999")


SHOE_IDENTITY: Final = Identity("RS-200", "SHOE0001", "2.1.0")
PANEL_IDENTITY: Final = Identity("DP-8", "PANEL0001", "1.4.2")


@dataclass(frozen=True, slots=True)
class Timing:
    """The device's timers (docs/protocol.md section 10); tests shorten them."""

    heartbeat: float = HEARTBEAT_INTERVAL
    hello: float = HELLO_INTERVAL
    resend_after: float = RESEND_AFTER
    window: int = WINDOW
    store: int = STORE


@dataclass(slots=True)
class LinkState:
    """What the device knows of the host, for the technician's ``state``."""

    welcomed: bool = False
    refusal: str = ""
    queries: int = 0
    welcomes: int = 0
    acks: int = 0
    errors: list[str] = field(default_factory=list)


class DeviceCore:
    """One device's side of the link: hello, heartbeat, numbering, resend; no I/O."""

    name: str = "device"

    def __init__(
        self,
        identity: Identity,
        codec: Codec,
        boot: str,
        now: float,
        timing: Timing,
        *,
        first_seq: int = 0,
    ) -> None:
        self.identity = identity
        self._first_seq = first_seq
        self.timing = timing
        self._codec = codec
        self._outbox: list[bytes] = []
        self._next_hello: float | None = None
        self.link = LinkState()
        self._power_up(boot, now)

    # --- power and link -------------------------------------------------------------------

    def _power_up(self, boot: str, now: float) -> None:
        self.boot = boot
        self.sender = DeviceSender(
            boot, self._first_seq, window=self.timing.window, resend_after=self.timing.resend_after
        )
        self.link.welcomed = False
        self.link.refusal = ""
        self._next_heartbeat = now + self.timing.heartbeat
        self._say_hello(now)

    def power_cycle(self, boot: str, now: float) -> None:
        """Switch off and on: a new boot id; what was not acknowledged is lost (section 4)."""
        self._outbox.clear()
        self._power_up(boot, now)

    def link_lost(self) -> None:
        """The USB link went away: wait for the host's query and welcome before sending on."""
        self.sender.on_query()
        self.link.welcomed = False
        self._next_hello = None

    def link_back(self, now: float) -> None:
        """The USB link came back: introduce ourselves again (section 4, 1)."""
        self._say_hello(now)

    def _say_hello(self, now: float) -> None:
        self._outbox.append(self._encode(self._hello()))
        self._next_hello = now + self.timing.hello

    def _hello(self) -> Hello:
        ident = self.identity
        return Hello(
            self.sender.oldest, ident.model, ident.serial, ident.firmware, ident.protocol, self.boot
        )

    def _encode(self, sentence: Sentence) -> bytes:
        return self._codec.encode(sentence)

    # --- input ----------------------------------------------------------------------------

    def receive(self, data: bytes, now: float) -> None:
        """Take what the host wrote; undecodable input is counted and ignored (section 3.4)."""
        for item in self._codec.feed(data):
            if isinstance(item, DecodeError):
                self.link.errors = [*self.link.errors[-9:], str(item)]
                continue
            self._obey(item, now)

    def _obey(self, sentence: Sentence, now: float) -> None:
        if isinstance(sentence, Query):
            self.link.queries += 1
            self.link_lost()  # the host (re)opened the port: section 4, 1 and 5
            self._say_hello(now)
        elif isinstance(sentence, Welcome):
            self.link.welcomes += 1
            self.link.welcomed = True
            self.link.refusal = ""
            self._next_hello = None
            self.sender.on_welcome()
            self._welcomed()
        elif isinstance(sentence, Reject):
            # Section 4, 5: send nothing sequenced, show why, go on answering QRY.
            self.link.welcomed = False
            self.link.refusal = f"refused by the host: {sentence.reason} {sentence.expected}"
            self._next_hello = None
            self.sender.on_query()
        elif isinstance(sentence, Ack):
            self.link.acks += 1
            self.sender.on_ack(sentence)
            self._acknowledged()
        else:
            self._obey_device(sentence)

    def _obey_device(self, sentence: Sentence) -> None:
        """A sentence only this kind of device understands (the panel's LIT and TXT).

        Each device's codec decodes only its own catalogue, so anything else
        never gets here: it is a decode error, counted and shown by ``state``.
        """

    def _acknowledged(self) -> None:
        """Room was made in the store."""

    def _welcomed(self) -> None:
        """The host has just welcomed the device."""

    # --- output ---------------------------------------------------------------------------

    def submit(self, sentence: CardSeen | ShoeStatus | Press) -> None:
        """Number a sequenced sentence and keep it until the host acknowledges it."""
        self.sender.submit(sentence)

    @property
    def room(self) -> int:
        """How many more sentences the device's store can hold."""
        return self.timing.store - self.sender.backlog

    def poll(self, now: float) -> list[bytes]:
        """The sentences to write now, whole, in order."""
        out, self._outbox = self._outbox, []
        if self._next_hello is not None and now >= self._next_hello:
            out.append(self._encode(self._hello()))
            self._next_hello = now + self.timing.hello
        out.extend(self._encode(s) for s in self.sender.due(now))  # type: ignore[arg-type]  # Sequenced is a Sentence
        if now >= self._next_heartbeat:
            out.append(self._encode(self.sender.heartbeat()))
            self._next_heartbeat += self.timing.heartbeat
            if self._next_heartbeat <= now:  # polled late: one beat now, the next a period on
                self._next_heartbeat = now + self.timing.heartbeat
        return out

    def next_deadline(self) -> float:
        """When ``poll`` next has something to write (``-inf``: now)."""
        if self._outbox:
            return -math.inf
        deadline = self._next_heartbeat
        if self._next_hello is not None:
            deadline = min(deadline, self._next_hello)
        return deadline

    @property
    def busy(self) -> bool:
        """Whether sentences are waiting for the host (poll often to resend in time)."""
        return self.sender.backlog > 0 and self.sender.welcomed
