"""The dealer's display running headless: what each widget shows, live updates, keys."""

from __future__ import annotations

import asyncio
import dataclasses
import threading

from display_harness import SMALL, run_display, settle
from rich.text import Text
from textual.pilot import Pilot
from textual.widgets import Digits, Static

from controller.display.app import ConfirmQuit, DealerDisplay, HelpScreen, seat_boxes
from controller.display.demo import (
    alarm,
    between_hands,
    bring_in,
    device_lost_scene,
    draw,
    showdown,
)
from controller.display.view import AlarmView, SeatView, Severity, TableView
from controller.display.widgets import (
    ActPanel,
    AlarmBanner,
    DealerPromptPanel,
    DeviceBanner,
    HeaderBar,
    NextCardPanel,
    PotPanel,
    PromptText,
    SeatBox,
    ShowdownPanel,
    TableGrid,
)


def _text(widget: Static) -> str:
    """The plain text a Static shows."""
    return str(widget.content)


def _box(app: DealerDisplay, seat: int) -> SeatBox:
    return app.query_one(f"#seat-{seat}", SeatBox)


def test_the_bring_in_seat_is_shown_to_act_in_large_digits_with_its_options() -> None:
    """14.13A(d): the lowest up-card brings in; the screen names the seat, why, and the buttons."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        act = app.query_one(ActPanel)
        assert act.display
        assert act.border_title == "SEAT 6 TO ACT"
        assert app.query_one("#act-digits", Digits).value == "6"
        prompt = _text(app.query_one(PromptText))
        assert "Brings in: lowest up-card, 2 of clubs (14.13A(d))" in prompt
        assert "CHECK/CALL  bring in 2" in prompt
        assert "BET/RAISE  complete to 5" in prompt
        assert _box(app, 6).has_class("-to-act")
        assert _box(app, 6).border_subtitle == "TO ACT"
        assert [box.has_class("-to-act") for box in seat_boxes(app)].count(True) == 1
        assert not app.query_one(AlarmBanner).display
        assert not app.query_one(DeviceBanner).display

    run_display(bring_in(), script)


def test_an_integrity_alarm_fills_the_width_in_red_and_says_what_to_do() -> None:
    """rules-interpretation.md, Integrity: a card seen twice holds the hand; the banner says how to
    resolve it."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        banner = app.query_one(AlarmBanner)
        assert banner.display
        assert banner.outer_size.width == app.size.width
        text = _text(banner)
        assert "A card at the slot: the card was already seen this hand (seat 3)." in text
        assert "Put the card aside and press UNDO, or press MISDEAL." in text
        assert banner.styles.background.hex.lower() == "#b00020"
        assert _box(app, 5).has_class("-next-card")
        assert "Seat 5, face up" in _text(app.query_one(NextCardPanel))

    run_display(alarm(), script)


def test_a_lost_shoe_pauses_the_table_in_a_warning_of_its_own() -> None:
    """The device banner is not the alarm banner; the seat to act stays, greyed and paused."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        devices = app.query_one(DeviceBanner)
        assert devices.display
        assert not app.query_one(AlarmBanner).display
        assert (
            "Table paused: shoe lost. Reconnect the shoe; the hand resumes where it stopped."
            in _text(devices)
        )
        act = app.query_one(ActPanel)
        assert act.has_class("-paused")
        assert act.border_title == "SEAT 3 TO ACT · PAUSED"
        assert "SHOE ✖ LOST" in _text(app.query_one(HeaderBar))

    run_display(device_lost_scene(), script)


def test_the_draw_shows_the_replacement_due_and_the_button() -> None:
    """14.12A(f): the discarded cards are replaced one by one; the screen says for which seat."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        assert "Replacement for seat 4" in _text(app.query_one(NextCardPanel))
        assert app.query_one(NextCardPanel).border_title == "NEXT CARD"
        assert app.query_one(NextCardPanel).has_class("-due")
        assert "1 of 2 replacements" in _text(app.query_one(NextCardPanel))
        assert _box(app, 4).has_class("-next-card")
        assert _box(app, 1).has_class("-out")
        assert "D" in str(_box(app, 1).border_title)
        assert not app.query_one(ActPanel).display

    run_display(draw(), script)


