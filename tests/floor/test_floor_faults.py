"""Nothing lost, nothing twice (docs/floor.md, Fault runs): simulated tables deal at full
speed (a real controller each, dealt by the random dealer over real ptys, with its own real
forwarder) into a real floor (nats-server, PostgreSQL 15, ``tablectl floor serve``) while, at
random moments, one part after another is broken: the broker stopped for 30 s and started again,
the floor SIGKILLed and restarted, a forwarder SIGKILLed and restarted, a table's controller
SIGKILLed and restarted (as in the crash test, tests/app/test_app_crash.py), PostgreSQL stopped
and started, and killed and started. At the end the floor holds exactly every table's journal
(the same records, byte for byte, none missing, none twice), ``floor verify`` exits 0 and the
floor raised no alarm. Then one table's journal is rewritten after forwarding (a record changed,
the chain re-hashed from it: the table's own ``journal verify`` passes): its forwarder refuses
to go on from it, and the rewritten record published under its message id is caught by the
witness as a conflict naming the table, the journal and the seq, with the evidence kept.

A moment is a number of hands dealt across the tables, drawn from a seeded random (the seed is
printed, and named in every failure; ``TABLECTL_FAULT_SEED=N`` runs a seed again), plus a few
milliseconds so that the fault lands anywhere in a hand's handling. The only time waited is the
broker's outage, the fault's own length. Every run is marked slow, the small one too (3
tables, each fault once, a 2 s outage: about 50 s here); docs/testing.md says how to run them.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import nats
import pytest
from floorhelp import republish_until_taken, tablectl

from controller.forwarder.subjects import STREAM
from controller.journal import verify
from controller.journal.files import journal_files
from controller.journal.record import GENESIS, make_record_line, parse_line
from simulator.floorlab import FloorLab
from simulator.servers_nats import NatsServer
from simulator.servers_pg import PostgresServer

#: Every fault a run can make; ``all`` runs each once, in a random order.
FAULTS: Final = (
    "broker_outage",
    "floor_killed",
    "forwarder_killed",
    "controller_killed",
    "postgres_restarted",
    "postgres_killed",
)
#: The broker's outage (docs/floor.md, Fault runs): 30 s down, the tables dealing on.
OUTAGE_SECONDS: Final = 30.0
#: The most a fault lands after its moment: anywhere in the handling of a hand's act.
JITTER: Final = 0.05
#: How long the run may take to reach a moment or to finish (a loaded 2-core machine): far past
#: what it takes; a run this slow is broken.
PATIENCE: Final = 600.0


def run_seed() -> int:
    """``TABLECTL_FAULT_SEED`` when given (to run a failure again), else a fresh one."""
    given = os.environ.get("TABLECTL_FAULT_SEED")
    if given is None:
        return random.randrange(1, 2**31)
    try:
        return int(given)
    except ValueError:
        raise ValueError(f"TABLECTL_FAULT_SEED={given!r}: expected a whole number") from None


@dataclass
class FaultRun:
    """What a run did: each fault, when (seconds since every table was dealing, and hands
    dealt by then) and to what."""

    seed: int
    tables: int
    hands: int
    dealt: Callable[[], int]
    started: float = field(default_factory=time.monotonic)
    done: list[str] = field(default_factory=list)

    def note(self, fault: str, detail: str) -> None:
        at = time.monotonic() - self.started
        self.done.append(f"{at:6.1f} s, hand {self.dealt()}: {fault} ({detail})")
        print(f"  {self.done[-1]}", flush=True)

    def __str__(self) -> str:
        faults = "; ".join(line.strip() for line in self.done)
        return f"seed {self.seed}, {self.tables} tables x {self.hands} hands: {faults}"


def hands_dealt(lab: FloorLab) -> int:
    return sum(lab_table.table.hands_dealt for lab_table in lab.tables.values())


def all_dealt(lab: FloorLab) -> bool:
    return all(lab_table.table.done.is_set() for lab_table in lab.tables.values())


def wait_for(condition: Callable[[], bool], what: str, run: FaultRun) -> None:
    """Until ``condition``: an event of the run, looked at every 10 ms."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {PATIENCE:.0f} s ({run})")
        time.sleep(0.01)


def one_more_hand(lab: FloorLab, run: FaultRun) -> None:
    """Until another hand is dealt somewhere (or every dealer is done): the part stays down
    while the tables go on."""
    before = hands_dealt(lab)
    wait_for(lambda: hands_dealt(lab) > before or all_dealt(lab), "a hand dealt", run)


