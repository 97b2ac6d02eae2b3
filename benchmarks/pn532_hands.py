"""Whole hands through PN532 shoes: a card entering a reader's field to the engine taking its
read, against the wire time of one InListPassiveTarget exchange; and every card the dealer
pitched past a reader read exactly once, counted against the journal.

    python benchmarks/pn532_hands.py [--hands N] [--tables T] [--games G,...] [--pause S]
        [--pitch S] [--seed N] [--patience S] [--progress S] [--dir DIR]

Each **table** is a process of its own, as ``tablectl demo --shoe pn532`` runs one: the
simulator's table (simulator/simtable.py) whose shoe is ``[devices.shoe] kind = "pn532"``,
a simulated PN532 (simulator/pn532) at the dealing slot and one at the discard reader, each
on a real pty polled by the PN532 driver (drivers/pn532) on the wall's monotonic clock; the
controller (controller/table: the journal, fsync on as ``tablectl run``'s default, and the
engine) logging JSON lines at info to a file; and the bench bot (``LockstepDealer``)
dealing whole hands of the table's game, each card pitched past a reader's field for
``--pitch`` seconds (simulator/pn532/shoe.py), ``--pause`` seconds after the card before it
left the field. The tables share ``--hands`` hands: each claims the next hand from one
count until they are all dealt; table *i* plays the *i*-th of ``--games`` (in turn).

Nothing is added to the product for the measure: in each table's process the benchmark
wraps two methods of the running objects. Each simulated chip's ``place`` (the card entering
the field: the time the chip takes it at) gives the **pitches**; the controller's
``TableCore.take_record`` (the engine's input: the journaled record handed to the table's
core) gives the time each card's read reaches the engine. A card's latency is from its
pitch to that call, for the pitch it was read in.

**Every card read exactly once**: after the run, each table's journal (verified intact) is
read, and each read of a tag (a ``card`` record, or a ``tag`` record: a tag the table
alarmed on) is given to the pitch of the same tag at the same reader that came last before
the read's host stamp (``read_ms``). A pitch given no read is **missed** (the dealer passed
the card again: its reader never listed it); a pitch given more than one, or a read given
no pitch, is **doubled**. A card read twice holds the hand with an alarm; the dealer
resolves it as at a table (undo dismisses the read) and deals on, and the alarm is printed.
A table that stops (the controller took no input for ``--patience`` seconds) is reported
with what it dealt before; the run then fails. ``--dir`` keeps each table's journal, log and
counts (``table-N/``) for a look afterwards.
"""

from __future__ import annotations

import argparse
import fcntl
import itertools
import json
import multiprocessing
import statistics
import sys
import tempfile
import threading
import time
import traceback
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree
sys.path.insert(0, str(Path(__file__).resolve().parent))  # benchmarks/pn532.py

from pn532 import percentile, wire_time  # benchmarks/pn532.py: one wire time for both

from controller.config.settings import JournalSettings, LogFormat, LogSettings
from controller.journal import JournalReader, schema, verify
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.engine.events import Alarm, Event
from controller.poker.games import GAMES
from controller.poker.inputs import Button
from controller.poker.words import counted
from controller.table.loop import Controller, wait_until
from drivers.pn532 import commands
from drivers.pn532.backend import uid_text
from drivers.seam.tags import DEVICE_CLOCK_MODULUS, TagFamily
from simulator.lockstep import LockstepDealer
from simulator.pace import Pace
from simulator.pn532.chip import Tag
from simulator.pn532.shoe import PITCH, POINTS, REPEAT_WINDOW, fit_pn532, pn532_readers
from simulator.simtable import SimTable

#: A read point's name in the journal (``point``) to the simulator's reader at it.
READERS = {point.value: name for point, name in POINTS.items()}
#: How far (seconds) a read's millisecond stamp may fall before its pitch's exact time.
STAMP_SLACK = 0.002


class Claims:
    """The hands still to deal, shared by the tables: each claims one before dealing it (a
    count in a file, under an exclusive lock: nothing of it stays open between claims)."""

    def __init__(self, path: Path, hands: int) -> None:
        self.path = path
        self.hands = hands
        path.write_text("0", encoding="ascii")

    def claim(self) -> bool:
        with self.path.open("r+", encoding="ascii") as file:
            fcntl.flock(file, fcntl.LOCK_EX)
            dealt = int(file.read())
            if dealt >= self.hands:
                return False
            file.seek(0)
            file.write(str(dealt + 1))
            return True

    def dealt(self) -> int:
        return int(self.path.read_text(encoding="ascii") or 0)


