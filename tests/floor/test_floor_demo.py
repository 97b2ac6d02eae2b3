"""``tablectl floor demo`` (docs/floor.md, The demo), run as the real command line: its own
nats-server and PostgreSQL, simulated tables dealt at full speed with their forwarders, the
floor; its summary checked against the journals it keeps with --keep. And the floor's commands
without psycopg (the floor extra): a table's commands still run."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.journal.files import journal_files
from controller.journal.record import parse_line
from simulator.servers_pg import PG_BIN

PG_CTL = PG_BIN / "pg_ctl"

TABLECTL = [sys.executable, "-m", "controller"]


def _demo(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TABLECTL, "floor", "demo", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=280,
        check=False,
        env=env,
    )


def _journal_records(journal: Path) -> int:
    """The complete lines of a kept journal, each a record that checks."""
    count = 0
    for _number, path in journal_files(journal):
        for line in path.read_bytes().splitlines(keepends=True):
            assert line.endswith(b"\n"), f"{path}: a torn last line after the demo stopped"
            parse_line(line.rstrip(b"\n"))
            count += 1
    return count


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder in /tmp that ``nobody`` may enter (pytest's tmp_path is root's 0700): the kept
    PostgreSQL runs as nobody when the tests run as root. Removed after, its server stopped."""
    folder = Path(tempfile.mkdtemp(prefix="tablectl-kept-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        data = folder / "floor" / "postgres" / "data"
        if (data / "postmaster.pid").exists():
            subprocess.run([*_as_server_user(), str(PG_CTL), "-D", str(data), "stop"], check=False)
        shutil.rmtree(folder, ignore_errors=True)


def _as_server_user() -> list[str]:
    return ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []


def _run(command: str) -> subprocess.CompletedProcess[str]:
    """A command line the demo printed, run as printed."""
    return subprocess.run(
        shlex.split(command), capture_output=True, text=True, timeout=120, check=False
    )


def test_the_demo_stores_and_verifies_every_table_s_whole_journal(open_folder: Path) -> None:
    kept = open_folder / "floor"
    done = _demo("--tables", "2", "--hands", "3", "--keep", kept)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {
        match["table"]: match
        for match in re.finditer(
            r"^(?P<table>T\d+) +(?P<journal>\d+) +(?P<forwarded>\d+) +(?P<stored>\d+) +"
            r"(?P<chain>.+)$",
            done.stdout,
            re.MULTILINE,
        )
    }
    assert sorted(rows) == ["T1", "T2"], done.stdout
    total = 0
    for table_id, row in rows.items():
        records = _journal_records(kept / "tables" / table_id / "journal")
        # A hand of mambo is dozens of records: three hands and the devices' hellos at least.
        assert records > 30
        assert int(row["journal"]) == int(row["forwarded"]) == int(row["stored"]) == records
        # The floor's verdict in the one vocabulary (docs/journal.md, Verdicts): the demo's
        # tables sign their checkpoints with a key the floor registered.
        assert row["chain"].startswith(
            "links intact; signatures GOOD, checked with the table's registered key "
        ), row["chain"]
        total += records
    assert re.search(
        rf"^total +{total} +{total} +{total} +every chain: links intact; signatures GOOD, "
        r"checked with each table's registered key$",
        done.stdout,
        re.M,
    )
    assert "every table's journal is on the floor exactly" in done.stdout
    assert "floor verify: clean (exit 0)" in done.stdout
    lag = re.search(r"(\d+) records: p50 (\d+) ms, p99 (\d+) ms, max (\d+) ms", done.stdout)
    assert lag is not None, done.stdout
    assert int(lag[1]) == total
    assert int(lag[2]) <= int(lag[3]) <= int(lag[4])
    assert f"the files are in {kept}" in done.stdout
    assert (kept / "floor" / "floor.toml").is_file()
    _look_at_the_kept_floor(kept, done.stdout)


def _look_at_the_kept_floor(kept: Path, printed: str) -> None:
    """The kept floor as a new user finds it: its PostgreSQL kept, started again with the
    command the demo printed; floor verify and the key list as printed; the README's dispute
    commands on a kept table (its table.pub beside table.key)."""
    assert (kept / "postgres" / "data" / "PG_VERSION").is_file()
    commands = [line.strip() for line in printed.splitlines() if line.startswith("  ")]
    readme = (kept / "README.txt").read_text().splitlines()
    assert commands == [line.strip() for line in readme if line.startswith("  ")]
    start, verify, key_list, dispute, dispute_verify, stop = commands
    assert start.endswith(" start")
    assert "pg_ctl" in start
    started = _run(start)
    assert started.returncode == 0, started.stdout + started.stderr
    try:
        walked = _run(verify)
        for table in ("T1", "T2"):  # walked: whatever the verdict, each table's chain said
            assert f"table {table}" in walked.stdout, walked.stdout + walked.stderr
        assert "Traceback" not in walked.stderr
        listed = _run(key_list)
        assert listed.returncode == 0, listed.stderr
        for table in ("T1", "T2"):
            public = (kept / "tables" / table / "table.pub").read_text().strip()
            assert re.search(
                rf"^table {table}\tkey \S+\tin force\t.*\t{public}$", listed.stdout, re.M
            )
    finally:
        stopped = _run(stop)
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    # tablectl dispute and dispute verify need only the table's own folder (README).
    made = _run(dispute)
    assert made.returncode == 0, made.stderr
    checked = _run(dispute_verify)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "signatures GOOD" in checked.stdout


def test_a_missing_nats_server_names_its_debian_package(tmp_path: Path) -> None:
    done = _demo("--tables", "1", env={**os.environ, "PATH": str(tmp_path)})
    assert done.returncode == 2
    assert "nats-server not found: install the Debian package nats-server" in done.stderr
    assert "Traceback" not in done.stderr


def test_keep_refuses_a_folder_that_is_not_empty(tmp_path: Path) -> None:
    (tmp_path / "something").write_text("x")
    done = _demo("--keep", tmp_path)
    assert done.returncode == 2
    assert f"--keep {tmp_path}: it is not empty" in done.stderr
    assert (tmp_path / "something").read_text() == "x"


def test_bad_counts_name_the_option_and_what_was_expected() -> None:
    done = _demo("--tables", "0")
    assert done.returncode == 2
    assert "--tables: tables '0': expected a whole number from 1 to 50" in done.stderr
    done = _demo("--hands", "many")
    assert done.returncode == 2
    assert "--hands: hands 'many': expected a whole number" in done.stderr


#: A process without psycopg, as after ``make demo`` (the runtime only, no floor extra).
NO_PSYCOPG = "import sys; sys.modules['psycopg'] = None\nfrom controller.cli.main import main\n"


def test_without_the_floor_extra_a_table_s_commands_run_and_the_floor_says_what_is_missing(
    tmp_path: Path,
) -> None:
    def run(*argv: str) -> subprocess.CompletedProcess[str]:
        code = NO_PSYCOPG + f"sys.exit(main({list(argv)!r}))"
        return subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
        )

    shown = run("demo", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "--headless" in shown.stdout
    # A floor.toml that exists: its path is checked as the command line is read, the floor's
    # client only once the command runs.
    (tmp_path / "floor.toml").write_text("", encoding="utf-8")
    for argv in (("floor", "verify", "--config", str(tmp_path / "floor.toml")), ("floor", "demo")):
        refused = run(*argv)
        assert refused.returncode == 1
        assert "psycopg (PostgreSQL's client) is not installed" in refused.stderr
        assert "pip install 'tablectl[floor]'" in refused.stderr
        assert "Traceback" not in refused.stderr


def _processes_naming(text: str) -> list[str]:
    """The command lines of the running processes that name ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # not a process, or it ended meanwhile
            continue
        if text in line:
            found.append(line)
    return found


def test_sigterm_while_dealing_stops_every_part_and_removes_the_folder() -> None:
    with subprocess.Popen(
        [*TABLECTL, "floor", "demo", "--tables", "1", "--hands", "10000"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    ) as demo:
        try:
            assert demo.stderr is not None
            first = demo.stderr.readline()
            folder = re.search(r" in (/\S+)$", first)
            assert folder is not None, first
            dealing = demo.stderr.readline()  # said once every part is up and the table deals
            assert "dealing 10000 hands" in dealing, dealing
            assert _processes_naming(folder[1])  # the controller, its forwarder, the floor...
            demo.send_signal(signal.SIGTERM)
            rest = demo.stderr.read()
            assert demo.wait(timeout=120) == 128 + signal.SIGTERM
        finally:
            if demo.poll() is None:
                demo.kill()
    assert "stopped by SIGTERM; every part stopped" in rest
    assert "Traceback" not in rest
    assert not Path(folder[1]).exists()
    assert _processes_naming(folder[1]) == []
