"""Long runs (``pytest -m slow``): thousands of cards over a lossy line with unplugs.

Prints the figures it measures: cards per second through a lossy line, and
the latency from the device queueing a read to the host's TagRead.

The lossy soak runs on the wall clock, as a table does: its resends and
heartbeats are what it measures. Its outcome (every card once, in order)
does not follow the machine's speed; only its figures do, and the deadline
for the last card is two minutes.
"""

from __future__ import annotations

import queue
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from backends import BACKENDS
from fake_device import FakeDevice

from drivers.seam.events import DeviceUp, TagRead
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.shoe import ShoeDriver
from simulator.clock import ManualClock


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_five_thousand_cards_over_a_lossy_line_with_unplugs_arrive_once_in_order(
    name: str, tmp_path: Path
) -> None:
    """10 % of frames and 10 % of acks lost, the cable pulled five times: every card
    arrives exactly once, in order (docs/protocol.md, 5)."""
    lossy_soak(name, tmp_path, total=5000, unplugs=5)


@pytest.mark.slow
@pytest.mark.reliability
@pytest.mark.parametrize("name", sorted(BACKENDS))
def test_a_thousand_cards_over_a_lossy_line_with_unplugs_arrive_once_in_order(
    name: str, tmp_path: Path
) -> None:
    """The reliability tier's size of the run above (docs/testing.md): the same losses, the
    cable pulled five times in 1,000 cards."""
    lossy_soak(name, tmp_path, total=1000, unplugs=5)


def lossy_soak(name: str, tmp_path: Path, *, total: int, unplugs: int) -> None:
    """``total`` cards through ``name``'s line with 10 % of frames and of acks lost and the
    cable pulled ``unplugs`` times: every card arrives exactly once, in order."""
    backend = BACKENDS[name](tmp_path)
    events: queue.Queue[Any] = queue.Queue()
    settings = LinkSettings(
        backend.url, heartbeat_timeout=1.0, query_interval=0.05, backoff_initial=0.01,
        backoff_max=0.05,
    )  # fmt: skip
    uids = [f"E0{n:014X}" for n in range(total)]
    got: list[str] = []
    latencies: list[float] = []
    queued_at: dict[str, float] = {}
    started = time.monotonic()
    with (
        FakeDevice(backend) as device,
        ShoeDriver(settings, events, repeat_window=0.0) as _driver,
    ):
        device.faults.loss_rate = 0.1
        device.faults.ack_loss_rate = 0.1
        for n, uid in enumerate(uids):
            queued_at[uid] = time.monotonic()
            device.read(uid)
            if n % (total // unplugs) == total // unplugs // 2:
                device.unplug()
                time.sleep(0.05)  # out for a moment; however long, no card may be lost
                device.replug()
            while not events.empty():
                event = events.get_nowait()
                if isinstance(event, TagRead):
                    got.append(event.uid)
                    latencies.append(time.monotonic() - queued_at[event.uid])
        deadline = time.monotonic() + 120
        while len(got) < total and time.monotonic() < deadline:
            try:
                event = events.get(timeout=1)
            except queue.Empty:
                continue
            if isinstance(event, TagRead):
                got.append(event.uid)
                latencies.append(time.monotonic() - queued_at[event.uid])
            elif isinstance(event, DeviceUp):
                pass
    elapsed = time.monotonic() - started
    backend.close()
    assert got == uids
    ordered = sorted(latencies)
    print(
        f"\n{name}: {total} cards in {elapsed:.1f} s ({total / elapsed:.0f}/s) with 10% frame "
        f"and ack loss and {unplugs} unplugs; queued all at once, each waited for delivery "
        f"a median {statistics.median(ordered):.1f} s, 99th percentile "
        f"{ordered[int(len(ordered) * 0.99)]:.1f} s"
    )


@pytest.mark.slow
def test_a_dealt_card_reaches_the_host_quickly_on_a_clean_line(tmp_path: Path) -> None:
    """One card at a time on a clean pty: the latency a dealer would feel.

    The device and the driver read a clock that never moves: each card arrives with no
    time passing for either, so no timer (a resend, a heartbeat, a query) carries it; the
    wall-clock latency is printed, and bounded only far above a loaded machine's."""
    backend = BACKENDS["pty"](tmp_path)
    events: queue.Queue[Any] = queue.Queue()
    latencies = []
    clock = ManualClock()
    with (
        FakeDevice(backend, clock=clock) as device,
        ShoeDriver(LinkSettings(backend.url, query_interval=0.05), events, clock=clock) as _driver,
    ):
        while not isinstance(events.get(timeout=30), DeviceUp):
            pass
        for n in range(200):
            sent = time.monotonic()
            device.read(f"E0{n:014X}")
            while not isinstance(events.get(timeout=30), TagRead):
                pass
            latencies.append(time.monotonic() - sent)
    backend.close()
    ordered = sorted(latencies)
    print(
        f"\nclean pty, one card at a time: median {statistics.median(ordered) * 1000:.1f} ms, "
        f"max {ordered[-1] * 1000:.1f} ms"
    )
    # A deadline, not a measure: far above a loaded machine's latency (milliseconds), still
    # below a driver that sleeps a second for each card.
    assert statistics.median(ordered) < 1.0
