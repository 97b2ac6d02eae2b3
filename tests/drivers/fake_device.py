"""A small test-side shoe or panel, built from the protocol's own device half.

It is not the simulator: it does just enough of docs/protocol.md to drive the
host's driver in the contract suite, with faults to order (lose outgoing
frames, ignore acks, go silent, speak another protocol version). Everything
it does happens on its own thread, plugging and unplugging included, so its
file descriptors are never used by two threads at once.

Its timers (hellos, heartbeats, resends, the shoe's read stamps) read its
``clock``: the wall clock by default, or a ``simulator.clock.ManualClock`` the
test moves with ``advance`` and gives the host's driver too. On a manual clock
nothing falls due until the test says time has passed, and at each advance the
device's thread first takes in what the host wrote, then writes everything due
by the new time, all before the new time can be read: so a host that reads the
time and then its port finds every heartbeat due by then, however late its
thread runs, as with the simulator (simulator/clock.py).
"""

from __future__ import annotations

import queue
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from backends import Backend, DeviceWire

from controller.poker.inputs import ReadPoint
from drivers.seam.tags import DEVICE_CLOCK_MODULUS
from drivers.tablectl import panel, shoe
from drivers.tablectl.sentences import (
    Ack,
    Codec,
    DecodeError,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
)
from drivers.tablectl.session import DeviceSender, Sequenced, seq_add
from simulator.clock import ManualClock

#: How long a test waits for the device's thread, or for the host to acknowledge: a
#: deadline for something that happens, far beyond what it takes on a busy machine.
PATIENCE = 30.0
#: An advance is cut into steps no longer than this: a heartbeat is written at each step
#: (at the fake's 0.1 s interval), as a real device would, however far the clock moves.
STEP = 0.1


@dataclass
class Faults:
    """Faults to order; counts run down as they are used."""

    drop_frames: int = 0
    ignore_acks: int = 0
    silent: bool = False
    #: Host sentences to lose on the way in (as if corrupted on the line).
    lose_incoming: int = 0
    #: Chances (0..1) of losing each outgoing sequenced frame and each incoming ack.
    loss_rate: float = 0.0
    ack_loss_rate: float = 0.0
    rng: random.Random = field(default_factory=lambda: random.Random(5))
    garbage_before_each: bytes = b""


@dataclass
class Seen:
    """What the device received from the host."""

    sentences: list[Sentence] = field(default_factory=list)
    errors: list[DecodeError] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def of(self, kind: type[Sentence]) -> list[Sentence]:
        with self.lock:
            return [s for s in self.sentences if isinstance(s, kind)]


