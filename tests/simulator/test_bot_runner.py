"""The bot runner over the simulator's devices and the real drivers, on a pty and on sim://.

A host built from the real ``ShoeDriver``, ``PanelDriver`` and ``DeckSet`` (as
the controller is) turns what arrives into engine inputs and feeds a fresh
``Table``: every input arrives exactly as the bot produced it, and every hand
settles as the bot's record says.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bot_games import TRIPLE_DRAW
from devtime import WAIT

from controller.history.script import parse_script
from controller.poker.cards import Card
from controller.poker.engine import Table
from controller.poker.engine.events import HandSettled, HandVoided
from controller.poker.inputs import ButtonPress, ForeignTag, ReadPoint, TableInput
from drivers.deck import DeckSet
from drivers.seam.events import ButtonPressed, DeviceUp, TagRead
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.panel import PanelDriver
from drivers.tablectl.shoe import ShoeDriver
from simulator.acts import Act, Deal, Rebuy, Restock, Shuffle
from simulator.acts import table_input as input_of
from simulator.clock import ManualClock
from simulator.decks import cut, enrolled, shuffled
from simulator.devices import DeviceError, Timing
from simulator.pace import Pace
from simulator.random_bot import RandomBot, RebuyRule
from simulator.runner import BotRunner
from simulator.scripted_bot import ScriptedBot
from simulator.table import Simulator
from simulator.waits import RunnerError

TIMING = Timing(heartbeat=0.1, hello=0.1, resend_after=0.05)
REPEAT_WINDOW = 0.05


@pytest.fixture(params=["pty", "memory"])
def sim(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Simulator]:
    """A running simulator on each transport, on a clock only the test and the bot's pace move
    (the drivers read it too: shuffles outlast the repeat window on the devices' clock)."""
    with Simulator(
        transport=request.param, directory=tmp_path, seed=4, timing=TIMING, clock=ManualClock()
    ) as running:
        yield running


def manual(sim: Simulator) -> ManualClock:
    """``sim``'s clock, a ManualClock."""
    assert isinstance(sim.clock, ManualClock)
    return sim.clock


def memory_sim(table: str, store: int) -> Simulator:
    """A simulator on sim://``table`` whose devices hold ``store`` unacknowledged sentences."""
    timing = Timing(heartbeat=0.1, hello=0.1, resend_after=0.05, store=store)
    return Simulator(transport="memory", table=table, seed=8, timing=timing, clock=ManualClock())


def shoe_driver(sim: Simulator, events: queue.Queue[Any], **kwargs: Any) -> ShoeDriver:
    """The host's shoe driver on ``sim``, on the devices' clock."""
    return ShoeDriver(
        link(sim, "shoe"), events, repeat_window=REPEAT_WINDOW, clock=sim.clock, **kwargs
    )


def panel_driver(sim: Simulator, events: queue.Queue[Any], **kwargs: Any) -> PanelDriver:
    """The host's panel driver on ``sim``, on the devices' clock."""
    return PanelDriver(link(sim, "panel"), events, clock=sim.clock, **kwargs)


def link(sim: Simulator, device: str) -> LinkSettings:
    return LinkSettings(
        url=sim.address(device),
        heartbeat_timeout=0.5,
        query_interval=0.1,
        backoff_initial=0.02,
        backoff_max=0.1,
    )


class Host:
    """The controller's input path in small: drivers, the deck lookup, a fresh engine table."""

    def __init__(self, sim: Simulator, table: Table) -> None:
        self.events: queue.Queue[Any] = queue.Queue()
        self.decks = DeckSet(enrolled(sim.decks[0]), enrolled(sim.decks[1]))
        self.table = table
        self.arrived: list[TableInput] = []
        self.settled: list[HandSettled | HandVoided] = []

    def next_input(self) -> TableInput:
        deadline = time.monotonic() + WAIT
        while True:
            event = self.events.get(timeout=max(0.0, deadline - time.monotonic()))
            if isinstance(event, TagRead):
                return self.decks.lookup(event)
            if isinstance(event, ButtonPressed):
                return event.to_input()

    def take(self, act: Act) -> None:
        """Wait for what ``act`` made the devices report (if anything) and apply it."""
        if isinstance(act, Rebuy):
            self.table.rebuy(act.seat, act.chips)  # no device reports chips: told directly
            return
        if input_of(act) is None:
            return
        inp = self.next_input()
        self.arrived.append(inp)
        for event in self.table.apply(inp):
            if isinstance(event, HandSettled | HandVoided):
                self.settled.append(event)


def run_in_lockstep(sim: Simulator, bot: RandomBot | ScriptedBot, host: Host) -> BotRunner:
    """Run ``bot`` on the devices; after each act wait for its input to arrive at the host."""
    with (
        shoe_driver(sim, host.events),
        panel_driver(sim, host.events),
    ):
        ready: set[str] = set()
        while ready != {"shoe", "panel"}:  # the shoe's power-up status may come between
            event = host.events.get(timeout=WAIT)
            if isinstance(event, DeviceUp):
                ready.add(event.device)
        runner = BotRunner(bot, sim, Pace.fast(REPEAT_WINDOW), on_act=host.take)
        runner.run()
    return runner


def test_random_hands_arrive_through_the_drivers_exactly_as_the_bot_dealt_them(
    sim: Simulator,
) -> None:
    """Mambo, four seats, eight hands with tight rebuys: every card and button arrives once,
    in order, and the controller's table settles each hand as the bot's record says."""
    bot = RandomBot("mambo", seats=4, seed=21, hands=8, rebuy=RebuyRule(buy_in=25, below=12))
    host = Host(sim, Table(bot.spec, bot.config))
    runner = run_in_lockstep(sim, bot, host)

    assert host.arrived == [inp for record in bot.records for inp in record.inputs]
    assert len(host.settled) == len(bot.records) == 8
    for record, settled in zip(bot.records, host.settled, strict=True):
        assert record.differences(settled) == []
    assert runner.performed == sum(len(record.acts) for record in bot.records)
    assert any(isinstance(a, Rebuy) for r in bot.records for a in r.acts)


def test_a_draw_with_reshuffled_discards_arrives_as_the_bot_dealt_it(sim: Simulator) -> None:
    """Triple Draw 2-7 at seven seats runs the stub short: the reshuffled discards go back in
    the shoe (14.12A(f)) and are dealt from it; the controller's table settles as recorded."""
    bot = RandomBot(TRIPLE_DRAW, seats=7, seed=2, hands=2)
    host = Host(sim, Table(bot.spec, bot.config))
    run_in_lockstep(sim, bot, host)
    assert any(isinstance(a, Restock) for r in bot.records for a in r.acts)
    assert host.arrived == [inp for record in bot.records for inp in record.inputs]
    for record, settled in zip(bot.records, host.settled, strict=True):
        assert record.differences(settled) == []


def test_a_script_with_a_card_dealt_twice_arrives_as_written(sim: Simulator) -> None:
    """A named deal of a card already dealt is read again at the slot (rules-interpretation.md,
    Integrity): the controller sees the alarm the script records, then the undo, then the
    misdeal."""
    script = parse_script(
        "game five-card-stud\nseats 1 2\nstakes ante=1 bring-in=2 small-bet=5 big-bet=10\n"
        "stacks 1=50 2=50\nnew_hand\nAh\n2c\nKd\nKd\nundo\n3d\nmisdeal\n",
        "incident",
    )
    bot = ScriptedBot(script, seed=3)
    host = Host(sim, Table(bot.spec, bot.config))
    run_in_lockstep(sim, bot, host)
    assert host.arrived == [line.input for line in script.lines]
    assert [s.kind for s in host.settled] == ["hand_voided"]


def test_restock_puts_the_reshuffled_discards_under_the_stub(sim: Simulator) -> None:
    """14.12A(f): the discards go back in the shoe beneath the cards left, in the bot's order."""
    runner = BotRunner(RandomBot("mambo", seats=2, hands=0), sim, Pace(shuffle=0))
    runner.perform(Shuffle("A", 77, 12))
    stub = cut(shuffled(77), 12)
    for card in stub[:50]:
        runner.perform(Deal(card))
    back = (stub[3], stub[1], stub[0])
    runner.perform(Restock(back))
    with sim.locked():
        assert sim.shoe.stub == [*stub[50:], *back]
    runner.perform(Deal(stub[50]))


def test_a_shoe_out_of_step_with_the_bot_is_a_clear_error(sim: Simulator) -> None:
    """If the top card is not the bot's (the shoe shuffled by hand), the runner says so."""
    runner = BotRunner(RandomBot("mambo", seats=2, hands=0), sim, Pace(shuffle=0))
    runner.perform(Shuffle("A", 5, 10))
    wrong = cut(shuffled(5), 10)[1]  # the second card: the shoe deals the first
    with pytest.raises(RunnerError, match=f"where the bot dealt {wrong.code}: the shoe is out"):
        runner.perform(Deal(wrong))


def test_the_pace_waits_before_each_act_and_stop_ends_the_run(sim: Simulator) -> None:
    """A dealer's pace: shuffles take longer than the repeat window; stop ends a run at once.
    On the devices' clock, the time between the first act and the last is the pace's."""
    assert Pace.fast(0.5).shuffle > 0.5
    assert Pace.human().before(Shuffle("A", 1, 10)) == 3.0
    with pytest.raises(ValueError, match="pace: card=-1; expected 0 or more seconds"):
        Pace(card=-1)
    bot = RandomBot("mambo", seats=3, seed=2, hands=None)
    runner = BotRunner(bot, sim, Pace(card=0.01, button=0.01, shuffle=0.01))
    seen: list[Act] = []

    def count(act: Act) -> None:
        seen.append(act)
        if len(seen) == 20:
            runner.stop()

    runner.on_act = count
    began = manual(sim)()
    runner.run()
    assert runner.stopped
    assert len(seen) == runner.performed == 20
    assert manual(sim)() - began == pytest.approx(sum(runner.pace.before(a) for a in seen))
    assert manual(sim)() - began >= 0.19


def test_on_the_wall_clock_the_pace_is_waited_for() -> None:
    """On a technician's bench (the wall clock) the pause before each act is slept."""
    with Simulator(transport="memory", table="wall", seed=2) as sim:
        bot = RandomBot("mambo", seats=3, seed=2, hands=None)
        runner = BotRunner(bot, sim, Pace(card=0.01, button=0.01, shuffle=0.01))
        seen: list[Act] = []

        def count(act: Act) -> None:
            seen.append(act)
            if len(seen) == 10:
                runner.stop()

        runner.on_act = count
        began = time.monotonic()
        runner.run()
        slept = time.monotonic() - began
    assert slept >= sum(runner.pace.before(a) for a in seen) > 0


def test_a_full_store_stalls_the_bot_until_the_host_acknowledges() -> None:
    """docs/protocol.md 5: with no host acknowledging, a small store fills and the shoe's feed
    jams; the runner waits, as a dealer would, and deals on once the host connects. Nothing
    is lost: every input arrives, in order."""
    with memory_sim("stall", store=6) as sim:
        bot = RandomBot("mambo", seats=3, seed=8, hands=2)
        said: list[str] = []
        runner = BotRunner(bot, sim, Pace(shuffle=0.1, stall=WAIT * 3), on_wait=said.append)
        worker = threading.Thread(target=runner.run)
        worker.start()
        # The store fills: nobody acknowledges yet.
        assert sim.wait_for(lambda: bool(said), WAIT), "the runner says it waits"
        assert said[0].startswith("waiting: the shoe's store is full")
        assert worker.is_alive(), "the bot waits on the jammed feed"
        host = Host(sim, Table(bot.spec, bot.config))
        with shoe_driver(sim, host.events), panel_driver(sim, host.events):
            worker.join(timeout=WAIT * 2)
            assert not worker.is_alive()
            wanted = [inp for record in bot.records for inp in record.inputs]
            cards = [i for i in wanted if not isinstance(i, ButtonPress)]
            presses = [i for i in wanted if isinstance(i, ButtonPress)]
            got_cards: list[TableInput] = []
            got_presses: list[TableInput] = []
            while len(got_cards) < len(cards) or len(got_presses) < len(presses):
                inp = host.next_input()
                (got_presses if isinstance(inp, ButtonPress) else got_cards).append(inp)
        assert got_cards == cards
        assert got_presses == presses


def test_a_store_that_never_drains_is_a_clear_error() -> None:
    """With nobody acknowledging past ``stall``, the runner says the devices stayed jammed."""
    with memory_sim("jam", store=4) as sim:
        runner = BotRunner(RandomBot("mambo", seats=3, seed=8), sim, Pace(shuffle=0, stall=0.2))
        with pytest.raises(RunnerError, match=r"the devices stayed jammed for 0.2 s: .*full"):
            runner.run()


def test_a_stopped_runner_resumes_with_the_act_it_held(sim: Simulator) -> None:
    """A stop during the pause before an act keeps that act for the resume: the devices never
    fall behind the bot, and the hands arrive whole."""
    bot = RandomBot("five-card-stud", seats=2, seed=6, hands=1)
    host = Host(sim, Table(bot.spec, bot.config))
    runner = BotRunner(bot, sim, Pace.fast(REPEAT_WINDOW), on_act=host.take)
    with (
        shoe_driver(sim, host.events),
        panel_driver(sim, host.events),
    ):
        acts = runner.acts()
        for _ in range(3):
            next(acts)
        runner.stop()
        assert list(acts) == []
        runner.resume()
        runner.pace = Pace(card=0.5, button=0.5, shuffle=0.5, repeat=0.5)
        # Stopped in the pause of the next act: while the devices' clock moves through it.
        unwatch = manual(sim).watch(lambda _now: runner.stop())
        performed = runner.performed
        assert runner.run() == 0
        unwatch()
        assert runner.performed == performed, "the act paused for was not performed"
        assert runner._held is not None  # kept for the resume
        runner.pace = Pace.fast(REPEAT_WINDOW)
        runner.resume()
        assert runner.run() == 1
    assert host.arrived == list(bot.records[0].inputs)
    assert host.settled[0] == bot.records[0].settlement


def test_a_scripted_stray_tag_is_read_at_the_slot(sim: Simulator) -> None:
    """A script's foreign tag passes the shoe's slot reader: the controller's deck lookup makes
    it a ForeignTag, an integrity alarm (rules-interpretation.md, Integrity), which undo
    dismisses."""
    script = parse_script(
        "game mambo\nseats 1 2\nstakes ante=1 bring-in=2 small-bet=5 big-bet=10\n"
        "new_hand\ntag E0040100000000AB slot stray\nundo\nmisdeal\n",
        "stray",
    )
    bot = ScriptedBot(script)
    host = Host(sim, Table(bot.spec, bot.config))
    run_in_lockstep(sim, bot, host)
    new_hand, tag, undo, misdeal = host.arrived
    assert isinstance(tag, ForeignTag)
    assert (tag.tag, tag.point, tag.reason) == (
        "E0040100000000AB",
        ReadPoint.DEALING_SLOT,
        "not enrolled in either deck",
    )
    assert [new_hand, undo, misdeal] == [
        line.input for line in script.lines if not isinstance(line.input, ForeignTag)
    ]
    assert [s.kind for s in host.settled] == ["hand_voided"]


class CommittingHost:
    """The controller's way with acknowledgements: a device's sentence is acknowledged only
    once the host has taken it (``ack_after_commit``, journal before ack; docs/app.md), and
    cards and presses are taken from one queue, in the order they arrive."""

    def __init__(self, sim: Simulator) -> None:
        self.events: queue.Queue[Any] = queue.Queue()
        self.decks = DeckSet(enrolled(sim.decks[0]), enrolled(sim.decks[1]))
        self.arrived: list[TableInput] = []
        self.shoe = shoe_driver(sim, self.events, ack_after_commit=True)
        self.panel = panel_driver(sim, self.events, ack_after_commit=True)
        self._done = threading.Event()
        self._taker = threading.Thread(target=self._take)

    def __enter__(self) -> CommittingHost:
        self.shoe.start()
        self.panel.start()
        self._taker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._taker.join()
        self.panel.stop()
        self.shoe.stop()

    def _take(self) -> None:
        while not self._done.is_set():
            try:
                event = self.events.get(timeout=0.01)
            except queue.Empty:
                continue
            if isinstance(event, TagRead):
                self.arrived.append(self.decks.lookup(event))
            elif isinstance(event, ButtonPressed):
                self.arrived.append(event.to_input())
            seq = getattr(event, "seq", None)
            if seq is not None:
                (self.panel if isinstance(event, ButtonPressed) else self.shoe).commit(seq)


def test_waiting_for_acks_keeps_presses_behind_the_cards_dealt_before_them(
    sim: Simulator,
) -> None:
    """Cards and presses travel on two links; with ``wait_for_acks`` the runner makes the next
    act only when the host has acknowledged the last, so at a fast pace, with nothing else
    keeping them in step, the host takes every card and press in the order the bot made them."""
    bot = RandomBot("mambo", seats=6, seed=5, hands=3)
    with CommittingHost(sim) as host:
        runner = BotRunner(bot, sim, Pace(shuffle=REPEAT_WINDOW * 2), wait_for_acks=True)
        assert runner.wait_for_host()
        runner.run()
        wanted = [inp for record in bot.records for inp in record.inputs]
        deadline = time.monotonic() + WAIT
        while len(host.arrived) < len(wanted) and time.monotonic() < deadline:
            time.sleep(0.01)
    assert host.arrived == wanted


def test_the_runner_says_once_that_it_waits_for_a_full_store_and_once_that_it_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docs/protocol.md 5: with no host, the shoe's store fills and its feed jams; the runner
    says why it waits, once (not a silent freeze), and once that it goes on when a host
    acknowledges."""
    with memory_sim("said", store=6) as sim:
        refused = [0]
        deal = sim.deal

        def counted_deal(card: Card | None = None, burn: bool = False) -> Card:
            try:
                return deal(card, burn)
            except DeviceError:
                refused[0] += 1
                raise

        monkeypatch.setattr(sim, "deal", counted_deal)
        bot = RandomBot("mambo", seats=3, seed=8, hands=1)
        said: list[str] = []
        runner = BotRunner(bot, sim, Pace(shuffle=0.1, stall=WAIT * 3), on_wait=said.append)
        worker = threading.Thread(target=runner.run)
        worker.start()
        # The runner tries the deal again and again while the store is full; it said so once.
        assert sim.wait_for(lambda: refused[0] >= 10, WAIT), "the runner tries again"
        assert said == [
            "waiting: the shoe's store is full (6 sentences unacknowledged): "
            "is a controller attached?"
        ]
        host = Host(sim, Table(bot.spec, bot.config))
        with shoe_driver(sim, host.events), panel_driver(sim, host.events):
            worker.join(timeout=WAIT * 2)
    assert not worker.is_alive()
    assert said[1] == "going on: the devices take acts again"


def test_a_stop_ends_a_wait_on_a_full_store_and_the_act_is_held() -> None:
    """A stop (the console's quit, Ctrl-C) while the store is full ends the wait at once,
    not after ``stall``; the act the devices could not take is held for ``resume``."""
    with memory_sim("quit", store=4) as sim:
        said: list[str] = []
        bot = RandomBot("mambo", seats=3, seed=8)
        # A stall far longer than any wait below: only the stop can end the wait in time.
        runner = BotRunner(bot, sim, Pace(shuffle=0, stall=WAIT * 6), on_wait=said.append)
        worker = threading.Thread(target=runner.run)
        worker.start()
        assert sim.wait_for(lambda: bool(said), WAIT), "the runner says it waits"
        performed = runner.performed
        runner.stop()
        worker.join(timeout=WAIT)
        assert not worker.is_alive(), "the stop ended the wait"
        assert runner.performed == performed
        assert runner._held is not None  # the act the full store refused, for resume()


def test_wait_for_host_returns_once_a_host_welcomed_both_devices(sim: Simulator) -> None:
    """A bot that deals for a controller waits for its welcome on the shoe and the panel
    (saying so), so the controller sees the first card; a stop ends the wait with False."""
    said: list[str] = []
    runner = BotRunner(RandomBot("mambo", seats=2, seed=1), sim, on_wait=said.append)
    threading.Timer(0.1, runner.stop).start()
    assert runner.wait_for_host() is False
    waiting = "waiting for a controller to welcome the shoe and the panel (is it running?)"
    assert said == [waiting]
    runner.resume()
    welcomed: list[bool] = []
    waiter = threading.Thread(target=lambda: welcomed.append(runner.wait_for_host()))
    waiter.start()
    deadline = time.monotonic() + WAIT
    while len(said) < 2:  # waiting again before any host is there
        assert time.monotonic() < deadline, said
        time.sleep(0.01)
    with CommittingHost(sim):
        waiter.join(timeout=WAIT)
    assert welcomed == [True]
    assert said == [waiting, waiting, "the controller welcomed the shoe and the panel: dealing"]
