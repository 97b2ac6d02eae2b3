"""Cards through both PN532 readers with the faults a line recovers from (a garbled answer, the
chip's NACK, an answer late within its bound): every card read exactly once, at its reader,
in order, and communication never lost. The RF timing and each fault alone: test_pn532_shoe.py."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.poker.inputs import ReadPoint
from drivers.seam.events import DeviceDown, TagRead
from simulator.pn532.chip import Tag
from tests.drivers.pn532_bench import bench
from tests.drivers.test_pn532_shoe import come_up

POINTS = {"slot": ReadPoint.DEALING_SLOT, "discard": ReadPoint.DISCARD_READER}


@pytest.mark.parametrize(
    "cards",
    [16, pytest.param(400, marks=[pytest.mark.slow, pytest.mark.reliability])],
)
def test_every_card_once_through_recoverable_faults(tmp_path: Path, cards: int) -> None:
    rng = random.Random(f"tablectl-pn532-soak-{cards}")
    with bench(tmp_path, ("slot", "discard")) as b:
        come_up(b)
        placed: list[tuple[str, ReadPoint]] = []
        events: list[object] = []
        for number in range(cards):
            point = rng.choice(("slot", "discard"))
            uid = bytes([0x04]) + number.to_bytes(6, "big")
            fault = rng.choice(("none", "garble", "nack", "late"))
            with b.readers.locked():
                chip = b.readers.chips[point]
                if fault == "garble":
                    chip.garble()
                elif fault == "nack":
                    chip.nack()
                elif fault == "late":
                    chip.late(0.05)  # late, but within the poll's bound (past it: a loss)
                chip.place(Tag.ntag213(uid), b.clock(), 0.12)
            placed.append((uid.hex().upper(), POINTS[point]))
            events += b.run_for(0.2)
        events += b.run_for(0.5)
    assert not [e for e in events if isinstance(e, DeviceDown)]
    reads = [(e.uid, e.point) for e in events if isinstance(e, TagRead)]
    assert reads == placed
    assert [e.seq for e in events if isinstance(e, TagRead)] == list(range(cards))