def watch_pitches(readers: Any, pitches: list[tuple[str, str, float]]) -> None:
    """Wrap each chip's ``place``: every card put in a field, at the chip's time."""
    for name, chip in readers.chips.items():
        place = chip.place

        def placed(
            tag: Tag, now: float, dwell: float, _name: str = name, _place: Any = place
        ) -> None:
            pitches.append((_name, uid_text(tag.uid), now))
            _place(tag, now, dwell)

        chip.place = placed


def watch_engine(core: Any, taken: list[tuple[str, str, float]]) -> None:
    """Wrap the table core's ``take_record``: the time each card's read reaches the engine."""
    take_record: Callable[[object], Any] = core.take_record

    def take(record: object) -> Any:
        if isinstance(record, schema.CardData) and record.uid is not None:
            taken.append((READERS[record.point.value], record.uid, time.monotonic()))
        return take_record(record)

    core.take_record = take


def resolve_alarms(table: SimTable, dealer: LockstepDealer, alarms: list[str]) -> None:
    """An alarm (a card read twice: docs/hardware.md) is noted, and the dealer resolves it as
    at a table: undo dismisses the read, and the hand goes on with the card the table expects.
    The press is made on a thread of its own (not the controller's, which calls listeners),
    and waited for as the bot's own input (``expect_input``); the bot's table never saw the
    read, so it takes no press."""

    def press() -> None:
        table.sim.press(Button.UNDO)

    def listen(controller: Controller, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, Alarm):
                alarms.append(f"hand {controller.core.finished + 1}: {event.read}, {event.reason}")
                dealer.expect_input()
                threading.Thread(target=press, name="bench-undo", daemon=True).start()

    table.controller.listeners.append(listen)


def journal_reads(journal: Path) -> list[tuple[str, str, int]]:
    """Every read of a tag the journal holds: (reader, uid, read_ms)."""
    reads = []
    for record in JournalReader(journal):
        if record.kind not in ("card", "tag"):
            continue
        data = record.data
        read_ms = data.get("read_ms")
        if not isinstance(read_ms, int):  # every PN532 read is stamped: a broken count
            raise RuntimeError(f"{journal}: {record.kind} record {record.seq} has no read_ms")
        reads.append((READERS[str(data["point"])], str(data["uid"]), read_ms))
    return reads


def play_table(index: int, game: str, claims: Claims, args: argparse.Namespace) -> None:
    """One table's process: deal the hands it claims, then write what it saw to result.json
    (what it dealt before a failure too: the failure is reported beside it)."""
    folder = Path(args.dir) / f"table-{index}"
    folder.mkdir(parents=True)
    journal = JournalSettings(folder / "journal")  # fsync on, tablectl run's default
    result: dict[str, Any] = {"game": game, "hands": 0, "voided": 0, "repitched": 0}
    result |= {"alarms": [], "pitches": [], "taken": [], "reads": [], "intact": False}
    configure_logging(
        LogSettings(format=LogFormat.JSON, file=folder / "tablectl.log"), table_id=f"BENCH-{index}"
    )
    started = time.monotonic()
    try:
        deal(index, claims, args, result, journal)
    except BaseException:
        result["error"] = traceback.format_exc()
    finally:
        reset_logging()
    result["seconds"] = time.monotonic() - started
    try:
        result["reads"] = journal_reads(journal.dir)
        result["intact"] = verify(journal.dir).intact
    except Exception:
        result["error"] = result.get("error", "") + traceback.format_exc()
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")


