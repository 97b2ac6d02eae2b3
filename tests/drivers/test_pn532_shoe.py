"""The PN532 shoe (drivers/pn532) against the simulated PN532s on ptys, one ManualClock for
both: its start, its reads and repeat window, two tags, and every fault of the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.poker.inputs import ReadPoint
from drivers.pn532 import commands
from drivers.seam.events import (
    DeviceDown,
    DeviceRefused,
    DeviceUp,
    HelloOutcome,
    Reader,
    RejectReason,
    ShoeState,
    TagRead,
)
from simulator.clock import ManualClock
from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers
from tests.drivers.pn532_bench import Bench, bench

NTAG = Tag.ntag213(bytes.fromhex("04A2B3C4D5E680"))
CLASSIC = Tag.mifare_classic(bytes.fromhex("DEADBEEF"))
DWELL = 0.15  # a card's passage under the slot's antenna at a dealer's pace


def come_up(b: Bench) -> DeviceUp:
    up = b.next(DeviceUp)
    state = b.next(ShoeState)
    assert state.reader is Reader.OK
    return up


def test_start_sequence_then_one_read_per_card(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        up = come_up(b)
        assert (up.outcome, up.model, up.firmware) == (HelloOutcome.NEW_SESSION, "PN532", "1.6")
        chip = b.readers.chips["slot"]
        with b.readers.locked():
            assert chip.sam_configured
            assert chip.max_retries == 0x01  # bounded: an empty field answers
        placed_at = b.clock()
        b.readers.place("slot", NTAG, DWELL)
        read = b.next(TagRead)
        assert (read.uid, read.point, read.seq) == ("04A2B3C4D5E680", ReadPoint.DEALING_SLOT, 0)
        # Stamped on the host's clock, the test's: within a poll of the card's entry.
        assert 0 <= read.read_ms - int(placed_at * 1000) <= 50
        b.readers.place("slot", CLASSIC, DWELL)
        second = b.next(TagRead)
        assert (second.uid, second.seq) == ("DEADBEEF", 1)


def test_a_lingering_card_is_one_read(tmp_path: Path) -> None:
    with bench(tmp_path, repeat_window=0.3) as b:
        come_up(b)
        b.readers.place("slot", NTAG, 1.2)  # four times the repeat window, sliding
        events = b.run_for(1.4)
        reads = [e for e in events if isinstance(e, TagRead)]
        assert [r.uid for r in reads] == ["04A2B3C4D5E680"]
        with b.readers.locked():
            listed = b.readers.chips["slot"].counters.listed
        assert listed >= 10
        totals = b.shoe.line_totals()["slot"]
        assert isinstance(totals, dict)
        assert totals["repeats_dropped"] == listed - 1


def test_two_tags_in_the_field_are_both_read_the_second_as_read_together(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity (two cards at once): the first tag the chip lists is
    read alone, the other as read together with it, which the table alarms."""
    with bench(tmp_path) as b:
        come_up(b)
        # Both in the field at one moment: placed one after the other, a poll between the two
        # could list the first alone (then the second comes in a later poll).
        with b.readers.locked():
            now = b.readers.clock()
            b.readers.chips["slot"].place(NTAG, now, DWELL)
            b.readers.chips["slot"].place(CLASSIC, now, DWELL)
        first, second = b.next(TagRead), b.next(TagRead)  # one poll of MaxTg 2 lists both
        assert (first.uid, second.uid) == ("04A2B3C4D5E680", "DEADBEEF")
        assert (first.together, second.together) == (False, True)
        assert first.read_ms == second.read_ms


def test_discard_reader(tmp_path: Path) -> None:
    with bench(tmp_path, ("slot", "discard")) as b:
        come_up(b)
        b.readers.place("discard", CLASSIC, DWELL)
        read = b.next(TagRead)
        assert (read.uid, read.point) == ("DEADBEEF", ReadPoint.DISCARD_READER)


def test_a_garbled_answer_is_nacked_and_read(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].garble()
            b.readers.chips["slot"].place(NTAG, b.clock(), DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"
        assert b.shoe.readers[ReadPoint.DEALING_SLOT].counters.nacks_sent == 1
        with b.readers.locked():
            assert b.readers.chips["slot"].counters.nacks_heard == 1


def test_the_chips_nack_gets_the_command_again(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].nack(2)
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"
        assert b.shoe.readers[ReadPoint.DEALING_SLOT].counters.resent == 2


def test_one_late_answer_is_cancelled_and_polled_again(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].late(1.0)
        b.run_for(0.5)
        assert b.shoe.readers[ReadPoint.DEALING_SLOT].counters.timeouts == 1
        with b.readers.locked():
            assert b.readers.chips["slot"].counters.cancelled == 1
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"
        assert not [e for e in b.drain() if isinstance(e, DeviceDown)]


def test_late_answers_past_the_bound_are_a_loss_then_reconnect(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].late(1.0, count=2)
        down = b.next(DeviceDown)
        assert "no answer to InListPassiveTarget within 250 ms, 2 polls in a row" in down.reason
        assert b.readers.address("slot") in down.reason
        up = come_up(b)
        assert up.outcome is HelloOutcome.RESTARTED
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).seq == 0  # a new session numbers afresh


