"""A stop asked while ``tablectl run`` starts: SIGTERM at each stage of a start (the journal
being opened and replayed, a device that cannot be opened yet, a device that never says hello,
the first hand) ends the process with status 0 within the systemd unit's ``TimeoutStopSec``,
``table_closed`` logged and the journal whole (docs/app.md, Stopping).

Each table opens a journal whose finished files were left plain (as a table killed again and
again before its keeper could compress them leaves them: the 1,000-hand crash run of
docs/testing.md did): the keeper's start pass has tens of megabytes to compress, a minute of
a core at level 19, and a stop must not wait for it (docs/journal.md, Compressed files).
Every stage is reached by something the test sees (a descriptor of the process, a log line,
the device's query on the wire), never by waiting a time.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from apphelp import AS_ROOT, PATIENCE, THREE_SEATS
from test_app_commands import ROOT, log_lines

from controller.journal import JournalWriter, schema, verify
from controller.journal import tablerecords as rec
from controller.journal.files import file_name, journal_files
from controller.poker.inputs import Button
from controller.table.opening import UNHEARD
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

UNIT = ROOT / "docs" / "examples" / "tablectl.service"

#: The finished files left plain: about a minute of zstd level 19 on this machine, and more
#: than TimeoutStopSec on any (docs/performance.md, Journal size).
PLAIN_MB = 40
#: Each finished file's size (the writer's max_bytes): a file takes the keeper many chunks.
FILE_BYTES = 4_000_000


def timeout_stop_sec() -> float:
    """The unit's TimeoutStopSec: how long systemd waits after SIGTERM before SIGKILL."""
    found = re.search(r"^TimeoutStopSec=(\d+)s$", UNIT.read_text(encoding="utf-8"), re.M)
    assert found, f"{UNIT} has no TimeoutStopSec=Ns"
    return float(found.group(1))


def left_plain(directory: Path) -> list[str]:
    """The journal's finished files (all but the last) that are not compressed."""
    return [p.name for n, p in journal_files(directory)[:-1] if p.name == file_name(n)]


def restarts(directory: Path) -> None:
    """A journal of many starts and no hand, in finished files of FILE_BYTES, none compressed:
    each start journals its software record (a manifest of 400 files) and its devices unheard,
    as ``tablectl run`` does (docs/journal.md, The software record)."""
    with JournalWriter.open(
        directory, fsync=False, max_bytes=FILE_BYTES, hand_start_kind=rec.HAND_STARTED
    ) as writer:
        start = 0
        while sum(path.stat().st_size for path in directory.iterdir()) < PLAIN_MB * 1_000_000:
            start += 1
            files = {
                f"controller/part{i // 40}/module_{i}.py": hashlib.sha256(
                    f"{start}:{i}".encode()
                ).hexdigest()
                for i in range(400)
            }
            config = {"/etc/tablectl/table.toml": hashlib.sha256(str(start).encode()).hexdigest()}
            digest = hashlib.sha256(json.dumps([files, config]).encode()).hexdigest()
            writer.append(*schema.record(schema.SoftwareData("0.1.0", files, config, digest)))
            for device in ("shoe", "panel"):
                writer.append(*schema.record(schema.DeviceData(device, "lost", reason=UNHEARD)))
    assert len(left_plain(directory)) >= PLAIN_MB * 1_000_000 // FILE_BYTES - 1


@pytest.fixture(scope="module")
def plain_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("plain") / "journal"
    restarts(directory)
    return directory


def table(tmp_path: Path, sim: Simulator, journal: Path, shoe: str | None = None) -> Path:
    """A three-seat Mambo table on the simulator (its shoe at ``shoe`` if given) whose journal
    is a copy of ``journal``; its sockets in the test's folder; the log JSON at info."""
    shutil.copytree(journal, tmp_path / "journal")
    config = write_table_toml(
        tmp_path,
        table_id="STOP-1",
        game="mambo",
        config=THREE_SEATS,
        shoe={"path": shoe if shoe is not None else sim.address("shoe")},
        panel={"path": sim.address("panel")},
        decks=sim.write_deck_files(tmp_path / "decks"),
        log={"format": "json", "file": tmp_path / "tablectl.log"},
    )
    with config.open("a", encoding="utf-8") as toml:
        toml.write(f'\n[control]\nsocket = "{tmp_path / "c.sock"}"\n')
        toml.write(f'\n[display]\nsocket = "{tmp_path / "d.sock"}"\n')
    return config


