"""The virtual shoe and panel speak docs/protocol.md from the device's side (pure, a fake clock)."""

from __future__ import annotations

import random

import pytest
from sim_host import MiniHost

from controller.poker.cards import Card
from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import Feed, Lid, Reader, RejectReason
from drivers.tablectl import shoe as shoe_protocol
from drivers.tablectl.panel import Press
from drivers.tablectl.sentences import Heartbeat, Hello, Reject
from drivers.tablectl.session import Delivery
from drivers.tablectl.shoe import CardSeen, ShoeStatus
from simulator.decks import make_decks, shuffled
from simulator.devices import DeviceCore, DeviceError, Timing
from simulator.faults import LineFaults
from simulator.virtualpanel import VirtualPanel
from simulator.virtualshoe import Dealt, VirtualShoe

pytestmark = pytest.mark.fast

BOOT = "5A17C0DE"


class Bench:
    """A device core, its faulty line and a MiniHost, run on a fake clock in 10 ms steps."""

    def __init__(self, device: DeviceCore, host: MiniHost, seed: int = 0) -> None:
        self.device = device
        self.host = host
        self.line = LineFaults(random.Random(seed))
        self.now = 0.0
        self.wire: list[bytes] = []

    def run(self, seconds: float, step: float = 0.01) -> None:
        end = self.now + seconds
        while self.now < end:
            self.exchange()
            self.now = round(self.now + step, 6)

    def exchange(self) -> None:
        data = self.line.apply(self.device.poll(self.now), self.now)
        if data:
            self.wire.append(data)
            reply = self.host.feed(data)
            if reply:
                self.device.receive(self.line.incoming(reply, self.now), self.now)

    def connect(self) -> None:
        self.device.receive(self.host.query(), self.now)
        self.run(0.05)


def shoe_bench(seed: int = 0) -> tuple[VirtualShoe, Bench]:
    shoe = VirtualShoe(make_decks(seed), BOOT, 0.0)
    shoe.shuffle(seed)
    bench = Bench(shoe, MiniHost("shoe"), seed)
    bench.connect()
    return shoe, bench


def panel_bench() -> tuple[VirtualPanel, Bench]:
    panel = VirtualPanel("0C0FFEE0", 0.0)
    bench = Bench(panel, MiniHost("panel"))
    bench.connect()
    return panel, bench


def test_hello_on_power_up_and_on_query_repeated_until_welcome() -> None:
    """Section 4, 1: HEL at power-up, again on QRY, every second until WEL."""
    shoe = VirtualShoe(make_decks(0), BOOT, 0.0)
    first = shoe.poll(0.0)
    hello = Hello(0, "RS-200", "SHOE0001", "2.1.0", 1, BOOT)
    assert first[0] == shoe_protocol.device_codec().encode(hello)
    assert not any(s.startswith(b"$SHSTA") for s in first), "nothing sequenced before WEL"
    assert shoe.poll(0.5) == []
    assert shoe.poll(1.0)[0].startswith(b"$SHHEL")
    host = MiniHost("shoe")
    shoe.receive(host.query(), 1.2)
    reply = host.feed(b"".join(shoe.poll(1.2)))
    shoe.receive(reply, 1.2)
    assert shoe.link.welcomed
    out = shoe.poll(1.2)
    assert out[0] == b"$SHSTA,0,closed,ok,empty*0E\r\n", "STA on power-up, sent after WEL"
    assert not any(s.startswith(b"$SHHEL") for s in shoe.poll(5.0))


def test_heartbeat_every_second_carrying_the_oldest_unacknowledged_number() -> None:
    """Section 6: HBT once a second, welcomed or not; its seq is the oldest unacked."""
    shoe, bench = shoe_bench()
    bench.host.heard.clear()
    bench.run(3.0)
    beats = [s for s in bench.host.heard if isinstance(s, Heartbeat)]
    assert len(beats) == 3
    assert all(b.seq == shoe.sender.oldest for b in beats)


