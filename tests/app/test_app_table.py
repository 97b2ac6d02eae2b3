"""The controller over the simulator's devices: hands dealt, journaled, acknowledged, resumed."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from apphelp import (
    PATIENCE,
    dealer,
    journal_records,
    json_log,
    on_a_full_disk,
    panel_text,
    ready,
    sequenced,
    sim_table,
)

from controller.config.settings import JournalSettings
from controller.display.view import FACE_DOWN, TableView
from controller.journal import JournalError, JournalReader, verify
from controller.journal import tablerecords as rec
from controller.journal.tablerecords import events_json
from controller.poker.engine.events import (
    Alarm,
    CardDealt,
    Event,
    HandSettled,
    Option,
    to_json,
)
from controller.poker.inputs import Button, ReadPoint
from controller.table.core import TableCore
from controller.table.loop import Controller, wait_until
from controller.table.service import serve
from controller.table.viewbuilder import action_option
from drivers.seam.events import ButtonPressed, HelloOutcome, TagRead
from drivers.tablectl.shoe import ShoeDriver
from simulator.simtable import unplugged_table


@pytest.mark.parametrize("game", ["mambo", "five-card-stud", "triple-draw"])
def test_hands_are_dealt_settled_and_journaled_each_input_once(tmp_path: Path, game: str) -> None:
    """docs/journal.md: every card and button journaled once, in device order; the chain verifies;
    and a replay of the journal rebuilds the same table (same stacks, same next input)."""
    with sim_table(tmp_path, game) as table:
        bot = dealer(table, hands=6)
        bot.run()
        core = table.controller.core
        assert len(core.results) == 6
        assert all(isinstance(r, HandSettled) for r in core.results)
        stacks, pending = core.table.stacks, core.table.pending
    report = verify(tmp_path / "journal")
    assert report.intact, report.summary()
    for device in ("shoe", "panel"):
        seqs = [seq for _boot, seq in sequenced(tmp_path / "journal", device)]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), f"{device}: {seqs}"
    replayed = TableCore(table.spec, table.config)
    assert replayed.keep_results >= 6
    for record in JournalReader(tmp_path / "journal"):
        replayed.replay(record)
    assert replayed.table.stacks == stacks
    assert replayed.table.pending == pending
    # Conservation: the chips the seats won equal the chips they lost (no rake at this table).
    assert sum(n.amount for r in core.results if isinstance(r, HandSettled) for n in r.net) == 0
    assert sum(core.net.values()) == 0
    assert core.finished == 6


def test_a_sentence_is_acknowledged_only_after_its_record_is_on_disk(tmp_path: Path) -> None:
    """docs/journal.md, Durability: commit(seq) is called only once the record holding seq is
    the journal's last; a driver that checks this on every commit sees it hold."""
    checked: list[int] = []
    failures: list[str] = []

    with sim_table(tmp_path) as table:
        controller = table.controller
        shoe = controller.shoe
        original = ShoeDriver.commit

        def checking_commit(seq: int) -> None:
            last = controller.journal.last
            if last is None or last.data.get("seq") != seq or last.data.get("device") != "shoe":
                failures.append(f"seq {seq} acked before it was journaled (last: {last})")
            checked.append(seq)
            original(shoe, seq)

        shoe.commit = checking_commit  # type: ignore[method-assign]  # observe the real driver
        bot = dealer(table, hands=2)
        bot.run()
    assert not failures
    assert len(checked) > 20


