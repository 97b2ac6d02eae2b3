"""The bench's dealer bot follows the controller: the simulator and a real controller
on its ptys, dealt by the runner ``tablectl sim --bot`` builds (``botcli.bench_runner``), with the
technician's console beside it, as on a bench.

A paused table refuses a new hand; the bot makes no act while the table is paused and goes on
when it resumes; after a misdeal or an undo pressed at the console it follows what the
controller says the table waits for; ``bot pause``, ``bot resume`` and ``bot stop``.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from devtime import WAIT

from controller.config.settings import JournalSettings, LogFormat, LogSettings
from controller.display.view import TableView
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.engine.events import Refused
from controller.poker.inputs import Button
from controller.table.loop import wait_until
from simulator.botcli import bench_runner
from simulator.clock import ManualClock
from simulator.console import Console
from simulator.pace import Pace
from simulator.random_bot import RandomBot
from simulator.runner import BotRunner
from simulator.simtable import SimTable


@dataclass
class Bench:
    """The simulator and its controller (``table``), the bot's runner and the console."""

    table: SimTable
    bot: RandomBot
    runner: BotRunner
    console: Console
    out: io.StringIO
    #: Every ``bot: ...`` line, in order, as the console would print them.
    said: list[str] = field(default_factory=list)
    #: Runs on the bot's thread on each line it says (before the bot's next act).
    on_line: Callable[[str], None] | None = None
    _cond: threading.Condition = field(default_factory=threading.Condition)
    thread: threading.Thread | None = None

    def say(self, line: str) -> None:
        with self._cond:
            self.said.append(line)
            self._cond.notify_all()
        if self.on_line is not None:
            self.on_line(line)

    def wait_said(self, text: str, after: int = 0) -> int:
        """Wait until a line from ``after`` on holds ``text``; its index."""
        with self._cond:
            found = self._cond.wait_for(
                lambda: any(text in line for line in self.said[after:]), WAIT
            )
            assert found, f"no line with {text!r} in {self.said[after:]}"
            return next(i for i, line in enumerate(self.said) if i >= after and text in line)

    def command(self, line: str) -> str:
        """One console command; what it printed."""
        start = len(self.out.getvalue())
        self.console.onecmd(line)
        return self.out.getvalue()[start:]

    def start(self) -> None:
        """The bot deals from now on, once the controller has welcomed both devices."""

        def deal() -> None:
            if self.runner.wait_for_host():
                self.runner.run()

        self.thread = threading.Thread(target=deal, name="test-bench-bot")
        self.thread.start()

    def finish(self) -> None:
        """Wait for the bot's last hand (its thread's end)."""
        assert self.thread is not None
        self.thread.join(WAIT)
        assert not self.thread.is_alive(), self.said[-5:]

    def agrees(self) -> None:
        """Every hand the bot played settled on the controller as the bot's table settled it."""
        results = list(self.table.controller.core.results)
        assert len(results) == len(self.bot.records), self.said
        for record, result in zip(self.bot.records, results, strict=True):
            assert record.differences(result) == []


@contextmanager
def bench(
    tmp_path: Path, hands: int, *, pace: Pace | None = None, views: list[TableView] | None = None
) -> Iterator[Bench]:
    options = JournalSettings(tmp_path / "journal", fsync=False)
    with SimTable(
        "mambo",
        options,
        seed=3,
        seats=3,
        transport="pty",
        directory=tmp_path,
        # The devices' time is the test's (the bot's pace moves it); the drivers reopen a
        # replugged port quickly (their backoff is on the wall clock).
        clock=ManualClock(),
        link={"backoff_max": 0.1},
        display=views.append if views is not None else None,
    ) as table:
        controller = table.controller
        bot = RandomBot(
            table.spec,
            seed=3,
            hands=hands,
            rebuy=None,
            config=table.config,
            alternate_decks=controller.alternate_decks,
            first_deck=controller.next_hand_deck,
        )
        out = io.StringIO()
        console = Console(table.sim, io.StringIO(), out, interactive=False)
        holder: list[Bench] = []
        runner = bench_runner(
            bot,
            table.sim,
            pace or Pace.fast(table.repeat_window),
            lambda text: holder[0].say(text),  # noqa: PLW0108 holder[0] is made after
        )
        console.runner = runner
        holder.append(Bench(table, bot, runner, console, out))
        try:
            yield holder[0]
        finally:
            runner.stop()
            if holder[0].thread is not None:
                holder[0].thread.join()


