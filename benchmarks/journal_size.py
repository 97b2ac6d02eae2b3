"""Journal size: bytes per hand on disk for each game, plain and compressed, and
``journal verify``'s time per record on both, measured in the same run (docs/performance.md,
Journal size: at most 20 KB a hand in rotated files, verify no slower per record).

    python benchmarks/journal_size.py [--hands N] [--games mambo,triple-draw,five-card-stud]
                                      [--repeat R]

Each game's journal is written by the simulator's headless dealer (``tablectl demo
--headless``'s), rotated once by a writer and compressed as the controller's keeper compresses
it (controller/journal/compress.py, zstd level 19). gzip -9's figure beside it (the standard
library's) is for the choice of compressor only.
"""

from __future__ import annotations

import argparse
import gzip
import logging
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.journal import JournalWriter, verify
from controller.journal.compress import compress_rotated
from controller.journal.files import COMPRESSED_SUFFIX, file_name
from simulator.demo import run_headless

GAMES = ("mambo", "triple-draw", "five-card-stud")


def _verify_per_record(directories: list[Path], repeat: int) -> tuple[list[float], int]:
    """verify's median time per record (µs) for each journal over ``repeat`` rounds, taken in
    turn in each round (neither one always first, in a warmer cache), and the records."""
    times: list[list[float]] = [[] for _ in directories]
    records = 0
    for round_ in range(repeat):
        order = list(enumerate(directories))
        for index, directory in order if round_ % 2 == 0 else order[::-1]:
            began = time.perf_counter()
            report = verify(directory)
            times[index].append(time.perf_counter() - began)
            if not report.intact:
                raise SystemExit(f"{directory}: {report.summary()[0]}")
            records = report.records
    return [statistics.median(t) / max(1, records) * 1e6 for t in times], records


def measure(game: str, hands: int, repeat: int, folder: Path) -> str:
    """One line of figures for ``game``."""
    run_headless(game, hands, folder / game)
    plain = folder / game / "journal"
    with JournalWriter.open(plain, fsync=False) as writer:
        writer.rotate()  # the hands' file is finished, as a rotation leaves it
    data = (plain / file_name(1)).read_bytes()
    gz = len(gzip.compress(data, compresslevel=9))
    packed = folder / game / "compressed"
    shutil.copytree(plain, packed)
    began = time.perf_counter()
    compress_rotated(packed, fsync=False)
    took = time.perf_counter() - began
    zst = sum(path.stat().st_size for path in packed.glob(f"journal-*{COMPRESSED_SUFFIX}"))
    (plain_us, packed_us), records = _verify_per_record([plain, packed], repeat)
    return (
        f"{game}: {hands} hands, {records} records ({records / hands:.0f} a hand); "
        f"plain {len(data) / hands / 1024:.1f} KB a hand, zstd -19 {zst / hands / 1024:.1f} KB "
        f"({len(data) / zst:.1f}x, compressed in {took:.1f} s), gzip -9 "
        f"{gz / hands / 1024:.1f} KB ({len(data) / gz:.1f}x); verify {plain_us:.1f} µs a "
        f"record plain, {packed_us:.1f} µs compressed"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=100, help="hands a game (default 100)")
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games")
    parser.add_argument("--repeat", type=int, default=5, help="verify runs each (median)")
    args = parser.parse_args()
    # The table's log of every card would swamp the figures.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    games = [g for g in args.games.split(",") if g]
    unknown = [g for g in games if g not in GAMES]
    if unknown or args.hands < 1 or args.repeat < 1:
        parser.error(f"--games from {', '.join(GAMES)}; --hands and --repeat 1 or more")
    with tempfile.TemporaryDirectory(prefix="journal-size-") as folder:
        for game in games:
            print(measure(game, args.hands, args.repeat, Path(folder)), flush=True)


if __name__ == "__main__":
    main()
