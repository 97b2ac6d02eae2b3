"""Crash test: a writer process killed at random never loses a record it acknowledged.

A child process appends records with fsync on and prints "ack <seq>" after
each ``append`` returns, as the controller sends ACK to the shoe. The parent
kills it with SIGKILL at a random moment, reopens the journal, and checks
that every acknowledged record is there and the chain is intact. (SIGKILL
keeps the page cache, so this tests the order ack-after-append and recovery
from a kill at any point, rotation included; the on-disk states a power cut
can leave are covered byte by byte in test_journal_torn.py.)
"""

from __future__ import annotations

import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.journal import JournalWriter, verify

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import sys
from controller.journal import JournalWriter
with JournalWriter.open(sys.argv[1], max_bytes=4096, hands_per_file=3) as writer:
    n = 0
    while True:
        kind = "hand_started" if n % 7 == 0 else "card_read"
        record = writer.append(kind, {"n": n, "card": "As", "point": "slot"})
        print("ack", record.seq, flush=True)
        n += 1
"""


#: How long a child may take to start and ack its first record (a loaded machine is slow).
START_PATIENCE = 60.0


def _run_and_kill(directory: Path, after: float) -> int:
    """Start the writer, let it run ``after`` seconds past its first ack, kill it; return the
    last seq it acked.

    The moment of the kill is random, and the outcome cannot depend on it: whatever the
    child was doing then (appending, rotating, printing an ack), every record it acked must be
    there. Only the first ack is waited for, so that each run writes something however long
    the child takes to start."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(directory)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    first = ""
    try:
        ready, _, _ = select.select([child.stdout], [], [], START_PATIENCE)
        assert ready, f"the writer acked nothing within {START_PATIENCE} s"
        first = child.stdout.readline()
        assert first.startswith("ack "), first
        time.sleep(after)  # a random moment: it decides where the kill falls, not the outcome
    finally:
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate(timeout=30)
    out = first + out
    # The kill may cut the child's last line short: an ack counts once its newline is out.
    complete_lines = out[: out.rfind("\n") + 1].splitlines()
    acked = [int(line.split()[1]) for line in complete_lines if line.startswith("ack ")]
    return max(acked, default=0)


@pytest.mark.slow
@pytest.mark.reliability
def test_records_acknowledged_before_a_kill_are_never_lost(tmp_path: Path) -> None:
    """20 kills at random moments: each reopen holds every acked record, chain intact."""
    rng = random.Random(7)
    acked = 0
    for _ in range(20):
        acked = max(acked, _run_and_kill(tmp_path, rng.uniform(0.0, 0.5)))
        with JournalWriter.open(tmp_path, fsync=False) as writer:
            assert writer.last is not None
            assert writer.last.seq >= acked
        report = verify(tmp_path)
        assert report.intact, report.summary()
        assert report.records >= acked
    assert len(report.files) > 1, "the run should have rotated"
