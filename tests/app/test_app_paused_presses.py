"""Every button pressed while a device pauses the table is refused, on any panel: journaled,
its decision a refusal naming the pause and asking for the press again once it has ended, and a
replay of the journal refuses it again (rules-interpretation.md, Integrity: a press is never
invented or lost; docs/app.md, Devices lost and found). A card read is not refused. A journal
written before version 3 took those presses, and replays as it was written (docs/journal.md,
The schema)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from apphelp import PATIENCE, dealer, json_log, ready, sim_table

from controller.config.settings import JournalSettings
from controller.display.view import TableView
from controller.journal import JournalReader, schema
from controller.journal import tablerecords as rec
from controller.journal.files import file_name
from controller.poker.engine.events import (
    ActionRequired,
    CardDealt,
    CardExpected,
    DrawExpected,
    Event,
    NewHandExpected,
    Refused,
)
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ReadPoint
from controller.table.core import TableCore
from controller.table.loop import wait_until
from drivers.keypad.backend import KeypadSettings
from drivers.seam.events import (
    ButtonPressed,
    DeviceDown,
    Feed,
    HelloOutcome,
    Lid,
    Reader,
    ShoeState,
    TagRead,
)
from drivers.seam.settings import DeviceSettings
from simulator import presses
from simulator.keypad import SimKeypad, fit_keypad, keypad_panel
from simulator.presses import Decided, last_press
from simulator.simtable import demo_config, unplugged_table
from simulator.waits import journaled_up

Pending = Callable[[object], bool]


class Hands:
    """A controller without drivers, handed its devices' events one by one as the drivers hand
    them over: the shoe's reads (cards of the active deck in order) and the panel's presses."""

    def __init__(
        self, journal: Path, short: dict[int, int] | None = None, hands_per_file: int = 100
    ) -> None:
        spec = GAMES["triple-draw"]
        config = demo_config(spec)
        config = replace(config, stacks={**config.stacks, **(short or {})})
        options = JournalSettings(journal, fsync=False, hands_per_file=hands_per_file)
        self.controller = unplugged_table(options, spec.key, config=config)
        self._cards: Iterator[str] = iter(list(self.controller.decks.active.cards))
        self._shoe = self._panel = 0
        self._closed = False
        for device in ("shoe", "panel"):
            self.controller.handle(ready(device, HelloOutcome.NEW_SESSION))

    def close(self) -> None:
        """Close the journal (once)."""
        if not self._closed:
            self._closed = True
            self.controller.close()

    @property
    def core(self) -> TableCore:
        return self.controller.core

    def card(self) -> list[Event]:
        self._shoe += 1
        read = TagRead(next(self._cards), ReadPoint.DEALING_SLOT, self._shoe, self._shoe * 1000)
        self.controller.handle(read)
        return self.core.last_events

    def press(self, button: Button) -> list[Event]:
        self._panel += 1
        self.controller.handle(ButtonPressed(button, self._panel))
        return self.core.last_events

    def deal_until(self, wanted: Pending) -> None:
        """Deal, check or call, and stand pat until the table waits for ``wanted``."""
        while not wanted(self.core.table.pending):
            pending = self.core.table.pending
            if isinstance(pending, NewHandExpected):
                self.press(Button.NEW_HAND)
            elif isinstance(pending, CardExpected):
                self.card()
            elif isinstance(pending, ActionRequired):
                self.press(Button.CHECK_CALL)
            elif isinstance(pending, DrawExpected):
                self.press(Button.DRAW_DONE)
            else:
                raise AssertionError(f"the table waits for {pending}")

    def lose_the_shoe(self) -> None:
        self.controller.handle(DeviceDown("shoe", "port failed: the device was unplugged"))
        assert self.core.paused_by == ["shoe"]

    def shoe_back(self) -> None:
        self.controller.handle(ready("shoe", HelloOutcome.RESUMED))
        assert self.core.paused_by == []


@pytest.fixture
def opened() -> Iterator[list[Hands]]:
    """The tables a test opened, their journals closed after it, failed or not."""
    tables: list[Hands] = []
    yield tables
    for hands in tables:
        hands.close()


def _between_hands(pending: object) -> bool:
    return isinstance(pending, NewHandExpected)


def _to_act(pending: object) -> bool:
    return isinstance(pending, ActionRequired)


def _all_in_open(pending: object) -> bool:
    return isinstance(pending, ActionRequired) and "all_in" in {o.button for o in pending.options}


def _drawing(pending: object) -> bool:
    return isinstance(pending, DrawExpected)


#: Each button, and where the table takes it once no device pauses it.
TAKEN_AT: dict[Button, Pending] = {
    Button.NEW_HAND: _between_hands,
    Button.FOLD: _to_act,
    Button.CHECK_CALL: _to_act,
    Button.BET_RAISE: _to_act,
    Button.ALL_IN: _all_in_open,
    Button.DRAW_DONE: _drawing,
    Button.MISDEAL: _to_act,
    Button.UNDO: _to_act,
}


def refusal(button: Button, held: str = "shoe lost") -> Refused:
    name = button.value.replace("_", " ")
    return Refused(
        button.value, f"the table is paused ({held}); press {name} again once the pause has ended"
    )


def replayed(journal: Path, core: TableCore) -> TableCore:
    """A fresh core fed the whole journal: a ReplayMismatch if it decides otherwise."""
    again = TableCore(core.spec, core.config)
    for record in JournalReader(journal):
        again.replay(record)
    return again


@pytest.mark.parametrize("button", list(Button), ids=[b.value for b in Button])
def test_each_button_pressed_while_the_shoe_is_lost_is_refused_and_taken_after(
    tmp_path: Path, opened: list[Hands], button: Button
) -> None:
    """Where the table would take the press, a lost shoe makes it a refusal naming the pause
    (the table stays where it was); pressed again once the shoe is back, it is taken; the
    replay of the journal refuses and takes it again."""
    # Seat 4, first to act, short of the big blind: all-in is its option (limit: a stack no
    # larger than the bet, rules-interpretation.md).
    hands = Hands(tmp_path / "journal", {4: 1} if button is Button.ALL_IN else None)
    opened.append(hands)
    hands.deal_until(TAKEN_AT[button])
    waiting, state = hands.core.table.pending, hands.core.table.state
    hands.lose_the_shoe()
    assert hands.press(button) == [refusal(button)]
    assert (hands.core.table.pending, hands.core.table.state) == (waiting, state)
    hands.shoe_back()
    taken = hands.press(button)
    assert taken
    assert not any(isinstance(event, Refused) for event in taken), taken
    hands.close()
    records = list(JournalReader(tmp_path / "journal"))
    refused = schema.encode_events([refusal(button)])
    assert [r.data["events"] for r in records if r.kind in rec.DECISIONS].count(refused) == 1
    again = replayed(tmp_path / "journal", hands.core)  # refused again, and taken again
    assert again.last_events == taken
    assert again.table.state == hands.core.table.state


def test_a_card_read_while_the_table_is_paused_is_taken(
    tmp_path: Path, opened: list[Hands]
) -> None:
    """A card that went through the slot happened: the journal keeps it and the engine takes
    it, though the panel is lost (docs/app.md, Devices lost and found)."""
    hands = Hands(tmp_path / "journal")
    opened.append(hands)
    hands.deal_until(lambda pending: isinstance(pending, CardExpected))
    hands.controller.handle(DeviceDown("panel", "port failed: the device was unplugged"))
    assert hands.core.paused_by == ["panel"]
    (dealt, *_rest) = hands.card()
    assert isinstance(dealt, CardDealt)
    hands.close()
    replayed(tmp_path / "journal", hands.core)


def test_the_refusal_names_every_pause_and_a_replay_refuses_it_again(
    tmp_path: Path, opened: list[Hands]
) -> None:
    """A shoe with its reader failed and its feed jammed holds the table twice: a press names
    both, and is refused until both have cleared (docs/app.md, The shoe's state)."""
    hands = Hands(tmp_path / "journal")
    opened.append(hands)
    hands.deal_until(_to_act)
    hands.controller.handle(ShoeState(Lid.CLOSED, Reader.FAULT, Feed.JAM, 1))
    held = "shoe reader fault; shoe jammed"
    assert hands.press(Button.FOLD) == [refusal(Button.FOLD, held)]
    hands.controller.handle(ShoeState(Lid.CLOSED, Reader.OK, Feed.JAM, 2))
    assert hands.press(Button.FOLD) == [refusal(Button.FOLD, "shoe jammed")]
    hands.controller.handle(ShoeState(Lid.CLOSED, Reader.OK, Feed.OK, 3))
    assert not any(isinstance(e, Refused) for e in hands.press(Button.FOLD))
    hands.close()
    again = replayed(tmp_path / "journal", hands.core)
    assert again.table.state == hands.core.table.state


@pytest.mark.parametrize("panel", ["protocol", "keypad"])
def test_a_press_while_the_shoe_is_lost_is_refused_on_the_display_and_in_the_log(
    tmp_path: Path, panel: str
) -> None:
    """docs/app.md, Devices lost and found; docs/hardware-keypad.md, Unplugged and plugged
    back: the shoe unplugged as a seat is to act, the bot's press (on the protocol panel or a
    key of the keypad) is refused; the display's log shows the refusal naming the pause, the
    log has it at warning; the bot presses again once the shoe is back (it waits on the
    controller's announcements), and the hand is dealt to the end as the bot's table deals
    it."""
    views: list[TableView] = []
    with contextlib.ExitStack() as stack:
        lines = stack.enter_context(json_log(tmp_path))
        devices: dict[str, DeviceSettings] = {}
        keypad: tuple[SimKeypad, KeypadSettings] | None = None
        if panel == "keypad":
            keypad = stack.enter_context(keypad_panel("paused-press"))
            devices["panel"] = keypad[1]
        table = stack.enter_context(
            sim_table(tmp_path, link={"backoff_max": 0.1}, devices=devices, display=views.append)
        )
        if keypad is not None:
            fit_keypad(table.sim, keypad[0], keypad[1].keymap)
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        bot = dealer(table, hands=1)
        steps = bot.acts()
        while not isinstance(controller.core.table.pending, ActionRequired):
            next(steps)
        table.sim.unplug("shoe")
        assert wait_until(lambda: controller.core.paused_by == ["shoe"], PATIENCE)
        refused: list[Refused] = []
        controller.listeners.append(
            lambda _ctl, events: refused.extend(e for e in events if isinstance(e, Refused))
        )
        pressing = threading.Thread(target=next, args=(steps,), name="the bot's press")
        pressing.start()  # it waits for the pause to end once its press is refused
        assert wait_until(lambda: bool(refused), PATIENCE)
        (refusal_,) = refused
        assert refusal_.reason.startswith("the table is paused (shoe lost); press ")
        shown = f"Refused {refusal_.input}: {refusal_.reason}."
        assert wait_until(lambda: shown in views[-1].log, PATIENCE)
        table.sim.replug("shoe")
        pressing.join(PATIENCE)
        assert not pressing.is_alive()
        for _ in steps:
            pass
        assert len(refused) == 1, refused
        (settled,) = controller.core.results
        assert bot.bot.records[0].differences(settled) == []
    (warning,) = [line for line in lines if line["event"] == "refused"]
    assert warning["level"] == "warning"
    assert warning["text"] == shown


def test_a_bot_reads_a_press_refused_as_paused_in_the_journal(
    tmp_path: Path, opened: list[Hands]
) -> None:
    """simulator/presses.py: the crash tests' dealer and the floor lab's tables read the last
    press's decision there, and press again only after a refusal for the pause."""
    journal = tmp_path / "journal"
    assert last_press(journal) is None  # no journal yet
    hands = Hands(journal)
    opened.append(hands)
    hands.deal_until(_to_act)
    assert last_press(journal) is Decided.TAKEN  # the new hand
    hands.lose_the_shoe()
    hands.press(Button.CHECK_CALL)
    assert last_press(journal) is Decided.PAUSED
    hands.shoe_back()
    hands.press(Button.DRAW_DONE)  # no one is drawing: the engine's own refusal
    assert last_press(journal) is Decided.REFUSED
    hands.press(Button.CHECK_CALL)
    assert last_press(journal) is Decided.TAKEN


def test_before_the_journals_first_hand_the_engine_refuses_a_press_in_its_own_words(
    tmp_path: Path, opened: list[Hands]
) -> None:
    """docs/journal.md, Version 3: before a journal's first hand no record says the version its
    presses were made under, and nothing but a new hand can be taken: the engine refuses any
    other press itself (no one is to act), paused or not, as every version did; a new hand is
    refused for the pause at every version. Both replay."""
    hands = Hands(tmp_path / "journal")
    opened.append(hands)
    hands.lose_the_shoe()
    (fold,) = hands.press(Button.FOLD)
    assert isinstance(fold, Refused)
    assert fold.reason.startswith("no one is to act")
    assert hands.press(Button.NEW_HAND) == [refusal(Button.NEW_HAND)]
    hands.close()
    assert replayed(tmp_path / "journal", hands.core).table.hand_number == 0


def _a_hand_in_a_new_file(tmp_path: Path, opened: list[Hands]) -> tuple[Path, list[Path]]:
    """A journal of one hand a file: hand 1 void, hand 2 pressed, so its press is the first
    file's last input and its decision the second file's first record (docs/journal.md, Files
    and rotation). The journal and its two plain files."""
    journal = tmp_path / "journal"
    hands = Hands(journal, hands_per_file=1)
    opened.append(hands)
    hands.deal_until(_to_act)
    hands.press(Button.MISDEAL)  # hand 1 void: the next hand begins a file
    hands.press(Button.NEW_HAND)
    files = sorted(journal.glob("journal-*.jsonl"))
    assert len(files) == 2
    return journal, files


def _compressed(path: Path) -> None:
    """What the keeper does to a finished file, as the bots' readers see it: it is gone."""
    path.rename(path.with_suffix(".jsonl.compressed"))


def test_a_new_hands_press_is_read_taken_though_its_file_is_compressed(
    tmp_path: Path, opened: list[Hands]
) -> None:
    """The keeper compresses the file the new hand's press is in: the press reads as taken."""
    journal, files = _a_hand_in_a_new_file(tmp_path, opened)
    _compressed(files[0])
    assert last_press(journal) is Decided.TAKEN


def test_a_file_compressed_between_the_listing_and_the_reading_is_passed_over(
    tmp_path: Path, opened: list[Hands], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The keeper may compress the file closed as a hand began after the bot listed the
    journal's files and before it reads them: the press still reads as taken, from the newer
    file, and nothing raises."""
    journal, files = _a_hand_in_a_new_file(tmp_path, opened)
    tail = presses._tail

    def compressed_first(path: Path) -> list[str]:
        if path == files[0]:
            _compressed(path)  # the keeper, just now
        return tail(path)

    monkeypatch.setattr(presses, "_tail", compressed_first)
    assert last_press(journal) is Decided.TAKEN


def test_a_newest_file_rotated_between_the_listing_and_the_reading_is_listed_again(
    tmp_path: Path, opened: list[Hands], monkeypatch: pytest.MonkeyPatch
) -> None:
    """journaled_up reads the newest plain file; a hand that begins between its listing and
    its reading closes that file (and the keeper compresses it): it lists the files again and
    reads the new newest, which began with a hand, so both devices were up."""
    journal, files = _a_hand_in_a_new_file(tmp_path, opened)
    read_text = Path.read_text

    def rotated_first(path: Path, *args: Any, **kwargs: Any) -> str:
        if path == files[-1] and path.exists():
            following = path.with_name(file_name(3))
            following.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
            _compressed(path)  # the writer rotated, the keeper compressed, just now
        return read_text(path, *args, **kwargs)

    monkeypatch.setattr(Path, "read_text", rotated_first)
    assert journaled_up(journal)
