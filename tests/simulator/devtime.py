"""The devices' time in the simulator's tests: a ManualClock the test moves, never the wall's.

A test that connects the real drivers to the simulator gives both the same
``simulator.clock.ManualClock``. Heartbeats, hellos, resends, held
sentences, the drivers' silence check and the shoe's read stamps then see
only the time the test lets pass (``let_pass``, or ``next_event`` while the
line is quiet), so what the test sees never follows the machine's load. A
wait for what the drivers report is a wait on the event itself, with a
deadline on the wall clock long enough for any machine (``WAIT``).
"""

from __future__ import annotations

import queue
import time
from typing import Any

from simulator.clock import ManualClock

#: The wall-clock deadline of a wait for an event: reached only when the event never comes.
WAIT = 20.0
#: How long a wait looks at a quiet line before it lets the devices' time move on.
QUIET = 0.01


def let_pass(clock: ManualClock, seconds: float, step: float) -> None:
    """Let ``seconds`` pass on the devices' clock, ``step`` at a time (at most a heartbeat
    period, so the host hears a heartbeat at least every step of a live line)."""
    left = seconds
    while left > 1e-9:
        clock.advance(min(step, left))
        left -= step


def next_event(
    events: queue.Queue[Any],
    kind: type,
    clock: ManualClock | None = None,
    step: float = 0.05,
    timeout: float = WAIT,
) -> Any:
    """The next event of ``kind`` from ``events``, the others skipped.

    With ``clock``, the devices' time moves on ``step`` while the line is quiet
    (what the event waits for: a resend, a heartbeat, a held sentence, a silence
    long enough to be a loss); without, it stands still while the test waits.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            event = events.get(timeout=QUIET)
        except queue.Empty:
            assert time.monotonic() < deadline, f"no {kind.__name__} within {timeout:g} s"
            if clock is not None:
                clock.advance(step)
            continue
        if isinstance(event, kind):
            return event


def collect(
    events: queue.Queue[Any], kind: type, count: int, clock: ManualClock | None = None
) -> list[Any]:
    """The next ``count`` events of ``kind`` (see ``next_event``)."""
    return [next_event(events, kind, clock) for _ in range(count)]
