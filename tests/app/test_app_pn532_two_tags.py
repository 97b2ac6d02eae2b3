"""Two cards pitched together past a PN532 slot reader (docs/hardware.md): the reader lists
both tags in one answer, the first is dealt as its card and the other is reported as read
together with it; the table holds the hand with an alarm the dealer resolves as a card read
twice (rules-interpretation.md, Integrity: two cards at once): undo dismisses that read, and
the card pitched alone afterwards is dealt where the table expects it."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from apphelp import PATIENCE, journal_records, sim_table

from controller.poker.engine.events import Alarm, CardExpected
from controller.poker.inputs import TOGETHER, Button, ReadPoint
from controller.table.loop import wait_until
from drivers.seam.tags import TagFamily
from simulator.clock import pause
from simulator.pn532.shoe import REPEAT_WINDOW, fit_pn532, pn532_readers


def test_two_cards_pitched_together_hold_the_hand_until_the_dealer_presses_undo(
    tmp_path: Path,
) -> None:
    with (
        pn532_readers(tmp_path / "pn532") as (readers, settings),
        sim_table(
            tmp_path,
            "mambo",
            clock=time.monotonic,  # the PN532 path runs on the wall clock (docs/simulator.md)
            devices={"shoe": settings},
            tags=TagFamily.ISO14443A,
            repeat_window=REPEAT_WINDOW,
        ) as table,
    ):
        pitch = fit_pn532(table.sim, readers)
        controller, sim = table.controller, table.sim
        assert wait_until(lambda: not controller.core.pauses, PATIENCE), controller.core.pauses
        sim.press(Button.NEW_HAND)

        def pending() -> object:
            return controller.core.table.pending

        assert wait_until(lambda: isinstance(pending(), CardExpected), PATIENCE)
        with pitch.together():
            first, second = sim.deal(), sim.deal()
        # A pitch is a while on the wall clock: cards their reader never listed in it (a host
        # kept off the CPU past its polls) are pitched again, together (Pn532Pitch.left).
        assert wait_until(lambda: pitch.left() == 0 and isinstance(pending(), Alarm), PATIENCE)
        alarm = pending()
        assert isinstance(alarm, Alarm)
        second_uid = sim.shoe.deck.uid(second)
        assert alarm.read == f"tag {second_uid}"
        assert alarm.reason == f"two cards at once: {TOGETHER}"
        assert second.code not in alarm.reason  # its twin may be a hole card

        sim.press(Button.UNDO)  # the dealer puts the second card aside and dismisses its read
        expected = CardExpected("seat", 2, "down")
        assert wait_until(lambda: pending() == expected, PATIENCE), pending()
        # The card put aside comes through the slot alone once the repeat window has passed.
        pause(sim.clock, REPEAT_WINDOW + pitch.pitch, threading.Event())
        pitch(ReadPoint.DEALING_SLOT, second_uid, sim.clock())
        third = CardExpected("seat", 3, "down")
        assert wait_until(lambda: pitch.left() == 0 and pending() == third, PATIENCE), pending()
    records = journal_records(tmp_path / "journal")
    dealt = [
        (event["card"], event["seat"])
        for kind, data in records
        if kind == "decision"
        for event in data["events"]
        if event["kind"] == "card_dealt"
    ]
    assert dealt == [(first.code, 1), (second.code, 2)]
    tags = [data for kind, data in records if kind == "tag"]
    assert [(t["uid"], t["reason"], t["point"]) for t in tags] == [(second_uid, TOGETHER, "slot")]
