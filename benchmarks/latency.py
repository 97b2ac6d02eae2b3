"""Card to announcement: from a card sentence written to the shoe's pty to the controller's
announcement of what comes next (the seat to act, or the next card), fsync on and off.

    python benchmarks/latency.py [--cards N] [--game G] [--dir DIR]

The simulated shoe and panel run on real ptys; the real drivers, journal,
engine and outputs (panel, structlog log, display view) run in this process as
``tablectl run`` runs them. The clock starts in the simulator just before it
writes the CRD sentence to the pty (its wire trace) and stops when the
controller's listeners are called, after the panel's line and the log's
announcement. A random dealer deals one input at a time, so each card is
measured on an idle line.
"""

from __future__ import annotations

import argparse
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

import simulator  # noqa: F401  registers sim://
from controller.app.lockstep import LockstepDealer
from controller.app.loop import Controller, JournalOptions
from controller.app.simtable import SimTable
from controller.engine.events import Event
from controller.logsetup import configure_logging, reset_logging
from controller.settings import LogSettings
from simulator.runner import Pace


def measure(directory: Path, game: str, cards: int, *, fsync: bool) -> list[float]:
    """Latencies (seconds) of at least ``cards`` card reads."""
    written: dict[int, float] = {}
    taken: dict[int, float] = {}

    def on_wire(line: str) -> None:
        # "shoe > $SHCRD,<seq>,...": the first write of each sentence (resends ignored).
        if line.startswith("shoe > $SHCRD,"):
            written.setdefault(int(line.split(",")[1]), time.perf_counter())

    def on_announce(controller: Controller, events: list[Event]) -> None:
        last = controller.journal.last
        if events and last is not None and last.kind == "card":
            taken.setdefault(int(str(last.data["seq"])), time.perf_counter())

    options = JournalOptions(directory / "journal", fsync=fsync)
    with SimTable(game, options, transport="pty", directory=directory, repeat_window=0.02) as table:
        table.controller.listeners.append(on_announce)
        table.sim.trace("shoe", on_wire)
        dealer = LockstepDealer.for_table(
            table.sim, table.controller, table.spec, table.config, seed=1, pace=Pace.fast(0.02)
        )

        def enough(controller: Controller, events: list[Event]) -> None:
            if len(taken) >= cards:
                dealer.stop()

        table.controller.listeners.append(enough)
        dealer.run()
        table.sim.trace("shoe", None)
    # A sequence number wraps at 10000: keep each read's first write and first take in order.
    return [
        taken[seq] - written[seq] for seq in taken if seq in written and taken[seq] > written[seq]
    ]


def report(label: str, latencies: list[float]) -> str:
    cuts = statistics.quantiles(latencies, n=100)
    ms = [value * 1e3 for value in (cuts[49], cuts[98], max(latencies))]
    return (
        f"{label}: {len(latencies)} cards, p50 {ms[0]:.3f} ms, p99 {ms[1]:.3f} ms, "
        f"max {ms[2]:.3f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--game", default="mambo")
    parser.add_argument("--dir", type=Path, help="where the journal goes (the table's disk)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        configure_logging(LogSettings(file=Path(folder) / "bench.log"), table_id="BENCH")
        logging.getLogger().setLevel(logging.INFO)
        try:
            for fsync in (False, True):
                sub = Path(folder) / f"fsync-{fsync}"
                sub.mkdir()
                latencies = measure(sub, args.game, args.cards, fsync=fsync)
                print(report(f"fsync {'on' if fsync else 'off'}", latencies), flush=True)
        finally:
            reset_logging()


if __name__ == "__main__":
    main()