def test_silence_is_communication_lost_and_it_resumes(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        first = come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].silence(b.clock(), 1.0)
        down = b.next(DeviceDown)
        assert down.reason.startswith(f"slot reader: {b.readers.address('slot')}: no ")
        up = come_up(b)
        assert up.boot != first.boot
        assert b.clock() >= 1000.0 + 1.0


def test_a_reader_reset_mid_hand(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].reset()  # asleep, MaxRetries unbounded again
        b.next(DeviceDown)
        come_up(b)
        with b.readers.locked():
            assert b.readers.chips["slot"].max_retries == 0x01
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"


def test_unplug_and_replug(tmp_path: Path) -> None:
    with bench(tmp_path) as b:
        come_up(b)
        b.readers.unplug("slot")
        down = b.next(DeviceDown)
        assert "the port failed" in down.reason or "no " in down.reason
        b.run_for(1.0)  # reopening fails while the link is gone
        b.readers.replug("slot")
        b.shoe.replugged("shoe", None)
        assert come_up(b).outcome is HelloOutcome.RESTARTED


def test_not_a_pn532_is_refused_naming_the_port(tmp_path: Path) -> None:
    def pn533(readers: Pn532Readers, clock: ManualClock) -> None:
        readers.chips["slot"].firmware = commands.Firmware(0x33, 2, 7, 7)

    with bench(tmp_path, prepare=pn533) as b:
        refused = b.next(DeviceRefused)
        assert refused.rejected is RejectReason.PROTOCOL
        assert refused.reason == (
            f"slot reader: {b.readers.address('slot')}: not a PN532: GetFirmwareVersion says "
            "IC 0x33 (PN533 v2.7); expected 0x32"
        )


def test_a_silent_port_is_named_with_what_was_expected(tmp_path: Path) -> None:
    def mute(readers: Pn532Readers, clock: ManualClock) -> None:
        readers.chips["slot"].silence(clock())

    with bench(tmp_path, prepare=mute) as b:
        down = b.next(DeviceDown)
        assert down.reason == (
            f"slot reader: {b.readers.address('slot')}: no PN532 answered at 115200 baud: it "
            "said nothing (expected an ACK to GetFirmwareVersion within 250 ms)"
        )


@pytest.mark.parametrize("baud", [921600, 230400])
def test_the_configured_baud_rate(tmp_path: Path, baud: int) -> None:
    with bench(tmp_path, baud=baud) as b:
        come_up(b)
        with b.readers.locked():
            assert b.readers.chips["slot"].baud == baud
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"


def test_a_reader_that_keeps_failing_while_talking_is_a_reader_fault(tmp_path: Path) -> None:
    """Three polls in a row that fail (here the chip asks for each again past the limit) are
    a reader fault, which pauses the table; the next good poll clears it."""
    with bench(tmp_path) as b:
        come_up(b)
        with b.readers.locked():
            b.readers.chips["slot"].nack(3 * 4)  # four NACKs fail a poll
        fault = b.next(ShoeState)
        assert fault.reader is Reader.FAULT
        cleared = b.next(ShoeState)
        assert cleared.reader is Reader.OK
        assert not [e for e in b.drain() if isinstance(e, DeviceDown)]
        b.readers.place("slot", NTAG, DWELL)
        assert b.next(TagRead).uid == "04A2B3C4D5E680"


def test_a_cards_answer_taken_in_late_is_stamped_when_its_poll_was_sent(tmp_path: Path) -> None:
    """A read is stamped when its poll was sent, when the chip lists what is in its field, not
    when its answer was taken in, which a host kept off the CPU may do late: stamped late, the
    listing of a card that was in the field once would fall past the repeat window and read it
    twice (docs/hardware.md, What a PN532 shoe loses, No clock). Here the answer to a poll
    sent while the card was in the field comes late, within the poll's 250 ms bound but past
    the window."""
    with bench(tmp_path, repeat_window=0.1) as b:
        come_up(b)
        b.readers.place("slot", NTAG, DWELL)
        first = b.next(TagRead)
        with b.readers.locked():
            b.readers.chips["slot"].late(0.2)
        events = b.run_for(1.0)
        assert [e for e in events if isinstance(e, TagRead)] == []
        with b.readers.locked():
            chip = b.readers.chips["slot"]
            assert (chip.counters.cancelled, chip.counters.listed > 1) == (0, True)
        totals = b.shoe.line_totals()["slot"]
        assert isinstance(totals, dict)
        assert totals["repeats_dropped"] >= 1
        assert first.uid == "04A2B3C4D5E680"
