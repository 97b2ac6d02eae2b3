"""Line faults: whatever the line does, every card and button arrives exactly once."""

from __future__ import annotations

import random

import pytest
from test_devices import Bench, panel_bench, shoe_bench

from controller.poker.inputs import Button
from drivers.tablectl.sentences import DecodeErrorKind, Heartbeat
from simulator.faults import FaultError, LineFaults

pytestmark = pytest.mark.fast


def test_a_dropped_sentence_is_resent_and_arrives_once() -> None:
    """Section 5 (chart 9.2): a lost frame is a gap for the host, resent after 200 ms."""
    shoe, bench = shoe_bench()
    bench.line.drop(1)
    first, second = shoe.deal(now=bench.now), shoe.deal(now=bench.now)
    bench.run(0.5)
    assert bench.host.cards == [first.uid, second.uid]
    assert bench.line.counters.dropped == 1
    assert "gap" in bench.host.deliveries


def test_a_garbled_sentence_is_rejected_by_the_host_and_resent() -> None:
    """A flipped bit never makes another valid sentence: the host drops it, the shoe resends."""
    shoe, bench = shoe_bench()
    bench.line.garble(3)
    dealt = shoe.deal(now=bench.now)
    bench.run(0.8)
    assert bench.host.cards == [dealt.uid]
    assert bench.line.counters.garbled == 3
    # A bit flipped into a '$' splits one sentence into two errors (truncated, then checksum).
    assert len(bench.host.errors) >= 3


@pytest.mark.parametrize("seed", range(40))
def test_any_garble_is_seen_as_an_error_never_as_a_sentence(seed: int) -> None:
    """Whatever byte and bit the garble hits, the receiver reports a decode error."""
    line = LineFaults(random.Random(seed))
    line.garble()
    sentence = b"$SHCRD,41,slot,E004015012345678*1E\r\n"
    data = line.apply([sentence], 0.0) + b"$SHHBT,41*6C\r\n"
    _, bench = shoe_bench()
    bench.host.heard.clear()
    bench.host.feed(data)
    assert bench.host.heard == [Heartbeat(41)], "nothing decoded from the garbled sentence"
    assert bench.host.errors
    assert {e.kind for e in bench.host.errors} <= {
        DecodeErrorKind.CHECKSUM,
        DecodeErrorKind.BAD_BYTE,
        DecodeErrorKind.MALFORMED,
        DecodeErrorKind.TRUNCATED,
        DecodeErrorKind.BAD_ADDRESS,
    }


def test_a_delay_holds_the_line_and_keeps_its_order() -> None:
    """Delayed sentences, and everything behind them, arrive late and in order."""
    panel, bench = panel_bench()
    bench.line.delay(0.5, count=1)
    panel.press(Button.NEW_HAND)
    bench.exchange()
    panel.press(Button.FOLD)
    bench.run(0.3)
    assert bench.host.buttons == []
    bench.run(0.5)
    assert bench.host.buttons == ["new_hand", "fold"]
    assert bench.line.counters.delayed == 1


def test_a_burst_of_noise_is_counted_by_the_host_and_loses_nothing() -> None:
    """Noise between sentences is skipped by the receiver's resynchronisation on '$'."""
    panel, bench = panel_bench()
    bench.line.noise(200)
    panel.press(Button.CHECK_CALL)
    bench.run(0.5)
    assert bench.host.buttons == ["check_call"]
    assert bench.host.codec.counters.noise_bytes + len(bench.host.errors) > 0


def test_a_silent_device_writes_and_hears_nothing_then_catches_up() -> None:
    """A hung device: no heartbeat (the host will declare a loss); on recovery, all resent."""
    shoe, bench = shoe_bench()
    bench.line.silence(bench.now, 2.5)
    bench.host.heard.clear()
    dealt = shoe.deal(now=bench.now)
    bench.run(2.0)
    assert bench.host.heard == []
    bench.run(1.0)
    assert bench.host.cards == [dealt.uid]


def test_silence_until_told_to_speak() -> None:
    """'silent' with no time lasts until the technician ends it."""
    _, bench = shoe_bench()
    bench.line.silence(bench.now)
    bench.host.heard.clear()
    bench.run(5.0)
    assert bench.host.heard == []
    bench.line.speak()
    bench.run(1.0)
    assert bench.host.heard


@pytest.mark.parametrize(
    ("arm", "message"),
    [
        (lambda line: line.drop(0), "drop count 0"),
        (lambda line: line.delay(0, 1), "delay of 0 s"),
        (lambda line: line.noise(0), "noise of 0 bytes"),
        (lambda line: line.silence(0.0, -1), "silence of -1 s"),
    ],
)
def test_a_fault_with_a_bad_argument_says_what_was_expected(arm, message) -> None:  # type: ignore[no-untyped-def]  # lambdas in a parametrize table
    """Fault arguments are checked and the error names the fault and the range."""
    with pytest.raises(FaultError, match=message):
        arm(LineFaults(random.Random(0)))


def test_faults_are_repeatable_from_a_seed() -> None:
    """The same seed garbles and makes noise the same way."""

    def run(seed: int) -> bytes:
        line = LineFaults(random.Random(seed))
        line.noise(16)
        line.garble(1)
        return line.apply([b"$PNBTN,7,check_call*4A\r\n"], 0.0)

    assert run(1) == run(1)
    assert run(1) != run(2)


def test_clear_disarms_faults_and_releases_held_sentences() -> None:
    """'fault clear' disarms everything armed and lets delayed sentences go."""
    panel, bench = panel_bench()
    bench.line.delay(30.0)
    bench.line.drop(5)
    bench.line.clear()
    panel.press(Button.UNDO)
    bench.run(0.05)
    assert bench.host.buttons == ["undo"]
    assert bench.line.describe() == "none"
    assert isinstance(bench, Bench)
