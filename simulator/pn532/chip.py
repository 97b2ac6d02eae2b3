"""A PN532 as its host sees it on the HSU line, byte for byte: no I/O, time passed in.

``VirtualPN532`` takes the host's bytes (``receive``) and says when its answers are due
(``poll``, ``next_deadline``), as ``simulator.devices.DeviceCore`` does for a protocol
device. It speaks NXP UM0701-02 through the drivers' own codec (drivers.pn532.frames):

- asleep after power-up (and after ``reset``) until the HSU wake-up: a 0x55, or a long
  preamble (three 00 or more before a start code), as nfcpy and libnfc send (7.2.11);
- an ACK for every command it parses, then the answer; an error frame for a command it does
  not know; nothing for a frame whose checksum fails; its last answer again for a NACK; an
  ACK from the host cancels the answer still due (6.2.1.3);
- GetFirmwareVersion (IC 0x32 unless told otherwise), SAMConfiguration, SetParameters,
  RFConfiguration (MaxRetries kept: 0xFF at power-up retries for ever), SetSerialBaudrate (the
  new rate after the host's ACK), Diagnose's line test (echoed), ReadRegister (CIU_FIFOData
  0x6339 reads 0x26 after a poll no tag answered: nfcpy's test for "no tag"), WriteRegister,
  InListPassiveTarget at 106 kbps type A, two targets at most; PowerDown (asleep again);
- the RF field: a ``Tag`` is in the field from the time it is placed for the time the dealer's
  pitch gives it; while it is there, every poll lists it again (a lingering card). With
  MaxRetries bounded a poll of an empty field answers 0 targets; unbounded, it answers when a
  tag comes (or never);
- the line's speed: bytes the host writes at another rate than the chip's are not heard, and
  what the chip writes reaches such a host as garbage (``host_baud``).

Faults: ``nack`` (a NACK where the ACK would be), ``garble`` (a bit of an answer flipped, so
its DCS fails), ``silence``, ``late`` (answers held back), ``reset`` (power lost and back);
two tags are two ``place``s; unplugging is the connector's (simulator.pn532.serve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Final

from drivers.pn532 import commands as cmd
from drivers.pn532.frames import (
    ACK_FRAME,
    ERROR_FRAME,
    NACK_FRAME,
    START_CODE,
    Ack,
    FrameDecoder,
    FrameError,
    Information,
    Nack,
    Noise,
    response,
)

#: GetFirmwareVersion's answer of a PN532 v1.6 (nfcpy's tests: 32 01 06 07).
PN532_FIRMWARE: Final = cmd.Firmware(cmd.PN532_IC, 0x01, 0x06, 0x07)
UNBOUNDED: Final = 0xFF
#: CIU_FIFOData (UM0701-02 8.6.23.13) and what it holds after a poll no tag answered.
CIU_FIFO_DATA: Final = 0x6339
SENS_REQ: Final = 0x26
CIU_RX_MODE: Final = 0x6303
#: How long one passive activation attempt takes at 106 kbps (REQA to timeout), so a bounded
#: poll of an empty field answers after (retries + 1) of them.
ACTIVATION_TRY: Final = 0.005
#: What a byte becomes at the wrong line speed (a UART misreads every bit).
_WRONG_SPEED: Final = 0x5A


@dataclass(frozen=True, slots=True)
class Tag:
    """An ISO/IEC 14443-A tag: its UID (4, 7 or 10 bytes), ATQA and SAK."""

    uid: bytes
    sens_res: bytes = b"\x00\x44"
    sel_res: int = 0x00

    def __post_init__(self) -> None:
        if len(self.uid) not in (4, 7, 10):
            raise ValueError(
                f"tag UID {self.uid.hex().upper()}: expected 4, 7 or 10 bytes (ISO/IEC 14443-3)"
            )

    @classmethod
    def ntag213(cls, uid: bytes) -> Tag:
        """An NTAG213 / MIFARE Ultralight sticker (7-byte UID, ATQA 0044, SAK 00)."""
        return cls(uid, b"\x00\x44", 0x00)

    @classmethod
    def mifare_classic(cls, uid: bytes) -> Tag:
        """A MIFARE Classic 1K (4-byte UID, ATQA 0004, SAK 08)."""
        return cls(uid, b"\x00\x04", 0x08)


@dataclass(slots=True)
class InField:
    tag: Tag
    enters: float
    leaves: float


@dataclass(slots=True)
class ChipCounters:
    """What the chip has done, for a test's asserts and the technician."""

    commands: int = 0
    polls: int = 0
    #: Targets listed in answers to polls (a card lingering in the field is listed often).
    listed: int = 0
    bad_frames: int = 0
    unheard_bytes: int = 0
    nacks_heard: int = 0
    cancelled: int = 0
    by_code: dict[int, int] = field(default_factory=dict)


