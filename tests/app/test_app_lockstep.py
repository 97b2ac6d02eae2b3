"""The lockstep dealer: the simulator's random bot never runs ahead of the controller."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, sim_table

from controller.poker.engine.events import Event, Refused
from controller.poker.inputs import Button
from controller.table.loop import Controller, wait_until
from simulator.acts import Act, Press, Rebuy, Shuffle
from simulator.clock import ManualClock
from simulator.devices import RESEND_AFTER
from simulator.simtable import SimTable
from simulator.waits import RunnerError


def test_each_input_is_taken_before_the_bot_makes_the_next(tmp_path: Path) -> None:
    """Every act a device reports is followed by the controller taking it before the next
    act: the controller's count of inputs equals the bot's, act by act."""
    with sim_table(tmp_path, "five-card-stud") as table:
        controller = table.controller
        bot = dealer(table, hands=1)
        counts: list[tuple[int, int]] = []
        for _act in bot.acts():
            counts.append((controller.inputs, bot.expected))
        made = len(bot.bot.records[0].inputs)
    assert counts[-1] == (made, made)
    assert all(taken == expected for taken, expected in counts)


def test_a_controller_that_takes_nothing_is_a_clear_timeout(tmp_path: Path) -> None:
    """With the panel unplugged, the new hand's press never reaches the controller: the dealer
    says how long it waited and what the table waits for."""
    with sim_table(tmp_path) as table:
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
        table.sim.unplug("panel")
        bot = dealer(table, hands=1, timeout=0.3)
        with pytest.raises(TimeoutError, match=r"took no input for 0.3 s .* waits for input 1"):
            bot.run()
        table.sim.replug("panel")


def test_stop_ends_a_wait_for_the_controller(tmp_path: Path) -> None:
    """A stop during the wait for an input the controller has not taken ends the run."""
    with sim_table(tmp_path) as table:
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
        table.sim.unplug("panel")
        bot = dealer(table, hands=1, timeout=30.0)

        def stop_once_waiting() -> None:  # the dealer waits for an input the panel cannot send
            assert wait_until(lambda: bot.expected > bot.controller.inputs, PATIENCE)
            bot.stop()

        timer = threading.Thread(target=stop_once_waiting)
        timer.start()
        assert bot.run() == 0
        timer.join()
        assert bot.runner.stopped
        table.sim.replug("panel")


def _press_lost(table: SimTable, **kwargs: float) -> Iterator[Act]:
    """The bot's acts, the new hand's press to be lost on the line after its shuffle."""
    assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
    steps = dealer(table, hands=1, **kwargs).acts()
    assert type(next(steps)) is Shuffle
    table.sim.drop("panel", 1)
    return steps


def test_while_the_dealer_waits_the_devices_time_passes_by_its_tick_until_a_resend(
    tmp_path: Path,
) -> None:
    """On a ManualClock a press the line lost comes again only once the panel's resend timer
    has run (docs/protocol.md 5): a dealer with a tick lets that time pass while it waits, and
    the controller takes the press."""
    with sim_table(tmp_path) as table:
        steps = _press_lost(table, tick=RESEND_AFTER / 4)
        shuffled = table.clock()
        assert type(next(steps)) is Press
        assert table.controller.inputs == 1
        assert table.clock() - shuffled >= RESEND_AFTER
        with table.sim.locked():
            assert table.sim.devices["panel"].line.counters.dropped == 1


def test_without_a_tick_the_devices_time_stands_still_while_the_dealer_waits(
    tmp_path: Path,
) -> None:
    """A dealer without a tick moves no device's clock while it waits: the press the line lost
    is never resent, and the wait runs out."""
    with sim_table(tmp_path) as table:
        steps = _press_lost(table, timeout=0.5)
        shuffled = table.clock()
        with pytest.raises(TimeoutError, match="waits for input 1"):
            next(steps)
        assert (table.controller.inputs, table.clock()) == (0, shuffled)


def test_a_rebuy_is_refused_as_the_controller_cannot_take_it(tmp_path: Path) -> None:
    """The controller learns of chips only from its configuration: a bot's rebuy is an error
    that names the seat and the chips."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=1)
        with pytest.raises(RunnerError, match="rebuy of 100 chips for seat 2: the controller"):
            bot.runner.perform(Rebuy(2, 100))


def test_a_restarted_controller_is_followed_from_its_count(tmp_path: Path) -> None:
    """``follow`` hands the dealer to a controller rebuilt from the journal, whose count of
    inputs starts again; the listener of the old one no longer moves the dealer."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=2)
        assert bot.run(hands=1) == 1
        old = table.controller
        table.stop_controller()
        controller: Controller = table.start_controller()
        bot.follow(controller)
        assert bot.expected == controller.inputs == 0
        seen: list[Event] = []
        controller.listeners.append(lambda _c, events: seen.extend(events))
        assert bot.run() == 1
        assert controller.inputs == len(bot.bot.records[1].inputs)
        assert old is not controller
    assert seen


def test_a_new_hand_waits_for_the_controller_to_welcome_a_plugged_in_shoe(
    tmp_path: Path,
) -> None:
    """A controller that has not welcomed the shoe yet (just started, restarted, or here: the
    shoe fell silent and is heard again) is paused and refuses a new hand (docs/app.md,
    Devices lost and found): the dealer waits until the plugged-in shoe is welcomed before it
    presses it, and the hand settles as the bot's table settled it (it was refused 1 run in 3
    when the dealer started with the controller)."""
    with sim_table(tmp_path, link={"backoff_max": 0.1}) as table:
        controller = table.controller
        clock = table.clock
        assert isinstance(clock, ManualClock)
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.silence("shoe")  # deaf and mute, still plugged in
        while controller.core.paused_by != ["shoe"]:  # the host's silence check, on its clock
            clock.advance(0.5)
            wait_until(lambda: controller.core.paused_by == ["shoe"], 0.2)
        refused: list[Event] = []
        controller.listeners.append(
            lambda _ctl, events: refused.extend(e for e in events if isinstance(e, Refused))
        )
        # While it waits, the devices' time passes (the shoe's hellos, the host's queries).
        bot = dealer(table, hands=1, tick=0.1)
        acts = bot.acts()
        assert isinstance(next(acts), Shuffle)

        def speak_once_waiting() -> None:
            assert wait_until(lambda: bot._unwelcomed() == ["shoe"], PATIENCE)
            table.sim.speak("shoe")

        helper = threading.Thread(target=speak_once_waiting)
        helper.start()
        assert next(acts) == Press(Button.NEW_HAND)  # pressed once the shoe was welcomed
        helper.join()
        for _act in acts:
            pass
        assert refused == []
        (settled,) = controller.core.results
    assert bot.bot.records[0].differences(settled) == []