class FakeDevice:
    """A shoe (``kind="shoe"``) or panel on a backend's line; use as a context manager."""

    def __init__(
        self,
        backend: Backend,
        *,
        kind: str = "shoe",
        serial: str = "SHOE0001",
        protocol: int = 1,
        boot: str = "5A17C0DE",
        heartbeat: float = 0.1,
        resend_after: float = 0.05,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.backend = backend
        #: The device's time; with a ManualClock, the host's driver should read it too.
        self.clock = clock
        self.kind = kind
        self.serial = serial
        self.protocol = protocol
        self.heartbeat_interval = heartbeat
        self.codec: Codec = shoe.device_codec() if kind == "shoe" else panel.device_codec()
        self.sender = DeviceSender(boot, resend_after=resend_after)
        # The shoe's clock (docs/protocol.md 3.1 CRD): ms since the device was made.
        self._clock_since = clock()
        self.faults = Faults()
        self.seen = Seen()
        self.rejected: Reject | None = None
        self._commands: queue.Queue[Callable[[], None]] = queue.Queue()
        self._wire: DeviceWire | None = None
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"fake-{kind}", daemon=True)
        self._last_hello: float | None = None
        self._last_beat = 0.0
        self._unwatch: Callable[[], None] | None = None

    # --- Test-facing ---------------------------------------------------------------------

    def __enter__(self) -> FakeDevice:
        self._thread.start()
        if isinstance(self.clock, ManualClock):
            self._unwatch = self.clock.watch(self._advanced)
        self.do(self._plug)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._unwatch is not None:
            self._unwatch()
            self._unwatch = None
        self.do(self._unplug)
        self._stopping.set()
        self._thread.join()

    def do(self, command: Callable[[], None]) -> None:
        """Run ``command`` on the device's thread and wait for it."""
        done = threading.Event()

        def run() -> None:
            command()
            done.set()

        self._commands.put(run)
        assert done.wait(PATIENCE), "fake device thread did not answer"

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass on the device's manual clock (and so on the host's), in steps
        of at most ``STEP``: at each, what falls due by then is written before it is read."""
        clock = self.clock
        assert isinstance(clock, ManualClock), "advance needs a FakeDevice(clock=ManualClock())"
        left = seconds
        while left > 0:
            step = min(STEP, left)
            clock.advance(step)
            left -= step

    def submit(self, sentence: Sequenced) -> Sequenced:
        """Queue a card read, a status or a button press (numbered by the device)."""
        out: list[Sequenced] = []
        self.do(lambda: out.append(self.sender.submit(sentence)))
        return out[0]

    def clock_ms(self) -> int:
        """The device's clock now: ms since it was made, wrapping at 2**32."""
        elapsed = round((self.clock() - self._clock_since) * 1000)
        return elapsed % DEVICE_CLOCK_MODULUS

    def read(
        self, uid: str, point: ReadPoint = ReadPoint.DEALING_SLOT, at_ms: int | None = None
    ) -> shoe.CardSeen:
        """Queue a card read stamped with the device's clock now (or with ``at_ms``)."""
        read_ms = self.clock_ms() if at_ms is None else at_ms
        numbered = self.submit(shoe.CardSeen(0, point, uid, read_ms))
        assert isinstance(numbered, shoe.CardSeen)
        return numbered

    def wait_acknowledged(self, timeout: float = PATIENCE) -> None:
        """Wait until the host has acknowledged everything the device holds."""
        deadline = time.monotonic() + timeout
        while self.sender.backlog:
            assert time.monotonic() < deadline, "the device's sentences were never acknowledged"
            time.sleep(0.005)

    def lose_unsent(self, count: int) -> int:
        """A device fault: skip the next ``count`` numbers, as if it had dropped that many
        sentences unsent (same boot; still welcomed if it was). Returns the first skipped."""
        first: list[int] = []

        def skip() -> None:
            old = self.sender
            first.append(old.oldest)
            self.sender = DeviceSender(
                old.boot, first_seq=seq_add(old.oldest, count), resend_after=old.resend_after
            )
            if old.welcomed:
                self.sender.on_welcome()

        self.do(skip)
        return first[0]

    def noise(self, data: bytes) -> None:
        """Write ``data`` as it is, outside any sentence: line noise."""

        def write() -> None:
            assert self._wire is not None, "noise on an unplugged cable"
            self._wire.write(data)

        self.do(write)

    def unplug(self) -> None:
        """Pull the cable; what is unacknowledged stays on the device."""
        self.do(self._unplug)

    def replug(self) -> None:
        """Put the cable back."""
        self.do(self._plug)

    def force_hello(self) -> None:
        """Say hello at the next chance (a device does on power-up)."""
        self._last_hello = None

    def hello(self) -> Hello:
        return Hello(
            self.sender.oldest, "TEST-1", self.serial, "0.1", self.protocol, self.sender.boot
        )

    # --- The device's thread -------------------------------------------------------------

    def _plug(self) -> None:
        self._wire = self.backend.plug()
        self._last_hello = None

    def _unplug(self) -> None:
        self._wire = None
        self.backend.unplug()

    def _run(self) -> None:
        while not self._stopping.is_set():
            while not self._commands.empty():
                self._commands.get()()
            wire = self._wire
            if wire is None:
                # Only bounds how soon a command is run: the commands queue wakes nobody.
                time.sleep(0.005)
                continue
            self._take(wire.read(0.005))
            self._send_due(wire, self.clock())

    def _advanced(self, now: float) -> None:
        """The manual clock moves on to ``now`` (on the advancing thread, before anyone can
        read ``now``): the device's thread takes in what the host wrote, then writes what
        falls due by ``now``."""

        def catch_up() -> None:
            wire = self._wire
            if wire is not None:
                self._take(wire.read(0))
                self._send_due(wire, now)

        if self._thread.is_alive():
            self.do(catch_up)

    def _take(self, data: bytes) -> None:
        for item in self.codec.feed(data):
            self._receive(item)

    def _receive(self, item: Sentence | DecodeError) -> None:
        if isinstance(item, DecodeError):
            with self.seen.lock:
                self.seen.errors.append(item)
            return
        if self.faults.lose_incoming and not isinstance(item, Query | Welcome):
            self.faults.lose_incoming -= 1
            return
        with self.seen.lock:
            self.seen.sentences.append(item)
        if isinstance(item, Query):
            self.sender.on_query()
            self._last_hello = None
        elif isinstance(item, Welcome):
            self.sender.on_welcome()
        elif isinstance(item, Reject):
            self.rejected = item
        elif isinstance(item, Ack):
            if self.faults.ignore_acks:
                self.faults.ignore_acks -= 1
            elif self.faults.rng.random() >= self.faults.ack_loss_rate:
                self.sender.on_ack(item)

    def _send_due(self, wire: DeviceWire, now: float) -> None:
        if self.faults.silent:
            return
        out: list[Sentence] = []
        hello_due = self._last_hello is None or now - self._last_hello >= 0.1
        if not self.sender.welcomed and self.rejected is None and hello_due:
            out.append(self.hello())
            self._last_hello = now
        if now - self._last_beat >= self.heartbeat_interval:
            out.append(self.sender.heartbeat())
            self._last_beat = now
        if self.rejected is None:
            out.extend(self.sender.due(now))
        for sentence in out:
            if not isinstance(sentence, Hello | Heartbeat):
                if self.faults.drop_frames:
                    self.faults.drop_frames -= 1
                    continue
                if self.faults.rng.random() < self.faults.loss_rate:
                    continue
            wire.write(self.faults.garbage_before_each + self.codec.encode(sentence))
