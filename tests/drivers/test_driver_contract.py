"""The host's shoe and panel drivers over real lines: the contract every backend must meet.

Each test runs once per backend in backends.BACKENDS (a real pty pair, a TCP
socket; the simulator adds its own), with a test-side device speaking
docs/protocol.md. Timings are shortened through the drivers' settings.

The device and the host's driver read one clock, a ``ManualClock`` the test
moves (``device.advance``): a heartbeat, a resend, a refresh, a silence or a
repeat window passes only when the test lets that much time pass, whatever
the machine's speed. A test waits for what it expects on the event itself
(an event on the queue, a sentence the device received, a log line), with a
deadline far beyond what it takes on a busy machine; to show that nothing
more arrives it sends one more read or press behind everything (``settle``)
and looks at what the host made of the rest.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import structlog
from backends import Backend
from fake_device import PATIENCE, FakeDevice

from controller.poker.inputs import Button, ButtonPress, ReadPoint
from drivers.seam.events import (
    ButtonPressed,
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    Feed,
    HelloOutcome,
    Lid,
    LostRange,
    Reader,
    RejectReason,
    ShoeState,
    TagRead,
)
from drivers.tablectl import link
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import Light, PanelDriver, Press, Text
from drivers.tablectl.sentences import Ack, DecodeErrorKind, Reject
from drivers.tablectl.session import DeviceSender, Sequenced, seq_add
from drivers.tablectl.shoe import ShoeDriver, ShoeStatus
from drivers.tablectl.transport import DeviceDriver
from simulator.clock import ManualClock

#: How long to wait for an event that must come: far beyond what it takes on a busy machine.
WAIT = PATIENCE


def settings(backend: Backend, **overrides: Any) -> LinkSettings:
    values: dict[str, Any] = {
        "url": backend.url,
        # Well above the device's 0.1 s heartbeat: on the test's clock the host hears a
        # heartbeat at every step of an advance, so only a silent device is ever lost.
        "heartbeat_timeout": 1.5,
        "query_interval": 0.1,
        "backoff_initial": 0.02,
        "backoff_max": 0.1,
    }
    values.update(overrides)
    return LinkSettings(**values)


def uid(n: int) -> str:
    return f"E0040150{n:08X}"


def wait_for(events: queue.Queue[Any], kind: type, timeout: float = WAIT) -> list[Any]:
    """Every event up to and including the first of ``kind``; fails after ``timeout``."""
    seen: list[Any] = []
    deadline = time.monotonic() + timeout
    while True:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"no {kind.__name__} within {timeout} s; saw {seen}")
        seen.append(event)
        if isinstance(event, kind):
            return seen


def reads(events: queue.Queue[Any], count: int) -> list[TagRead]:
    """The next ``count`` tag reads (other events skipped)."""
    got: list[TagRead] = []
    while len(got) < count:
        got.extend(e for e in wait_for(events, TagRead) if isinstance(e, TagRead))
    return got


def pending(events: queue.Queue[Any]) -> list[Any]:
    """The events already on the queue, taken off it (waits for nothing)."""
    out = []
    while not events.empty():
        out.append(events.get_nowait())
    return out


def wait_until(condition: Callable[[], object], what: str, timeout: float = WAIT) -> None:
    """Wait on the wall clock until ``condition()`` holds; fails after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.002)


_markers = itertools.count()


def marked(device: FakeDevice, events: queue.Queue[Any]) -> tuple[list[Any], Sequenced]:
    """Everything the host made of what the device sent so far, and the marker that shows it.

    The device sends one more read (a tag of its own) or press behind all it has sent; the
    host handles a line in order on one thread, so the events before the marker's are all
    the rest can ever give. Needs a welcomed link."""
    if device.kind == "shoe":
        marker: Sequenced = device.read(f"E0FFFFFF{next(_markers):08X}")
    else:
        marker = device.submit(Press(0, Button.FOLD))
    before: list[Any] = []
    deadline = time.monotonic() + WAIT
    while True:
        try:
            event = events.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            pytest.fail(f"the marker {marker} never arrived; saw {before}")
        if isinstance(event, TagRead | ButtonPressed) and event.seq == marker.seq:
            return before, marker
        before.append(event)


def settle(device: FakeDevice, events: queue.Queue[Any], seconds: float = 0.0) -> list[Any]:
    """Let ``seconds`` pass on the link's clock (resends and heartbeats fall due), then every
    event the host made of what the device sent by then (to show nothing more arrives)."""
    device.advance(seconds)
    return marked(device, events)[0]


