"""Whole hands of each game dealt by the bench bot with the keypad panel
(docs/hardware-keypad.md): the controller takes the same presses from the simulator's keypad
as from the protocol panel (the same seed deals the same hands to the same results), and
journals each with a host-made origin."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, sequenced, sim_table

from controller.poker.games import GAMES
from controller.table.loop import wait_until
from drivers.keypad.backend import KeypadSettings
from drivers.seam.device import DeviceHeld
from drivers.seam.settings import DeviceSettings
from simulator.demo import run_headless
from simulator.keypad import SimKeypad, fit_keypad, keypad_panel

HANDS = 3


def deal(
    tmp_path: Path, game: str, keypad: tuple[SimKeypad, KeypadSettings] | None = None
) -> tuple[dict[int, int], int, int]:
    """Deal HANDS hands of ``game``; the table's results, hands finished and inputs taken."""
    devices = {"panel": keypad[1]} if keypad else {}
    with sim_table(tmp_path, game, devices=devices) as table:
        if keypad is not None:
            fit_keypad(table.sim, keypad[0], keypad[1].keymap)
        assert dealer(table, hands=HANDS).run() == HANDS
        core = table.controller.core
        return dict(core.net), core.finished, table.controller.inputs


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_keypad_deals_the_same_hands_as_the_protocol_panel(tmp_path: Path, game: str) -> None:
    protocol = deal(tmp_path / "protocol", game)
    with keypad_panel(f"hands-{game}") as fitted:
        keyed = deal(tmp_path / "keypad", game, fitted)
    assert keyed == protocol
    assert keyed[1] == HANDS
    presses = sequenced(tmp_path / "keypad" / "journal", "panel")
    assert presses, "no press of the keypad was journaled"
    boots = {boot for boot, _seq in presses}
    assert len(boots) == 1
    assert next(iter(boots)).startswith("H")
    assert [seq for _boot, seq in presses] == list(range(len(presses)))


def test_the_headless_demo_deals_on_the_keypad_panel(tmp_path: Path) -> None:
    """tablectl demo --headless --panel keypad: the hands are dealt, the journal intact."""
    summary = run_headless("triple-draw", 2, tmp_path, seed=3, panel="keypad")
    assert (summary.hands, summary.journal_intact) == (2, True)
    assert "(the keypad's presses take no acknowledgement)" in summary.lines()[1]


def test_a_keypad_grabbed_by_another_program_keeps_the_table_shut_naming_it(
    tmp_path: Path,
) -> None:
    """The controller's claim refuses the table's start (DeviceHeld, as a tty another program
    holds: docs/drivers.md, One controller per device), naming the keypad."""
    with keypad_panel("held") as (keypad, settings):
        keypad.held_elsewhere = True
        with (
            pytest.raises(DeviceHeld, match="keypad sim://held/keypad is grabbed by another"),
            sim_table(tmp_path, "mambo", devices={"panel": settings}),
        ):
            pass


def test_the_keypad_unplugged_mid_hand_pauses_the_table_and_its_replug_resumes_it(
    tmp_path: Path,
) -> None:
    """As a lost panel does (docs/app.md, Devices lost and found): the keypad unplugged in
    the middle of a hand pauses the table; plugged back (udev's 'add' seen by the
    application's monitor: ``replugged``), it is up again, the pause ends, and the hand is
    dealt to its end with every press of the bot taken once."""
    with keypad_panel("mid-hand") as (keypad, settings):
        devices: dict[str, DeviceSettings] = {"panel": settings}
        with sim_table(tmp_path, "five-card-stud", devices=devices) as table:
            fit_keypad(table.sim, keypad, settings.keymap)
            controller = table.controller
            bot = dealer(table, hands=1)
            acts = bot.acts()
            for _ in range(12):  # the shuffle, the new hand, the first cards dealt
                next(acts)
            keypad.unplug()
            assert wait_until(lambda: controller.core.paused_by == ["panel"], PATIENCE)
            keypad.plug()
            controller.panel.replugged("panel", None)
            assert wait_until(lambda: controller.core.paused_by == [], PATIENCE)
            for _ in acts:
                pass
            assert controller.core.finished == 1
            assert controller.inputs == bot.expected