def test_the_shoe_deals_the_stub_in_order_each_card_read_once_at_the_slot() -> None:
    """3.1 CRD: every card that leaves the shoe is reported with its tag, in deal order."""
    shoe, bench = shoe_bench(seed=4)
    order = shuffled(4)
    for _ in range(5):
        shoe.deal(now=bench.now)
    bench.run(0.1)
    assert bench.host.cards == [shoe.deck.uid(card) for card in order[:5]]
    assert shoe.stub == order[5:]
    assert all(
        s.point is ReadPoint.DEALING_SLOT for s in bench.host.accepted if isinstance(s, CardSeen)
    )


def test_a_named_card_is_taken_from_anywhere_in_the_stub() -> None:
    """The technician's 'deal Kd' takes that card; a dealt card cannot be dealt again."""
    shoe, bench = shoe_bench()
    king = Card.parse("Kd")
    shoe.deal(king, now=bench.now)
    bench.run(0.05)
    assert bench.host.cards == [shoe.deck.uid(king)]
    with pytest.raises(DeviceError, match="Kd has been dealt"):
        shoe.deal(king, now=bench.now)


def test_status_is_reported_on_every_change_and_the_last_card_empties_the_feed() -> None:
    """3.1 STA: the whole state on power-up, every change and every WEL; no card left: 'empty'."""
    shoe, bench = shoe_bench()
    shoe.set_lid(Lid.OPEN)
    shoe.set_reader(Reader.FAULT)
    shoe.set_reader(Reader.OK)
    shoe.set_lid(Lid.CLOSED)
    for _ in range(52):
        shoe.deal(now=bench.now)
    bench.run(0.5)
    statuses = [(s.lid, s.reader, s.feed) for s in bench.host.accepted if isinstance(s, ShoeStatus)]
    # Power-up (empty), the shuffle, and one after each of the two welcomes (section 3.1 STA).
    assert statuses == [
        (Lid.CLOSED, Reader.OK, Feed.EMPTY),
        (Lid.CLOSED, Reader.OK, Feed.OK),
        (Lid.CLOSED, Reader.OK, Feed.OK),
        (Lid.CLOSED, Reader.OK, Feed.OK),
        (Lid.OPEN, Reader.OK, Feed.OK),
        (Lid.OPEN, Reader.FAULT, Feed.OK),
        (Lid.OPEN, Reader.OK, Feed.OK),
        (Lid.CLOSED, Reader.OK, Feed.OK),
        (Lid.CLOSED, Reader.OK, Feed.EMPTY),
    ]
    with pytest.raises(DeviceError, match="empty"):
        shoe.deal(now=bench.now)


def test_a_reader_fault_lets_the_card_leave_unread() -> None:
    """A failed reader cannot read: the card leaves the shoe but no CRD is sent."""
    shoe, bench = shoe_bench()
    shoe.set_reader(Reader.FAULT)
    dealt = shoe.deal(now=bench.now)
    bench.run(0.05)
    assert dealt.reads == 0
    assert bench.host.cards == []


def crd(bench: Bench) -> list[tuple[str, int]]:
    """The UIDs and shoe times of the card reads the host accepted, in order."""
    return [(s.uid, s.read_ms) for s in bench.host.accepted if isinstance(s, CardSeen)]


def test_every_read_is_stamped_with_the_shoe_clock_since_power_up() -> None:
    """protocol.md 3.1 CRD: read_ms is the shoe's clock at the read, ms since power-up,
    whenever the sentence is sent."""
    shoe, bench = shoe_bench()
    bench.run(1.0)
    dealt_at = bench.now
    dealt = shoe.deal(now=dealt_at)
    shoe.discard(dealt.card, now=dealt_at + 0.25)
    bench.run(0.5)
    assert crd(bench) == [
        (dealt.uid, round(dealt_at * 1000)),
        (dealt.uid, round(dealt_at * 1000) + 250),
    ]


