"""Start-up: how long a controller takes to open a journal and rebuild its table (how
``tablectl run`` starts: the journal's end only, replayed from the last checkpoint), and how long
``tablectl journal verify`` takes to check the whole chain of the same journal.

    python benchmarks/startup.py JOURNAL_DIR [JOURNAL_DIR ...] [--game G] [--seats N]
                                 [--repeat R] [--whole]

Each JOURNAL_DIR is a journal written by the demo's table (``tablectl demo --headless --dir D``
writes D/journal; the table is the demo's: ``--seats`` as the demo's, 6 by default). The
journals are only read: the writer opens each and closes it again. ``--whole`` also times the
old start (every record read, checked and fed to the engine) and checks that it rebuilds the
same table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.config.settings import JournalSettings
from controller.journal import JournalWriter, VerifyReport, verify
from controller.journal import tablerecords as rec
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.table.core import TableCore
from controller.table.opening import open_journal
from simulator.simtable import demo_config


def _start(directory: Path, core: TableCore) -> None:
    open_journal(JournalSettings(directory, fsync=False), core).close()


def _whole(directory: Path, core: TableCore) -> None:
    JournalWriter.open(
        directory, fsync=False, hand_start_kind=rec.HAND_STARTED, replay=core.replay
    ).close()


def _timed(repeat: int, run: Callable[[], object]) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeat):
        began = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - began)
    return times, result


def _figures(times: list[float]) -> str:
    return f"median {statistics.median(times):.2f} s, min {min(times):.2f} s"


def measure(directory: Path, spec: GameSpec, seats: int, repeat: int, whole: bool) -> bool:
    """Print one journal's figures; False if a start and the whole replay disagree, or the
    journal does not verify."""
    config = demo_config(spec, seats)
    files = sorted(directory.glob("journal-*.jsonl"))
    size = sum(path.stat().st_size for path in files)
    last_file = files[-1].read_bytes().count(b"\n") if files else 0
    print(
        f"{directory}: {len(files)} files, {size / 1e6:.1f} MB; "
        f"{last_file} records in the last file"
    )

    def fed_by(feed: Callable[[Path, TableCore], None]) -> Callable[[], TableCore]:
        """A fresh table fed the journal by ``feed``: one timed start."""

        def fed() -> TableCore:
            core = TableCore(spec, config)
            feed(directory, core)
            return core

        return fed

    times, started = _timed(repeat, fed_by(_start))
    assert isinstance(started, TableCore)
    print(
        f"  start (journal's end, from the last checkpoint): {_figures(times)} over {repeat}; "
        f"{started.finished} hands, table at hand {started.table.hand_number} "
        f"({started.table.phase})"
    )
    times, report = _timed(repeat, lambda: verify(directory))
    assert isinstance(report, VerifyReport)
    print(
        f"  verify (the whole chain): {_figures(times)} over {repeat}; {report.records} records, "
        + ("intact" if report.intact else f"NOT INTACT: {report.problem}")
    )
    if not whole:
        return report.intact

    times, rebuilt = _timed(repeat, fed_by(_whole))
    assert isinstance(rebuilt, TableCore)
    print(f"  whole replay (every record fed to the engine): {_figures(times)} over {repeat}")
    same = rebuilt.table.state == started.table.state and rebuilt.net == started.net
    if not same:
        print("  the start and the whole replay rebuilt different tables", file=sys.stderr)
    return report.intact and same


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journals", type=Path, nargs="+")
    parser.add_argument("--game", default="mambo", choices=sorted(GAMES))
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whole", action="store_true", help="time the whole replay too")
    args = parser.parse_args(argv)
    spec = GAMES[args.game]
    good = True
    for directory in args.journals:
        good = measure(directory, spec, args.seats, args.repeat, args.whole) and good
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