@contextmanager
def json_log(tmp_path: Path) -> Iterator[list[dict[str, Any]]]:
    """The controller's log lines (JSON, as ``tablectl run`` logs), once the block is over."""
    log = tmp_path / "tablectl.log"
    configure_logging(LogSettings(format=LogFormat.JSON, file=log), table_id="BENCH-1")
    lines: list[dict[str, Any]] = []
    try:
        yield lines
    finally:
        reset_logging()
    lines.extend(json.loads(line) for line in log.read_text(encoding="utf-8").splitlines())


def panel(table: SimTable) -> str:
    with table.sim.locked():
        return table.sim.panel.text


def between(said: list[str], first: int, last: int) -> list[str]:
    """The bot's acts said strictly between two lines."""
    return [line for line in said[first + 1 : last] if line.startswith(("bot: deal", "bot: press"))]


def test_a_paused_table_refuses_a_new_hand_on_the_panel_the_display_and_the_log(
    tmp_path: Path,
) -> None:
    """The shoe unplugged between hands: new hand is refused, saying the table is paused and
    by what (rules-interpretation.md, Integrity: every card known by its tag; docs/app.md, Devices
    lost and found); the panel keeps the pause's line, the display's log shows the refusal, the log
    has it at warning. Plugged back, the same press starts the hand."""
    views: list[TableView] = []
    with json_log(tmp_path) as lines, bench(tmp_path, hands=1, views=views) as b:
        controller = b.table.controller
        assert wait_until(lambda: not controller.core.paused_by, WAIT)
        assert b.command("fault unplug shoe") == "the shoe is unplugged\n"
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], WAIT)
        assert wait_until(lambda: panel(b.table) == "PAUSED: shoe lost", WAIT)
        taken = controller.inputs
        assert b.command("press new_hand") == "pressed new_hand\n"  # no bot runs: the panel's
        assert wait_until(lambda: controller.inputs == taken + 1, WAIT)
        (refused,) = controller.core.last_events
        assert refused == Refused(
            "new_hand",
            "the table is paused (shoe lost); press new hand again once the pause has ended",
        )
        assert controller.core.table.hand_number == 0
        assert panel(b.table) == "PAUSED: shoe lost"
        refusal = "Refused new_hand: the table is paused (shoe lost); press new hand again"
        # The view its announcement builds (after the input is counted):
        assert wait_until(lambda: bool(views[-1].log) and refusal in views[-1].log[-1], WAIT)
        b.command("fault replug shoe")
        assert wait_until(lambda: not controller.core.paused_by, WAIT)
        b.command("press new_hand")
        assert wait_until(lambda: controller.core.table.hand_number == 1, WAIT)
    (warning,) = [line for line in lines if line["event"] == "refused"]
    assert warning["level"] == "warning"
    assert "the table is paused (shoe lost)" in warning["text"]


def test_the_bot_waits_while_the_shoe_is_unplugged_and_deals_on_once_it_is_back(
    tmp_path: Path,
) -> None:
    """Mid-hand, 'fault unplug shoe': the bot says why it waits and makes no act (it dealt on
    into the unplugged shoe, and pressed new hand on a paused table); replugged, it goes on and
    every hand settles on the controller as the bot's table settled it."""
    with bench(tmp_path, hands=2) as b:
        unplugged = threading.Event()
        performed: dict[str, int] = {}

        def unplug_after_the_third_card(line: str) -> None:
            if not unplugged.is_set() and sum(s.startswith("bot: deal") for s in b.said) == 3:
                unplugged.set()
                b.table.sim.unplug("shoe")  # on the bot's thread: before its next act
            for said in ("waiting: the shoe is unplugged", "going on: the table"):
                if line.startswith(f"bot: {said}") and (performed or said.startswith("waiting")):
                    performed.setdefault(said, b.runner.performed)

        b.on_line = unplug_after_the_third_card
        b.start()
        waits = b.wait_said("waiting: the shoe is unplugged ('fault replug shoe' plugs it back in)")
        controller = b.table.controller
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], WAIT)
        b.command("fault replug shoe")
        goes_on = b.wait_said("going on: the table takes acts again", waits)
        assert between(b.said, waits, goes_on) == []
        assert performed["waiting: the shoe is unplugged"] == performed["going on: the table"]
        b.finish()
        b.agrees()


