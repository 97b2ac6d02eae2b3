"""Checkpoints: a restart replays the journal from its last checkpoint, not from its first record
(docs/journal.md, Checkpoints), and resumes exactly as a replay of the whole journal would."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, sim_table

from controller.config.settings import JournalSettings
from controller.journal import JournalReader, JournalWriter, Record, verify
from controller.journal import tablerecords as rec
from controller.poker.engine.events import ActionRequired, Alarm, NewHandExpected
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.table.core import CheckpointMismatch, SinceCheckpoint, TableCore
from controller.table.loop import Controller, wait_until
from controller.table.opening import open_journal
from simulator.lockstep import LockstepDealer
from simulator.simtable import SimTable


def _full_replay(table: SimTable) -> TableCore:
    core = TableCore(table.spec, table.config)
    for record in JournalReader(table.journal.dir):
        core.replay(record)
    return core


def _since_last_checkpoint(table: SimTable) -> tuple[TableCore, SinceCheckpoint]:
    since = SinceCheckpoint()
    for record in JournalReader(table.journal.dir):
        since(record)
    core = TableCore(table.spec, table.config)
    first = since.records[0]
    since.feed(core)
    assert first.kind == rec.CHECKPOINT
    return core, since


def _dealt_into_hand_3(table: SimTable) -> LockstepDealer:
    """Deal four hands, the dealer stopped at hand 3's first seat to act; it resumes later."""
    bot = dealer(table, hands=4)
    halted = threading.Event()

    def halt_in_hand_3(controller: object, events: list[object]) -> None:
        core = table.controller.core
        if core.table.hand_number == 3 and isinstance(core.table.pending, ActionRequired):
            bot.stop()
            halted.set()

    table.controller.listeners.append(halt_in_hand_3)  # type: ignore[arg-type]
    bot.run()
    assert halted.is_set()
    return bot


def _played_on_to_the_dealers_results(bot: LockstepDealer, controller: Controller) -> None:
    """The restarted table plays the four hands out, to the dealer's own last result."""
    assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
    bot.follow(controller)
    bot.resume()
    bot.run()
    assert controller.core.finished == 4
    assert bot.bot.records[-1].differences(controller.core.results[-1]) == []


def _same(a: TableCore, b: TableCore) -> None:
    assert a.table.state == b.table.state
    assert a.table.pending == b.table.pending
    assert (a.records, a.finished, a.voided, a.showdowns, a.net) == (
        b.records,
        b.finished,
        b.voided,
        b.showdowns,
        b.net,
    )
    for name, device in a.devices.items():
        assert (device.boot, device.last_seq) == (b.devices[name].boot, b.devices[name].last_seq)


@pytest.mark.parametrize("game", ["mambo", "triple-draw"])
def test_a_restart_begins_at_the_last_checkpoint_and_resumes_as_a_whole_replay(
    tmp_path: Path, game: str
) -> None:
    """Stopped mid-hand 3, the table restarts from hand 2's checkpoint with the same
    next card or seat to act, pot and stacks as a replay of the whole journal, and plays on to
    the dealer's own results (14.10(c) button moves in triple draw included)."""
    with sim_table(tmp_path, game) as table:
        bot = _dealt_into_hand_3(table)
        before = table.controller.core.table.state
        table.stop_controller()
        resumed, since = _since_last_checkpoint(table)
        whole = _full_replay(table)
        assert since.skipped > 0  # hands 1 and 2 were checked by the chain, not replayed
        _same(resumed, whole)
        assert resumed.table.state == before
        controller = table.start_controller()  # the start-up replay itself
        assert controller.core.table.state == whole.table.state  # (its devices say hello now)
        assert controller.core.finished == whole.finished
        _played_on_to_the_dealers_results(bot, controller)
    assert verify(tmp_path / "journal").intact
    kinds = [r.kind for r in JournalReader(tmp_path / "journal")]
    assert kinds.count(rec.CHECKPOINT) == 4


def test_an_alarm_opened_after_a_checkpoint_is_open_after_the_restart(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: an alarm raised in hand 2, after hand 1's checkpoint, is
    open after a restart that began at that checkpoint; undo then resolves it."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=1)
        bot.run()
        controller = table.controller
        table.sim.shuffle(5)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: controller.core.table.hand_number == 2, PATIENCE)
        table.sim.foreign_tag()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
        table.stop_controller()
        resumed, _ = _since_last_checkpoint(table)
        assert isinstance(resumed.table.pending, Alarm)
        controller = table.start_controller()
        assert isinstance(controller.core.table.pending, Alarm)
        assert controller.view.build(controller.core).alarms


