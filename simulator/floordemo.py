"""``tablectl floor demo --tables N --hands H [--keep DIR] [--web]`` (docs/floor.md, The demo):
the whole floor on this machine through the floor lab (simulator/floorlab.py), with no
configuration. ``--web`` serves the floor's web view from before the tables deal until stopped
(simulator/floordemo_web.py, docs/floor-web.md); ``--keep DIR`` keeps every file, the floor's
PostgreSQL too, and prints the commands that start it again and look at the kept floor.

It starts its own nats-server and PostgreSQL, ``floor setup`` and ``floor serve``, N simulated
tables dealt by the random dealer at full speed (each a real ``tablectl run``) with their own
``tablectl forward``; waits until every table has dealt its hands and the floor holds every
journal; runs ``tablectl floor verify``; prints per table the records its journal holds, the
broker's stream holds (forwarded) and the floor stored, the verdict of the floor's walk of its
chain in the one vocabulary (controller/journal/verdict.py: its links, and its signatures checked
and by whom, or not checked and why), and the lag from a record's append to the floor; exits 0,
or 1 naming each table whose journal and the floor differ.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

from controller.poker.words import counted
from simulator.floorlab import FloorLab
from simulator.floorlab_check import Comparison, Lag
from simulator.floorlab_parts import TABLECTL, PartError
from simulator.servers import ServerError, binary
from simulator.servers_nats import NATS_PACKAGE, NATS_SERVER
from simulator.servers_pg import PG_BIN, PG_PACKAGE

if TYPE_CHECKING:
    from simulator.floordemo_web import DemoWeb

EXIT_OK: Final = 0
EXIT_DIFFERENT: Final = 1
EXIT_USAGE: Final = 2
EXIT_INTERRUPTED: Final = 130
_NAME: Final = "tablectl floor demo"


class Signalled(BaseException):
    """SIGTERM or SIGHUP: the demo stops as on Ctrl-C, every part stopped, its folder removed
    (a BaseException, as KeyboardInterrupt: the ``with`` blocks on the way out do it)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def run_demo(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run the demo; its exit status."""
    out = out or sys.stdout
    keep: Path | None = args.keep
    if keep is not None:  # the user's own mistake first, then the machine's
        problem = _unusable(keep)
        if problem is not None:
            print(f"{_NAME}: --keep {keep}: {problem}", file=sys.stderr)
            return EXIT_USAGE
    try:
        for command, package in ((NATS_SERVER, NATS_PACKAGE), (str(PG_BIN / "initdb"), PG_PACKAGE)):
            binary(command, package)
    except ServerError as error:
        print(f"{_NAME}: {error}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with _stopped_by_signals():
            if keep is not None:
                return _run_in(args, keep, out)
            with tempfile.TemporaryDirectory(prefix="tablectl-floor-demo-") as folder:
                return _run_in(args, Path(folder), out)
    except KeyboardInterrupt:
        print(f"{_NAME}: stopped (Ctrl-C); every part stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Signalled as stopped:
        name = signal.Signals(stopped.signum).name
        print(f"{_NAME}: stopped by {name}; every part stopped", file=sys.stderr)
        return 128 + stopped.signum


def _unusable(folder: Path) -> str | None:
    if folder.exists() and not folder.is_dir():
        return "it is not a folder; expected a new or empty folder"
    if folder.is_dir() and any(folder.iterdir()):
        return "it is not empty; expected a new or empty folder (the demo starts a new floor)"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        return f"cannot make the folder: {error.strerror}; expected a new or empty folder"
    return None


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    def on_signal(signum: int, _frame: object) -> None:
        for other in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):  # a second must not
            signal.signal(other, signal.SIG_IGN)  # cut the clean-up short
        raise Signalled(signum)

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _say(text: str) -> None:
    print(f"{_NAME}: {text}", file=sys.stderr, flush=True)


def _run_in(args: argparse.Namespace, folder: Path, out: TextIO) -> int:
    began = time.monotonic()
    tables = counted(args.tables, "table")
    _say(f"starting nats-server, PostgreSQL, floor serve and {tables} in {folder}")
    store = folder / "postgres" if args.keep else None
    web = _web(out, kept=store is not None) if args.web else None
    lab: FloorLab | None = None
    try:
        with FloorLab(
            folder,
            tables=args.tables,
            hands=args.hands,
            game=args.game,
            seed=args.seed,
            keep_store=store,
            floor_up=None if web is None else web.start,
        ) as lab:
            try:
                _say(f"{tables} dealing {counted(args.hands, 'hand')} each ({args.game})")
                lab.wait_dealt()
                _say("dealt; waiting until the floor holds every journal")
                lab.wait_caught_up()
                forwarded = lab.forwarded()
                comparisons = lab.compare()
                verify = _floor_verify(lab)
                lines = summary(args, comparisons, forwarded, verify, lab.lag())
                different = [c for c in comparisons.values() if not c.same]
                failed = bool(different) or verify.returncode != 0
                if web is not None:  # a floor that differs is served too: its alarms show
                    print("\n".join(lines), file=out, flush=True)
                    lines = []
                    _serve_web(web)
            finally:
                if web is not None:  # first: it reads the floor the lab's close stops
                    web.stop()
    except (PartError, ServerError) as error:
        print(f"{_NAME}: {error}", file=sys.stderr)
        return EXIT_DIFFERENT
    finally:
        if web is not None:  # one that started before a later part failed
            web.stop()
    kept = f"the files are in {folder}" if args.keep else "its temporary folder is removed"
    lines.append(f"took {time.monotonic() - began:.0f} s; {kept}")
    if store is not None:
        lines.extend(kept_lines(args, lab, folder))
    print("\n".join(lines), file=out)
    return EXIT_DIFFERENT if failed else EXIT_OK


def _web(out: TextIO, *, kept: bool) -> DemoWeb:
    """--web: floor web over the lab's floor, started as soon as ``floor serve`` serves, before
    the tables deal (FloorLab's ``floor_up``): the new user watches the hands being played."""
    from simulator.floordemo_web import DemoWeb  # noqa: PLC0415 -- the web's parts only now

    return DemoWeb(out, sys.stderr, kept=kept)


def _serve_web(web: DemoWeb) -> None:
    """--web: once the summary is printed, serve on until Ctrl-C or SIGTERM, the demo's normal
    end; the FloorLab's ``with`` stops every other part and the folder goes after."""
    _say("every hand dealt and every chain walked; the web view serves until Ctrl-C or SIGTERM")
    try:
        web.serve()
    except (KeyboardInterrupt, Signalled):
        _say("stopping: floor web, the tables, their forwarders, floor serve and the servers")


def kept_lines(args: argparse.Namespace, lab: FloorLab, folder: Path) -> list[str]:
    """--keep: where the floor's PostgreSQL is kept (stopped) and the commands that start it
    again and look at the kept floor; written to README.txt in the kept folder too."""
    tablectl = _tablectl()
    config = lab.floor_config
    table = next(iter(lab.tables.values()), None)
    pg = lab.postgres
    lines = [
        f"the floor's PostgreSQL is kept, stopped, in {pg.directory}; to start it again and "
        "look at the kept floor:",
        f"  {shlex.join(pg.ctl('-l', str(pg.log), 'start'))}",
        f"  {tablectl} floor verify --config {config}",
        f"  {tablectl} floor key --config {config} "
        f"--owner-dsn {shlex.quote(lab.owner_socket_dsn())} list",
    ]
    if table is not None:
        bundle = folder / f"{table.table_id}-1"
        lines += [
            f"  {tablectl} dispute --hand 1 --out {bundle} --config {table.config}",
            f"  {tablectl} dispute verify {bundle} --public-key "
            f"{table.config.parent / 'table.pub'}",
        ]
    lines.append(f"  {shlex.join(pg.ctl('stop'))}")
    closed = _closed_to(folder) if pg.user is not None else None
    if closed is not None:
        lines.append(
            f"({pg.user} runs it and cannot enter {closed}: chmod o+x {closed} first, or keep "
            "the demo's files in a folder such as /tmp/floor)"
        )
    readme = folder / "README.txt"
    readme.write_text(
        "tablectl floor demo "
        + shlex.join(_argv(args))
        + ": the demo's kept floor (docs/floor.md, The demo)\n"
        + "\n".join(lines)
        + "\n",
        encoding="utf-8",
    )
    lines.append(f"(these lines are in {readme} too)")
    return lines


def _argv(args: argparse.Namespace) -> list[str]:
    argv = ["--tables", str(args.tables), "--hands", str(args.hands), "--game", args.game]
    argv += ["--seed", str(args.seed), "--keep", str(args.keep)]
    return argv + (["--web"] if args.web else [])


def _tablectl() -> str:
    """How this user runs tablectl: the venv's own when it is there (make floor-demo's)."""
    beside = Path(sys.executable).parent / "tablectl"
    return shlex.quote(str(beside)) if beside.exists() else "tablectl"


def _closed_to(folder: Path) -> Path | None:
    """The first folder on the way to ``folder`` that other users cannot enter (no o+x), where
    the server's unprivileged user would be stopped; None if there is none."""
    for path in (*reversed(folder.resolve().parents), folder.resolve()):
        if not path.stat().st_mode & stat.S_IXOTH:
            return path
    return None


def _floor_verify(lab: FloorLab) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TABLECTL, "floor", "verify", "--config", str(lab.floor_config)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


#: What every chain's verdict says when each is intact and vouched for (docs/journal.md,
#: Verdicts): the floor checks a chain's signatures with its table's registered key.
EVERY_GOOD: Final = "links intact; signatures GOOD, checked with each table's registered key"


def chain_said(found: Comparison) -> str:
    """The chain column: the floor's verdict on the table's journal (each, if it began more
    than one) in the one vocabulary, as floor verify says it; nothing stored, said so."""
    if not found.verdicts:
        return "no chain stored: not walked"
    return " | ".join(verdict.text() for verdict in found.verdicts)


def chains_said(found: list[Comparison]) -> str:
    """The total's chain column: every chain intact and vouched for, or how many of them."""
    good = sum(1 for c in found if c.vouched)
    if found and good == len(found):
        return f"every chain: {EVERY_GOOD}"
    return f"{good} of {counted(len(found), 'chain')}: {EVERY_GOOD}; the others as above"


def summary(
    args: argparse.Namespace,
    comparisons: dict[str, Comparison],
    forwarded: dict[str, int],
    verify: subprocess.CompletedProcess[str],
    lag: Lag,
) -> list[str]:
    """The demo's report: a line per table, the total, floor verify, the lag."""
    lines = [
        f"{counted(args.tables, 'table')}, {counted(args.hands, 'hand')} each ({args.game}, "
        f"seed {args.seed}), dealt at full speed",
        f"{'table':<8} {'journal':>8} {'forwarded':>10} {'stored':>8}  chain",
    ]
    for table_id, found in comparisons.items():
        lines.append(
            f"{table_id:<8} {found.records:>8} {forwarded.get(table_id, 0):>10} "
            f"{found.stored:>8}  {chain_said(found)}"
        )
    lines.append(
        f"{'total':<8} {sum(c.records for c in comparisons.values()):>8} "
        f"{sum(forwarded.values()):>10} {sum(c.stored for c in comparisons.values()):>8}  "
        + chains_said(list(comparisons.values()))
    )
    different = [c for c in comparisons.values() if not c.same]
    lines.extend(f"DIFFERENT {c.table_id}: {c.differences()}" for c in different)
    if not different:
        lines.append(
            "every table's journal is on the floor exactly: same records, none missing, none twice"
        )
    verdict = verify.stdout.strip().splitlines()[-1:] or [verify.stderr.strip()]
    lines.append(f"floor verify: {verdict[0]} (exit {verify.returncode})")
    lines.append(
        f"lag from a record's append to the floor's receipt, {counted(lag.records, 'record')}: "
        f"p50 {lag.p50 * 1000:.0f} ms, p99 {lag.p99 * 1000:.0f} ms, max {lag.max * 1000:.0f} ms"
    )
    return lines