def test_a_misdeal_at_the_console_voids_the_hand_for_the_bot_too(tmp_path: Path) -> None:
    """'press misdeal' mid-hand: the controller voids the hand (rules-interpretation.md, Integrity:
    every bet returned) and so does the bot's table; the bot then shuffles for the next hand instead
    of dealing its old one, and both settle every hand alike."""
    with bench(tmp_path, hands=2) as b:

        def pause_after_the_second_card(line: str) -> None:
            if sum(s.startswith("bot: deal") for s in b.said) == 2 and line.startswith("bot: deal"):
                b.runner.pause()

        b.on_line = pause_after_the_second_card
        b.start()
        b.wait_said("waiting: paused ('bot resume' goes on)")
        assert b.command("press misdeal") == "pressed misdeal\n"
        said = b.wait_said("the technician pressed misdeal: hand 1 void")
        assert b.said[said].endswith(
            "the bot follows the controller: 'Shuffle; NEW HAND for hand 2'"
        )
        assert b.command("bot resume") == "bot resumed\n"
        b.finish()
        b.agrees()
        assert [r.settlement.kind for r in b.bot.records] == ["hand_voided", "hand_settled"]


def test_an_undo_at_the_console_takes_back_the_bots_last_card_too(tmp_path: Path) -> None:
    """'press undo' after a card: the controller and the bot's table undo the same read; the
    bot deals the card the table waits for again (the next one from the shoe) and both settle
    the hand alike."""
    with bench(tmp_path, hands=1) as b:

        def pause_after_the_fourth_card(line: str) -> None:
            if sum(s.startswith("bot: deal") for s in b.said) == 4 and line.startswith("bot: deal"):
                b.runner.pause()

        b.on_line = pause_after_the_fourth_card
        b.start()
        b.wait_said("waiting: paused")
        card = [s for s in b.said if s.startswith("bot: deal")][-1].removeprefix("bot: deal ")
        assert b.command("press undo") == "pressed undo\n"
        said = b.wait_said("the technician pressed undo:")
        assert b.said[said].startswith(f"bot: the technician pressed undo: {card} ")
        assert " undone; the bot follows the controller: 'Card to seat " in b.said[said]
        b.command("bot resume")
        b.finish()
        b.agrees()


def test_an_alarm_from_the_console_holds_the_bot_until_the_dealer_resolves_it(
    tmp_path: Path,
) -> None:
    """'fault twice' mid-hand: a card seen twice, an integrity alarm the controller holds the
    hand on (rules-interpretation.md, Integrity) and the bot did not cause: a new hand is refused,
    the bot waits, naming the panel's alarm; 'press undo' dismisses that read on the controller
    only, and the bot deals on."""
    with bench(tmp_path, hands=1) as b:

        def pause_after_the_third_card(line: str) -> None:
            if sum(s.startswith("bot: deal") for s in b.said) == 3 and line.startswith("bot: deal"):
                b.runner.pause()

        b.on_line = pause_after_the_third_card
        b.start()
        b.wait_said("waiting: paused")
        clock = b.table.clock
        assert isinstance(clock, ManualClock)
        clock.advance(1.0)  # past the shoe's repeat window: a second read, not a repeat
        assert "passed the slot again" in b.command("fault twice")
        assert wait_until(lambda: panel(b.table).startswith("ALARM "), WAIT)
        # A new hand while the alarm holds this one is refused (rules-interpretation.md, Integrity).
        controller = b.table.controller
        taken = controller.inputs
        assert b.command("press new_hand") == "pressed new_hand\n"
        assert wait_until(lambda: controller.inputs == taken + 1, WAIT)
        (refused,) = controller.core.last_events
        assert isinstance(refused, Refused)
        assert refused.input == "new_hand"
        assert refused.reason.startswith("the hand is held by an alarm")
        b.wait_said("the technician pressed new_hand: refused")
        first = len(b.said)
        b.command("bot resume")
        held = b.wait_said("waiting: the controller holds the hand: 'ALARM ", first)
        assert b.command("press undo") == "pressed undo\n"
        said = b.wait_said("it dismisses the read the bot did not make", held)
        b.wait_said("going on: the table takes acts again", said)
        assert between(b.said, held, said) == []
        b.finish()
        b.agrees()


