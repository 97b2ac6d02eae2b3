"""The controller's resident memory over a long run: after 1,000 hands, every 10,000, at the end.

    python benchmarks/memory.py [--hands 100000] [--game mambo]

Drives the real ``Controller`` (journal with fsync off and rotation every 500
hands, engine, panel output, log at warning) as its drivers do: each event a
driver would queue (a tag read, a button press) is put on the controller's
queue and the loop takes it (``drain``). A seeded random dealer reads what the
table waits for and makes the card read or the button press, dealing each hand
from the deck the controller puts in play: the two decks alternate hand by hand,
as ``[decks] alternate`` has them by default (rules-interpretation.md, Shuffle, cut and decks). The
drivers are built but never started (no port is opened): ``commit``, ``light`` and ``show``
run as in a live table with the cable out, and keep nothing (the panel keeps
only the latest light and line; an ack to a closed port is not queued).
Before each reading the garbage collector runs, so the figure is what stays.
The target (docs/performance.md, Memory): the resident memory after 100,000 hands within 10% of the
memory after 1,000.
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.config.settings import JournalSettings, LogLevel, LogSettings
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.cards import Card
from controller.poker.engine.events import ActionRequired, CardExpected, NewHandExpected
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ReadPoint
from controller.table.loop import Controller
from drivers.seam.events import ButtonPressed, DeviceUp, HelloOutcome, TagRead
from simulator.simtable import unplugged_table


def rss_kib() -> int:
    """This process's resident set size, KiB (Linux /proc)."""
    with open("/proc/self/statm", encoding="ascii") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def build(directory: Path, game: str) -> Controller:
    # The decks alternate, as the table's default [decks] alternate has them.
    journal = JournalSettings(directory, fsync=False, hands_per_file=500)
    return unplugged_table(journal, game, table_id="BENCH", alternate_decks=True)


def play(
    controller: Controller,
    hands: int,
    checkpoints: dict[int, int],
    report: Callable[[int, int], None],
) -> None:
    """Deal ``hands`` hands; at each checkpoint (hands over) note the RSS and report it."""
    rng = random.Random(7)
    decks = (controller.decks.active, controller.decks.other)
    tags_of = {deck.name: {card: uid for uid, card in deck.cards.items()} for deck in decks}
    tags = tags_of[controller.decks.active.name]
    seq = {"shoe": 0, "panel": 0}

    def next_seq(device: str) -> int:
        seq[device] = (seq[device] + 1) % 10_000
        return seq[device]

    def deliver(event: object) -> None:
        # As a driver's reading thread does: into the loop's queue; the loop takes it.
        controller.events.put(event)
        controller.drain()

    for device in ("shoe", "panel"):
        deliver(DeviceUp(device, f"B{device}", "0", HelloOutcome.NEW_SESSION, model="BENCH"))
    stub: list[Card] = []
    read_ms = 0
    while True:
        pending = controller.core.table.pending
        if isinstance(pending, NewHandExpected):
            done = pending.hand - 1
            if done in checkpoints:
                gc.collect()  # what stays, not what the collector has yet to free
                checkpoints[done] = rss_kib()
                report(done, checkpoints[done])
            if done >= hands:
                return
            tags = tags_of[controller.next_hand_deck]
            stub = list(tags)
            rng.shuffle(stub)
            deliver(ButtonPressed(Button.NEW_HAND, next_seq("panel")))
        elif isinstance(pending, CardExpected):
            card = stub.pop()
            read_ms += 1_000  # a dealer's second per card: never a repeat (docs/protocol.md, 7)
            deliver(TagRead(tags[card], ReadPoint.DEALING_SLOT, next_seq("shoe"), read_ms))
        elif isinstance(pending, ActionRequired):
            weights = [0.15 if o.button == "fold" else 1.0 for o in pending.options]
            button = Button(rng.choices(pending.options, weights)[0].button)
            deliver(ButtonPressed(button, next_seq("panel")))
        else:
            raise RuntimeError(f"the benchmark's dealer cannot answer {pending}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100_000)
    parser.add_argument("--game", default="mambo", choices=sorted(GAMES))
    args = parser.parse_args()
    if args.hands < 1_000:
        parser.error(f"--hands {args.hands}: expected 1000 or more (the first mark is 1,000)")
    marks = sorted({1_000, *range(10_000, args.hands + 1, 10_000), args.hands})
    checkpoints = dict.fromkeys(marks, 0)
    started = time.monotonic()

    def report(hands: int, kib: int) -> None:
        base = checkpoints[1_000]
        seconds = time.monotonic() - started
        print(
            f"after {hands:>7,} hands: RSS {kib / 1024:6.1f} MiB ({(kib - base) / base:+.1%} "
            f"from 1,000 hands); {seconds:5.0f} s, {hands / seconds:.0f} hands/s",
            flush=True,
        )

    with tempfile.TemporaryDirectory() as folder:
        configure_logging(
            LogSettings(level=LogLevel.WARNING, file=Path(folder) / "bench.log"), table_id="BENCH"
        )
        controller = build(Path(folder) / "journal", args.game)
        try:
            play(controller, args.hands, checkpoints, report)
        finally:
            controller.journal.close()
            reset_logging()
    seconds = time.monotonic() - started
    ratio = checkpoints[args.hands] / checkpoints[1_000]
    verdict = "within" if ratio <= 1.10 else "NOT within"  # the target
    print(
        f"{args.hands:,} hands of {args.game} in {seconds:.0f} s ({args.hands / seconds:.0f} "
        f"hands/s); RSS after {args.hands:,} / after 1,000 = {ratio:.3f} "
        f"({verdict} 10%: the target)"
    )


if __name__ == "__main__":
    main()
