"""One PN532 at one read point: its port, its thread, its start and its polling.

``Pn532Reader`` opens its port at the PN532's power-up rate (115200 baud), wakes the chip,
checks it is a PN532 (GetFirmwareVersion IC 0x32: anything else is refused for good, the
reason naming the port), sets SAMConfiguration normal mode and MaxRetries bounded (so an
empty field answers "0 targets" and a silent reader is told from it), then the configured
baud rate, which it checks with a GetFirmwareVersion at the new rate. It then polls
InListPassiveTarget (106 kbps type A, two targets at most) every ``poll_interval`` and hands
what it found to its owner (drivers.pn532.backend), stamped with the host's clock.

Two polls in a row unanswered within their bound (or any other command unanswered), or a
failed port, is a loss: the
port is closed and opened again with backoff (doubling to ``backoff_max``), at once when the
hotplug monitor says the port came back (``replugged``). Every time is read from the
caller's clock; the thread waits on the wall clock only in steps of ``READ_WAIT``.
"""

from __future__ import annotations

import termios
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Protocol

import serial
import structlog

from controller.poker.inputs import ReadPoint
from drivers.pn532 import commands as cmd
from drivers.pn532.line import ACK_BOUND, ChipError, ChipLine, LineCounters, LineSilent, Stopped

#: How long a read of the port blocks: how often a wait looks at the clock and at ``stop``.
READ_WAIT: Final = 0.005


@dataclass(frozen=True, slots=True)
class ReaderTiming:
    """The reader's bounds, in seconds of the caller's clock."""

    #: From the end of one poll to the start of the next.
    poll_interval: float = 0.02
    #: An answer to anything but a poll (the chip answers within milliseconds; the margin is
    #: the host's: drivers/pn532/line.py, ACK_BOUND).
    answer_bound: float = 0.25
    #: A poll's answer: MaxRetries bounded, an empty field answers in about 10 ms.
    poll_bound: float = 0.25
    backoff_first: float = 0.1
    backoff_max: float = 5.0
    #: Failed exchanges in a row with the chip still talking before it is a reader fault.
    fault_after: int = 3
    #: Polls in a row not answered within their bound before communication is lost: one is
    #: cancelled and sent again (a host that stalled past a bound costs no outage).
    silent_after: int = 2


class Refused(Exception):
    """The device on the port is not a PN532: the reader stops for good."""


class ReaderOwner(Protocol):
    """What a reader tells the shoe it belongs to (drivers.pn532.backend.Pn532Shoe)."""

    def reader_up(self, reader: Pn532Reader, firmware: cmd.Firmware) -> None: ...

    def reader_down(self, reader: Pn532Reader, reason: str) -> None: ...

    def reader_refused(self, reader: Pn532Reader, reason: str) -> None: ...

    def reader_fault(self, reader: Pn532Reader, reason: str | None) -> None: ...

    def tags_seen(
        self, reader: Pn532Reader, targets: tuple[cmd.TypeATarget, ...], now: float
    ) -> None: ...