def deal(
    index: int,
    claims: Claims,
    args: argparse.Namespace,
    result: dict[str, Any],
    journal: JournalSettings,
) -> None:
    """Deal the hands this table claims; what it sees goes into ``result`` as it goes."""
    game, folder = result["game"], journal.dir.parent
    pace = replace(Pace.fast(REPEAT_WINDOW), card=args.pause)
    with (
        pn532_readers(folder / "pn532") as (readers, settings),
        SimTable(
            game,
            journal,
            seed=args.seed + index,
            directory=folder,
            repeat_window=REPEAT_WINDOW,
            devices={"shoe": settings},
            tags=TagFamily.ISO14443A,
        ) as table,
    ):
        watch_pitches(readers, result["pitches"])
        pitched = fit_pn532(table.sim, readers, args.pitch)
        controller = table.controller
        watch_engine(controller.core, result["taken"])
        dealer = LockstepDealer.for_table(
            table.sim,
            controller,
            table.spec,
            table.config,
            seed=args.seed + index,
            pace=pace,
            timeout=args.patience,
        )
        resolve_alarms(table, dealer, result["alarms"])
        try:
            while claims.claim():
                dealer.run(1)
            # A card read twice is an input the bot never made: the lockstep then counts the
            # bot's last act taken before the controller has taken it. Wait for the hands.
            hands = len(dealer.bot.records)
            wait_until(lambda: controller.core.finished >= hands, args.patience)
        finally:
            core = controller.core
            result |= {"hands": core.finished, "voided": core.voided}
            result["repitched"] = pitched.repitched


def tally(
    pitches: list[tuple[str, str, float]], reads: list[tuple[str, str, int]]
) -> dict[str, int]:
    """Each journal read given to the pitch it was read in; missed and doubled pitches."""
    times: dict[tuple[str, str], list[float]] = {}
    for reader, uid, at in pitches:
        times.setdefault((reader, uid), []).append(at)
    counts: dict[tuple[str, str, int], int] = {}
    orphans = 0
    for reader, uid, read_ms in reads:
        placed = times.get((reader, uid), [])
        # read_ms: the host's monotonic clock in ms, modulo 2**32 (drivers/pn532/backend.py).
        stamp = read_ms / 1000
        stamped = [at % (DEVICE_CLOCK_MODULUS / 1000) for at in placed]
        index = bisect_right(stamped, stamp + STAMP_SLACK) - 1
        if index < 0:
            orphans += 1
            continue
        key = (reader, uid, index)
        counts[key] = counts.get(key, 0) + 1
    read_once = sum(1 for n in counts.values() if n == 1)
    return {
        "pitched": len(pitches),
        "read once": read_once,
        "missed": len(pitches) - len(counts),
        "doubled": sum(n - 1 for n in counts.values()) + orphans,
    }


def latencies(
    pitches: list[tuple[str, str, float]], taken: list[tuple[str, str, float]]
) -> list[float]:
    """For each card the engine took: seconds from the pitch it was read in (the last of that
    tag at that reader before) to the engine's input."""
    times: dict[tuple[str, str], list[float]] = {}
    for reader, uid, at in pitches:
        times.setdefault((reader, uid), []).append(at)
    found = []
    for reader, uid, at in taken:
        placed = times.get((reader, uid), [])
        index = bisect_right(placed, at) - 1
        if index < 0:
            raise RuntimeError(f"{uid} at the {reader} reader reached the engine, never pitched")
        found.append(at - placed[index])
    return found


def pitch_interval(pitches: list[tuple[str, str, float]]) -> float:
    """The median time from one card entering a field to the next card entering one."""
    ordered = sorted(at for _, _, at in pitches)
    gaps = [b - a for a, b in itertools.pairwise(ordered)]
    return statistics.median(gaps) if gaps else 0.0


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    """Deal ``args.hands`` on ``args.tables`` tables, each in its process; their results."""
    claims = Claims(Path(args.dir) / "dealt", args.hands)
    games = args.games.split(",")
    context = multiprocessing.get_context("fork")
    tables = [
        context.Process(target=play_table, args=(i, games[i % len(games)], claims, args))
        for i in range(args.tables)
    ]
    for process in tables:
        process.start()
    reported = time.monotonic()
    while any(process.is_alive() for process in tables):
        for process in tables:
            process.join(1.0)
        if args.progress and time.monotonic() - reported >= args.progress:
            reported = time.monotonic()
            print(f"{claims.dealt()} of {args.hands} hands begun", file=sys.stderr, flush=True)
    results = []
    for i, process in enumerate(tables):
        path = Path(args.dir) / f"table-{i}" / "result.json"
        if not path.exists():
            raise RuntimeError(f"table {i} ended (exit {process.exitcode}) without its result")
        results.append(json.loads(path.read_text(encoding="utf-8")))
        process.close()
    return results