def test_a_torn_record_right_after_a_checkpoint_is_set_aside_and_the_table_resumes_there(
    tmp_path: Path,
) -> None:
    """A power cut while writing the record after a hand's checkpoint leaves a torn
    line; the restart sets it aside, and the table waits for the next hand as it did."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=2).run()
        stacks = table.controller.core.table.stacks
        table.stop_controller()
        files = sorted((tmp_path / "journal").glob("*.jsonl"))
        records = list(JournalReader(tmp_path / "journal"))
        assert records[-1].kind == rec.CHECKPOINT or records[-2].kind == rec.CHECKPOINT
        with files[-1].open("ab") as f:  # the start of the next record, as the writer writes it
            f.write(b'{"data":{"boot":"b1","card":"A')
        controller = table.start_controller()
        assert controller.journal.recovered_torn is not None
        assert controller.core.table.pending == NewHandExpected(3)
        assert controller.core.table.stacks == stacks


def _rewritten(records: list[Record], directory: Path, forge: int) -> None:
    """The journal rewritten with a valid chain, its ``forge``-th checkpoint's stacks edited."""
    seen = 0
    with JournalWriter.open(directory, fsync=False) as writer:
        for record in records:
            data = dict(record.data)
            if record.kind == rec.CHECKPOINT:
                seen += 1
                if seen == forge:
                    engine = dict(data["engine"])  # type: ignore[arg-type]  # a checkpoint's engine object
                    stacks = [list(pair) for pair in engine["stacks"]]  # type: ignore[union-attr]  # pairs
                    stacks[0][1] += 10
                    engine["stacks"] = stacks
                    data["engine"] = engine
            writer.append(record.kind, data)


def test_a_checkpoint_that_disagrees_with_its_records_refuses_the_start(tmp_path: Path) -> None:
    """A checkpoint whose stacks are not what its records replay to (edited, with the
    chain recomputed, or code that now plays otherwise) stops the table with a clear error:
    the last one when the start-up restores from it, an earlier one in a whole replay."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=2).run()
        table.stop_controller()
    records = list(JournalReader(tmp_path / "journal"))
    spec, config = GAMES["mambo"], SimTable("mambo", JournalSettings(tmp_path)).config
    last = tmp_path / "forged-last"
    _rewritten(records, last, forge=2)
    with pytest.raises(CheckpointMismatch, match="checkpoint's hand is as recorded, but"):
        open_journal(JournalSettings(last, fsync=False), TableCore(spec, config))
    first = tmp_path / "forged-first"
    _rewritten(records, first, forge=1)
    whole = TableCore(spec, config)
    forged = list(JournalReader(first))
    with pytest.raises(CheckpointMismatch, match=r"checkpoint's engine is .* but the records"):
        _replay_all(whole, forged)


def _replay_all(core: TableCore, records: list[Record]) -> None:
    for record in records:
        core.replay(record)


def test_a_start_on_a_multi_file_journal_resumes_as_a_whole_replay(tmp_path: Path) -> None:
    """docs/journal.md, What a start checks: with a file a hand, the table
    stopped mid-hand 3 starts from the current file (which began with hand 3's start at
    rotation and holds no checkpoint) and the previous file's end (hand 2's checkpoint): the
    same next card or seat to act, pot and stacks as a replay of the whole journal, and it
    plays on to the dealer's results (14.10(c) button moves in triple draw included)."""
    with sim_table(tmp_path, "triple-draw", hands_per_file=1) as table:
        bot = _dealt_into_hand_3(table)
        table.stop_controller()
        files = sorted((tmp_path / "journal").glob("journal-*.jsonl"))
        assert len(files) == 3
        assert rec.CHECKPOINT not in files[-1].read_text()
        whole = _full_replay(table)
        controller = table.start_controller()  # the start-up: read from the journal's end
        assert controller.core.table.state == whole.table.state
        assert controller.core.table.pending == whole.table.pending
        assert controller.core.net == whole.net
        assert controller.core.finished == whole.finished == 2
        _played_on_to_the_dealers_results(bot, controller)
    assert verify(tmp_path / "journal").intact