def test_duplicate_reads_of_a_lingering_card_are_stamped_50_ms_apart() -> None:
    """protocol.md 7: the shoe reports every read of a lingering tag, each numbered and
    stamped when the reader made it, inside the host's repeat window."""
    shoe, bench = shoe_bench()
    shoe.extra_reads = 2
    dealt = shoe.deal(now=bench.now)
    start = round(bench.now * 1000)
    bench.run(0.2)
    assert dealt.reads == 3
    assert crd(bench) == [(dealt.uid, start), (dealt.uid, start + 50), (dealt.uid, start + 100)]
    seqs = [s.seq for s in bench.host.accepted if isinstance(s, CardSeen)]
    assert len(set(seqs)) == 3


def test_a_reread_card_is_read_again_past_the_window_on_the_shoe_clock() -> None:
    """protocol.md 7: 'reread' makes the next card dealt pass the slot again a second later
    on the shoe's clock: a second read, not a repeat."""
    shoe, bench = shoe_bench()
    shoe.reread_next(1.0)
    dealt = shoe.deal(now=bench.now)
    start = round(bench.now * 1000)
    bench.run(0.5)
    assert crd(bench) == [(dealt.uid, start)]
    bench.run(1.0)
    assert crd(bench) == [(dealt.uid, start), (dealt.uid, start + 1000)]
    with pytest.raises(DeviceError, match="reread after 0 s"):
        shoe.reread_next(0)


def test_later_reads_due_before_a_new_read_are_reported_first_so_times_never_go_back() -> None:
    """protocol.md 3.1 CRD: each CRD's time is at or after the previous one's, even when the
    shoe was not polled between a lingering tag's reads and the next card."""
    shoe = VirtualShoe(make_decks(0), BOOT, 0.0, stub=shuffled(0))
    shoe.extra_reads = 2
    first = shoe.deal(now=1.0)
    second = shoe.deal(now=1.2)  # no poll since the first: its repeats are due already
    pending = [s for s in shoe.sender._waiting if isinstance(s, CardSeen)]
    assert [(s.uid, s.read_ms) for s in pending] == [
        (first.uid, 1000),
        (first.uid, 1050),
        (first.uid, 1100),
        (second.uid, 1200),
    ]


def test_the_shoe_clock_wraps_at_2_to_the_32_ms() -> None:
    """protocol.md 2 read_ms, 7 Wrap-around: the clock runs from 4294967295 on to 0."""
    shoe, bench = shoe_bench()
    shoe.set_uptime(2**32 - 30, bench.now)
    shoe.extra_reads = 1
    dealt = shoe.deal(now=bench.now)
    bench.run(0.1)
    assert crd(bench) == [(dealt.uid, 2**32 - 30), (dealt.uid, 20)]
    with pytest.raises(DeviceError, match="uptime 4294967296 ms"):
        shoe.set_uptime(2**32, bench.now)


def test_a_power_cycle_restarts_the_clock_and_forgets_reads_not_made() -> None:
    """protocol.md 3.1 CRD: the clock restarts at power-up; a lingering read not yet made is
    never made."""
    shoe, bench = shoe_bench()
    shoe.reread_next(1.0)
    shoe.deal(now=bench.now)
    shoe.power_cycle("0BADBEEF", 2.0)
    assert shoe.clock_ms(2.5) == 500
    assert not shoe._scheduled


def test_stray_tag_other_deck_and_card_dealt_twice_reach_the_host_as_reads() -> None:
    """rules-interpretation.md, Integrity: the faults the controller must catch are plain slot
    reads."""
    shoe, bench = shoe_bench()
    first = shoe.deal(now=bench.now)
    top = shoe.stub[0]
    assert shoe.read_other_deck(now=bench.now) is top
    assert shoe.read_again(now=bench.now) is first.card
    shoe.read_tag("E004010000000001", now=bench.now)
    bench.run(0.05)
    assert bench.host.cards == [
        first.uid,
        shoe.other_deck.uid(top),
        first.uid,
        "E004010000000001",
    ]
    assert shoe.stub[0] is top, "the other deck's card did not come out of this stub"