def count_opens(driver: DeviceDriver[Any]) -> list[bool]:
    """Each time ``driver`` tries to open its port from now on, whether it could (a spy)."""
    opens: list[bool] = []
    real = driver._open

    def spied() -> Any:
        port = real()
        opens.append(port is not None)
        return port

    driver._open = spied  # type: ignore[method-assign]  # an instance's spy
    return opens


@contextmanager
def shoe_link(
    backend: Backend, **kwargs: Any
) -> Iterator[tuple[FakeDevice, ShoeDriver, queue.Queue[Any]]]:
    events: queue.Queue[Any] = queue.Queue()
    overrides = {k: kwargs.pop(k) for k in list(kwargs) if k in LinkSettings.__dataclass_fields__}
    repeat_window = kwargs.pop("repeat_window", 0.3)
    clock = ManualClock()  # the link's: the device and the host's driver read it
    with (
        FakeDevice(backend, clock=clock, **kwargs) as device,
        ShoeDriver(
            settings(backend, **overrides), events, repeat_window=repeat_window, clock=clock
        ) as driver,
    ):
        yield device, driver, events


def test_the_shoe_says_hello_and_its_reads_arrive_in_order(backend: Backend) -> None:
    """Hello is welcomed (new session); each card read becomes one TagRead, in order."""
    with shoe_link(backend) as (device, _driver, events):
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.NEW_SESSION
        assert ready.serial == "SHOE0001"
        for n in range(10):
            device.read(uid(n), ReadPoint.DISCARD_READER if n % 3 == 0 else ReadPoint.DEALING_SLOT)
        got = reads(events, 10)
        assert [r.uid for r in got] == [uid(n) for n in range(10)]
        assert got[3].point is ReadPoint.DISCARD_READER
        assert got[4].point is ReadPoint.DEALING_SLOT
        assert settle(device, events, 0.3) == []


def test_shoe_status_changes_arrive(backend: Backend) -> None:
    """Lid, reader and feed come through as a ShoeState."""
    with shoe_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.submit(ShoeStatus(0, Lid.OPEN, Reader.FAULT, Feed.JAM))
        state = wait_for(events, ShoeState)[-1]
        assert state == ShoeState(Lid.OPEN, Reader.FAULT, Feed.JAM)


def test_a_lost_frame_loses_no_card_and_doubles_none(backend: Backend) -> None:
    """Frames lost on the line are resent; every card arrives exactly once, in order."""
    # No repeat window: a resend passed on twice would not be taken for an RFID repeat.
    with shoe_link(backend, repeat_window=0.0) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.faults.drop_frames = 3
        for n in range(6):
            device.read(uid(n))
        device.advance(0.1)  # past the device's resend time (0.05 s): all six go again
        assert [r.uid for r in reads(events, 6)] == [uid(n) for n in range(6)]
        assert settle(device, events, 0.3) == []


def test_a_lost_ack_makes_a_resend_that_is_dropped_as_a_duplicate(backend: Backend) -> None:
    """The device resends what it thinks unacknowledged; the host passes it on only once."""
    # No repeat window: a resend passed on twice would not be taken for an RFID repeat.
    with shoe_link(backend, repeat_window=0.0) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.faults.ignore_acks = 4
        for n in range(3):
            device.read(uid(n))
        assert [r.uid for r in reads(events, 3)] == [uid(n) for n in range(3)]
        # Unacknowledged for the device, the three go again at the first step: duplicates.
        assert settle(device, events, 0.4) == []
        device.wait_acknowledged()
        assert device.faults.ignore_acks == 0


