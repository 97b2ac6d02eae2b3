"""A PN532 shoe's reads: a card entering a reader's field to its read leaving the driver,
against the wire time of one InListPassiveTarget exchange; and cards at a dealer's pace
through the slot and the discard reader, every card read exactly once.

    python benchmarks/pn532.py [--cards N] [--baud B] [--dwell S] [--gap S]

Two processes, as at a table: the simulated PN532s (simulator/pn532) on real ptys in a
child process (so the readers answer as a chip does, whatever this process's threads are
doing), the PN532 shoe's driver (drivers/pn532) in this one; the wall's monotonic clock for
both (no test clock). A card is placed in a reader's field for ``--dwell`` seconds (its passage
under the antenna), then ``--gap`` seconds pass before the next; cards alternate between
the slot and the discard reader. The latency of a card is from its placing to the driver's
``TagRead`` taken off the event queue, before the controller's own work (journal, engine):
benchmarks/pn532_hands.py times a card to the engine, in whole hands.
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.poker.inputs import ReadPoint
from drivers.pn532 import commands
from drivers.pn532.backend import Pn532Settings, Pn532Shoe, uid_text
from drivers.pn532.frames import ACK_FRAME, command, response
from drivers.pn532.reader import ReaderTiming
from drivers.seam.device import OpenOptions
from drivers.seam.events import DeviceDown, DeviceUp, TagRead
from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers

POINTS = {"slot": ReadPoint.DEALING_SLOT, "discard": ReadPoint.DISCARD_READER}


def wire_time(baud: int) -> float:
    """Seconds on the wire of one InListPassiveTarget exchange listing one NTAG213: the
    command, the ACK and the answer, ten bits a byte (8N1)."""
    answer = commands.encode_targets((commands.TypeATarget(1, b"\x00\x44", 0x00, bytes(7)),))
    size = len(command(commands.in_list_passive_target(2))) + len(ACK_FRAME)
    size += len(response(answer))
    return size * 10 / baud


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def table(directory: Path, orders: Connection) -> None:
    """The child: the two readers, placing the cards it is sent until it is sent None."""
    with Pn532Readers(directory, ("slot", "discard")) as readers:
        orders.send([readers.address("slot"), readers.address("discard")])
        while (order := orders.recv()) is not None:
            point, uid, dwell = order
            readers.place(point, Tag.ntag213(uid), dwell)


def run(cards: int, baud: int, dwell: float, gap: float, directory: Path) -> dict[str, Any]:
    events: queue.Queue[Any] = queue.Queue()
    orders, child_end = multiprocessing.Pipe()
    child = multiprocessing.get_context("fork").Process(target=table, args=(directory, child_end))
    child.start()
    try:
        slot, discard = orders.recv()
        settings = Pn532Settings("shoe", "pn532", slot, discard, baud)
        shoe = Pn532Shoe(settings, events, OpenOptions(), ReaderTiming())
        shoe.start()
        try:
            while not isinstance(events.get(timeout=10), DeviceUp):
                pass
            latencies: list[float] = []
            losses = 0
            reads: dict[str, int] = {}
            expected: dict[str, str] = {}
            for number in range(cards):
                point = "slot" if number % 2 == 0 else "discard"
                uid = (0x04_000000_000000 + number).to_bytes(7, "big")
                expected[uid_text(uid)] = point
                placed = time.monotonic()
                orders.send((point, uid, dwell))
                deadline = placed + dwell + gap
                while (left := deadline - time.monotonic()) > 0:
                    try:
                        event = events.get(timeout=left)
                    except queue.Empty:
                        break
                    losses += isinstance(event, DeviceDown)
                    if isinstance(event, TagRead):
                        reads[event.uid] = reads.get(event.uid, 0) + 1
                        if event.uid == uid_text(uid):
                            latencies.append(time.monotonic() - placed)
                        if POINTS.get(expected.get(event.uid, "")) is not event.point:
                            raise SystemExit(f"{event.uid} read at {event.point}")
        finally:
            shoe.stop()
    finally:
        orders.send(None)
        child.join()
    return {
        "latencies": latencies,
        "missed": sum(1 for uid in expected if uid not in reads),
        "doubled": sum(1 for n in reads.values() if n > 1),
        "losses": losses,
        "totals": shoe.line_totals(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=1000)
    parser.add_argument("--baud", type=int, default=115200, choices=sorted(commands.BAUD_CODES))
    parser.add_argument("--dwell", type=float, default=0.1, help="seconds a card is in a field")
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between two cards")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tablectl-pn532-") as directory:
        result = run(args.cards, args.baud, args.dwell, args.gap, Path(directory))
    latencies = result["latencies"]
    wire = wire_time(args.baud)
    print(
        f"{args.cards} cards, {args.baud} baud, {args.dwell:g} s in the field, gap {args.gap:g} s"
    )
    print(
        f"missed {result['missed']}, read twice {result['doubled']}, "
        f"communication lost {result['losses']} times"
    )
    if latencies:
        p50, p99 = percentile(latencies, 0.5), percentile(latencies, 0.99)
        print(
            f"field to read: p50 {p50 * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms, "
            f"mean {statistics.fmean(latencies) * 1000:.2f} ms"
        )
        print(
            f"one InListPassiveTarget exchange on the wire: {wire * 1000:.3f} ms; "
            f"p50 {p50 / wire:.1f}x, p99 {p99 / wire:.1f}x"
        )
    print(f"line totals: {result['totals']}")
    return 0 if result["missed"] == result["doubled"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
