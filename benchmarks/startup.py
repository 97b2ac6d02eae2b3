"""Start-up replay: how long a controller takes to open a journal and rebuild its table, from
the last checkpoint (how ``tablectl run`` starts) and, for comparison, from the first record.

    python benchmarks/startup.py JOURNAL_DIR [--game G] [--seats N] [--repeat R]

JOURNAL_DIR is a journal written by the demo's table (``tablectl demo --headless --dir D``
writes D/journal; the table is the demo's: ``--seats`` as the demo's, 6 by default). The
journal is only read: the writer opens it, checks the whole chain and closes it again.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.app import records as rec
from controller.app.core import TableCore
from controller.app.loop import JournalOptions, open_journal
from controller.app.simtable import demo_config
from controller.games import GAMES
from controller.journal import JournalWriter


def _from_checkpoint(directory: Path, core: TableCore) -> None:
    open_journal(JournalOptions(directory, fsync=False), core).close()


def _from_first_record(directory: Path, core: TableCore) -> None:
    JournalWriter.open(
        directory, fsync=False, hand_start_kind=rec.HAND_STARTED, replay=core.replay
    ).close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("journal", type=Path)
    parser.add_argument("--game", default="mambo", choices=sorted(GAMES))
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    spec = GAMES[args.game]
    config = demo_config(spec, args.seats)
    states = []
    for name, start in (
        ("last checkpoint", _from_checkpoint),
        ("first record", _from_first_record),
    ):
        times = []
        for _ in range(args.repeat):
            core = TableCore(spec, config)
            began = time.perf_counter()
            start(args.journal, core)
            times.append(time.perf_counter() - began)
        states.append(core.table.state)
        print(
            f"from the {name}: median {statistics.median(times):.2f} s, "
            f"min {min(times):.2f} s over {args.repeat} starts; "
            f"{core.finished} hands, table at hand {core.table.hand_number} ({core.table.phase})"
        )
    if states[0] != states[1]:
        print("the two starts rebuilt different tables", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