def test_stop_and_restart_mid_hand_resumes_exactly(tmp_path: Path) -> None:
    """After a stop mid-hand the controller replays its journal and resumes exactly:
    the same next expected card or seat to act, the same pot, the same stacks; the hand then
    finishes, and nothing is read twice."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=3)
        stop_at = threading.Event()

        def halt_mid_hand(controller: object, events: list[object]) -> None:
            if table.controller.inputs == 25:
                bot.stop()
                stop_at.set()

        table.controller.listeners.append(halt_mid_hand)  # type: ignore[arg-type]
        bot.run()
        assert stop_at.is_set()
        before = table.controller.core.table.state
        table.stop_controller()
        controller = table.start_controller()
        after = controller.core.table.state
        assert after == before
        assert after.phase not in ("waiting", "settled")
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        bot.follow(controller)
        bot.resume()
        bot.run()
        assert controller.core.table.hand_number == 3
        results = controller.core.results
    assert len(results) == 3
    assert [r.differences(s) for r, s in zip(bot.bot.records, results, strict=True)] == [[]] * 3
    assert verify(tmp_path / "journal").intact
    shoe = sequenced(tmp_path / "journal", "shoe")
    assert len(shoe) == len(set(shoe)), "a sentence was journaled twice"


def test_a_journal_ending_with_an_input_without_its_decision_resumes_exactly(
    tmp_path: Path,
) -> None:
    """docs/journal.md, Durability: a decision record is not fsynced on its own, so a power cut
    can leave the journal ending with an input whose decision never reached the disk. The
    restart replays the input, resumes exactly where the table stood after it, journals the
    decision again (the same events), and the hands then finish as the dealer played them."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=3)

        def halt_mid_hand(controller: object, events: list[object]) -> None:
            if table.controller.inputs == 25:
                bot.stop()

        table.controller.listeners.append(halt_mid_hand)  # type: ignore[arg-type]
        bot.run()
        before = table.controller.core.table.state
        table.stop_controller()
        records = list(JournalReader(tmp_path / "journal"))
        last_input = max(r.seq for r in records if r.kind in rec.ENGINE_INPUTS)
        lost = next(r for r in records if r.seq == last_input + 1)
        assert lost.kind in rec.DECISIONS
        # The power cut: every line after the last input's is gone.
        journal_file = sorted((tmp_path / "journal").glob("journal-*.jsonl"))[-1]
        lines = journal_file.read_bytes().splitlines(keepends=True)
        kept = [line for line in lines if json.loads(line)["seq"] <= last_input]
        journal_file.write_bytes(b"".join(kept))

        controller = table.start_controller()
        assert controller.core.table.state == before
        rebuilt = next(r for r in JournalReader(tmp_path / "journal") if r.seq == last_input + 1)
        assert (rebuilt.kind, rebuilt.data) == (lost.kind, lost.data)
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        bot.follow(controller)
        bot.resume()
        bot.run()
        results = controller.core.results
    assert [r.differences(s) for r, s in zip(bot.bot.records, results, strict=True)] == [[]] * 3
    assert verify(tmp_path / "journal").intact
    kinds = [kind for kind, _ in journal_records(tmp_path / "journal")]
    inputs = [i for i, kind in enumerate(kinds) if kind in rec.ENGINE_INPUTS]
    assert all(kinds[i + 1] in rec.DECISIONS for i in inputs), "an input without its decision"