def make_fault(lab: FloorLab, fault: str, rng: random.Random, run: FaultRun, outage: float) -> None:
    """Break one part and start it again."""
    if fault == "broker_outage":
        assert isinstance(lab.nats, NatsServer)
        lab.nats.stop()
        run.note(fault, f"stopped for {outage:.0f} s")
        time.sleep(outage)  # the outage's length is the fault itself, not a wait for an event
        lab.nats.start()
    elif fault == "floor_killed":
        assert lab.floor is not None
        lab.floor.kill()
        run.note(fault, "SIGKILL")
        one_more_hand(lab, run)
        lab.floor.start()
    elif fault == "forwarder_killed":
        table_id = rng.choice(lab.ids)
        lab.tables[table_id].forwarder.kill()
        run.note(fault, f"table {table_id}, SIGKILL")
        one_more_hand(lab, run)
        lab.tables[table_id].forwarder.start()
    elif fault == "controller_killed":
        table_id = rng.choice(lab.ids)
        lab.tables[table_id].table.kill()
        run.note(fault, f"table {table_id}, SIGKILL")
        lab.tables[table_id].table.start()  # at once, as systemd would: it replays its journal
    elif fault in ("postgres_restarted", "postgres_killed"):
        if fault == "postgres_killed":
            lab.postgres.kill()
        else:
            lab.postgres.stop()
        run.note(fault, "SIGKILL" if fault == "postgres_killed" else "fast shutdown")
        one_more_hand(lab, run)
        lab.postgres.start()
    else:
        raise ValueError(f"fault {fault!r}: expected one of {', '.join(FAULTS)}")