@pytest.fixture
def started(tmp_path: Path) -> Iterator[Callable[[Path], subprocess.Popen[bytes]]]:
    """Starts ``tablectl run`` (once); kills it at the end if it is still running."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(config: Path) -> subprocess.Popen[bytes]:
        with (tmp_path / "run.err").open("ab") as errors:
            process = subprocess.Popen(
                [sys.executable, "-m", "controller", "run", "--config", str(config), *AS_ROOT],
                cwd=ROOT,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                stdout=errors,
                stderr=errors,
            )
        processes.append(process)
        return process

    yield start
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()


def until(what: str, seen: Callable[[], Any], process: subprocess.Popen[bytes]) -> Any:
    """Wait until ``seen()`` says something (returned), the process exits, or PATIENCE runs out."""
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        found = seen()
        if found:
            return found
        assert process.poll() is None, f"tablectl run exited ({process.returncode}) before {what}"
        time.sleep(0.01)
    raise AssertionError(f"no {what} within {PATIENCE} s")


def logged(log: Path, event: str, **fields: object) -> Callable[[], bool]:
    return lambda: any(
        line.get("event") == event and all(line.get(k) == v for k, v in fields.items())
        for line in log_lines(log)
    )


def opening(process: subprocess.Popen[bytes], journal: Path) -> Callable[[], bool]:
    """The process holds the journal's folder open: the writer has taken its lock and reads
    the journal's end (before a line of the start is logged)."""

    def holds() -> bool:
        fds = Path(f"/proc/{process.pid}/fd")
        try:
            return any(os.readlink(fd) == str(journal) for fd in fds.iterdir())
        except OSError:  # a descriptor closed as it was read
            return False

    return holds


def stop_within_the_unit(process: subprocess.Popen[bytes], tmp_path: Path, log: Path) -> float:
    """SIGTERM; the process must exit 0 within TimeoutStopSec, having logged the signal and
    table_closed, its journal whole. The seconds it took."""
    bound = timeout_stop_sec()
    process.send_signal(signal.SIGTERM)
    sent = time.monotonic()
    try:
        status = process.wait(timeout=bound)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError(
            f"tablectl run did not exit within TimeoutStopSec={bound:g}s of SIGTERM "
            f"(systemd would SIGKILL it); its last lines: {log_lines(log)[-3:]}"
        ) from None
    took = time.monotonic() - sent
    errors = (tmp_path / "run.err").read_text(encoding="utf-8")
    assert status == 0, f"exit status {status} after SIGTERM: {errors}"
    assert logged(log, "signal", signal="SIGTERM")(), log_lines(log)[-5:]
    assert logged(log, "table_closed")(), log_lines(log)[-5:]
    report = verify(tmp_path / "journal")
    assert report.intact, report.summary()
    print(f"exit 0 {took:.2f} s after SIGTERM")
    return took


def test_a_stop_while_the_journal_is_opened_and_replayed(
    tmp_path: Path, plain_journal: Path, started: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """SIGTERM as the journal is opened: the table closes once the replay is done (exit 0,
    where a signal before the handler killed it half-open), and the keeper's pass, begun as the
    journal opened, does not hold the stop: the finished files stay plain for the next start."""
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table(tmp_path, sim, plain_journal)
        process = started(config)
        until("the journal opened", opening(process, tmp_path / "journal"), process)
        stop_within_the_unit(process, tmp_path, tmp_path / "tablectl.log")
    assert left_plain(tmp_path / "journal"), "the stop waited for the keeper's compression"


def test_a_stop_while_a_device_cannot_be_opened(
    tmp_path: Path, plain_journal: Path, started: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """SIGTERM while the shoe's path does not exist yet (a cable not plugged in): its driver
    is between two tries to open it."""
    log = tmp_path / "tablectl.log"
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table(tmp_path, sim, plain_journal, shoe=str(tmp_path / "no-shoe-yet"))
        process = started(config)
        until("the shoe's comm_lost", logged(log, "comm_lost", device="shoe"), process)
        stop_within_the_unit(process, tmp_path, log)


def test_a_stop_while_a_device_does_not_say_hello(
    tmp_path: Path, plain_journal: Path, started: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """SIGTERM while the shoe's port is open and the driver waits for its hello: the shoe is a
    bare pty the test holds, which reads the driver's query and never answers."""
    master, slave = os.openpty()
    try:
        with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
            config = table(tmp_path, sim, plain_journal, shoe=os.ttyname(slave))
            process = started(config)
            heard = bytearray()

            def queried() -> bool:
                while select.select([master], [], [], 0)[0]:
                    heard.extend(os.read(master, 4096))
                return b"QRY" in heard

            until("the driver's query to the shoe", queried, process)
            stop_within_the_unit(process, tmp_path, tmp_path / "tablectl.log")
    finally:
        os.close(master)
        os.close(slave)


def test_a_stop_in_the_first_hand(
    tmp_path: Path, plain_journal: Path, started: Callable[[Path], subprocess.Popen[bytes]]
) -> None:
    """SIGTERM once both devices said hello and the first hand has begun: where the crash
    run's harness stops the controller (tests/app/crashrun.py, ``Killer.stop``)."""
    log = tmp_path / "tablectl.log"
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table(tmp_path, sim, plain_journal)
        process = started(config)
        for device in ("shoe", "panel"):
            until(f"the {device}'s hello", logged(log, "device_back", device=device), process)
        sim.shuffle(3)
        sim.press(Button.NEW_HAND)
        until("the first hand", logged(log, "hand_started"), process)
        stop_within_the_unit(process, tmp_path, log)