def test_an_alarm_open_at_a_restart_stays_open(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: an alarm open when the controller stopped is
    open after the restart, and undo resolves it."""
    with sim_table(tmp_path) as table:
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.shuffle(5)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.inputs == 1, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
        table.stop_controller()
        controller = table.start_controller()
        assert isinstance(controller.core.table.pending, Alarm)
        assert table.controller.view.build(controller.core).alarms
    kinds = [kind for kind, _data in journal_records(tmp_path / "journal")]
    assert rec.TAG in kinds


def test_a_device_lost_mid_hand_pauses_the_table_and_its_return_resumes_it(
    tmp_path: Path,
) -> None:
    """The shoe unplugged mid-hand pauses the table with a clear message on the panel and
    the display; plugged back, the table resumes and the cards dealt meanwhile arrive once."""
    # A quick reopen once the shoe is plugged back (the driver's backoff is on the wall clock).
    with sim_table(tmp_path, link={"backoff_max": 0.1}) as table:
        controller = table.controller
        bot = dealer(table, hands=1)
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        steps = bot.acts()
        assert [type(next(steps)).__name__ for _ in range(2)] == ["Shuffle", "Press"]
        assert controller.inputs == 1  # the new hand taken
        table.sim.unplug("shoe")
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], PATIENCE)
        assert wait_until(lambda: panel_text(table) == "PAUSED: shoe lost", PATIENCE), panel_text(
            table
        )
        view = controller.view.build(controller.core)
        assert [(d.name, d.state.value) for d in view.pausing_devices] == [("shoe", "lost")]
        card = bot.bot.next_act()
        assert card is not None
        bot.perform_now(card)  # dealt while unplugged: kept on the shoe, sent after the replug
        table.sim.replug("shoe")
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        assert wait_until(lambda: controller.inputs == 2, PATIENCE)
        bot.run()
        assert len(controller.core.results) == 1
        settled = controller.core.results[0]
    assert bot.bot.records[0].differences(settled) == []


def test_a_refused_shoe_pauses_the_table_naming_the_refusal_until_a_restart(
    tmp_path: Path,
) -> None:
    """docs/protocol.md 4: a shoe whose serial is not the configured one is refused and its
    driver stops for good. The panel and the display name the refusal and ask for a restart
    after the fix (not a reconnect), the log says so at error; the controller restarted with
    the configuration corrected hears the shoe and the pause ends."""
    views: list[TableView] = []
    with (
        json_log(tmp_path) as lines,
        sim_table(tmp_path, display=views.append, serials={"shoe": "SHOE0009"}) as table,
    ):
        controller = table.controller
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], PATIENCE)
        line = "PAUSED: shoe wrong serial; fix+restart"
        assert wait_until(lambda: panel_text(table) == line, PATIENCE), panel_text(table)
        # The view is built on the driver's thread after the panel's line is set; an earlier
        # view may hold the shoe paused as lost (the panel welcomed before the shoe refused).
        assert wait_until(
            lambda: (
                [(d.name, d.state.value) for d in views[-1].pausing_devices]
                == [("shoe", "refused")]
            ),
            PATIENCE,
        ), views[-1].devices
        shoe = views[-1].pausing_devices[0]
        assert "serial SHOE0001" in shoe.message
        assert "restart the controller" in shoe.message
        table.stop_controller()
        table.serials.clear()  # the configuration corrected
        controller = table.start_controller()
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        assert wait_until(lambda: not views[-1].pausing_devices, PATIENCE), views[-1].devices
    paused = [line for line in lines if line["event"] == "table_paused"]
    assert paused[0]["level"] == "error"
    assert "restart the controller" in paused[0]["todo"]


def test_the_display_follows_every_input_and_never_shows_a_hole_card(tmp_path: Path) -> None:
    """docs/display.md: a view after every input; a face-down card reaches it only as FACE_DOWN;
    the seat to act and the next card agree with the engine; a bring-in is shown (14.13A(d))."""
    views: list[TableView] = []
    with sim_table(tmp_path, display=views.append) as table:
        down_cards: dict[int, set[str]] = {}

        def hole_cards(controller: Controller, events: list[Event]) -> None:
            hand = down_cards.setdefault(controller.core.table.hand_number, set())
            hand.update(e.card for e in events if isinstance(e, CardDealt) and e.face == "down")

        table.controller.listeners.append(hole_cards)
        bot = dealer(table, hands=2)
        bot.run()
    assert len(down_cards[1]) >= 6
    assert len(views) > 50
    for view in views:
        for seat in view.seats:
            for card in seat.cards:
                hidden = down_cards.get(view.hand_number or 0, set())
                assert card is FACE_DOWN or card.code not in hidden
    prompts = [v.to_act for v in views if v.to_act is not None]
    assert any("bring" in o.action for p in prompts for o in p.options)
    assert any(v.showdown is not None for v in views)
    assert any(v.next_card.destination.value == "burn" for v in views)


def test_a_failed_journal_write_stops_the_table_and_loses_nothing(tmp_path: Path) -> None:
    """docs/journal.md, Durability: when the disk refuses a write (ENOSPC) the loop stops and
    serve says so (the service exits for systemd to restart it); nothing was acknowledged, so a
    press made meanwhile is taken once by the restarted controller."""
    with sim_table(tmp_path) as table:
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
        controller = on_a_full_disk(table)
        assert serve(controller, threading.Event()) is False
        table.sim.press(Button.NEW_HAND)  # nobody listens: the panel keeps it
        controller = table.start_controller()

        def presses() -> list[dict[str, object]]:
            return [
                data
                for kind, data in journal_records(tmp_path / "journal")
                if kind == "button" and data["button"] == "new_hand"
            ]

        assert wait_until(lambda: len(presses()) == 1, PATIENCE), "the press is taken"
        # Taken once: the restarted controller dealt it, or refused it if the shoe had not yet
        # said hello (a paused table refuses a new hand); either way the panel's resend after
        # the restart is not a second press.
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        controller.drain()
        assert len(presses()) == 1
    assert verify(tmp_path / "journal").intact


def test_decision_records_hold_the_events_as_the_engine_writes_them(tmp_path: Path) -> None:
    """The journal's decision records equal the engine's own JSON of its events (to_json)."""
    seen: list[Event] = []
    with sim_table(tmp_path, "five-card-stud") as table:
        table.controller.listeners.append(lambda _c, events: seen.extend(events))
        dealer(table, hands=3).run()
    assert len(seen) > 100
    assert events_json(seen) == [json.loads(to_json(e)) for e in seen]


def test_the_seat_to_acts_options_read_as_the_engine_says_them() -> None:
    """docs/display.md: each option is the panel button, what it does now and the chips
    (``raise to 15``), so the display reads as the dealer's announcement."""
    raise_to = action_option(Option("bet_raise", 15, "raise to 15"))
    assert (raise_to.button, raise_to.action, raise_to.amount) == (Button.BET_RAISE, "raise to", 15)
    assert raise_to.text == "raise to 15"
    fold = action_option(Option("fold", 0, "fold"))
    assert (fold.action, fold.amount, fold.text) == ("fold", None, "fold")


def test_each_event_is_one_log_line_and_the_seat_to_act_is_a_field(tmp_path: Path) -> None:
    """docs/app.md, step 3: one JSON line per announced event, its text the dealer's sentence;
    an action_required line names the seat to act in ``seat`` as well (no second line for it)."""
    with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
    table_lines = [line for line in lines if line["logger"] == "controller.table"]
    required = [line for line in table_lines if line["event"] == "action_required"]
    assert required, "a Mambo hand asks seats to act"
    for line in required:
        assert line["text"].startswith(f"Seat {line['seat']} "), line
        assert line["hand"] == 1
    assert not [line for line in table_lines if line["event"] == "to_act"]
    # Line for line, the events the journal's decisions hold.
    decided = [
        event["kind"]
        for kind, data in journal_records(tmp_path / "journal")
        if kind in (rec.DECISION, rec.HAND_STARTED)
        for event in data["events"]
    ]
    announced = [line["event"] for line in table_lines if line["event"] in set(decided)]
    assert announced == decided


def test_an_alarm_and_a_refused_input_are_logged_at_warning_the_rest_at_info(
    tmp_path: Path,
) -> None:
    """docs/deploy.md, Reading the log: an integrity alarm (rules-interpretation.md, Integrity) and
    a refused input are faults the dealer must act on, logged at warning so that a filter on warning
    and error finds them; the engine's other events are logged at info."""
    with json_log(tmp_path) as lines, sim_table(tmp_path) as table:
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.press(Button.MISDEAL)  # no hand in play: refused
        table.sim.shuffle(5)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.inputs == 2, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
    levels = {
        line["event"]: line["level"] for line in lines if line["logger"] == "controller.table"
    }
    assert levels["alarm"] == "warning"
    assert levels["refused"] == "warning"
    assert levels["hand_started"] == levels["card_expected"] == "info"


def test_an_input_is_handled_on_its_drivers_thread_while_the_table_runs(tmp_path: Path) -> None:
    """docs/app.md, The loop: a card is journaled and announced on the shoe's reading thread,
    a button on the panel's: no hand-off to the loop's thread between the wire and the
    announcement."""
    with sim_table(tmp_path) as table:
        threads: list[str] = []
        table.controller.listeners.append(
            lambda _controller, events: (
                threads.append(threading.current_thread().name) if events else None
            )
        )
        dealer(table, hands=1).run()
    assert threads
    assert set(threads) == {"tablectl-shoe", "tablectl-panel"}


def run_until_the_journal_fails(tmp_path: Path, seen: list[Controller]) -> None:
    """A table whose journal refuses every append from the first button on; the loop's
    thread must end by itself. The error comes out of the table's stop."""
    with sim_table(tmp_path) as table:
        controller = table.controller
        seen.append(controller)
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)

        def refuse(kind: str, data: object, *, sync: bool = True) -> None:
            raise JournalError(tmp_path / "journal", None, None, "disk gone")

        controller.journal.append = refuse  # type: ignore[method-assign,assignment]  # a dying disk
        table.sim.press(Button.NEW_HAND)
        thread = table._thread  # the loop's
        assert thread is not None
        thread.join(PATIENCE)
        assert not thread.is_alive()


