"""The shoe's RFID repeat filter survives a restart of the controller (docs/protocol.md 7).

A read and its repeat are judged on the shoe's clock (``read_ms``). The
journal keeps each read's tag and ``read_ms``, and a restarted controller
gives them back to its filter, so a repeat of the last journaled read that
arrives just after the restart is dropped, not taken as a second read (which
would be a "card seen twice" alarm, rules-interpretation.md, Integrity).
"""

from __future__ import annotations

from pathlib import Path

from apphelp import PATIENCE, journal_records, sim_table

from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.poker.engine.events import Alarm
from controller.poker.inputs import Button
from controller.table.loop import wait_until


def test_a_repeat_of_the_last_journaled_read_after_a_restart_is_dropped(tmp_path: Path) -> None:
    """docs/protocol.md 7: the hand's first card is read and journaled with its tag and
    read_ms; the controller restarts; the same tag at the slot 100 ms later on the shoe's
    clock is a repeat (journaled as rfid_repeat), not a second read ("already seen this hand",
    rules-interpretation.md, Integrity), and the hand goes on."""
    with sim_table(tmp_path, repeat_window=0.5) as table:
        controller = table.controller
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        table.sim.shuffle(5)
        table.sim.press(Button.NEW_HAND)
        first = table.sim.deal()
        assert wait_until(lambda: controller.inputs == 2, PATIENCE)
        (card,) = [d for k, d in journal_records(tmp_path / "journal") if k == rec.CARD]
        assert card["card"] == first.code
        assert isinstance(card["read_ms"], int)
        assert isinstance(card["uid"], str)

        table.stop_controller()
        controller = table.start_controller()
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        pending = controller.core.table.pending
        table.sim.set_uptime(card["read_ms"] + 100)  # within the 500 ms window
        assert table.sim.dealt_twice(first) is first
        again = card["read_ms"] + 100
        assert wait_until(lambda: controller.core.shoe_reads[-1].read_ms >= again, PATIENCE)
        assert controller.core.table.pending == pending
        assert not isinstance(controller.core.table.pending, Alarm)
    repeats = [d for k, d in journal_records(tmp_path / "journal") if k == rec.RFID_REPEAT]
    assert [r["uid"] for r in repeats] == [card["uid"]]


def test_records_written_before_reads_carried_their_tag_and_time_still_read() -> None:
    """A card record of an older journal (no uid, no read_ms) replays; it gives the filter
    nothing. A record with them gives the read back."""
    old = {"device": "shoe", "boot": "B1", "seq": 3, "card": "Kd", "point": "slot"}
    assert rec.shoe_read_of(schema.decode_data(rec.CARD, old, "old")) is None
    new = {**old, "uid": "E004015000000001", "read_ms": 1234}
    read = rec.shoe_read_of(schema.decode_data(rec.CARD, new, "new"))
    assert read is not None
    assert (read.boot, read.uid, read.point.value, read.read_ms) == (
        "B1",
        "E004015000000001",
        "slot",
        1234,
    )
    button = {"device": "panel", "boot": "P1", "seq": 4, "button": "fold"}
    assert rec.shoe_read_of(schema.decode_data(rec.BUTTON, button, "button")) is None