def test_the_discard_reader_reports_at_its_own_read_point() -> None:
    """3.1 CRD point 'discard': cards passed into the muck."""
    shoe, bench = shoe_bench()
    dealt = shoe.deal(now=bench.now)
    shoe.discard(dealt.card, now=bench.now)
    bench.run(0.05)
    assert [(s.point, s.uid) for s in bench.host.accepted if isinstance(s, CardSeen)] == [
        (ReadPoint.DEALING_SLOT, dealt.uid),
        (ReadPoint.DISCARD_READER, dealt.uid),
    ]


def test_cut_after_a_deal_is_refused() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the cut comes before any card is dealt."""
    shoe, _ = shoe_bench()
    shoe.cut(10)
    shoe.deal(now=0.0)
    with pytest.raises(DeviceError, match="shuffle before the cut"):
        shoe.cut(10)


def test_unacknowledged_sentences_are_resent_oldest_first_after_200_ms() -> None:
    """Section 5: go-back-N resend of every unacknowledged sentence until acked."""
    shoe, bench = shoe_bench()
    bench.host.ack = False
    shoe.deal(now=bench.now)
    shoe.deal(now=bench.now)
    bench.run(0.45)
    sent = [s for s in bench.host.heard if isinstance(s, CardSeen)]
    assert [s.seq for s in sent] == [4, 5, 4, 5, 4, 5]
    bench.host.ack = True
    bench.run(0.3)
    assert len(bench.host.cards) == 2
    assert shoe.sender.backlog == 0


def test_at_most_eight_unacknowledged_the_rest_wait_in_order() -> None:
    """Section 5: a window of 8; the rest wait on the device, in order."""
    shoe, bench = shoe_bench()
    bench.host.ack = False
    for _ in range(12):
        shoe.deal(now=bench.now)
    bench.exchange()
    assert len([s for s in bench.host.heard if isinstance(s, CardSeen)]) == 8
    bench.host.ack = True
    bench.run(0.5)
    assert len(bench.host.cards) == 12


def test_a_full_store_jams_the_feed_and_drops_no_read() -> None:
    """Section 5: a shoe whose store is full reports 'jam' and stops the cards until acked."""
    shoe = VirtualShoe(make_decks(0), BOOT, 0.0, timing=Timing(store=10))
    shoe.shuffle(0)
    bench = Bench(shoe, MiniHost("shoe"))
    bench.host.ack = False
    bench.connect()
    dealt: list[Dealt] = []
    refusal = ""
    for _ in range(10):
        try:
            dealt.append(shoe.deal(now=bench.now))
        except DeviceError as exc:
            refusal = str(exc)
            break
    assert "jam" in refusal
    assert shoe.feed is Feed.JAM
    bench.host.ack = True
    bench.run(0.5)
    assert bench.host.cards == [d.uid for d in dealt]
    statuses = [s.feed for s in bench.host.accepted if isinstance(s, ShoeStatus)]
    assert statuses[-2:] == [Feed.JAM, Feed.OK]
    assert statuses.count(Feed.JAM) == 1
    shoe.deal(now=bench.now)


def test_a_rejected_device_sends_nothing_sequenced_and_still_answers_queries() -> None:
    """Section 4, 5: after REJ no sequenced sentence, the refusal shown, QRY still answered."""
    shoe = VirtualShoe(make_decks(0), BOOT, 0.0)
    shoe.receive(MiniHost("shoe").codec.encode(Reject(RejectReason.PROTOCOL, "2")), 0.0)
    assert shoe.link.refusal == "refused by the host: protocol 2"
    shoe.shuffle(0)
    shoe.deal(now=0.0)
    out = b"".join(shoe.poll(0.0) + shoe.poll(3.0))
    assert b"CRD" not in out
    assert b"STA" not in out
    assert out.count(b"HEL") == 1, "the power-up hello; no repeat after REJ"
    shoe.receive(MiniHost("shoe").query(), 3.0)
    assert shoe.poll(3.0)[0].startswith(b"$SHHEL")


def test_a_power_cycle_changes_the_boot_and_loses_what_was_unsent() -> None:
    """Section 4: only a power cycle may lose unsent sentences, and it changes the boot."""
    shoe, bench = shoe_bench()
    bench.host.ack = False
    shoe.deal(now=bench.now)
    shoe.power_cycle("0000BEEF", bench.now)
    assert shoe.sender.backlog == 1, "only the power-up STA"
    hello = Hello.from_fields(tuple(shoe.poll(bench.now)[0][7:-5].decode().split(",")))
    assert hello.boot == "0000BEEF"


def test_the_panel_reports_each_press_once_in_order() -> None:
    """3.2 BTN: one sequenced sentence per press, the Button's token on the wire."""
    panel, bench = panel_bench()
    for button in (Button.NEW_HAND, Button.CHECK_CALL, Button.FOLD):
        panel.press(button)
    bench.run(0.05)
    assert bench.host.buttons == ["new_hand", "check_call", "fold"]
    assert bench.wire[-1].startswith(b"$PNBTN") or any(b"$PNBTN" in w for w in bench.wire)