def test_an_error_on_a_drivers_thread_ends_the_run_and_the_table_closes(tmp_path: Path) -> None:
    """A journal that fails while a driver's thread handles an input: the run raises it (the
    service logs journal_failed and exits), nothing is taken, and the table closes (the leak
    check fails a test that leaves a driver's thread or the journal's file open)."""
    seen: list[Controller] = []
    with pytest.raises(JournalError, match="disk gone"):
        run_until_the_journal_fails(tmp_path, seen)
    (controller,) = seen
    assert controller.inputs == 0


def test_what_the_drivers_said_before_the_run_is_handled_first_and_in_order(
    tmp_path: Path,
) -> None:
    """docs/app.md, The loop: the hellos and the press queued before the run are handled before
    a read the shoe's thread hands over as the run begins (it waits for them): each device's
    inputs are journaled in the order it sent them."""
    controller = unplugged_table(JournalSettings(tmp_path / "journal", fsync=False))
    for device in ("shoe", "panel"):
        controller.inbox.put(ready(device, HelloOutcome.NEW_SESSION))
    controller.inbox.put(ButtonPressed(Button.NEW_HAND, 1))
    uid = next(iter(controller.decks.active.cards))
    stop = threading.Event()
    loop = threading.Thread(target=controller.run, args=(stop,), name="loop")
    loop.start()
    try:
        controller.inbox.put(TagRead(uid, ReadPoint.DEALING_SLOT, 1, 1_000))  # as the run begins
        assert wait_until(lambda: controller.inputs == 2, PATIENCE)
    finally:
        stop.set()
        loop.join()
        controller.close()
    kinds = [kind for kind, _ in journal_records(tmp_path / "journal") if kind in rec.SEQUENCED]
    devices = [
        data["event"] for kind, data in journal_records(tmp_path / "journal") if kind == rec.DEVICE
    ]
    # Each device unheard as the table opens (journaled: opening.UNHEARD), then its hello.
    assert devices == ["lost", "lost", "ready", "ready"]
    assert kinds == [rec.BUTTON, rec.CARD]


