"""Sequence numbers, cumulative acks and resends: the host's and the device's ends.

docs/protocol.md, "Sequence numbers and acknowledgement".
"""

from __future__ import annotations

import random

import pytest

from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import HelloOutcome, LostRange, RejectReason, seq_distance
from drivers.tablectl.panel import Press
from drivers.tablectl.sentences import Ack, Heartbeat, Hello, Reject, Welcome
from drivers.tablectl.session import Delivery, DeviceSender, HostReceiver, seq_add
from drivers.tablectl.shoe import CardSeen

pytestmark = pytest.mark.fast

UID = "E004015012345678"


def hello(seq: int = 0, boot: str = "0000BEEF", protocol: int = 1) -> Hello:
    return Hello(seq, "RS-200", "SHOE0001", "2.1.0", protocol, boot)


def card(seq: int = 0) -> CardSeen:
    return CardSeen(seq, ReadPoint.DEALING_SLOT, UID, seq * 100)


def test_sequence_numbers_wrap_at_ten_thousand() -> None:
    """9999 is followed by 0; distances count across the wrap."""
    assert seq_add(9999, 1) == 0
    assert seq_add(0, -1) == 9999
    assert seq_distance(9998, 1) == 3


def test_the_first_hello_starts_a_session_at_its_oldest_unacknowledged_number() -> None:
    """A hello's seq is where the host starts accepting: nothing before it was sent."""
    host = HostReceiver("shoe")
    verdict = host.on_hello(hello(seq=40))
    assert verdict.outcome is HelloOutcome.NEW_SESSION
    assert verdict.reply == Welcome()
    assert host.on_sequenced(40) == (Delivery.ACCEPTED, Ack(40))


def test_a_protocol_version_the_host_does_not_speak_is_refused_clearly() -> None:
    """The host refuses another protocol version and says which it speaks."""
    verdict = HostReceiver("shoe").on_hello(hello(protocol=2))
    assert verdict.outcome is HelloOutcome.REFUSED
    assert verdict.reply == Reject(RejectReason.PROTOCOL, "1")
    assert "speaks protocol version 2; this host speaks only version 1" in verdict.reason


def test_a_device_with_another_serial_number_is_refused() -> None:
    """The table's configuration names the shoe; another shoe on the port is refused."""
    verdict = HostReceiver("shoe", expected_serial="SHOE0002").on_hello(hello())
    assert verdict.outcome is HelloOutcome.REFUSED
    assert verdict.reply == Reject(RejectReason.IDENTITY, "SHOE0002")
    assert "serial SHOE0001" in verdict.reason


def test_sentences_are_accepted_once_in_order_duplicates_and_gaps_dropped() -> None:
    """The next number is accepted; a resent one is a duplicate; a later one is a gap."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=0))
    assert host.on_sequenced(0) == (Delivery.ACCEPTED, Ack(0))
    assert host.on_sequenced(0) == (Delivery.DUPLICATE, Ack(0))
    assert host.on_sequenced(2) == (Delivery.GAP, Ack(0))
    assert host.on_sequenced(1) == (Delivery.ACCEPTED, Ack(1))
    assert host.on_sequenced(2) == (Delivery.ACCEPTED, Ack(2))


def test_acceptance_carries_on_across_the_wrap() -> None:
    """After 9999 the host expects 0, and 9999 resent is a duplicate."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=9999))
    assert host.on_sequenced(9999)[0] is Delivery.ACCEPTED
    assert host.on_sequenced(9999) == (Delivery.DUPLICATE, Ack(9999))
    assert host.on_sequenced(0) == (Delivery.ACCEPTED, Ack(0))


def test_nothing_is_accepted_before_a_hello() -> None:
    """A host that has not had a hello drops sequenced sentences and does not ack them."""
    assert HostReceiver("shoe").on_sequenced(5) == (Delivery.NO_SESSION, None)


def test_a_hello_of_the_same_boot_resumes_without_losing_the_place() -> None:
    """A reconnect (same boot) keeps the expected number, so resent cards are not doubled."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=0))
    host.on_sequenced(0)
    host.on_sequenced(1)
    assert host.on_hello(hello(seq=1)).outcome is HelloOutcome.RESUMED
    assert host.on_sequenced(1)[0] is Delivery.DUPLICATE
    assert host.on_sequenced(2)[0] is Delivery.ACCEPTED


def test_a_hello_of_a_new_boot_is_a_restart() -> None:
    """A new boot id means the device lost power: the host restarts at its number."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=0))
    host.on_sequenced(0)
    assert host.on_hello(hello(seq=0, boot="0000CAFE")).outcome is HelloOutcome.RESTARTED
    assert host.on_sequenced(0)[0] is Delivery.ACCEPTED