class Pn532Reader:
    """The PN532 at ``point``, reached at ``url``; reports to ``owner``."""

    def __init__(
        self,
        point: ReadPoint,
        port_name: str,
        url: str,
        *,
        baud: int,
        clock: Callable[[], float],
        owner: ReaderOwner,
        timing: ReaderTiming | None = None,
    ) -> None:
        self.point = point
        self.port_name = port_name
        self.url = url
        self.baud = baud
        self.clock = clock
        self.owner = owner
        self.timing = timing or ReaderTiming()
        self.counters = LineCounters()
        self.stopping = threading.Event()
        self._woken = threading.Event()
        self._claimed: serial.SerialBase | None = None
        self._thread: threading.Thread | None = None
        self._log = structlog.get_logger("drivers.pn532").bind(point=point.value, url=url)

    # --- life ---------------------------------------------------------------------------------

    def claim(self) -> None:
        """Open the port now (exclusively); SerialException if it cannot be."""
        if self._claimed is None:
            self._claimed = self._open()

    def start(self) -> None:
        self._thread = threading.Thread(
            target=self._run, name=f"tablectl-pn532-{self.point.value}", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        if self._claimed is not None:
            self._claimed.close()
            self._claimed = None

    @property
    def thread(self) -> threading.Thread | None:
        """The reader's thread, once started."""
        return self._thread

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def replugged(self, node: str | None) -> None:
        """The port came back (at ``node``, if found by identity): reopen now."""
        if node is not None:
            self.url = node
        self._woken.set()

    # --- the thread ---------------------------------------------------------------------------

    def _open(self) -> serial.SerialBase:
        return serial.serial_for_url(
            self.url, baudrate=cmd.POWER_UP_BAUD, timeout=READ_WAIT, exclusive=True
        )

    def _run(self) -> None:
        backoff = self.timing.backoff_first
        while not self.stopping.is_set():
            port = self._claimed
            self._claimed = None
            try:
                if port is None:
                    port = self._open()
                line = ChipLine(port, self.clock, self.stopping, self.counters)
                firmware = self._start(line, port)
                self.owner.reader_up(self, firmware)
                backoff = self.timing.backoff_first
                self._poll(line)
            except Refused as exc:
                self.owner.reader_refused(self, f"{self.url}: {exc}")
                return
            except Stopped:
                return
            except (LineSilent, ChipError, cmd.ResponseError) as exc:
                self.owner.reader_down(self, f"{self.url}: {exc}")
            except (serial.SerialException, OSError, termios.error) as exc:
                # A hung-up pty or pulled adapter fails with EIO, then termios.error.
                self.owner.reader_down(self, f"{self.url}: the port failed ({exc})")
            finally:
                if port is not None:
                    port.close()
            self._wait(backoff)
            backoff = min(backoff * 2, self.timing.backoff_max)

    def _wait(self, seconds: float) -> None:
        """Let ``seconds`` pass on the clock, unless stopped or replugged first."""
        until = self.clock() + seconds
        self._woken.clear()
        while self.clock() < until and not self._woken.is_set():
            if self.stopping.wait(READ_WAIT):
                return

    def _start(self, line: ChipLine, port: serial.SerialBase) -> cmd.Firmware:
        firmware = self._identify(line, port)
        line.exchange(cmd.sam_configuration_normal(), self.timing.answer_bound, "SAMConfiguration")
        line.exchange(cmd.rf_max_retries(), self.timing.answer_bound, "RFConfiguration MaxRetries")
        if port.baudrate != self.baud:
            line.exchange(
                cmd.set_serial_baudrate(self.baud), self.timing.answer_bound, "SetSerialBaudrate"
            )
            line.send_ack()  # the chip changes speed on the host's ACK (UM0701-02 7.2.8)
            port.flush()
            port.baudrate = self.baud
            try:
                self._firmware(line, f"GetFirmwareVersion at {self.baud} baud")
            except LineSilent as exc:
                raise LineSilent(f"{exc}: the PN532 did not come up at the new rate") from None
        self._log.info("pn532_ready", firmware=str(firmware), baud=self.baud)
        return firmware

    def _identify(self, line: ChipLine, port: serial.SerialBase) -> cmd.Firmware:
        """GetFirmwareVersion at the power-up rate, then (a chip left at the configured rate
        by the last session) at the configured one; refuse what is not a PN532."""
        rates = [cmd.POWER_UP_BAUD] + ([self.baud] if self.baud != cmd.POWER_UP_BAUD else [])
        garbage = 0
        for rate in rates:
            port.baudrate = rate
            line.wake_next = True
            before = line.counters.noise_bytes + line.counters.frame_errors
            try:
                return self._firmware(line, "GetFirmwareVersion")
            except LineSilent:
                garbage += line.counters.noise_bytes + line.counters.frame_errors - before
        said = f"only garbage ({garbage} bytes)" if garbage else "nothing"
        raise LineSilent(
            f"no PN532 answered at {' or '.join(map(str, rates))} baud: it said {said} "
            f"(expected an ACK to GetFirmwareVersion within {ACK_BOUND * 1000:.0f} ms)"
        )

    def _firmware(self, line: ChipLine, name: str) -> cmd.Firmware:
        try:
            data = line.exchange(cmd.get_firmware_version(), self.timing.answer_bound, name)
            firmware = cmd.parse_firmware(data)
        except (ChipError, cmd.ResponseError) as exc:
            raise Refused(f"not a PN532: {exc}") from None
        if firmware.ic != cmd.PN532_IC:
            raise Refused(
                f"not a PN532: GetFirmwareVersion says IC {firmware.ic:#04x} ({firmware}); "
                f"expected {cmd.PN532_IC:#04x}"
            )
        return firmware

    def _poll(self, line: ChipLine) -> None:
        failures = silent = 0
        body = cmd.in_list_passive_target(cmd.MAX_TARGETS)
        while not self.stopping.is_set():
            # The chip lists what is in its field when the poll reaches it: a read is stamped
            # then, not when its answer is taken in, which a host kept off the CPU may do late;
            # a lingering card's late answer stamped late would fall past the repeat window and
            # read the card twice (docs/hardware.md, What a PN532 shoe loses, No clock).
            asked = self.clock()
            try:
                data = line.exchange(body, self.timing.poll_bound, "InListPassiveTarget")
                targets = cmd.parse_targets(data)
            except LineSilent as exc:
                silent += 1
                if silent >= self.timing.silent_after:
                    raise LineSilent(f"{exc}, {silent} polls in a row") from None
                self._log.warning("pn532_poll_unanswered", error=str(exc))
                continue
            except (ChipError, cmd.ResponseError) as exc:
                failures += 1
                self._log.warning("pn532_poll_failed", error=str(exc), in_a_row=failures)
                if failures == self.timing.fault_after:
                    self.owner.reader_fault(self, f"{self.url}: {exc}")
                continue
            if failures >= self.timing.fault_after:
                self.owner.reader_fault(self, None)
            failures = silent = 0
            if targets:
                self.owner.tags_seen(self, targets, asked)
            self._pause(self.timing.poll_interval)

    def _pause(self, seconds: float) -> None:
        until = self.clock() + seconds
        while self.clock() < until:
            if self.stopping.wait(READ_WAIT):
                raise Stopped