class VirtualPN532:
    """The chip: its state, its RF field, its armed faults."""

    def __init__(self, firmware: cmd.Firmware = PN532_FIRMWARE) -> None:
        self.firmware = firmware
        self.counters = ChipCounters()
        self.field: list[InField] = []
        self._nack = 0
        self._garble = 0
        self._late_count = 0
        self._late_seconds = 0.0
        self.silent_until: float | None = None
        self._power_up()

    def _power_up(self) -> None:
        self.awake = False
        self.baud = cmd.POWER_UP_BAUD
        self.max_retries = UNBOUNDED
        self.sam_configured = False
        self.registers: dict[int, int] = {CIU_FIFO_DATA: 0x00, CIU_RX_MODE: 0x80}
        self._decoder = FrameDecoder()
        self._zeros = 0
        #: (when, bytes) the chip writes; the answer to the command in progress among them.
        self._out: list[tuple[float, bytes]] = []
        self._last_answer = b""
        self._pending_baud: int | None = None
        #: An InListPassiveTarget waiting for a tag (MaxRetries unbounded): its MaxTg.
        self._waiting_poll: int | None = None

    # --- the RF field and the faults --------------------------------------------------------

    def place(self, tag: Tag, now: float, dwell: float) -> None:
        """``tag`` enters the field now and stays ``dwell`` seconds (the card's pitch)."""
        if not dwell > 0:
            raise ValueError(f"dwell {dwell} s: expected a time in the field above 0")
        self.field.append(InField(tag, now, now + dwell))

    def take(self, now: float) -> None:
        """Every tag leaves the field now (the dealer drew the card past the antenna)."""
        for placed in self.field:
            placed.leaves = min(placed.leaves, now)

    def in_field(self, now: float) -> list[Tag]:
        """The tags in the field at ``now``, first come first."""
        self.field = [f for f in self.field if f.leaves > now]
        return [f.tag for f in sorted(self.field, key=lambda f: f.enters) if f.enters <= now]

    def nack(self, count: int = 1) -> None:
        """Answer the next ``count`` commands with a NACK (the host must send them again)."""
        self._nack += _count("nack", count)

    def garble(self, count: int = 1) -> None:
        """Flip a bit in the data of the next ``count`` answers (their DCS fails)."""
        self._garble += _count("garble", count)

    def late(self, seconds: float, count: int = 1) -> None:
        """Hold the next ``count`` answers ``seconds`` after their ACK."""
        if not seconds > 0:
            raise ValueError(f"late by {seconds} s: expected more than 0 seconds")
        self._late_count += _count("late", count)
        self._late_seconds = seconds

    def silence(self, now: float, seconds: float | None = None) -> None:
        """Hear and say nothing (for ``seconds``, or until ``speak``)."""
        self.silent_until = math.inf if seconds is None else now + seconds

    def speak(self) -> None:
        self.silent_until = None

    def reset(self) -> None:
        """Power lost and back: asleep, 115200 baud, MaxRetries unbounded, nothing due."""
        self._power_up()

    def _silent(self, now: float) -> bool:
        if self.silent_until is not None and now >= self.silent_until:
            self.silent_until = None
        return self.silent_until is not None

    # --- the line ---------------------------------------------------------------------------

    def receive(self, data: bytes, now: float, host_baud: int | None = None) -> None:
        """The host wrote ``data`` at ``host_baud`` (None: the line's speed is not known)."""
        if self._pending_baud is not None and host_baud == self._pending_baud:
            # The host has switched already: its ACK went before at the old rate (a pty
            # carries it with what follows, read at the new one).
            self.baud, self._pending_baud = self._pending_baud, None
        if self._silent(now) or (host_baud is not None and host_baud != self.baud):
            self.counters.unheard_bytes += len(data)
            return
        self._note_wake_up(data)
        for item in self._decoder.feed(data):
            if isinstance(item, FrameError | Noise):
                self.counters.bad_frames += isinstance(item, FrameError)
            elif not self.awake:
                self.counters.unheard_bytes += 1
            elif isinstance(item, Ack):
                self._host_ack(now)
            elif isinstance(item, Nack):
                self.counters.nacks_heard += 1
                if self._last_answer:
                    self._out.append((now, self._last_answer))
            elif isinstance(item, Information) and item.tfi == 0xD4:
                self._command(item.data, now)

    def _note_wake_up(self, data: bytes) -> None:
        """Wake on 0x55, or on three 00 or more before a start code."""
        if self.awake:
            return
        if 0x55 in data:
            self.awake = True
            return
        for byte in data:
            if byte == 0x00:
                self._zeros += 1
            else:
                if byte == 0xFF and self._zeros >= 3:
                    self.awake = True
                    return
                self._zeros = 0

    def poll(self, now: float, host_baud: int | None = None) -> bytes:
        """What the chip writes by ``now`` (garbage to a host at another speed)."""
        if self._waiting_poll is not None and self.in_field(now):
            self._answer(now, self._list_targets(self._waiting_poll, now))
        if self._silent(now):
            return b""
        due = [data for when, data in self._out if when <= now]
        self._out = [(when, data) for when, data in self._out if when > now]
        out = b"".join(due)
        if host_baud is not None and host_baud != self.baud:
            return bytes(b ^ _WRONG_SPEED for b in out)
        return out

    def next_deadline(self) -> float:
        """When ``poll`` next has something (a held answer, a tag entering for a waiting poll)."""
        times = [when for when, _ in self._out]
        if self._waiting_poll is not None:
            times += [f.enters for f in self.field]
        if self.silent_until is not None:
            times.append(self.silent_until)
        return min(times, default=math.inf)

    def _host_ack(self, now: float) -> None:
        if self._pending_baud is not None:
            self.baud, self._pending_baud = self._pending_baud, None
        if any(when > now for when, _ in self._out) or self._waiting_poll is not None:
            self.counters.cancelled += 1
        self._out = [(when, data) for when, data in self._out if when <= now]
        self._waiting_poll = None

    def _command(self, data: bytes, now: float) -> None:
        self.counters.commands += 1
        self.counters.by_code[data[0]] = self.counters.by_code.get(data[0], 0) + 1
        if self._nack:
            self._nack -= 1
            self._out.append((now, NACK_FRAME))
            return
        # A new command replaces the one in progress (the host gave up on it).
        self._out = [(when, d) for when, d in self._out if when <= now]
        self._waiting_poll = None
        self._out.append((now, ACK_FRAME))
        answer = self._execute(data[0], data[1:], now)
        if answer is not None:
            self._answer(now, answer)

    def _answer(self, now: float, answer: bytes, after: float = 0.0) -> None:
        """Write ``answer`` (data, or ERROR_FRAME) ``after`` seconds from ``now``."""
        self._waiting_poll = None
        frame = ERROR_FRAME if answer == ERROR_FRAME else response(answer)
        self._last_answer = frame
        when = now + after
        if self._late_count:
            self._late_count -= 1
            when += self._late_seconds
        if self._garble:
            self._garble -= 1
            damaged = bytearray(frame)
            damaged[frame.index(START_CODE) + 5] ^= 0x10  # PD0: the DCS fails
            frame = bytes(damaged)
        self._out.append((when, frame))

    def _execute(self, code: int, params: bytes, now: float) -> bytes | None:
        """The answer's data (code first), ERROR_FRAME, or None (answered later)."""
        handler = {
            cmd.GET_FIRMWARE_VERSION: self._firmware,
            cmd.SAM_CONFIGURATION: self._sam,
            cmd.SET_PARAMETERS: self._set_parameters,
            cmd.WRITE_REGISTER: self._write_register,
            cmd.RF_CONFIGURATION: self._rf_configuration,
            cmd.SET_SERIAL_BAUDRATE: self._set_baud,
            cmd.DIAGNOSE: self._diagnose,
            cmd.READ_REGISTER: self._read_register,
            cmd.POWER_DOWN: self._power_down,
        }.get(code)
        if code == cmd.IN_LIST_PASSIVE_TARGET and len(params) >= 2 and 1 <= params[0] <= 2:
            return self._poll_command(params[0], params[1], now)
        answer = handler(params) if handler is not None else None
        # A command it does not know, or cannot parse: a syntax error (UM0701-02 6.2.1.5).
        return ERROR_FRAME if answer is None else bytes([code + 1]) + answer

    def _firmware(self, params: bytes) -> bytes:
        f = self.firmware
        return bytes([f.ic, f.version, f.revision, f.support])

    def _sam(self, params: bytes) -> bytes | None:
        if params[:1] not in (b"\x01", b"\x02", b"\x03", b"\x04"):
            return None
        self.sam_configured = True
        return b""

    def _power_down(self, params: bytes) -> bytes | None:
        if not params:
            return None
        # Asleep once the answer is out (UM0701-02 7.2.11): the next command needs a wake-up.
        self.awake = False
        self._zeros = 0
        return b"\x00"

    def _set_parameters(self, params: bytes) -> bytes | None:
        return b"" if len(params) == 1 else None

    def _write_register(self, params: bytes) -> bytes | None:
        if not params or len(params) % 3:
            return None
        for at in range(0, len(params), 3):
            self.registers[int.from_bytes(params[at : at + 2], "big")] = params[at + 2]
        return b""

    def _rf_configuration(self, params: bytes) -> bytes | None:
        if not params:
            return None
        if params[0] == cmd.MAX_RETRIES_ITEM and len(params) == 4:
            self.max_retries = params[3]
        return b""

    def _set_baud(self, params: bytes) -> bytes | None:
        rates = {v: k for k, v in cmd.BAUD_CODES.items()}
        if len(params) != 1 or params[0] not in rates:
            return None
        self._pending_baud = rates[params[0]]
        return b""

    def _diagnose(self, params: bytes) -> bytes | None:
        return params if params[:1] == b"\x00" else None

    def _read_register(self, params: bytes) -> bytes | None:
        if not params or len(params) % 2:
            return None
        addresses = [int.from_bytes(params[i : i + 2], "big") for i in range(0, len(params), 2)]
        return bytes(self.registers.get(a, 0) for a in addresses)

    def _poll_command(self, max_targets: int, bit_rate: int, now: float) -> bytes | None:
        self.counters.polls += 1
        if bit_rate != cmd.TYPE_A_106 or self.in_field(now):
            return self._list_targets(max_targets if bit_rate == cmd.TYPE_A_106 else 0, now)
        if self.max_retries == UNBOUNDED:
            self._waiting_poll = max_targets
            return None
        self.registers[CIU_FIFO_DATA] = SENS_REQ
        # The empty field's answer comes once every retry has timed out.
        self._answer(now, b"\x4b\x00", ACTIVATION_TRY * (self.max_retries + 1))
        return None

    def _list_targets(self, max_targets: int, now: float) -> bytes:
        tags = self.in_field(now)[:max_targets]
        self.counters.listed += len(tags)
        self.registers[CIU_FIFO_DATA] = 0x00 if tags else SENS_REQ
        return cmd.encode_targets(
            tuple(cmd.TypeATarget(i + 1, t.sens_res, t.sel_res, t.uid) for i, t in enumerate(tags))
        )


def _count(name: str, count: int) -> int:
    if count < 1:
        raise ValueError(f"{name} count {count}: expected a whole number of frames, 1 or more")
    return count