def test_a_misdeal_while_the_bot_holds_a_chosen_card_takes_it_back(tmp_path: Path) -> None:
    """The technician's press lands while the bot has chosen its next card but not dealt it
    (during the dealer's pause before it): the card is taken back on the bot's table and stays
    in the shoe, the misdeal voids the hand on both, and the next hand agrees."""
    pace = Pace(card=0.05, button=0.05, shuffle=1.0, repeat=1.0)
    with bench(tmp_path, hands=2, pace=pace) as b:
        clock = b.table.clock
        assert isinstance(clock, ManualClock)
        pressed: list[object] = []

        def misdeal_in_the_pause_before_the_fifth_card(_now: float) -> None:
            dealt = sum(s.startswith("bot: deal") for s in b.said)
            if not pressed and dealt == 4 and b.runner._held is not None:
                pressed.append(b.runner.interject(Button.MISDEAL))

        b.start()
        unwatch = clock.watch(misdeal_in_the_pause_before_the_fifth_card)
        try:
            b.wait_said("the technician pressed misdeal: hand 1 void")
        finally:
            unwatch()
        b.finish()
        b.agrees()
        assert [r.settlement.kind for r in b.bot.records] == ["hand_voided", "hand_settled"]


def test_bot_pause_resume_and_stop_at_the_console(tmp_path: Path) -> None:
    """'bot pause' holds the bot before its next act, 'bot resume' lets it go on, 'bot stop'
    ends it; the console's help lists the command; without a bot it is an error."""
    with bench(tmp_path, hands=None) as b:  # type: ignore[arg-type]  # no end: stopped below
        assert "bot pause|resume|stop" in b.command("help")
        assert b.command("bot pause") == "bot paused: it makes no act until 'bot resume'\n"
        b.start()
        paused = b.wait_said("waiting: paused ('bot resume' goes on)")
        assert b.runner.performed == 0
        assert b.command("bot resume") == "bot resumed\n"
        b.wait_said("bot: press new_hand", paused)
        assert b.command("bot stop") == "bot stopping after the act in hand\n"
        b.finish()
        assert b.command("bot resume").startswith("error: bot: the bot has stopped")
        assert b.command("bot jump").startswith("error: bot: bot 'jump': expected pause or")
    console = Console(b.table.sim, io.StringIO(), io.StringIO(), interactive=False)
    console.onecmd("bot pause")
    assert console.failures == 1


def test_the_bot_holds_its_new_hand_while_the_table_is_paused(tmp_path: Path) -> None:
    """The shoe unplugged before the first hand: the bot holds its new hand until the shoe is
    back (the paused table would refuse it), so the controller refuses nothing and starts hand
    1 from the bot's press."""
    with bench(tmp_path, hands=1) as b:
        controller = b.table.controller
        refusals: list[Refused] = []
        controller.listeners.append(
            lambda _ctl, events: refusals.extend(e for e in events if isinstance(e, Refused))
        )
        b.command("bot pause")
        b.start()
        b.wait_said("waiting: paused")
        b.command("fault unplug shoe")
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], WAIT)
        first = len(b.said)
        b.command("bot resume")
        waits = b.wait_said("waiting: the shoe is unplugged", first)
        assert controller.core.table.hand_number == 0
        b.command("fault replug shoe")
        b.wait_said("going on", waits)
        b.finish()
        b.agrees()
        assert refusals == []