def test_line_noise_is_warned_of_and_the_closing_line_holds_each_lines_totals(
    tmp_path: Path,
) -> None:
    """docs/app.md, Stopping; docs/protocol.md 8: a burst of 3000 random bytes on the shoe's
    line is warned of (``line_noise``, naming the shoe), and ``table_closed`` holds each
    line's totals: sentences, noise bytes and decode errors by kind."""
    with json_log(tmp_path, "NOISE-1") as lines, sim_table(tmp_path) as table:
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
        table.sim.noise("shoe", 3000)
        assert wait_until(lambda: table.controller.shoe.counters.noise_bytes > 0, PATIENCE)
    warned = [line for line in lines if line["event"] == "line_noise"]
    assert [(line["device"], line["level"]) for line in warned] == [("shoe", "warning")]
    (closed,) = [line for line in lines if line["event"] == "table_closed"]
    assert closed["shoe_line"] == table.controller.shoe.line_totals()
    assert closed["shoe_line"]["noise_bytes"] > 0
    assert closed["shoe_line"]["sentences"] > 0
    assert closed["panel_line"]["noise_bytes"] == 0


def test_14_13a_b_an_eleven_seat_mambo_table_lights_seat_eleven(tmp_path: Path) -> None:
    """13:69F-14.13A(b): Mambo seats eleven; the panel has a light a seat, so seat 11 is lit
    when it is to act (the panel's LIT took at most 10, and the controller stopped there)."""
    lit: list[int] = []
    with sim_table(tmp_path, "mambo", seats=11) as table:
        table.sim.panel._on_display = lambda light, _text: lit.append(light)
        dealer(table, hands=1).run()
        assert table.controller.core.finished == 1
    assert 11 in lit


def test_a_new_hand_pressed_before_the_shoes_hello_replays_as_refused(tmp_path: Path) -> None:
    """docs/app.md, Devices lost and found, and docs/journal.md: a restarted controller knows
    no device until it says hello, and journals that; a new hand pressed (or resent by the
    panel) before the shoe's hello is refused, and a replay of the whole journal, which knows
    the devices were unheard, refuses it again instead of dealing it (it once dealt it: the
    journal's last hello said the shoe was there)."""
    options = JournalSettings(tmp_path / "journal", fsync=False)
    first = unplugged_table(options)
    for device in ("shoe", "panel"):
        first.handle(ready(device, HelloOutcome.NEW_SESSION))
    first.close()
    again = unplugged_table(options)  # a restart: the devices are unheard again
    again.handle(ready("panel", HelloOutcome.NEW_SESSION))
    again.handle(ButtonPressed(Button.NEW_HAND, 1))
    assert again.core.table.hand_number == 0, "refused: the shoe has not said hello"
    again.close()
    replayed = TableCore(again.core.spec, again.core.config)
    for record in JournalReader(tmp_path / "journal"):
        replayed.replay(record)  # a ReplayMismatch if the replay dealt the refused hand
    assert replayed.table.hand_number == 0