def test_a_heartbeat_behind_the_host_repeats_the_lost_ack() -> None:
    """A heartbeat whose oldest-unacked number the host already accepted means an ack was lost."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=0))
    host.on_sequenced(0)
    assert host.on_heartbeat(Heartbeat(0)) == Ack(0)
    assert host.on_heartbeat(Heartbeat(1)) is None


def test_a_hello_of_the_same_boot_past_the_expected_number_reports_the_loss_and_resyncs() -> None:
    """docs/protocol.md 5, Lost sentences: the panel says hello (same boot) with seq 24 while
    the host expects 12: sentences 12..23 are gone; the host says so and accepts 24 next."""
    host = HostReceiver("panel")
    host.on_hello(hello(seq=11))
    host.on_sequenced(11)
    verdict = host.on_hello(hello(seq=24))
    assert verdict.outcome is HelloOutcome.LOST
    assert verdict.reply == Welcome()
    assert verdict.lost == LostRange(12, 23)
    assert (verdict.lost.count, str(verdict.lost)) == (12, "12..23")
    assert host.on_sequenced(24) == (Delivery.ACCEPTED, Ack(24))
    assert host.on_hello(hello(seq=25)).outcome is HelloOutcome.RESUMED


def test_a_heartbeat_past_the_expected_number_shows_the_loss_and_resyncs() -> None:
    """docs/protocol.md 5, Lost sentences, chart 9.7: a heartbeat whose oldest unacknowledged
    number is past the expected one (CRD 11 while 10 was expected) shows 10 lost; 11 is next.
    A heartbeat at or behind the expected number loses nothing."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=10))
    assert host.on_sequenced(11) == (Delivery.GAP, Ack(9))
    assert host.skip_lost(10) is None
    assert host.skip_lost(9) is None
    lost = host.skip_lost(11)
    assert lost == LostRange(10, 10)
    assert str(lost) == "10"
    assert host.on_heartbeat(Heartbeat(11)) is None
    assert host.on_sequenced(11) == (Delivery.ACCEPTED, Ack(11))


def test_a_loss_across_the_wrap_counts_forward_and_far_behind_is_no_loss() -> None:
    """docs/protocol.md 5: expected 9998 and the device's oldest 2 lose 9998, 9999, 0 and 1;
    a number more than half the space ahead is behind (a missed ack), not a loss."""
    host = HostReceiver("shoe")
    host.on_hello(hello(seq=9998))
    lost = host.skip_lost(2)
    assert lost == LostRange(9998, 1)
    assert lost.count == 4
    assert host.skip_lost(seq_add(2, 5001)) is None
    assert host.on_sequenced(2)[0] is Delivery.ACCEPTED


def test_the_device_sends_nothing_sequenced_before_the_welcome() -> None:
    """Events wait on the device until the host welcomes it."""
    device = DeviceSender("0000BEEF")
    device.submit(card())
    assert device.due(0.0) == []
    device.on_welcome()
    assert device.due(0.0) == [card(0)]


def test_the_device_numbers_in_order_and_resends_until_acked() -> None:
    """Unacked sentences go again, oldest first, once the resend interval passes."""
    device = DeviceSender("0000BEEF", resend_after=0.2)
    device.on_welcome()
    first = device.submit(card())
    second = device.submit(Press(0, Button.FOLD))
    assert (first.seq, second.seq) == (0, 1)
    assert device.due(0.0) == [first, second]
    assert device.due(0.1) == []
    assert device.due(0.25) == [first, second]
    assert device.on_ack(Ack(0)) == 1
    assert device.due(0.5) == [second]
    assert device.on_ack(Ack(1)) == 1
    assert device.due(1.0) == []
    assert device.backlog == 0


def test_the_device_keeps_at_most_a_window_unacknowledged() -> None:
    """Past the window, events wait on the device until acks make room."""
    device = DeviceSender("0000BEEF", window=2)
    device.on_welcome()
    for _ in range(3):
        device.submit(card())
    assert [s.seq for s in device.due(0.0)] == [0, 1]
    device.on_ack(Ack(1))
    assert [s.seq for s in device.due(0.0)] == [2]


def test_an_ack_outside_the_window_is_ignored() -> None:
    """An old or repeated ack covers nothing."""
    device = DeviceSender("0000BEEF", first_seq=10)
    device.on_welcome()
    device.submit(card())
    device.due(0.0)
    assert device.on_ack(Ack(9)) == 0
    assert device.on_ack(Ack(500)) == 0
    assert device.backlog == 1


def test_after_a_query_the_device_waits_for_a_new_welcome_then_resends_everything() -> None:
    """A lost link: the host queries, welcomes, and every unacked sentence goes again."""
    device = DeviceSender("0000BEEF")
    device.on_welcome()
    sent = device.submit(card())
    device.due(0.0)
    device.on_query()
    later = device.submit(card())
    assert device.due(5.0) == []
    assert device.oldest == 0
    device.on_welcome()
    assert device.due(5.0) == [sent, later]


def test_host_and_device_together_lose_nothing_when_every_other_frame_is_lost() -> None:
    """Go-back-N end to end: with half the frames and a third of the acks lost at random,
    every card arrives once, in order."""
    line = random.Random(7)
    host = HostReceiver("shoe")
    device = DeviceSender("0000BEEF", resend_after=0.1)
    assert host.on_hello(hello(seq=device.oldest)).reply == Welcome()
    device.on_welcome()
    sent = [
        device.submit(CardSeen(0, ReadPoint.DEALING_SLOT, f"E0{n:014X}", n * 100))
        for n in range(20)
    ]
    accepted = []
    now = 0.0
    while len(accepted) < len(sent) and now < 100:
        for sentence in device.due(now):
            if line.random() < 0.5:
                continue  # lost on the wire
            delivery, ack = host.on_sequenced(sentence.seq)
            if delivery is Delivery.ACCEPTED:
                accepted.append(sentence)
            if ack is not None and line.random() > 1 / 3:
                device.on_ack(ack)
        now += 0.05
    assert accepted == sent