def run_faults(
    lab: FloorLab, faults: Sequence[str], run: FaultRun, rng: random.Random, outage: float
) -> None:
    """Each fault at its moment: a random number of hands dealt, past those dealt while the
    lab started its tables one by one and within the first three quarters of the run, so
    every part is broken while the tables deal."""
    total = run.tables * run.hands
    first = hands_dealt(lab) + 1
    moments = sorted(rng.randint(first, max(first, total * 3 // 4)) for _ in faults)
    for fault, moment in zip(rng.sample(list(faults), len(faults)), moments, strict=True):
        wait_for(lambda m=moment: hands_dealt(lab) >= m or all_dealt(lab), "the moment", run)
        time.sleep(rng.uniform(0.0, JITTER))
        make_fault(lab, fault, rng, run, outage)


def assert_floor_holds_every_journal(lab: FloorLab, run: FaultRun) -> dict[str, int]:
    """Every table's journal in the floor exactly, chains verified, no alarm; the records of
    each table."""
    lab.wait_dealt(PATIENCE)
    lab.close_tables()  # every journal final (FloorLab.close_tables)
    lab.wait_caught_up(PATIENCE)
    compared = lab.compare()
    wrong = {t: c.differences() for t, c in compared.items() if not c.same}
    assert not wrong, f"the floor does not hold every journal exactly: {wrong} ({run})"
    for table_id, lab_table in lab.tables.items():
        report = verify(lab_table.journal)
        assert report.intact, f"table {table_id}: {report.summary()} ({run})"
    verified = tablectl("floor", "verify", "--config", lab.floor_config)
    assert verified.returncode == 0, f"{verified.stdout}{verified.stderr} ({run})"
    assert lab.floor is not None
    assert "floor_alarm" not in lab.floor.log.read_text(), f"a floor alarm ({run})"
    return {table_id: c.records for table_id, c in compared.items()}


def fault_run(
    directory: Path,
    postgres: PostgresServer,
    faults: Sequence[str],
    *,
    tables: int,
    hands: int,
    outage: float = OUTAGE_SECONDS,
    rewrite: bool = False,
) -> None:
    seed = run_seed()
    rng = random.Random(f"floor-faults-{seed}")
    print(f"\nfault run: seed {seed} (TABLECTL_FAULT_SEED={seed} runs it again)", flush=True)
    with FloorLab(
        directory / "lab", tables=tables, hands=hands, seed=seed, postgres=postgres
    ) as lab:
        run = FaultRun(seed, tables, hands, lambda: hands_dealt(lab))
        try:
            run_faults(lab, faults, run, rng, outage)
            records = assert_floor_holds_every_journal(lab, run)
            seconds = time.monotonic() - run.started
            print(
                f"fault run: {run}; records per table {sorted(records.values())} "
                f"(total {sum(records.values())}); every journal held exactly, "
                f"{seconds:.0f} s",
                flush=True,
            )
            if rewrite:
                rewrite_is_caught(lab, rng.choice(lab.ids), rng, run)
        finally:
            if not lab.postgres.running():
                lab.postgres.start()  # the session's server: the next test needs it


# --- a journal rewritten after forwarding ---------------------------------------------------


def rewrite_journal(directory: Path, seq: int) -> tuple[bytes, list[bytes]]:
    """Change record ``seq``'s data in place and re-hash the chain from it, every file kept as
    it was split; the record's old line, and every line as rewritten (seq n is item n - 1)."""
    files = [path for _number, path in journal_files(directory)]
    per_file = [path.read_bytes().splitlines() for path in files]
    lines = [line for part in per_file for line in part]
    prev = parse_line(lines[seq - 2]).hash if seq > 1 else GENESIS
    old = lines[seq - 1]
    for index in range(seq - 1, len(lines)):
        record = parse_line(lines[index])
        data = dict(record.data)
        if record.seq == seq:
            data["rewritten"] = True
        moment = datetime.fromisoformat(record.ts.removesuffix("Z")).replace(tzinfo=UTC)
        new, text = make_record_line(record.seq, moment, record.kind, data, prev)
        lines[index] = text.rstrip(b"\n")
        prev = new.hash
    at = 0
    for path, part in zip(files, per_file, strict=True):
        path.write_bytes(b"".join(line + b"\n" for line in lines[at : at + len(part)]))
        at += len(part)
    return old, lines


def shorten_duplicate_window(server: NatsServer, seconds: float) -> None:
    """The stream's duplicate window cut to ``seconds`` (as the floor's user may), so that a
    record's id is taken again without waiting the 2 minutes of production."""

    async def update() -> None:
        user = server.floor_user
        client = await nats.connect(server.url, user=user.user, password=user.password)
        try:
            js = client.jetstream()
            info = await js.stream_info(STREAM)
            await js.update_stream(replace(info.config, duplicate_window=seconds))
        finally:
            await client.close()

    asyncio.run(update())


def rewrite_is_caught(lab: FloorLab, table_id: str, rng: random.Random, run: FaultRun) -> None:
    lab_table = lab.tables[table_id]
    lab_table.forwarder.stop()
    assert lab_table.table.stop() == 0
    compared = lab.compare()[table_id]
    assert compared.journal_id is not None
    seq = rng.randint(2, compared.records - 1)
    old, lines = rewrite_journal(lab_table.journal, seq)
    run.note("journal_rewritten", f"table {table_id}, seq {seq} of {compared.records}")
    checked = tablectl("journal", "verify", "--journal", lab_table.journal)
    assert checked.returncode == 0, checked.stdout + checked.stderr  # its own chain verifies
    # Its forwarder will not go on from a journal that is not the one the stream holds.
    lab_table.forwarder.start()
    wait_for(lambda: not lab_table.forwarder.running(), "the forwarder refusing", run)
    assert lab_table.forwarder.stop() == 1, f"the forwarder went on ({run})"
    # The rewritten record published under its message id once the broker's duplicate window
    # has passed (a forwarder altered to send it): the witness catches it.
    assert isinstance(lab.nats, NatsServer)
    shorten_duplicate_window(lab.nats, 1.0)
    user = lab.nats.table_user(table_id)
    republish_until_taken(lab.nats.url, user, table_id, lines, seq)
    wait_for(lambda: conflicts(lab) > 0, "the conflict raised", run)
    with lab.reader() as conn:
        alarm = conn.execute(
            "SELECT table_id, journal_id, seq, evidence FROM alarms WHERE kind = 'conflict'"
        ).fetchall()
        kept = conn.execute(
            "SELECT line FROM records WHERE table_id = %s AND seq = %s", (table_id, seq)
        ).fetchone()
    assert len(alarm) == 1, f"{alarm} ({run})"
    found_table, found_journal, found_seq, evidence = alarm[0]
    assert (found_table, found_journal, found_seq) == (table_id, compared.journal_id, seq)
    assert bytes(evidence) == lines[seq - 1]  # the arriving line, exactly, as evidence
    assert kept is not None
    assert bytes(kept[0]) == old  # the floor's copy stays
    verified = tablectl("floor", "verify", "--config", lab.floor_config)
    assert verified.returncode == 1, verified.stdout
    assert f"ALARM conflict (open): table {table_id}" in verified.stdout
    run.note("conflict_caught", f"table {table_id}, journal {found_journal[:12]}, seq {seq}")


def conflicts(lab: FloorLab) -> int:
    with lab.reader() as conn:
        row = conn.execute("SELECT count(*) FROM alarms WHERE kind = 'conflict'").fetchone()
    return int(str(row[0])) if row else 0


# --- the runs -------------------------------------------------------------------------------


@pytest.mark.slow  # 50 s here beside other jobs: too long for the default suite
@pytest.mark.reliability
@pytest.mark.timeout(900)
def test_three_tables_each_fault_once_then_a_rewritten_journal_caught(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The small run: 3 tables, every fault once (a 2 s outage), the rewrite caught."""
    fault_run(tmp_path, postgres, FAULTS, tables=3, hands=6, outage=2.0, rewrite=True)


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("fault", FAULTS)
def test_twenty_tables_through_one_fault(
    tmp_path: Path, postgres: PostgresServer, fault: str
) -> None:
    fault_run(tmp_path, postgres, [fault], tables=20, hands=10)


@pytest.mark.slow
@pytest.mark.timeout(3600)
def test_twenty_tables_through_every_fault_then_a_rewritten_journal_caught(
    tmp_path: Path, postgres: PostgresServer
) -> None:
    """The run recorded in docs/floor.md, Fault runs: 60 hands a table, so that the tables
    still deal well past the broker's 30 s outage (20 tables deal about 10 hands a second
    here) and every fault lands while they do."""
    fault_run(tmp_path, postgres, FAULTS, tables=20, hands=60, rewrite=True)