def test_the_showdown_marks_each_winner_and_the_split_and_odd_chip() -> None:
    """14.13A(j), (j)1: high and low divide the pot; the odd chip goes to the best high hand."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        assert _box(app, 5).border_subtitle == "WINS 48"
        assert _box(app, 2).border_subtitle == "WINS 47"
        assert _box(app, 7).border_subtitle == "ALL-IN"
        assert "pair of kings" in _text(_box(app, 5))
        assert "four-two-ace low" in _text(_box(app, 2))
        panel = app.query_one(ShowdownPanel)
        assert panel.display
        assert panel.part is not None
        assert panel.part.won_by(5) == 48

    run_display(showdown(), script)


def test_views_shown_from_another_thread_appear_and_the_newest_wins() -> None:
    """``show`` is safe from the adapter's thread; a burst of views ends on the last one."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        base = bring_in()
        burst = [
            dataclasses.replace(base, hand_number=base.hand_number + i)  # type: ignore[operator]
            for i in range(1, 51)
        ]
        burst.append(alarm())
        feeder = threading.Thread(target=lambda: [app.show(v) for v in burst], name="adapter")
        feeder.start()
        feeder.join()
        # Generous: it costs nothing once the last view is drawn, and a loaded machine is slow.
        assert await settle(pilot, lambda: app.view == burst[-1], seconds=30.0)
        assert app.query_one(AlarmBanner).display
        assert "Hand #88" in _text(app.query_one(HeaderBar))

    run_display(bring_in(), script)


def test_only_the_parts_that_changed_are_redrawn() -> None:
    """A bet at seat 3 redraws seat 3 and the pot line, not the other seats or the banners."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        before = {box.part.seat.number: box.draws for box in seat_boxes(app)}
        others = {
            type(w).__name__: w.draws
            for w in (
                app.query_one(AlarmBanner),
                app.query_one(HeaderBar),
                app.query_one(NextCardPanel),
                app.query_one(PromptText),
            )
        }
        pot_draws = app.query_one(PotPanel).draws
        view = app.view
        seats = tuple(
            dataclasses.replace(seat, bet=5, stack=194) if seat.number == 3 else seat
            for seat in view.seats
        )
        app.show(dataclasses.replace(view, seats=seats))
        await pilot.pause()
        after = {box.part.seat.number: box.draws for box in seat_boxes(app)}
        assert after[3] == before[3] + 1
        assert {n: after[n] for n in after if n != 3} == {n: before[n] for n in before if n != 3}
        now = {
            type(w).__name__: w.draws
            for w in (
                app.query_one(AlarmBanner),
                app.query_one(HeaderBar),
                app.query_one(NextCardPanel),
                app.query_one(PromptText),
            )
        }
        assert now == others
        assert app.query_one(PotPanel).draws == pot_draws + 1
        assert "+ 5 in front" in _text(app.query_one(PotPanel))
        assert "bet 5" in _text(_box(app, 3))

    run_display(bring_in(), script)


def test_a_change_of_seats_lays_the_table_out_again() -> None:
    """Going from eleven seats to five rebuilds the grid with the new seats."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        assert len(list(seat_boxes(app))) == 11
        app.show(device_lost_scene())
        await pilot.pause()
        assert [box.part.seat.number for box in seat_boxes(app)] == [1, 2, 3, 4, 5]
        assert len(app.query(TableGrid)) == 1

    run_display(bring_in(), script)


def test_q_during_a_hand_asks_first_and_n_keeps_the_display() -> None:
    """Closing the screen mid-hand takes a second key: ``y`` closes, ``n`` stays."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> bool:
        await pilot.press("q")
        assert isinstance(app.screen, ConfirmQuit)
        await pilot.press("n")
        assert not isinstance(app.screen, ConfirmQuit)
        assert app.is_running
        await pilot.press("q", "y")
        await pilot.pause()
        return app.is_running

    assert run_display(bring_in(), script) is False


def test_q_between_hands_quits_at_once() -> None:
    """With no hand in progress there is nothing to lose."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> bool:
        await pilot.press("q")
        await pilot.pause()
        return app.is_running

    assert run_display(showdown(), script) is False


def test_at_80_by_24_the_device_lights_and_the_alarm_stay_readable() -> None:
    """On the smallest screen the header keeps the lights and the banner keeps what to do."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        header = _text(app.query_one(HeaderBar))
        assert header.rstrip().endswith("PANEL ●")
        assert "SHOE ●" in header
        assert "press MISDEAL" in _text(app.query_one(AlarmBanner))
        assert app.screen.has_class("narrow")
        for box in seat_boxes(app):
            assert Text.from_markup(str(box.border_title)).cell_len <= box.outer_size.width - 4

    run_display(alarm(), script, SMALL)


def test_every_seat_of_an_eleven_seat_table_is_on_screen_at_80_by_24() -> None:
    """14.13A(b): eleven players; each seat box is inside the screen and shows its up-card."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        for box in seat_boxes(app):
            region = box.region
            assert region.width > 0
            assert region.height >= 4
            assert region.right <= app.size.width
            assert region.bottom <= app.size.height
        assert "2" in _text(_box(app, 6))
        assert str(_box(app, 11).border_title) == "11 · Kasia"

    run_display(bring_in(), script, SMALL)


