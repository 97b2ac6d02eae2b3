"""A journal written at schema version 2, before version 3 refused every press taken while the
table is paused, replays as it was written (docs/journal.md, The schema; docs/app.md, Devices
lost and found): ``tests/fixtures/journal-v2-paused`` holds presses taken while the shoe was
lost, in a finished hand and in the hand in progress at its end (tests/fixtures/README.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.journal import JournalReader, Record, schema, verify
from controller.journal import tablerecords as rec
from controller.poker.engine.events import HandSettled, Refused
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.table.core import ReplayMismatch, SinceCheckpoint, TableCore
from simulator.simtable import demo_config

JOURNAL = Path(__file__).parent / "fixtures" / "journal-v2-paused" / "mambo"
SPEC = GAMES["mambo"]


def _core() -> TableCore:
    return TableCore(SPEC, demo_config(SPEC, 3))


def _records() -> list[Record]:
    return list(JournalReader(JOURNAL))


def _pressed_while_paused(records: list[Record]) -> list[int]:
    """The seqs of the presses other than new hand journaled while a device paused the table."""
    core, seqs = _core(), []
    for record in records:
        if record.kind == rec.BUTTON and record.data["button"] != "new_hand" and core.pauses:
            seqs.append(record.seq)
        core.replay(record)
    return seqs


@pytest.mark.fast
def test_the_version_2_journal_holds_presses_taken_while_the_shoe_was_lost() -> None:
    assert verify(JOURNAL).intact
    records = _records()
    assert {r.data.get("version") for r in records if r.kind in schema.VERSIONED} == {2}
    paused = _pressed_while_paused(records)
    assert len(paused) == 3
    decided = {r.data["input"]: schema.decode_events(r) for r in records if r.kind in rec.DECISIONS}
    taken = [seq for seq in paused if not isinstance(decided[seq][0], Refused)]
    assert len(taken) == 2  # the bring-ins; the fold between hands the engine refused itself


@pytest.mark.fast
def test_a_whole_replay_takes_them_as_version_2_did() -> None:
    core = _core()
    for record in _records():
        core.replay(record)  # a ReplayMismatch if the press were refused now
    assert (core.finished, core.table.hand_number, core.version) == (1, 2, 2)


@pytest.mark.fast
def test_the_same_records_at_version_3_would_not_replay() -> None:
    """The version is what lets them replay: declared version 3, the first press taken while
    the shoe was lost is refused now, and the journal says it was taken."""
    core = _core()
    first = _pressed_while_paused(_records())[0]
    declared = [
        replace(r, data={**r.data, "version": 3}) if r.kind in schema.VERSIONED else r
        for r in _records()
    ]
    before = [r for r in declared if r.seq <= first]
    for record in before:
        core.replay(record)
    decision = next(r for r in declared if r.seq > first and r.kind in rec.DECISIONS)
    with pytest.raises(ReplayMismatch, match=f"journal seq {decision.seq}: the engine now decides"):
        core.replay(decision)


@pytest.mark.fast
def test_a_start_resumes_the_hand_in_progress_under_version_2_and_the_next_hand_under_3() -> None:
    """From the last checkpoint, as a start replays: the hand in progress (its start is of
    version 2) goes on as it began, a press while paused still taken; once it is over, its
    checkpoint is of this code's version, and a press while paused is refused."""
    since = SinceCheckpoint()
    for record in _records():
        since(record)
    core = _core()
    since.feed(core)
    assert (core.table.hand_number, core.version) == (2, 2)
    core.take(rec.DEVICE, {"device": "shoe", "event": "lost", "reason": "unplugged"})
    origin = {"device": "panel", "boot": "FDADE057"}
    seq = core.devices["panel"].last_seq or 0

    def press(button: Button) -> list[object]:
        nonlocal seq
        seq += 1
        return list(core.take(rec.BUTTON, {**origin, "seq": seq, "button": button.value}))

    assert not any(isinstance(e, Refused) for e in press(Button.FOLD))  # version 2's hand
    while not any(isinstance(e, HandSettled) for e in core.last_events):
        assert not any(isinstance(e, Refused) for e in press(Button.FOLD))
    core.checkpoint()  # the hand's end: the loop journals it
    assert core.version == schema.VERSION == 3
    assert press(Button.MISDEAL) == [
        Refused(
            "misdeal",
            "the table is paused (shoe lost); press misdeal again once the pause has ended",
        )
    ]
