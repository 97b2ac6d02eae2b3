"""Journal append latency with fsync on and off: what a card's acknowledgement waits for.

    python benchmarks/journal_latency.py [--appends N] [--dir DIR]

Appends N card-read-sized records to a fresh journal in DIR (default: a
temporary directory; put it on the disk the table will use) once with fsync
and once without, and prints the latency percentiles of ``append``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.journal import JournalWriter


def measure(directory: Path, appends: int, *, fsync: bool) -> list[float]:
    """Latencies (seconds) of ``appends`` appends to a new journal in ``directory``."""
    latencies = []
    with JournalWriter.open(directory, fsync=fsync) as writer:
        for n in range(appends):
            data = {"card": "Kd", "point": "slot", "sentence": n, "tag": "04a1b2c3d4e5f6"}
            start = time.perf_counter()
            writer.append("card_read", data)
            latencies.append(time.perf_counter() - start)
    return latencies


def report(label: str, latencies: list[float]) -> str:
    """One line: p50, p99 and max in microseconds, and appends per second."""
    cuts = statistics.quantiles(latencies, n=100)
    micro = [value * 1e6 for value in (cuts[49], cuts[98], max(latencies))]
    rate = len(latencies) / sum(latencies)
    return (
        f"{label:10} p50 {micro[0]:8.1f} us   p99 {micro[1]:8.1f} us   "
        f"max {micro[2]:8.1f} us   {rate:9.0f} appends/s"
    )


def main() -> int:
    """Run both measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--appends", type=int, default=2000, help="appends per run (2000)")
    parser.add_argument("--dir", type=Path, default=None, help="where to write (a temp dir)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as name:
        for fsync in (True, False):
            latencies = measure(Path(name) / f"fsync-{fsync}", args.appends, fsync=fsync)
            print(report(f"fsync {'on' if fsync else 'off'}", latencies))
    return 0


if __name__ == "__main__":
    sys.exit(main())