def repeat_log(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [entry for entry in logs if entry["event"] == "rfid_repeat_dropped"]


def test_rfid_repeats_within_the_window_are_dropped_and_logged(backend: Backend) -> None:
    """protocol.md 7: the same tag at the same point within the window on the shoe's clock is
    one read, another point is another read; the log names the UID, the point and both times."""
    with structlog.testing.capture_logs() as logs, shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        first = device.read(uid(7))
        device.read(uid(7), at_ms=first.read_ms + 100)
        device.read(uid(7), at_ms=first.read_ms + 200)
        device.read(uid(7), ReadPoint.DISCARD_READER, at_ms=first.read_ms + 250)
        # The window slides: 350 ms after the first read but 150 after the last repeat.
        device.read(uid(7), at_ms=first.read_ms + 350)
        device.read(uid(7), at_ms=first.read_ms + 650)
        got = reads(events, 3)
        assert [(r.uid, r.point, r.read_ms) for r in got] == [
            (uid(7), ReadPoint.DEALING_SLOT, first.read_ms),
            (uid(7), ReadPoint.DISCARD_READER, first.read_ms + 250),
            (uid(7), ReadPoint.DEALING_SLOT, first.read_ms + 650),
        ]
        assert settle(device, events) == []
    dropped = repeat_log(logs)
    assert [(d["uid"], d["point"], d["read_ms"], d["previous_read_ms"]) for d in dropped] == [
        (uid(7), "slot", first.read_ms + 100, first.read_ms),
        (uid(7), "slot", first.read_ms + 200, first.read_ms + 100),
        (uid(7), "slot", first.read_ms + 350, first.read_ms + 200),
    ]


def test_rfid_repeats_are_judged_on_the_shoe_clock_not_on_arrival(backend: Backend) -> None:
    """protocol.md 7: reads made further apart than the window on the shoe's clock are two
    reads, even when they arrive together."""
    with shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        first = device.read(uid(5), at_ms=1_000)
        device.read(uid(5), at_ms=1_400)
        assert [r.read_ms for r in reads(events, 2)] == [first.read_ms, 1_400]


def test_a_repeat_lost_and_resent_after_the_window_is_still_dropped(backend: Backend) -> None:
    """protocol.md 7, chart 9.5: a lingering tag's repeat, 60 ms after its read on the shoe's
    clock, whose frame is lost and resent later than the window, is still a repeat."""
    with (
        structlog.testing.capture_logs() as logs,
        shoe_link(backend, resend_after=0.5) as (device, _d, events),
    ):
        wait_for(events, DeviceUp)
        first = device.read(uid(7))
        (got,) = reads(events, 1)
        device.faults.drop_frames = 1
        device.read(uid(7), at_ms=first.read_ms + 60)  # lost, resent 0.5 s later
        device.read(uid(8), at_ms=first.read_ms + 70)  # behind it: a gap until the resend
        wait_until(lambda: any(e["event"] == "sequence_gap" for e in logs), "the host saw the gap")
        assert pending(events) == [], "nothing passes the gap before the resend"
        device.advance(0.6)  # the resend, later than the 0.3 s window on the host's clock
        (after,) = reads(events, 1)
        assert (got.uid, after.uid) == (uid(7), uid(8))
        assert settle(device, events) == []
    (dropped,) = repeat_log(logs)
    assert (dropped["read_ms"], dropped["previous_read_ms"]) == (first.read_ms + 60, first.read_ms)


def test_a_card_dealt_and_discarded_during_an_unplug_is_read_twice(backend: Backend) -> None:
    """protocol.md 7: a card read at the slot and then at the discard reader while the cable
    is out: both reads arrive after the replug (different read points)."""
    with shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        device.unplug()
        wait_for(events, DeviceDown)
        dealt = device.read(uid(3))
        device.read(uid(3), ReadPoint.DISCARD_READER, at_ms=dealt.read_ms + 40)
        device.replug()
        got = reads(events, 2)
        assert [(r.uid, r.point) for r in got] == [
            (uid(3), ReadPoint.DEALING_SLOT),
            (uid(3), ReadPoint.DISCARD_READER),
        ]
        assert settle(device, events) == []


def test_two_reads_further_apart_than_the_window_kept_through_an_unplug_both_arrive(
    backend: Backend,
) -> None:
    """protocol.md 7, chart 9.6: the same tag at the same point read 500 ms apart on the
    shoe's clock (window 300 ms) while the cable is out arrives together after the replug:
    both are passed on; a repeat 100 ms after the first is still dropped."""
    with shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        device.unplug()
        wait_for(events, DeviceDown)
        first = device.read(uid(4))
        device.read(uid(4), at_ms=first.read_ms + 100)
        device.read(uid(4), at_ms=first.read_ms + 500)
        device.replug()
        got = reads(events, 2)
        assert [(r.uid, r.read_ms) for r in got] == [
            (uid(4), first.read_ms),
            (uid(4), first.read_ms + 500),
        ]
        assert settle(device, events) == []


def test_the_shoe_clock_wrapping_to_zero_is_read_forward(backend: Backend) -> None:
    """protocol.md 7, Wrap-around: times run on from 4294967295 to 0: a read at 4294967000
    and one at 1000 are 1296 ms apart (two reads); one at 1100 repeats the one at 1000."""
    with structlog.testing.capture_logs() as logs, shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        device.read(uid(2), at_ms=4_294_967_000)
        device.read(uid(2), at_ms=1_000)
        device.read(uid(2), at_ms=1_100)
        device.read(uid(2), at_ms=1_500)
        got = reads(events, 3)
        assert [r.read_ms for r in got] == [4_294_967_000, 1_000, 1_500]
        assert settle(device, events) == []
    (dropped,) = repeat_log(logs)
    assert (dropped["read_ms"], dropped["previous_read_ms"]) == (1_100, 1_000)


def test_a_protocol_version_the_host_does_not_speak_is_refused_and_the_driver_stops(
    backend: Backend,
) -> None:
    """A version-2 device gets REJ,protocol,1; the controller gets a clear DeviceRefused."""
    with shoe_link(backend, protocol=2) as (device, driver, events):
        refused = wait_for(events, DeviceRefused)[-1]
        assert "speaks protocol version 2; this host speaks only version 1" in refused.reason
        wait_until(lambda: device.rejected is not None, "the device got the REJ")
        assert device.rejected == Reject(RejectReason.PROTOCOL, "1")
        assert driver.refused is not None
        wait_until(lambda: not driver.running, "the refused driver's thread ended")
        assert pending(events) == [], "one refusal, nothing after it"


def test_a_shoe_with_another_serial_number_is_refused(backend: Backend) -> None:
    """The configuration names the shoe; an impostor is refused by identity."""
    with shoe_link(backend, expected_serial="SHOE0002") as (_device, _driver, events):
        refused = wait_for(events, DeviceRefused)[-1]
        assert "serial SHOE0001" in refused.reason
        assert "SHOE0002" in refused.reason


def test_silence_past_the_timeout_is_a_comm_loss_then_the_link_resumes(backend: Backend) -> None:
    """No heartbeat for longer than the timeout: DeviceDown; when it speaks again, resumed."""
    with shoe_link(backend, heartbeat_timeout=0.5) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.faults.silent = True
        device.advance(0.6)
        lost = wait_for(events, DeviceDown)[-1]
        assert "silent for more than 0.5 s" in lost.reason
        device.read(uid(1))
        device.faults.silent = False
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.RESUMED
        assert [r.uid for r in reads(events, 1)] == [uid(1)]


def test_an_unplug_mid_hand_loses_no_card(backend: Backend) -> None:
    """Cards dealt while the cable is out arrive after the replug, once each, in order."""
    with shoe_link(backend) as (device, driver, events):
        wait_for(events, DeviceUp)
        opens = count_opens(driver)
        for n in range(3):
            device.read(uid(n))
        assert [r.uid for r in reads(events, 3)] == [uid(n) for n in range(3)]
        device.unplug()
        lost = wait_for(events, DeviceDown)[-1]
        assert "port failed" in lost.reason
        for n in range(3, 6):
            device.read(uid(n))
        # The host retries against the missing port meanwhile: three times, and still one loss.
        wait_until(lambda: opens.count(False) >= 3, "three failed reopens")
        assert not [e for e in pending(events) if isinstance(e, DeviceDown)], "one loss, one event"
        device.replug()
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.RESUMED
        assert [r.uid for r in reads(events, 3)] == [uid(n) for n in range(3, 6)]
        assert settle(device, events, 0.3) == []


def test_the_driver_starts_and_stops_without_a_device(backend: Backend) -> None:
    """No device: start returns at once, and stop ends the thread promptly, not at the end
    of the reconnect backoff (here 60 s)."""
    events: queue.Queue[Any] = queue.Queue()
    patient = settings(backend, backoff_initial=60.0, backoff_max=60.0)
    driver = ShoeDriver(patient, events, clock=ManualClock())
    opens = count_opens(driver)
    # Bounds far below the backoff and far above a loaded machine's delays: what they catch
    # is a start that waits out the backoff, or a stop that does not end its wait.
    started = time.monotonic()
    try:
        driver.start()
        start_took = time.monotonic() - started
        wait_until(lambda: opens == [False], "the first open failed: the backoff began")
    finally:
        stopping = time.monotonic()
        driver.stop()
        stop_took = time.monotonic() - stopping
    assert start_took < 20.0
    assert stop_took < 20.0
    assert not driver.running


def test_without_a_device_one_comm_loss_says_the_port_cannot_be_opened(backend: Backend) -> None:
    """No device: one DeviceDown says the port cannot be opened, however often the driver
    retries."""
    events: queue.Queue[Any] = queue.Queue()
    with ShoeDriver(settings(backend), events, clock=ManualClock()) as driver:
        opens = count_opens(driver)
        wait_until(lambda: len(opens) >= 3, "three tries to open the port")
    (lost,) = pending(events)
    assert isinstance(lost, DeviceDown)
    assert lost.reason.startswith(f"cannot open {backend.url}")


def test_a_power_cycled_device_is_announced_as_restarted(backend: Backend) -> None:
    """A hello with a new boot id, even without a silence first, is a DeviceUp(restarted):
    the controller learns that reads the device had not sent are lost."""
    with shoe_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.read(uid(1))
        reads(events, 1)

        def power_cycle() -> None:
            device.sender = DeviceSender("0BADBEEF")
            device.sender.on_query()
            device.force_hello()

        device.do(power_cycle)
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.RESTARTED
        device.read(uid(2))
        assert [r.uid for r in reads(events, 1)] == [uid(2)]


def test_a_read_after_a_power_cycle_is_new_whatever_its_time(backend: Backend) -> None:
    """protocol.md 7: times of different boots are not compared: after a power cycle the same
    tag at the same point, stamped 10 ms after the old boot's read, is a new read."""
    with shoe_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        first = device.read(uid(1))
        reads(events, 1)

        def power_cycle() -> None:
            device.sender = DeviceSender("0BADBEEF")
            device.sender.on_query()
            device.force_hello()

        device.do(power_cycle)
        assert wait_for(events, DeviceUp)[-1].outcome is HelloOutcome.RESTARTED
        device.read(uid(1), at_ms=first.read_ms + 10)
        assert [r.read_ms for r in reads(events, 1)] == [first.read_ms + 10]


def test_noise_on_the_line_is_counted_and_costs_no_card(backend: Backend) -> None:
    """Garbage before every sentence is counted as noise; every card still arrives."""
    with shoe_link(backend) as (device, driver, events):
        wait_for(events, DeviceUp)
        device.faults.garbage_before_each = b"\x00\xff~\r\n"
        for n in range(4):
            device.read(uid(n))
        assert [r.uid for r in reads(events, 4)] == [uid(n) for n in range(4)]
        assert driver.counters.noise_bytes > 0


def test_a_panel_on_the_shoe_port_is_reported_as_the_wrong_talker(backend: Backend) -> None:
    """Swapped cables: the shoe driver counts the panel's sentences as wrong_talker."""
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()
    with (
        FakeDevice(backend, kind="panel", serial="PANEL0001", clock=clock),
        ShoeDriver(settings(backend), events, clock=clock) as driver,
    ):
        wait_until(lambda: driver.counters.errors.get(DecodeErrorKind.WRONG_TALKER), "wrong_talker")
    assert not any(isinstance(e, DeviceUp) for e in pending(events))


@contextmanager
def panel_link(
    backend: Backend,
) -> Iterator[tuple[FakeDevice, PanelDriver, queue.Queue[Any]]]:
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()  # the link's: the device and the host's driver read it
    with (
        FakeDevice(backend, kind="panel", serial="PANEL0001", clock=clock) as device,
        PanelDriver(settings(backend), events, refresh=0.1, clock=clock) as driver,
    ):
        yield device, driver, events


def test_panel_presses_arrive_as_engine_buttons(backend: Backend) -> None:
    """Every button press arrives once, in order, and maps 1:1 to the engine's Button."""
    with panel_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.faults.drop_frames = 2
        for button in Button:
            device.submit(Press(0, button))
        device.advance(0.1)  # past the device's resend time: the lost two go again
        presses: list[ButtonPressed] = []
        while len(presses) < len(Button):
            presses.extend(
                e for e in wait_for(events, ButtonPressed) if isinstance(e, ButtonPressed)
            )
        assert [p.to_input() for p in presses] == [ButtonPress(b) for b in Button]


def test_the_panel_lights_the_seat_and_shows_text_and_repairs_a_lost_frame(
    backend: Backend,
) -> None:
    """LIT and TXT reach the panel, and the refresh repeats them, so lost ones are repaired."""
    line = Text("Seat 3: call 20, raise or fold")
    with panel_link(backend) as (device, driver, events):
        wait_for(events, DeviceUp)
        # The welcome's refresh (the blank line, no light) is in: what follows is the change.
        wait_until(lambda: Light(0) in device.seen.of(Light), "the welcome's refresh")
        device.faults.lose_incoming = 4  # the light's two frames and the line's two: lost
        driver.light(3)
        wait_until(lambda: device.faults.lose_incoming == 2, "the light's frames were lost")
        driver.show(line.text)
        wait_until(lambda: device.faults.lose_incoming == 0, "the line's frames were lost")
        assert Light(3) not in device.seen.of(Light)
        assert line not in device.seen.of(Text)
        device.advance(0.15)  # past the 0.1 s refresh: both go again
        wait_until(
            lambda: Light(3) in device.seen.of(Light) and line in device.seen.of(Text),
            f"the refresh repaired them; the panel got {device.seen.sentences}",
        )
        assert device.seen.errors == []


def test_the_panel_is_sent_its_new_line_before_its_new_light(backend: Backend) -> None:
    """docs/protocol.md 3.4: on a change the host sends TXT, then LIT. The line names the seat,
    so between the two frames the panel shows the new line under the old light, never a new
    seat lit under the old seat's options."""
    with panel_link(backend) as (device, driver, events):
        wait_for(events, DeviceUp)
        driver.light_and_show(7, "S7: CHECK/BET")
        wait_until(lambda: Light(7) in device.seen.of(Light), "the new light reached the panel")
        with device.seen.lock:
            sentences = list(device.seen.sentences)
        first_light = sentences.index(Light(7))
        assert sentences[first_light - 1] == Text("S7: CHECK/BET")


def test_stop_ends_the_read_at_once_not_at_the_end_of_the_read_slice(
    backend: Backend, monkeypatch: pytest.MonkeyPatch
) -> None:
    """stop() interrupts the reading thread's wait for input (pyserial's cancel_read): the
    controller's close does not wait out a read slice. Here the slice is 60 s."""
    if not hasattr(link.serial.serial_for_url(backend.url, do_not_open=True), "cancel_read"):
        pytest.skip(f"{backend.name}: no cancel_read; stop waits for the read slice")
    monkeypatch.setattr(link, "READ_SLICE", 60.0)
    events: queue.Queue[Any] = queue.Queue()
    clock = ManualClock()  # stands still: no heartbeat, no refresh wakes the read
    with FakeDevice(backend, kind="panel", serial="PANEL0001", clock=clock) as device:
        driver = PanelDriver(settings(backend), events, refresh=0.1, clock=clock)
        # The thread has begun a read after the last thing the device will send (a press
        # behind its hellos): nothing comes to end that read but the stop, which would
        # otherwise wait out the 60 s slice.
        reading = threading.Event()
        after: list[int] = []
        read = link.read_what_came

        def spied_read(port: Any) -> bytes:
            if after and driver.receiver.expected == after[0]:
                reading.set()
            return read(port)

        monkeypatch.setattr(link, "read_what_came", spied_read)
        driver.start()
        wait_for(events, DeviceUp)
        first = driver.receiver.expected  # the hello's seq: the host accepts from there
        assert first is not None
        after.append(seq_add(first, 1))  # the host's next once it has the press
        assert device.submit(Press(0, Button.FOLD)).seq == first
        wait_for(events, ButtonPressed)
        assert reading.wait(WAIT), "the thread never read again after the press"
        stopping = time.monotonic()
        driver.stop()
        assert time.monotonic() - stopping < 20.0


def test_the_host_acks_every_sequenced_sentence(backend: Backend) -> None:
    """Each accepted press is acknowledged by number."""
    with panel_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        for _ in range(3):
            device.submit(Press(0, Button.FOLD))
        for _ in range(3):
            wait_for(events, ButtonPressed)
        wait_until(
            lambda: {a.seq for a in device.seen.of(Ack) if isinstance(a, Ack)} >= {0, 1, 2},
            "each press acknowledged",
        )


def test_light_and_show_refuse_what_the_panel_cannot_display(backend: Backend) -> None:
    """A seat past 11 (Mambo's eleven, 13:69F-14.13A(b)) or a line past 40 characters is
    refused in the caller's thread."""
    events: queue.Queue[Any] = queue.Queue()
    driver = PanelDriver(settings(backend), events)
    with pytest.raises(ValueError, match="seat 12"):
        driver.light(12)
    with pytest.raises(ValueError, match="at most 40"):
        driver.show("x" * 41)
    with pytest.raises(ValueError, match="seat 12"):
        driver.light_and_show(12, "S12: CHECK/BET")
    with pytest.raises(ValueError, match="at most 40"):
        driver.light_and_show(1, "x" * 41)


def test_presses_made_while_the_panel_is_unplugged_arrive_after_the_replug(
    backend: Backend,
) -> None:
    """The panel's presses survive an unplug like the shoe's reads: once each, in order."""
    with panel_link(backend) as (device, _driver, events):
        wait_for(events, DeviceUp)
        device.submit(Press(0, Button.CHECK_CALL))
        wait_for(events, ButtonPressed)
        device.unplug()
        wait_for(events, DeviceDown)
        device.submit(Press(0, Button.FOLD))
        device.submit(Press(0, Button.BET_RAISE))
        device.replug()
        assert wait_for(events, DeviceUp)[-1].outcome is HelloOutcome.RESUMED
        presses = [e for e in wait_for(events, ButtonPressed) if isinstance(e, ButtonPressed)]
        presses += [e for e in wait_for(events, ButtonPressed) if isinstance(e, ButtonPressed)]
        assert [p.button for p in presses] == [Button.FOLD, Button.BET_RAISE]
        assert settle(device, events, 0.3) == []


def lost_logs(logs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [entry for entry in logs if entry["event"] == "sentences_lost"]


def test_a_hello_past_the_expected_number_reports_the_lost_presses_and_resyncs(
    backend: Backend,
) -> None:
    """docs/protocol.md 5, Lost sentences: the panel comes back (same boot) saying hello with a
    number 12 past the one the host expects: a warning names the panel and the lost numbers,
    the controller gets DeviceUp(lost) as for a restart, and later presses arrive."""
    with structlog.testing.capture_logs() as logs, panel_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        device.submit(Press(0, Button.CHECK_CALL))
        wait_for(events, ButtonPressed)
        device.wait_acknowledged()
        device.unplug()
        wait_for(events, DeviceDown)
        first = device.lose_unsent(12)
        device.submit(Press(0, Button.FOLD))
        device.replug()
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.LOST
        assert ready.lost == LostRange(first, first + 11)
        presses = [e for e in wait_for(events, ButtonPressed) if isinstance(e, ButtonPressed)]
        assert [(p.button, p.seq) for p in presses] == [(Button.FOLD, first + 12)]
        assert settle(device, events, 0.3) == []
    (warning,) = lost_logs(logs)
    assert warning["log_level"] == "warning"
    assert (warning["device"], warning["lost"], warning["count"]) == (
        "panel",
        f"{first}..{first + 11}",
        12,
    )
    assert warning["found_by"] == "hello"


def test_a_heartbeat_past_the_expected_number_reports_the_lost_reads_and_resyncs(
    backend: Backend,
) -> None:
    """docs/protocol.md 5, Lost sentences: the shoe, still connected, skips 4 numbers; its
    reads are gaps the resends cannot fill until its heartbeat shows the 4 lost: a warning,
    DeviceUp(lost) to the controller, and the reads after arrive, once each, in order."""
    with structlog.testing.capture_logs() as logs, shoe_link(backend) as (device, _d, events):
        wait_for(events, DeviceUp)
        device.read(uid(1))
        reads(events, 1)
        device.wait_acknowledged()
        first = device.lose_unsent(4)
        device.read(uid(2))
        device.read(uid(3))
        # The next heartbeat shows the four lost; the resends behind it fill the gap.
        device.advance(0.15)
        ready = wait_for(events, DeviceUp)[-1]
        assert ready.outcome is HelloOutcome.LOST
        assert ready.lost == LostRange(first, first + 3)
        assert [(r.uid, r.seq) for r in reads(events, 2)] == [
            (uid(2), first + 4),
            (uid(3), first + 5),
        ]
        assert settle(device, events, 0.3) == []
    (warning,) = lost_logs(logs)
    assert (warning["device"], warning["lost"], warning["found_by"]) == (
        "shoe",
        f"{first}..{first + 3}",
        "heartbeat",
    )


def test_a_gap_the_resends_never_fill_is_warned_of_not_dropped_silently(
    backend: Backend,
) -> None:
    """docs/protocol.md 5: a gap is logged when it opens; one that lasts (a device that skips
    numbers and never heartbeats) is warned of again each heartbeat timeout, naming the
    number expected and the one received."""
    with (
        structlog.testing.capture_logs() as logs,
        shoe_link(backend, heartbeat=3600.0, heartbeat_timeout=0.4) as (device, _d, events),
    ):
        wait_for(events, DeviceUp)
        first = device.lose_unsent(3)
        device.read(uid(1))
        wait_until(lambda: any(e["event"] == "sequence_gap" for e in logs), "the gap opened")
        for _ in range(10):  # a second on the link's clock: a resend every 0.1 s
            answered = len(device.seen.of(Ack))
            device.advance(0.1)
            # The host answers each gap with an ack of the last in order: this one is handled.
            wait_until(
                lambda n=answered: len(device.seen.of(Ack)) > n,  # type: ignore[misc]
                "the resend was answered",
            )
        assert not [e for e in pending(events) if isinstance(e, TagRead)]
    opened = [e for e in logs if e["event"] == "sequence_gap"]
    unfilled = [e for e in logs if e["event"] == "sequence_gap_unfilled"]
    assert [(e["log_level"], e["expected"], e["seq"]) for e in opened] == [
        ("info", first, first + 3)
    ]
    assert len(unfilled) == 2, "warned of again at each heartbeat timeout the gap stays open"
    assert all(e["log_level"] == "warning" for e in unfilled)
    assert (unfilled[0]["expected"], unfilled[0]["seq"]) == (first, first + 3)


def noise_logs(logs: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
    return [
        (e["event"], e["log_level"], e["bytes"])
        for e in logs
        if e["event"] in ("line_noise", "line_noise_stopped")
    ]


def test_line_noise_is_warned_of_once_a_burst_and_its_size_logged_when_it_stops(
    backend: Backend,
) -> None:
    """docs/protocol.md 2 and 8: 3000 garbage bytes on the shoe, in three writes, are one
    warning as the noise starts after quiet, and one line with the burst's size once the line
    has been quiet for ``noise_quiet``; a later burst is warned of again. Cards still arrive."""
    garbage = b"\x00\xff~\r\n" * 200
    with (
        structlog.testing.capture_logs() as logs,
        shoe_link(backend, noise_quiet=0.6) as (device, driver, events),
    ):
        wait_for(events, DeviceUp)
        for _ in range(3):
            device.noise(garbage)
        device.read(uid(1))
        reads(events, 1)  # read behind the noise: the host has counted all of it
        assert not any(e["event"] == "line_noise_stopped" for e in logs)
        device.advance(0.7)  # quiet for longer than noise_quiet (0.6 s)
        wait_until(lambda: any(e["event"] == "line_noise_stopped" for e in logs), "the burst's end")
        device.noise(garbage)
        wait_until(lambda: driver.counters.noise_bytes >= 4000, "the second burst counted")
        wait_until(lambda: len(noise_logs(logs)) >= 3, "the second burst warned of")
    burst = noise_logs(logs)
    assert burst[0][:2] == ("line_noise", "warning")
    assert burst[1] == ("line_noise_stopped", "info", 3000)
    assert burst[2][:2] == ("line_noise", "warning")
    assert [e for e in burst if e[0] == "line_noise"] == [burst[0], burst[2]]
    assert driver.counters.noise_bytes == 4000


def test_noise_is_counted_over_the_drivers_life_across_a_reconnect(backend: Backend) -> None:
    """docs/drivers.md: the counters cover the driver's whole life; noise before an unplug is
    still counted after the replug, not replaced by the new connection's count."""
    with shoe_link(backend) as (device, driver, events):
        wait_for(events, DeviceUp)
        device.noise(b"\x00" * 100)
        wait_until(lambda: driver.counters.noise_bytes >= 100, "the noise counted")
        device.unplug()
        wait_for(events, DeviceDown)
        device.replug()
        wait_for(events, DeviceUp)
        device.noise(b"\x00" * 50)
        device.read(uid(1))
        reads(events, 1)
        assert driver.counters.noise_bytes == 150
        assert driver.line_totals()["noise_bytes"] == 150
