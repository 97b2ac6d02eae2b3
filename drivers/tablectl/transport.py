"""The host's end of one device link: a port, a reading thread, and the events it yields.

``DeviceDriver`` is the abstract link of the protocol's devices: it opens its
port only through ``drivers.tablectl.link`` (``serial.serial_for_url``, so a pty, ``socket://``
or the simulator's URL stand in for hardware), runs all reading on one thread per
device, and hands what happened to the controller through a queue (an
``EventSink``: ``queue.Queue`` or ``queue.SimpleQueue``); nothing it does
blocks the caller. It says hello, acks
and de-duplicates by sequence number (drivers.tablectl.session), declares a
communication loss on silence or a failed port, and reopens the port with
backoff. A device path another program holds is refused at ``claim`` (or ``start``) with
``link.PortBusy``; held later, it is a communication loss naming the holder, retried.
``ShoeDriver`` and ``PanelDriver`` add their device's sentences; they are the ``tablectl``
backend's ``Shoe`` and ``Panel`` of the device seam (drivers/seam/device.py).
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import replace
from typing import Generic, Self, TypeVar

import serial
import structlog

from drivers.seam.events import (
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    EventSink,
    HelloOutcome,
    LinkEvent,
    LostRange,
)

# The port's functions are called through their module, where a test may replace one.
from drivers.tablectl import link
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.sentences import (
    Ack,
    Codec,
    CodecCounters,
    DecodeError,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
)
from drivers.tablectl.session import Delivery, HostReceiver, seq_add

E = TypeVar("E")


class DeviceDriver(ABC, Generic[E]):
    """One device's link, read on its own thread; events go to ``events``.

    ``E`` is the type of the device's own events (card reads, button presses).
    Use as a context manager, or call ``start`` and ``stop``.
    """

    #: "shoe" or "panel": names the device in events and the log.
    device: str = "device"

    def __init__(
        self,
        settings: LinkSettings,
        events: EventSink[E | LinkEvent],
        clock: Callable[[], float] = time.monotonic,
        *,
        ack_after_commit: bool = False,
    ) -> None:
        self.settings = settings
        self.events = events
        self._clock = clock
        #: The controller acknowledges each accepted sentence itself, with ``commit(seq)``,
        #: once the record it caused is on disk (docs/journal.md, Durability).
        self.ack_after_commit = ack_after_commit
        #: The last sequence number the controller committed (None: none this session).
        self._committed: int | None = None
        self._log = structlog.get_logger(f"drivers.{self.device}").bind(
            device=self.device, url=settings.url
        )
        self.receiver = HostReceiver(self.device, settings.expected_serial)
        self._port: serial.SerialBase | None = None
        self._write_lock = threading.Lock()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        #: ``claim`` has tried the port (``_port`` is what it opened, if anything).
        self._claimed = False
        #: The last holder of the port logged (``port_held``), until the port opens again.
        self._held_said: str | None = None
        self._codec = self.make_codec()
        self.welcomed = False
        self.refused: str | None = None
        # True from a DeviceDown until the next DeviceUp: one loss, one event.
        self._outage_reported = False
        #: The hello last welcomed: a loss found by a heartbeat is reported with it.
        self._hello: Hello | None = None
        #: When the current gap (a sentence ahead of the expected one) began, and was
        #: last warned of; None while in step.
        self._gap_since: float | None = None
        self._gap_warned = 0.0
        #: The current burst of line noise: when it began, when it was last seen (None: the
        #: line is quiet), and its bytes.
        self._noise_since = 0.0
        self._noise_last: float | None = None
        self._noise_burst = 0

    # --- What a device adds ------------------------------------------------------------

    @abstractmethod
    def make_codec(self) -> Codec:
        """The host end of this device's codec."""

    @abstractmethod
    def on_accepted(self, sentence: Sentence, now: float) -> None:
        """A sequenced sentence accepted in order: turn it into this device's event."""

    def on_welcomed(self) -> None:
        """The device was just welcomed (first contact or after a reconnect)."""

    def on_tick(self, now: float) -> None:
        """Called after every read slice while connected (periodic refreshes)."""

    # --- Life cycle --------------------------------------------------------------------

    def claim(self) -> None:
        """Before ``start``: open a device path's port now, on the caller's thread.

        A port another program holds raises ``link.PortBusy`` (naming the port and its
        holder), and nothing of the device is read: a second controller on a table's
        devices is a configuration mistake, refused at its start (docs/drivers.md, One
        controller per device). A port missing or failing is left to the reading thread's
        retries, as later on. A URL (``socket://``, ``sim://``) is not opened here: nothing
        else holds it, and a connect to a slow host must not hold the caller. ``start``
        claims by itself; a controller with two devices claims both first, so that neither
        reads while the other is refused.
        """
        if self._thread is not None:
            raise RuntimeError(f"{self.device} driver: claim before start, not after")
        if self._claimed or not link.is_device_path(self.settings.url):
            return
        try:
            self._open()
        except link.PortBusy as held:
            self._log.error("port_held", holders=[str(h) for h in held.holders], error=str(held))
            raise
        self._claimed = True

    def start(self) -> None:
        """Start the reading thread; it opens the port (if ``claim`` did not) and keeps it
        open. Raises ``link.PortBusy`` as ``claim`` does, and then starts nothing."""
        if self._thread is not None:
            raise RuntimeError(f"{self.device} driver already started")
        self.claim()
        self._thread = threading.Thread(
            target=self._run,
            args=(self._port, self._claimed),
            name=f"tablectl-{self.device}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and close the port; returns when both are done."""
        self._stopping.set()
        self._wake.set()
        self._interrupt_read()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        elif self._port is not None:  # claimed, never started
            self._release(self._port)

    @property
    def running(self) -> bool:
        """The reading thread is alive: False before ``start``, after ``stop``, and once the
        device was refused (the thread ends; ``stop`` still has to be called)."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def wake(self) -> None:
        """Try to reopen the port now (a hotplug 'add' arrived), not at the end of the backoff."""
        self._wake.set()

    def _interrupt_read(self) -> None:
        """Make the reading thread's wait for input end now (pyserial's ``cancel_read``; a
        port without it is served at the end of the read slice)."""
        with self._write_lock:
            port = self._port
            cancel = getattr(port, "cancel_read", None)
            if cancel is not None:
                cancel()

    def replugged(self, port: str, node: str | None) -> None:
        """udev says the device's port came back (``port`` is its role: one port a device),
        at ``node`` when it is found by its USB identity (drivers.seam.device.Device)."""
        if node is not None:
            self.reopen_at(node)
        else:
            self.wake()

    @property
    def boot(self) -> str | None:
        """The boot of the device's session (its hello's), None before its first hello."""
        return self.receiver.boot

    @property
    def acknowledges(self) -> bool:
        """The protocol's devices keep every sequenced sentence until it is acknowledged
        (docs/protocol.md 5): store and forward."""
        return True

    def reopen_at(self, url: str) -> None:
        """The device came back at ``url``: open that from now on, and at once.

        A device found by its USB identity may return at another node
        (``/dev/ttyACM1`` while the old ``ttyACM0`` is still being released).
        May be called from any thread: the reading thread reads the settings
        afresh at each open.
        """
        if url != self.settings.url:
            self._log.info("port_moved", to=url)
            self.settings = replace(self.settings, url=url)
            self._log = self._log.bind(url=url)
        self.wake()

    @property
    def counters(self) -> CodecCounters:
        """Sentences decoded and input dropped, by reason, over the driver's life."""
        return self._codec.counters

    def line_totals(self) -> dict[str, object]:
        """The counters as a log field: sentences, noise bytes and decode errors by kind."""
        counters = self.counters
        return {
            "sentences": counters.sentences,
            "noise_bytes": counters.noise_bytes,
            "errors": {kind.value: n for kind, n in sorted(counters.errors.items())},
        }

    def restore(self, boot: str, last_seq: int) -> None:
        """Before ``start``: the journal holds this boot's sentences up to ``last_seq``.

        A restarted controller calls it with what it replayed, so that a
        sentence journaled but never acknowledged before the crash, which the
        device sends again, is dropped as a duplicate (docs/protocol.md, 4-5).
        """
        if self._thread is not None:
            raise RuntimeError(f"{self.device} driver: restore before start, not after")
        self.receiver.boot = boot
        self.receiver.expected = seq_add(last_seq, 1)
        self._committed = last_seq

    def commit(self, seq: int) -> None:
        """The controller has journaled sentence ``seq``: acknowledge it (and all before it).

        Only with ``ack_after_commit``; may be called from any thread. If the
        port is closed the device resends and the duplicate rule acks it then.
        """
        self._committed = seq
        self.send(Ack(seq))

    def send(self, sentence: Sentence) -> bool:
        """Write a host sentence if the port is open; False (and nothing written) if not.

        Called on the reading thread; a write waits at most 0.5 s for a device
        that has stopped reading.
        """
        wire = self._codec.encode(sentence)
        with self._write_lock:
            port = self._port
            if port is None:
                return False
            try:
                port.write(wire)
            except (serial.SerialException, OSError) as exc:
                self._log.info("write_failed", sentence=sentence.KIND, error=str(exc))
                return False
        return True

    # --- The reading thread ------------------------------------------------------------

    def _run(self, port: serial.SerialBase | None, claimed: bool) -> None:
        """``port``: what ``claim`` opened; ``claimed``: it tried (a failed try waits out a
        backoff before the next, as a failed open here does)."""
        backoff = self.settings.backoff_initial
        try:
            while not self._stopping.is_set():
                if not claimed:
                    port = self._reopen()
                claimed = False
                if port is None:
                    self._wake.wait(backoff)
                    self._wake.clear()
                    backoff = min(backoff * 2, self.settings.backoff_max)
                    continue
                backoff = self.settings.backoff_initial
                try:
                    self._serve(port)
                except (serial.SerialException, OSError) as exc:
                    if not self._outage_reported:
                        self._lost(f"port failed: {exc}")
                finally:
                    self._release(port)
                    port = None
                if self.refused is not None:
                    return
        finally:
            if port is not None:  # claimed, and stopped before it was served
                self._release(port)

    def _release(self, port: serial.SerialBase) -> None:
        with self._write_lock:
            self._port = None
        link.close_port(port)

    def _reopen(self) -> serial.SerialBase | None:
        """Open the port on the reading thread: one another program holds (the device was
        unplugged and another controller took its port) pauses the table, said as a
        communication loss naming the holder, and is tried again with the backoff."""
        try:
            return self._open()
        except link.PortBusy as held:
            if str(held) != self._held_said:  # said again only when the holder changes
                self._held_said = str(held)
                self._log.error(
                    "port_held",
                    holders=[str(h) for h in held.holders],
                    error=str(held),
                    todo="the table stays paused until the other program lets the port go",
                )
            if not self._outage_reported:
                self._lost(str(held))
            return None

    def _open(self) -> serial.SerialBase | None:
        """Open the port; None (a communication loss, said once an outage) if it cannot be
        opened. Raises ``link.PortBusy``, naming this device, if another program holds it."""
        try:
            port = link.open_port(self.settings)
        except link.PortBusy as held:
            raise link.PortBusy(held.url, held.holders, self.device) from None
        except (serial.SerialException, OSError, ValueError) as exc:
            self._log.debug("open_failed", error=str(exc))
            if not self._outage_reported:
                # Said once per outage: the controller learns the device is missing at start-up.
                self._lost(f"cannot open {self.settings.url}: {exc}")
            return None
        with self._write_lock:
            self._port = port
        self._held_said = None
        self._log.info("port_opened")
        return port

    def _serve(self, port: serial.SerialBase) -> None:
        self.welcomed = False
        self._gap_since = None
        # A fresh port may hold half a sentence from before: start the decoder clean.
        self._codec = self._fresh_codec()
        last_heard = self._clock()
        last_query: float | None = None
        silent = False
        while not self._stopping.is_set() and self.refused is None:
            # Silence is judged at the time read before the port: whatever the device wrote
            # by then is in the port's buffer and this read returns it, so a thread that
            # ran late (a busy machine) never takes a heartbeat still unread for silence.
            before = self._clock()
            if not self.welcomed and (
                last_query is None or before - last_query >= self.settings.query_interval
            ):
                self.send(Query())
                last_query = before
            data = link.read_what_came(port)
            now = self._clock()
            if data and self._feed(data, now):
                last_heard = now
                silent = False
            elif not silent and before - last_heard > self.settings.heartbeat_timeout:
                silent = True
                self.welcomed = False
                last_query = None
                if not self._outage_reported:
                    self._lost(f"silent for more than {self.settings.heartbeat_timeout:g} s")
            if self.welcomed:
                self.on_tick(now)
            noise_last = self._noise_last
            if noise_last is not None and now - noise_last >= self.settings.noise_quiet:
                self._noise_stopped(noise_last)

    def _fresh_codec(self) -> Codec:
        old = self._codec.counters
        codec = self.make_codec()
        # Counts cover the driver's whole life, across reconnects.
        codec.counters = old
        return codec

    def _feed(self, data: bytes, now: float) -> bool:
        """Decode and handle input; True if it held at least one valid sentence."""
        heard = False
        counters = self._codec.counters
        noise_before = counters.noise_bytes
        for item in self._codec.feed(data):
            if isinstance(item, DecodeError):
                self._log.warning(
                    "decode_error", kind=item.kind.value, detail=item.detail, raw=item.raw
                )
                continue
            heard = True
            self._handle(item, now)
        noise = counters.noise_bytes - noise_before
        if noise:
            self._line_noise(noise, now)
        return heard

    def _line_noise(self, count: int, now: float) -> None:
        """Bytes outside any sentence (docs/protocol.md 2): counted by the codec; warned of
        once when noise starts on a quiet line, not once per read."""
        if self._noise_last is None:
            self._noise_since, self._noise_burst = now, 0
            self._log.warning(
                "line_noise",
                bytes=count,
                total=self.counters.noise_bytes,
                detail="bytes outside any sentence, dropped: check the cable and its plugs",
            )
        self._noise_burst += count
        self._noise_last = now

    def _noise_stopped(self, last: float) -> None:
        """The line has been quiet for ``noise_quiet`` since ``last``: the burst's size."""
        self._log.info(
            "line_noise_stopped",
            bytes=self._noise_burst,
            seconds=round(last - self._noise_since, 1),
            total=self.counters.noise_bytes,
        )
        self._noise_last = None

    def _handle(self, sentence: Sentence, now: float) -> None:
        if isinstance(sentence, Hello):
            self._welcome(sentence)
        elif isinstance(sentence, Heartbeat):
            self._heartbeat(sentence)
        else:
            self._sequenced(sentence, now)

    def _heartbeat(self, heartbeat: Heartbeat) -> None:
        # Before the welcome the coming hello says the same: a loss is found once, there.
        if self.welcomed and self._hello is not None:
            lost = self.receiver.skip_lost(heartbeat.seq)
            if lost is not None:
                self._report_lost(lost, "heartbeat")
                self.events.put(self._up(self._hello, HelloOutcome.LOST, lost))
        ack = self.receiver.on_heartbeat(heartbeat)
        if self.ack_after_commit:
            ack = self._committed_ack(heartbeat.seq)
        if ack is not None and self.welcomed:
            self.send(ack)

    def _welcome(self, hello: Hello) -> None:
        verdict = self.receiver.on_hello(hello)
        self.send(verdict.reply)
        if isinstance(verdict.reply, Reject):
            self.refused = verdict.reason
            self._log.error("device_refused", reason=verdict.reason)
            self.events.put(DeviceRefused(self.device, verdict.reason, verdict.reply.reason))
            return
        if verdict.outcome in (HelloOutcome.NEW_SESSION, HelloOutcome.RESTARTED):
            self._committed = None  # a new boot counts afresh
        if verdict.outcome is HelloOutcome.RESTARTED:
            self._log.warning(
                "device_restarted", boot=hello.boot, detail="unsent reads before the restart lost"
            )
        if verdict.lost is not None:
            self._report_lost(verdict.lost, "hello")
        if self.welcomed and verdict.outcome is HelloOutcome.RESUMED:
            return  # a repeated hello: already welcomed, already announced
        self.welcomed = True
        self._hello = hello
        self._outage_reported = False
        self._log.info(
            "device_ready",
            model=hello.model,
            serial=hello.serial,
            firmware=hello.firmware,
            outcome=verdict.outcome.value,
        )
        self.events.put(self._up(hello, verdict.outcome, verdict.lost))
        self.on_welcomed()

    def _up(self, hello: Hello, outcome: HelloOutcome, lost: LostRange | None) -> DeviceUp:
        """The seam's event for a welcomed hello."""
        return DeviceUp(
            self.device, hello.boot, hello.serial, outcome, lost, hello.model, hello.firmware
        )

    def _report_lost(self, lost: LostRange, found_by: str) -> None:
        """docs/protocol.md 5, Lost sentences: the device no longer holds ``lost``, which
        never arrived. The receiver has resynchronised; say so (the caller tells the
        controller, with a DeviceUp of outcome lost, as for a restart)."""
        self._gap_since = None
        if self.ack_after_commit:
            # The device holds nothing up to lost.last: acking it is in step with the device,
            # so the heartbeat rule does not re-ack the number before the loss for ever.
            self._committed = lost.last
        self._log.warning(
            "sentences_lost",
            lost=str(lost),
            count=lost.count,
            expected=lost.first,
            device_oldest=seq_add(lost.last, 1),
            found_by=found_by,
            detail="the device no longer holds them; accepting from its oldest",
        )

    def _sequenced(self, sentence: Sentence, now: float) -> None:
        seq = getattr(sentence, "seq", None)
        if not isinstance(seq, int):
            self._log.warning("unsequenced_sentence", sentence=sentence.KIND)
            return
        if not self.welcomed:
            # Not acked: the device sends it again once it has been welcomed.
            self._log.info("before_hello", sentence=sentence.KIND, seq=seq)
            return
        delivery, ack = self.receiver.on_sequenced(seq)
        if self.ack_after_commit:
            # Never ack past what is on disk: an accepted sentence waits for commit();
            # a duplicate or a gap is answered with the last committed one.
            ack = None if delivery is Delivery.ACCEPTED else self._committed_ack(None)
        if ack is not None:
            self.send(ack)
        if delivery is Delivery.ACCEPTED:
            self._gap_since = None
            self.on_accepted(sentence, now)
        elif delivery is Delivery.GAP:
            self._gap(sentence.KIND, seq, now)
        else:
            self._log.debug(delivery.value, sentence=sentence.KIND, seq=seq)

    def _gap(self, kind: str, seq: int, now: float) -> None:
        """A sentence ahead of the expected one, dropped (docs/protocol.md 5): an earlier
        frame was lost. The device's resend fills the gap within 200 ms, or its next
        heartbeat shows the missing ones lost (``skip_lost``); a gap that lasts is warned of
        again each heartbeat timeout, so it never goes on silently."""
        expected = self.receiver.expected
        if self._gap_since is None:
            self._gap_since = self._gap_warned = now
            self._log.info("sequence_gap", sentence=kind, seq=seq, expected=expected)
        elif now - self._gap_warned >= self.settings.heartbeat_timeout:
            self._gap_warned = now
            self._log.warning(
                "sequence_gap_unfilled",
                sentence=kind,
                seq=seq,
                expected=expected,
                seconds=round(now - self._gap_since, 1),
                detail="the device's resends do not bring the expected sentence",
            )
        else:
            self._log.debug(Delivery.GAP.value, sentence=kind, seq=seq)

    def _committed_ack(self, oldest: int | None) -> Ack | None:
        """The ack for what is committed, unless the device (oldest unacked) already has it."""
        committed = self._committed
        if committed is None or oldest == seq_add(committed, 1):
            return None
        return Ack(committed)

    def _lost(self, reason: str) -> None:
        self.welcomed = False
        self._outage_reported = True
        self._log.warning("comm_lost", reason=reason)
        self.events.put(DeviceDown(self.device, reason))
