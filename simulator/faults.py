"""Faults on the line between a device and the host: what a bad cable or a hung device does.

``LineFaults`` sits between a device core and its transport. The core hands
it whole sentences; it passes them on, or drops, garbles, delays them, adds
bursts of noise, or swallows everything while the device is silent. It is
pure: time is passed in and every random choice comes from the
``random.Random`` it is given, so a seeded run is repeatable.

The device faults (lid, reader, stray tags, re-reads) are the shoe's own
methods (simulator.virtualshoe); unplugging is the transport's (simulator.transports).
"""

from __future__ import annotations

import math
import random
from collections import deque
from dataclasses import dataclass
from typing import Final

#: Bytes between ``$`` and ``*`` are the ones a garble may hit, so the damage is
#: always seen by the receiver (checksum, bad byte or truncation), never a valid sentence.
_BODY_START: Final = 1
_TAIL: Final = 5  # '*', two checksum digits, CR, LF


class FaultError(ValueError):
    """A fault asked for with an argument it cannot take; the message names it."""


@dataclass(slots=True)
class FaultCounters:
    """What the line has done to the device's output, for the technician's ``state``."""

    passed: int = 0
    dropped: int = 0
    garbled: int = 0
    delayed: int = 0
    noise_bytes: int = 0
    silenced: int = 0
    ignored_input_bytes: int = 0


def _positive_count(name: str, count: int) -> None:
    if count < 1:
        raise FaultError(f"{name} count {count}: expected a whole number of sentences, 1 or more")


class LineFaults:
    """The faults armed on one device's line, applied sentence by sentence."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self._drop = 0
        self._garble = 0
        self._delay_count = 0
        self._delay_seconds = 0.0
        self._held: deque[bytes] = deque()
        self._release_at: float | None = None
        self._noise = bytearray()
        self.silent_until: float | None = None
        self.counters = FaultCounters()

    # --- arming ---------------------------------------------------------------------------

    def drop(self, count: int = 1) -> None:
        """Lose the next ``count`` sentences on the line."""
        _positive_count("drop", count)
        self._drop += count

    def garble(self, count: int = 1) -> None:
        """Flip a bit in each of the next ``count`` sentences."""
        _positive_count("garble", count)
        self._garble += count

    def delay(self, seconds: float, count: int = 1) -> None:
        """Hold the next ``count`` sentences ``seconds``; what follows waits behind them."""
        _positive_count("delay", count)
        if not 0 < seconds <= 60:
            raise FaultError(f"delay of {seconds} s: expected more than 0 and at most 60 seconds")
        self._delay_count += count
        self._delay_seconds = seconds

    def noise(self, length: int) -> None:
        """A burst of ``length`` random bytes on the line, between two sentences."""
        if not 1 <= length <= 4096:
            raise FaultError(f"noise of {length} bytes: expected 1 to 4096")
        self._noise.extend(self._rng.randrange(256) for _ in range(length))

    def silence(self, now: float, seconds: float | None = None) -> None:
        """The device hangs: it writes nothing and hears nothing (for ``seconds``, or until
        ``speak``)."""
        if seconds is not None and not seconds > 0:
            raise FaultError(f"silence of {seconds} s: expected more than 0 seconds")
        self.silent_until = math.inf if seconds is None else now + seconds

    def speak(self) -> None:
        """The hung device recovers."""
        self.silent_until = None

    def clear(self) -> None:
        """Disarm every fault not yet applied; held sentences go out at the next ``apply``."""
        self._drop = self._garble = self._delay_count = 0
        self._noise.clear()
        self._release_at = -math.inf if self._held else None
        self.silent_until = None

    # --- applying -------------------------------------------------------------------------

    def is_silent(self, now: float) -> bool:
        """Whether the device is hung at ``now``."""
        if self.silent_until is not None and now >= self.silent_until:
            self.silent_until = None
        return self.silent_until is not None

    def incoming(self, data: bytes, now: float) -> bytes:
        """What of the host's bytes the device hears (nothing while it is silent)."""
        if self.is_silent(now):
            self.counters.ignored_input_bytes += len(data)
            return b""
        return data

    def apply(self, sentences: list[bytes], now: float) -> bytes:
        """The bytes that reach the wire now, from the sentences the device writes now."""
        if self.is_silent(now):
            self.counters.silenced += len(sentences)
            return b""
        out = bytearray(self._noise)
        self.counters.noise_bytes += len(self._noise)
        self._noise.clear()
        for sentence in sentences:
            self._pass(sentence, now)
        if self._release_at is not None and now >= self._release_at:
            out.extend(b"".join(self._held))
            self._held.clear()
            self._release_at = None
        return bytes(out) + self._ready()

    def _pass(self, sentence: bytes, now: float) -> None:
        if self._drop:
            self._drop -= 1
            self.counters.dropped += 1
            return
        if self._garble:
            self._garble -= 1
            self.counters.garbled += 1
            sentence = self._garbled(sentence)
        if self._delay_count:
            self._delay_count -= 1
            self.counters.delayed += 1
            if self._release_at is None:
                self._release_at = now + self._delay_seconds
        self._held.append(sentence)
        self.counters.passed += 1

    def _ready(self) -> bytes:
        # Sentences not behind a delay go out at once; a delay holds all that follow it.
        if self._release_at is not None:
            return b""
        out = b"".join(self._held)
        self._held.clear()
        return out

    def _garbled(self, sentence: bytes) -> bytes:
        damaged = bytearray(sentence)
        position = self._rng.randrange(_BODY_START, len(sentence) - _TAIL)
        damaged[position] ^= 1 << self._rng.randrange(7)
        return bytes(damaged)

    def next_deadline(self) -> float:
        """When ``apply`` next releases something by itself (held sentences, noise)."""
        if self._noise:
            return -math.inf
        deadline = math.inf if self._release_at is None else self._release_at
        if self.silent_until is not None:
            deadline = min(deadline, self.silent_until)
        return deadline

    def describe(self) -> str:
        """The faults armed now, in words."""
        armed = []
        if self._drop:
            armed.append(f"drop {self._drop}")
        if self._garble:
            armed.append(f"garble {self._garble}")
        if self._delay_count:
            armed.append(f"delay {self._delay_count} by {self._delay_seconds:g} s")
        if self._held:
            armed.append(f"{len(self._held)} held")
        if self.silent_until is not None:
            armed.append("silent" if math.isinf(self.silent_until) else "silent for a while")
        return ", ".join(armed) or "none"