def report(args: argparse.Namespace, results: list[dict[str, Any]]) -> int:
    failed = [i for i, result in enumerate(results) if "error" in result]
    for i in failed:
        print(f"table {i} ({results[i]['game']}) stopped: {results[i]['error']}")
    pitches = [p for result in results for p in result["pitches"]]
    counts: dict[str, int] = {}
    delays: list[float] = []
    for result in results:
        for name, value in tally(result["pitches"], result["reads"]).items():
            counts[name] = counts.get(name, 0) + value
        delays += latencies(result["pitches"], result["taken"])
    games: dict[str, int] = {}
    for result in results:
        games[result["game"]] = games.get(result["game"], 0) + result["hands"]
    hands = sum(games.values())
    seconds = max(result["seconds"] for result in results)
    intact = all(result["intact"] for result in results)
    interval = statistics.median(pitch_interval(result["pitches"]) for result in results)
    print(
        f"{counted(hands, 'hand')} ({', '.join(f'{g} {n}' for g, n in games.items())}) on "
        f"{counted(args.tables, 'table')} in {seconds:.0f} s; "
        f"{sum(r['voided'] for r in results)} void; "
        f"journals {'intact' if intact else 'NOT INTACT'}"
    )
    print(
        f"pace: a card {args.pitch:g} s in a reader's field, the next {args.pause:g} s after it "
        f"left; a card pitched every {interval * 1000:.0f} ms (median, one table)"
    )
    print(
        f"cards pitched {counts['pitched']}, read once {counts['read once']}, "
        f"missed {counts['missed']}, doubled {counts['doubled']} "
        f"(pitched again by the dealer: {sum(r['repitched'] for r in results)})"
    )
    for i, result in enumerate(results):
        for alarm in result["alarms"]:
            print(f"table {i} ({result['game']}) alarm, resolved by undo: {alarm}")
    wire = wire_time(args.baud)
    if delays:
        p50, p99 = percentile(delays, 0.5), percentile(delays, 0.99)
        print(
            f"field to engine: {len(delays)} cards, p50 {p50 * 1000:.2f} ms, "
            f"p99 {p99 * 1000:.2f} ms, max {max(delays) * 1000:.2f} ms"
        )
        print(
            f"one InListPassiveTarget exchange on the wire at {args.baud} baud: "
            f"{wire * 1000:.3f} ms; p50 {p50 / wire:.1f}x, p99 {p99 / wire:.1f}x"
        )
    ok = counts["missed"] == counts["doubled"] == 0 and intact and hands == args.hands
    ok = ok and not failed
    return 0 if ok and pitches else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands in all (default 1000)")
    parser.add_argument("--tables", type=int, default=1, help="tables dealing at once")
    parser.add_argument("--games", default=",".join(sorted(GAMES)), help="comma-separated")
    parser.add_argument("--pitch", type=float, default=PITCH, help="seconds in a field")
    parser.add_argument(
        "--pause", type=float, default=0.25, help="seconds from a card leaving to the next"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--progress", type=float, default=0.0, help="seconds between reports")
    parser.add_argument(
        "--patience",
        type=float,
        default=60.0,
        help="seconds the dealer waits for the controller to take an input (default 60)",
    )
    parser.add_argument("--dir", type=Path, help="keep each table's journal and log here")
    args = parser.parse_args(argv)
    for game in args.games.split(","):
        if game not in GAMES:
            parser.error(f"--games: {game!r}; expected some of {', '.join(sorted(GAMES))}")
    if args.hands < 1 or args.tables < 1:
        parser.error("--hands and --tables: expected 1 or more")
    if not args.pitch > 0 or args.pause < 0 or not args.patience > 0:
        parser.error("--pitch and --patience: expected more than 0 s; --pause: 0 s or more")
    args.baud = commands.POWER_UP_BAUD  # the shoe's table.toml default (baudrate)
    if args.dir is not None:
        if args.dir.exists() and any(args.dir.iterdir()):
            parser.error(f"--dir {args.dir}: expected an empty or new folder")
        args.dir.mkdir(parents=True, exist_ok=True)
        return report(args, run(args))
    with tempfile.TemporaryDirectory(prefix="tablectl-pn532-hands-") as directory:
        args.dir = Path(directory)
        return report(args, run(args))


if __name__ == "__main__":
    raise SystemExit(main())
