"""``tablectl enroll`` enrolls a simulated deck through the simulator's shoe, as at a real table."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from drivers.deck import Deck
from simulator.decks import enrolled
from simulator.devices import Timing
from simulator.table import Simulator

ROOT = Path(__file__).resolve().parents[2]


def test_a_deck_dealt_in_new_deck_order_is_enrolled_as_the_simulator_tagged_it(
    tmp_path: Path,
) -> None:
    """The enroll command, on the pty, writes the deck file the simulator would have written."""
    timing = Timing(heartbeat=0.2, hello=0.2)
    with Simulator(directory=tmp_path / "sim", seed=12, timing=timing) as sim:
        deck_file = tmp_path / "A.txt"
        enroll_deck = ["enroll", "--deck", str(deck_file), "--name", "A", "--timeout", "20"]
        with subprocess.Popen(
            [sys.executable, "-m", "controller", *enroll_deck, "--port", sim.address("shoe")],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as enroll:
            assert sim.wait_for(lambda: sim.shoe.link.welcomed, timeout=20)
            sim.new_deck_order()
            for _ in range(52):
                sim.deal()
            output, _ = enroll.communicate(timeout=30)
        assert enroll.returncode == 0, output
        assert Deck.load(deck_file) == enrolled(sim.decks[0])