def test_the_panel_obeys_light_and_text_repeated_ones_too() -> None:
    """3.4 LIT and TXT set state; a repeat changes nothing; an escaped comma is shown."""
    shown: list[tuple[int, str]] = []
    panel = VirtualPanel("0C0FFEE0", 0.0, on_display=lambda seat, text: shown.append((seat, text)))
    panel.receive(
        b"$HCLIT,3*45\r\n$HCLIT,3*45\r\n$HCTXT,Seat 3: call 20^2C raise or fold*0A\r\n", 0
    )
    assert (panel.light, panel.text) == (3, "Seat 3: call 20, raise or fold")
    assert (panel.lights_received, panel.texts_received) == (2, 1)
    assert shown == [(3, ""), (3, "Seat 3: call 20, raise or fold")]
    panel.receive(b"$HCLIT,0*46\r\n$HCTXT,*7F\r\n", 0)
    assert (panel.light, panel.text) == (0, "")


def test_the_shoe_ignores_panel_sentences_and_garbage_from_the_host() -> None:
    """3.4: a device ignores (and counts) what it cannot decode or is not for it."""
    shoe = VirtualShoe(make_decks(0), BOOT, 0.0)
    shoe.receive(b"$HCLIT,3*45\r\nnoise$HCACK,4*00\r\n", 0.0)
    assert len(shoe.link.errors) == 2
    assert "unknown_sentence" in shoe.link.errors[0]
    assert "checksum" in shoe.link.errors[1]


def test_sequence_numbers_wrap_from_9999_to_0() -> None:
    """Section 5: numbers run 0..9999 and wrap."""
    panel = VirtualPanel("0C0FFEE0", 0.0, first_seq=9998)
    bench = Bench(panel, MiniHost("panel"))
    bench.connect()
    for _ in range(3):
        panel.press(Button.CHECK_CALL)
    bench.run(0.05)
    assert [s.seq for s in bench.host.heard if isinstance(s, Press)] == [9998, 9999, 0]
    assert bench.host.deliveries == [Delivery.ACCEPTED] * 3


def test_a_late_poll_sends_one_heartbeat_not_a_burst() -> None:
    """Section 6: once a second; a device polled late beats once and keeps its rhythm."""
    panel = VirtualPanel("0C0FFEE0", 0.0)
    panel.poll(0.0)
    assert sum(s.startswith(b"$PNHBT") for s in panel.poll(3.5)) == 1
    assert not any(s.startswith(b"$PNHBT") for s in panel.poll(3.5))
    assert not any(s.startswith(b"$PNHBT") for s in panel.poll(4.4))
    assert any(s.startswith(b"$PNHBT") for s in panel.poll(4.5))


def test_every_welcome_is_followed_by_the_shoes_status() -> None:
    """3.1 STA: after every WEL, so a host that has just connected learns the state at once."""
    shoe, bench = shoe_bench()
    shoe.set_lid(Lid.OPEN)
    bench.run(0.05)
    bench.host.accepted.clear()
    shoe.link_lost()
    shoe.link_back(bench.now)
    bench.run(0.05)
    (status,) = bench.host.accepted
    assert isinstance(status, ShoeStatus)
    assert (status.lid, status.reader, status.feed) == (Lid.OPEN, Reader.OK, Feed.OK)
