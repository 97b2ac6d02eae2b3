"""Dealer training in ``tablectl demo``: each training key on the real demo (the
simulator, the controller and its dealer bot, the training display under Textual's pilot),
the scene the dealer sees, and the demo carrying on as the real table recovers.

The dealer is paused mid-hand before a key, so the key lands in a hand; the devices' time is
a ManualClock (the dealer's pace moves it). docs/display.md, Dealer training.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from apphelp import PATIENCE
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from controller.display.demo_app import (
    TRAINING_KEYS,
    TrainingDisplay,
    TrainingHelp,
    TrainingNote,
)
from controller.display.widgets import AlarmBanner, DeviceBanner, LogPanel
from controller.poker.engine.events import CardDealt, Event
from controller.poker.engine.machine import IN_HAND
from controller.table.loop import Controller
from simulator.clock import ManualClock
from simulator.demo import DemoTable, training_table

Scene = Callable[[TrainingDisplay, Pilot[None], DemoTable], Awaitable[None]]


def text(widget: Static) -> str:
    return str(widget.content)


async def until(pilot: Pilot[None], holds: Callable[[], bool], what: str) -> None:
    """Let the display run until ``holds()``; fail naming ``what`` after PATIENCE."""
    deadline = time.monotonic() + PATIENCE
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen within {PATIENCE} s: {what}")
        await pilot.pause(0.02)


@contextmanager
def paused_mid_hand(demo: DemoTable, cards: int = 4) -> Iterator[threading.Event]:
    """Pause the dealer once ``cards`` cards of a hand are dealt (the event is set then): its
    next act waits for ``runner.unpause``."""
    reached = threading.Event()
    dealt = [0]

    def listen(_ctl: Controller, events: list[Event]) -> None:
        dealt[0] += sum(isinstance(e, CardDealt) for e in events)
        if dealt[0] >= cards and not reached.is_set():
            demo.dealer.runner.pause()
            reached.set()

    demo.table.controller.listeners.append(listen)
    yield reached


def on_the_demo(tmp_path: Path, scene: Scene) -> None:
    """Run ``scene`` on the training display of a live demo table (five-card stud)."""

    async def run() -> None:
        with training_table(
            "five-card-stud", tmp_path, seed=5, pace=0.0, clock=ManualClock()
        ) as demo:
            first = demo.sink.latest
            assert first is not None
            app = TrainingDisplay(first, demo.trainer.actions())
            stop = threading.Event()
            dealer = threading.Thread(target=demo.deal, args=(stop,), name="test-demo-dealer")
            # Notifications on, as in the real demo: a toast would be drawn over the screen.
            async with app.run_test(size=(120, 40), notifications=True) as pilot:
                demo.sink.attach(app)
                dealer.start()
                try:
                    await scene(app, pilot, demo)
                finally:
                    stop.set()
                    dealer.join()

    asyncio.run(run())


async def hand_in_play_paused(pilot: Pilot[None], demo: DemoTable, reached: threading.Event) -> int:
    """Wait until the dealer is paused mid-hand with the controller up to date; the hands
    finished so far."""
    controller = demo.table.controller
    await until(pilot, reached.is_set, "the dealer paused mid-hand")
    await until(
        pilot,
        lambda: controller.inputs == demo.dealer.expected,
        "the controller took all the dealer did",
    )
    assert controller.core.table.phase in IN_HAND
    return controller.core.finished


async def carries_on(pilot: Pilot[None], demo: DemoTable, finished: int) -> None:
    """The demo deals on: two more hands are over."""
    controller = demo.table.controller
    await until(pilot, lambda: controller.core.finished >= finished + 2, "two more hands over")


def test_the_help_lists_the_training_keys(tmp_path: Path) -> None:
    """``?`` shows the display's help and every training key with what it does."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        del demo
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, TrainingHelp), "the help")
        shown = text(app.screen.query_one("#help", Static))
        assert "DEALER TRAINING" in shown
        for key, name, what in TRAINING_KEYS:
            assert f"[b]{key}[/b] {name}: {what}" in shown

    on_the_demo(tmp_path, scene)


def uncovered(app: TrainingDisplay, widget: Widget) -> bool:
    """Whether every cell of ``widget`` shows it (or its own content), no other widget over it."""
    region = widget.region
    assert region.area, f"{widget} has no place on the screen"
    return all(
        app.screen.get_widget_at(x, y)[0] in (widget, *widget.walk_children())
        for y in range(region.y, region.bottom)
        for x in range(region.x, region.right)
    )


