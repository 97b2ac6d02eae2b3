"""The controller's resident memory over a long run: after 1,000 hands and after N.

    python benchmarks/memory.py [--hands 100000] [--game mambo]

Drives the real ``Controller`` (journal with fsync off, engine, panel output,
log) with the events its drivers would queue, fed straight to ``handle``: a
seeded random dealer reads what the table waits for and makes the card read
or the button press. The drivers are built but never started (no port is
opened): their ``commit``, ``light`` and ``show`` run as in a live table with
the cable out. The issue's target: the resident memory after 100,000 hands
within 10% of the memory after 1,000.
"""

from __future__ import annotations

import argparse
import logging
import os
import queue
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.app.loop import Controller, JournalOptions
from controller.app.simtable import demo_config
from controller.cards import Card
from controller.engine.events import ActionRequired, CardExpected, NewHandExpected
from controller.games import GAMES
from controller.inputs import Button, ReadPoint
from controller.logsetup import configure_logging, reset_logging
from controller.settings import LogLevel, LogSettings
from drivers.deck import DeckSet
from drivers.panel import PanelDriver, PanelPress
from drivers.sentences import Hello
from drivers.session import HelloOutcome
from drivers.shoe import ShoeDriver, TagRead
from drivers.transport import DeviceReady, LinkSettings
from simulator.decks import enrolled, make_decks


def rss_kib() -> int:
    """This process's resident set size, KiB (Linux /proc)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def build(directory: Path, game: str) -> Controller:
    spec = GAMES[game]
    first, second = (enrolled(deck) for deck in make_decks(1))

    def drivers(events: queue.Queue[Any]) -> tuple[ShoeDriver, PanelDriver]:
        # Never started: no port is opened; commit/light/show act as with the cable out.
        return (
            ShoeDriver(LinkSettings("/nonexistent/shoe"), events, ack_after_commit=True),
            PanelDriver(LinkSettings("/nonexistent/panel"), events, ack_after_commit=True),
        )

    return Controller.build(
        table_id="BENCH",
        spec=spec,
        config=demo_config(spec, 6),
        journal=JournalOptions(directory, fsync=False, hands_per_file=500),
        decks=DeckSet(first, second),
        make_drivers=drivers,
    )


def play(controller: Controller, hands: int, checkpoints: dict[int, int]) -> None:
    rng = random.Random(7)
    deck = controller.decks.active
    tags = {card: uid for uid, card in deck.cards.items()}
    seq = {"shoe": 0, "panel": 0}

    def next_seq(device: str) -> int:
        seq[device] = (seq[device] + 1) % 10_000
        return seq[device]

    for device in ("shoe", "panel"):
        hello = Hello(0, "BENCH", "0", "1", 1, f"B{device}")
        controller.handle(DeviceReady(device, hello, HelloOutcome.NEW_SESSION))
    stub: list[Card] = []
    while True:
        pending = controller.core.table.pending
        if isinstance(pending, NewHandExpected):
            done = pending.hand - 1
            if done in checkpoints:
                checkpoints[done] = rss_kib()
            if done >= hands:
                return
            stub = list(tags)
            rng.shuffle(stub)
            controller.handle(PanelPress(Button.NEW_HAND, next_seq("panel")))
        elif isinstance(pending, CardExpected):
            card = stub.pop()
            uid = tags[card]
            controller.handle(TagRead(uid, ReadPoint.DEALING_SLOT, next_seq("shoe")))
        elif isinstance(pending, ActionRequired):
            weights = [0.15 if o.button == "fold" else 1.0 for o in pending.options]
            button = Button(rng.choices(pending.options, weights)[0].button)
            controller.handle(PanelPress(button, next_seq("panel")))
        else:
            raise RuntimeError(f"the benchmark's dealer cannot answer {pending}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--game", default="mambo", choices=sorted(GAMES))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        configure_logging(
            LogSettings(level=LogLevel.WARNING, file=Path(folder) / "bench.log"), table_id="BENCH"
        )
        logging.getLogger().setLevel(logging.WARNING)
        marks = sorted({1_000, *range(10_000, args.hands + 1, 10_000), args.hands})
        checkpoints = dict.fromkeys(marks, 0)
        controller = build(Path(folder) / "journal", args.game)
        started = time.monotonic()
        try:
            play(controller, args.hands, checkpoints)
        finally:
            controller.journal.close()
            reset_logging()
        seconds = time.monotonic() - started
    base = checkpoints[1_000]
    for hands, kib in checkpoints.items():
        print(f"after {hands:>7} hands: RSS {kib / 1024:.1f} MiB ({(kib - base) / base:+.1%})")
    print(f"{args.hands} hands of {args.game} in {seconds:.0f} s")


if __name__ == "__main__":
    main()
