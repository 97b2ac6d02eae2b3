"""The floor lab (simulator/floorlab.py) against real servers: a simulated table dealt to a real
controller, forwarded and stored; and ``compare()``, the check the fault tests and the demo end
with, catching what it must: a record the floor is missing, a journal rewritten after it was
forwarded (its chain re-hashed, so the table's own verify passes), a record the floor holds that
the journal has not."""

from __future__ import annotations

from pathlib import Path

from floorhelp import rewritten

from controller.journal import verify
from controller.journal.files import journal_files
from simulator.floorlab import FloorLab
from simulator.floorlab_check import journal_lines
from simulator.servers_pg import PostgresServer


def _only_file(journal: Path) -> Path:
    (path,) = (path for _number, path in journal_files(journal))
    return path


def test_compare_holds_a_whole_journal_and_catches_a_missing_a_rewritten_and_an_extra_record(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    with FloorLab(tmp_path / "lab", tables=1, hands=2, postgres=postgres) as lab:
        lab.wait_dealt()
        lab.close_tables()  # the journal final (FloorLab.close_tables)
        lab.wait_caught_up()
        table = lab.tables["T1"]
        (found,) = lab.compare().values()
        assert found.same, found.differences()
        assert found.records == found.stored == len(journal_lines(table.journal)) > 30
        assert lab.forwarded() == {"T1": found.records}
        lag = lab.lag()
        assert lag.records == found.records
        assert 0 <= lag.p50 <= lag.p99 <= lag.max

        # Missing: the forwarder stopped, the controller restarted (it journals the devices'
        # hellos again): the floor has not got those records.
        table.forwarder.stop()
        table.table.start()
        table.table.wait_up()
        lab.wait_dealt()
        before = found.records
        assert len(journal_lines(table.journal)) > before
        # The restarted controller may still be journaling (its devices' hellos, a shoe state):
        # what is missing is counted against the journal as compare() read it.
        (missing,) = lab.compare().values()
        assert not missing.same
        assert missing.records > before
        assert missing.missing == list(range(before + 1, missing.records + 1))
        assert "missing on the floor: seq" in missing.differences()
        assert missing.chain_intact  # what the floor holds is whole: it is only behind

        # Caught up again once the forwarder is back. The controller is stopped first: up (its
        # devices welcomed), it still journals their hellos and the shoe's status as it takes
        # them, so a journal read after the wait could hold a record the wait did not.
        table.table.stop()
        table.forwarder.start()
        lab.wait_caught_up()
        (whole,) = lab.compare().values()
        assert whole.same, whole.differences()

        # Rewritten after forwarding: record 5's data changed and the chain re-hashed from it.
        table.forwarder.stop()
        path = _only_file(table.journal)
        lines = path.read_bytes().splitlines()
        path.write_bytes(b"".join(line + b"\n" for line in rewritten(lines, 5)))
        assert verify(table.journal).intact  # the table's own check is fooled
        (changed,) = lab.compare().values()
        assert not changed.same
        assert changed.rewritten == list(range(5, len(lines) + 1))
        assert not changed.missing
        assert "another line on the floor than in the journal: seq 5, 6" in changed.differences()

        # Extra: the journal cut short (its last record gone), the floor still holds it.
        path.write_bytes(b"".join(line + b"\n" for line in lines[:-1]))
        (cut,) = lab.compare().values()
        assert not cut.same
        assert cut.extra == [f"seq {len(lines)}"]
        assert not cut.missing
        assert not cut.rewritten