def test_a_training_keys_note_covers_none_of_the_log_lines(tmp_path: Path) -> None:
    """What a key did shows in its own line below the log (docs/display.md, Dealer training),
    not over the log lines the key's effect is read in."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        with paused_mid_hand(demo) as reached:
            await hand_in_play_paused(pilot, demo, reached)
            log, note = app.query_one(LogPanel), app.query_one(TrainingNote)
            assert not note.display
            await pilot.press("m")
            await until(pilot, lambda: "Misdeal: hand" in text(log), "the misdeal in the log")
            await until(pilot, lambda: bool(note.display and text(note)), "the key's note")
            await pilot.pause()
            assert len(text(log).splitlines()) > 1
            assert uncovered(app, log), "the note (or a toast) is drawn over the log"
            assert uncovered(app, note)
            assert note.region.y >= log.region.bottom
            demo.dealer.runner.unpause()

    on_the_demo(tmp_path, scene)


def test_a_card_of_the_other_deck_raises_the_alarm_and_undo_resolves_it(tmp_path: Path) -> None:
    """``a`` mid-hand: a card of the other deck passes the slot; the red banner holds the hand
    (rules-interpretation.md, Integrity) and the dealer waits; ``u`` (undo) dismisses the read, the
    banner goes, and the hand and the next are dealt and settled."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        with paused_mid_hand(demo) as reached:
            finished = await hand_in_play_paused(pilot, demo, reached)
            await pilot.press("a")
            banner = app.query_one(AlarmBanner)
            await until(pilot, lambda: "other deck" in text(banner), "the alarm's banner")
            assert banner.display
            demo.dealer.runner.unpause()
            await until(
                pilot,
                lambda: (demo.dealer.runner.holding() or "").startswith("the controller holds"),
                "the dealer waiting for the alarm to be resolved",
            )
            await pilot.press("u")
            await until(pilot, lambda: not banner.display, "the alarm resolved")
            await carries_on(pilot, demo, finished)

    on_the_demo(tmp_path, scene)


def test_misdeal_voids_the_hand_and_the_demo_deals_the_next(tmp_path: Path) -> None:
    """``m`` mid-hand: the hand is void, every bet returned (rules-interpretation.md, Integrity),
    the log says so; the dealer shuffles for the next hand and the demo goes on."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        controller = demo.table.controller
        with paused_mid_hand(demo) as reached:
            finished = await hand_in_play_paused(pilot, demo, reached)
            hand = controller.core.table.hand_number
            await pilot.press("m")
            log = app.query_one(LogPanel)
            void = f"Misdeal: hand {hand} is void"
            await until(pilot, lambda: void in text(log), "the void hand in the log")
            assert controller.core.voided == 1
            demo.dealer.runner.unpause()
            await carries_on(pilot, demo, finished)

    on_the_demo(tmp_path, scene)


def test_the_shoe_unplugged_pauses_the_table_until_it_is_plugged_back(tmp_path: Path) -> None:
    """``s`` mid-hand: the shoe's cable is out; the device banner says the table is paused
    and what to do (docs/app.md, Devices lost and found) and the dealer waits; ``s`` again
    plugs it back in: the banner goes and the demo deals on."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        with paused_mid_hand(demo) as reached:
            finished = await hand_in_play_paused(pilot, demo, reached)
            await pilot.press("s")
            banner = app.query_one(DeviceBanner)
            lost = "Table paused: shoe lost. Reconnect the shoe; the hand resumes where it stopped."
            await until(pilot, lambda: lost in text(banner), "the device-lost banner")
            demo.dealer.runner.unpause()
            await until(
                pilot,
                lambda: (demo.dealer.runner.holding() or "").startswith("the shoe is unplugged"),
                "the dealer waiting for the shoe",
            )
            await pilot.press("s")
            await until(pilot, lambda: not banner.display, "the shoe back")
            await carries_on(pilot, demo, finished)

    on_the_demo(tmp_path, scene)


def test_a_jam_pauses_the_table_until_the_card_is_freed(tmp_path: Path) -> None:
    """``j`` mid-hand: a card sticks in the shoe's slot; the banner says the table is paused
    and how to free it (docs/app.md, The shoe's state); ``j`` again frees it and the demo
    deals on."""

    async def scene(app: TrainingDisplay, pilot: Pilot[None], demo: DemoTable) -> None:
        with paused_mid_hand(demo) as reached:
            finished = await hand_in_play_paused(pilot, demo, reached)
            await pilot.press("j")
            banner = app.query_one(DeviceBanner)
            await until(
                pilot, lambda: "a card is jammed in the shoe's slot" in text(banner), "the jam"
            )
            demo.dealer.runner.unpause()
            await pilot.press("j")
            await until(pilot, lambda: not banner.display, "the jam freed")
            await carries_on(pilot, demo, finished)

    on_the_demo(tmp_path, scene)
