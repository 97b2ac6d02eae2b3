"""``tablectl enroll --kind pn532`` enrolls a deck of NTAG213 stickers through a simulated
PN532 at the dealing slot, as a technician would with the real reader (docs/hardware.md)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from controller.poker.cards import DECK
from drivers.deck import Deck
from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers

ROOT = Path(__file__).resolve().parents[2]
#: How long the test waits for any one thing.
PATIENCE = 20.0


def wait_until(readers: Pn532Readers, condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + PATIENCE
    while True:
        with readers.locked():
            if condition():
                return
        assert time.monotonic() < deadline, "the simulated PN532 never got there"
        time.sleep(0.002)


def test_a_deck_of_7_byte_tags_is_enrolled_in_new_deck_order(tmp_path: Path) -> None:
    uids = [bytes.fromhex(f"04A1{n:010X}") for n in range(52)]
    with Pn532Readers(tmp_path / "dev", ("slot",)) as readers:
        chip = readers.chips["slot"]
        deck_file = tmp_path / "red.deck"
        command = [sys.executable, "-m", "controller", "enroll", "--kind", "pn532"]
        command += ["--deck", str(deck_file), "--port", readers.address("slot")]
        with subprocess.Popen(
            [*command, "--timeout", "20"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        ) as enroll:
            try:
                wait_until(readers, lambda: chip.counters.polls > 0)  # up and polling
                for uid in uids:
                    # Each card stays in the field until it is listed (the RF timing is
                    # tests/drivers/test_pn532_shoe.py's): a loaded machine delays a poll.
                    listed = chip.counters.listed
                    readers.place("slot", Tag.ntag213(uid), PATIENCE)
                    wait_until(readers, lambda listed=listed: chip.counters.listed > listed)
                    readers.take("slot")
            except AssertionError:
                enroll.kill()
                raise AssertionError(enroll.communicate()[0]) from None
            output, _ = enroll.communicate(timeout=PATIENCE)
    assert enroll.returncode == 0, output
    assert "ready" in output
    deck = Deck.load(deck_file)
    assert deck.cards == {uid.hex().upper(): card for uid, card in zip(uids, DECK, strict=True)}