def _two_seats() -> TableView:
    return TableView("Five-Card Stud", "T", (SeatView(1, "A"), SeatView(2, "B")))


def test_a_heads_up_table_lays_out_without_a_top_row() -> None:
    """Two seats: seat 1 on the dealer's left, seat 2 on the right, the felt between."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        one, two = _box(app, 1).region, _box(app, 2).region
        assert one.x < two.x
        assert one.y == two.y

    run_display(_two_seats(), script)


def test_question_mark_opens_the_help_and_the_table_follows_behind_it() -> None:
    """``?`` explains the display; views keep coming behind it; escape shows the table current."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        app.show(device_lost_scene())
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert [box.part.seat.number for box in seat_boxes(app)] == [1, 2, 3, 4, 5]
        assert app.query_one(DeviceBanner).display
        assert app.screen.query_one(TableGrid) is app.query_one(TableGrid)

    run_display(bring_in(), script)


def test_an_alarm_of_warnings_only_is_amber_not_red() -> None:
    """Only an alarm that holds the hand (rules-interpretation.md, Integrity) is red; a warning is
    amber."""
    warning = AlarmView(Severity.WARNING, "Stack of seat 3 unknown.", "Count the stack.")

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        banner = app.query_one(AlarmBanner)
        assert banner.has_class("-warnings")
        assert " WARNING  Stack of seat 3 unknown." in _text(banner)
        app.show(dataclasses.replace(app.view, alarms=(warning, *alarm().alarms)))
        await pilot.pause()
        assert not banner.has_class("-warnings")

    run_display(dataclasses.replace(bring_in(), alarms=(warning,)), script)


def test_a_view_shown_before_the_display_starts_is_drawn_when_it_starts() -> None:
    """The adapter may have a newer view before the screen is up; the screen starts on it."""

    async def session() -> int | None:
        app = DealerDisplay(bring_in())
        app.show(alarm())
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            return app.view.hand_number

    assert asyncio.run(session()) == 88


def test_a_view_shown_after_the_display_closed_is_dropped_quietly() -> None:
    """A late view from the adapter neither raises nor waits for a screen that is gone."""

    async def session() -> DealerDisplay:
        app = DealerDisplay(bring_in())
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
        return app

    app = asyncio.run(session())
    app.show(alarm())
    app.show(draw())
    assert app.view.hand_number == 1042


def test_between_hands_the_felt_tells_the_dealer_what_to_do() -> None:
    """With no seat to act and no card due, the dealer's own task is on the felt."""

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> None:
        prompt = app.query_one(DealerPromptPanel)
        assert prompt.display
        assert _text(prompt) == "DEALER Shuffle and cut the other deck, then press NEW HAND"
        assert not app.query_one(ActPanel).display
        assert not app.query_one(PotPanel).display
        assert _box(app, 6).border_subtitle == "SITTING OUT"
        app.show(bring_in())
        await pilot.pause()
        assert not prompt.display
        assert app.query_one(PotPanel).display

    run_display(between_hands(), script)


class _ViewWhileClosing(DealerDisplay):
    """A display that is handed a view after its screens are taken down and before its message
    loop ends (as ``App._shutdown`` does them), and waits until it has been handled."""

    async def _close_all(self) -> None:
        await super()._close_all()
        self.handled = asyncio.Event()
        self.show(alarm())
        await self.handled.wait()

    async def on_dealer_display_view_ready(self, message: DealerDisplay.ViewReady) -> None:
        try:
            await super().on_dealer_display_view_ready(message)
        finally:
            if hasattr(self, "handled"):
                self.handled.set()


def test_a_view_shown_while_the_display_closes_is_dropped_quietly() -> None:
    """The table's thread may hand over a view while the display is closing, its widgets
    already gone and its message loop still running: nothing is drawn, nothing raises (a
    fresh-clone CI run once failed tests/app/test_demo_training.py on NoMatches 'HeaderBar')."""

    async def session() -> DealerDisplay:
        app = _ViewWhileClosing(bring_in())
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
        return app

    app = asyncio.run(session())
    assert app.view.hand_number == 1042
