"""Card to announcement: from a card sentence written to the shoe's pty to the controller's
announcement of what comes next (the seat to act, or the next card), fsync on and off.

    python benchmarks/latency.py [--cards N] [--game G] [--dir DIR]

Two processes, as at a table. The **table** (a child process): the simulated shoe
and panel on real ptys, and the simulator's random dealer bot performing its acts
on them. The **controller** (this process): ``tablectl run``'s own code path:
a ``table.toml`` loaded by ``controller.config.tabletoml``, ``build_controller`` (the real
drivers on the ptys, journal, engine, panel output) and ``serve`` on the main
thread, logging JSON lines at info level to a file. As in ``tablectl run``, each
input is handled on its driver's reading thread while the table runs
(docs/app.md, The loop).

The clock starts in the table process just before the simulator writes the CRD
sentence to the pty (its wire trace, ``time.perf_counter``) and stops in the
controller when its listeners are called, after the panel's line and the log's
announcement of what comes next (``time.perf_counter``). On Linux both are
CLOCK_MONOTONIC, one clock for both processes. After each input the controller
tells the dealer it has taken it (a pipe), and the dealer acts only then, once the
simulated shoe and panel have also taken the controller's ACK (hardware does that in
microseconds, long before a dealer's next card; the simulator's Python does it on this
machine's cores): each card is measured on an idle line, an idle controller and idle
devices, as a dealer's pace gives it.

Beside each run's figures, the same cards timed to the moment the shoe's driver hands the
decoded read to the controller: the pty, the thread's waking and the driver, before any of
the controller's own work (the journal, the engine, the announcement).

In the same run, the **floor**: the same two processes, a ``CRD`` sentence written to a
bare pty, read through pyserial by a thread that only finds the line's end, at the pace
the dealer kept (the mean time between cards of the fsync-off run). It is what the
machine itself costs (the pty, and waking a thread of another process), with no
controller: on a shared VM, most of the tail. The fsync-off run's p50 and p99 are also
printed as multiples of the floor's: a noisy minute moves both.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pty
import statistics
import sys
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import serial

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source tree

from controller.config.tabletoml import load_config
from controller.logs.logsetup import configure_logging, reset_logging
from controller.poker.engine.events import Event
from controller.poker.games import GAMES
from controller.table.displayfeed import DisplayFeed
from controller.table.loop import Controller
from controller.table.service import build_controller, serve
from drivers.seam.events import TagRead
from simulator.acts import Act, table_input
from simulator.pace import Pace
from simulator.random_bot import RandomBot
from simulator.runner import BotRunner
from simulator.simtable import demo_config
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: The shoe's RFID repeat window: short, so a fast dealer's shuffles need not wait half a second.
REPEAT_WINDOW = 0.02
SEATS = 6


class Stamps:
    """The first time each sentence was seen, keyed by (wrap, seq): a device's sequence
    number wraps at 10000 (docs/protocol.md), and a run passes it more than once."""

    def __init__(self) -> None:
        self.times: dict[tuple[int, int], float] = {}
        self._wrap = 0
        self._last = -1

    def stamp(self, seq: int, when: float) -> None:
        if seq < self._last:
            self._wrap += 1
        self._last = seq
        self.times.setdefault((self._wrap, seq), when)


#: ``--pin``: the table process on one core and the controller on another, as a real shoe
#: and panel are hardware of their own and take no CPU from the controller (on a shared core
#: a write to a pty wakes the simulator, which may run before the controller's next line).
#: Off by default: on a machine busy with other work, a pinned process cannot move to the
#: idle core, and the tail grows (measured on the shared 2-core VM: p99 4.6 ms pinned,
#: 1.8 ms not, load average 2.6).
TABLE_CPU, CONTROLLER_CPU = -1, 0


def pin(cpu: int) -> None:
    """Keep this process (its threads started from now on) on one core, if there are two."""
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) >= 2 and PINNED[0]:
        os.sched_setaffinity(0, {cores[cpu]})


PINNED = [False]
#: Where the controller handles an input (``--dispatch``): its driver's thread or the loop's.
DISPATCH = ["reader"]
#: The median time a card waited after the controller took the input before it, in the
#: last run measured: the pace the floor keeps.
PACE = [0.0]


# --- the table: simulator and dealer, in the child process -------------------------------


def table_process(
    directory: Path,
    game: str,
    *,
    cards: int,
    seed: int,
    gap: float,
    ready: Connection,
    taken: Connection,
) -> None:
    """Serve the shoe and panel on ptys and deal until ``cards`` CRD sentences were written;
    send the write times back through ``ready``, with the median time a card waited between
    the controller taking the input before it and its write (the pace of the floor)."""
    pin(TABLE_CPU)
    spec = GAMES[game]
    sim = Simulator(transport="pty", directory=directory / "sim", seed=seed)
    sim.start()
    try:
        decks = sim.write_deck_files(directory / "decks")
        ready.send({"shoe": sim.address("shoe"), "panel": sim.address("panel"), "decks": decks})
        ready.recv()  # the controller is up
        written = Stamps()
        # The table.toml leaves [decks] alternate at its default, true: the dealer alternates too.
        bot = RandomBot(
            spec, seed=seed, rebuy=None, config=demo_config(spec, SEATS), alternate_decks=True
        )
        pace = replace(Pace.fast(REPEAT_WINDOW), card=gap, button=gap, stall=10.0)
        runner = BotRunner(bot, sim, pace)
        state = {"expected": 0, "taken": 0}
        taken_at = [time.perf_counter()]
        idle: list[float] = []

        def on_wire(line: str) -> None:
            # "shoe > $SHCRD,<seq>,...": the first write of each sentence (resends ignored).
            if line.startswith("shoe > $SHCRD,"):
                now = time.perf_counter()
                written.stamp(int(line.split(",")[1]), now)
                idle.append(now - taken_at[0])
                if len(written.times) >= cards:
                    runner.stop()

        def on_act(act: Act) -> None:
            if table_input(act) is None:
                return
            state["expected"] += 1
            while state["taken"] < state["expected"]:
                if not taken.poll(10.0):
                    raise TimeoutError(f"the controller took no input {state['expected']}")
                state["taken"] = int.from_bytes(taken.recv_bytes(), "big")
            idle_devices()
            taken_at[0] = time.perf_counter()

        def idle_devices() -> None:
            # A hardware shoe and panel take the controller's ACK in microseconds, long before
            # a dealer's next act; the simulator's Python takes it on this machine's cores.
            # The next card waits for it, so that the controller shares no core with it. Not
            # the runner's wait_for_acks: that polls the simulator (1 ms a turn) right after
            # the act, while the controller handles the card this benchmark times.
            senders = [device.core.sender for device in sim.devices.values()]
            deadline = time.perf_counter() + 10.0
            while time.perf_counter() < deadline:
                with sim.locked():
                    if not any(sender.backlog for sender in senders):
                        return
                time.sleep(0.0001)
            raise TimeoutError("the simulated devices kept an unacknowledged sentence for 10 s")

        runner.on_act = on_act
        sim.trace("shoe", on_wire)
        runner.run()
        sim.trace("shoe", None)
        ready.send({"written": written.times, "idle": statistics.median(idle)})
        ready.recv()  # the controller has closed: unplug only now
    finally:
        sim.close()


# --- the controller: this process ---------------------------------------------------------


def write_config(directory: Path, game: str, ports: dict[str, Any], *, fsync: bool) -> Path:
    """The table.toml ``tablectl run`` would be given for the simulated table."""
    return write_table_toml(
        directory,
        table_id="BENCH-1",
        game=game,
        config=demo_config(GAMES[game], SEATS),
        shoe={"path": ports["shoe"]},
        panel={"path": ports["panel"]},
        decks=ports["decks"],
        fsync=fsync,
        log={"format": "json", "level": "info", "file": directory / "tablectl.log"},
    )


@contextmanager
def table_side(
    target: Callable[..., None], name: str, *args: Any, **kwargs: Any
) -> Iterator[tuple[Connection, Connection]]:
    """Run ``target(*args, ready=..., taken=..., **kwargs)`` in a child process, this process
    pinned to the controller's core; yields this end of ``ready`` (both ways) and of ``taken``
    (to the child), and joins and closes it all at the end."""
    context = multiprocessing.get_context("spawn")  # a clean child: no copy of this one's state
    ready, ready_child = context.Pipe()
    taken_child, taken = context.Pipe(duplex=False)
    child = context.Process(
        target=target,
        args=args,
        kwargs={**kwargs, "ready": ready_child, "taken": taken_child},
        name=name,
    )
    child.start()
    try:
        pin(CONTROLLER_CPU)
        yield ready, taken
    finally:
        child.join(30)
        for end in (ready, ready_child, taken, taken_child):
            end.close()
        if child.exitcode is not None:
            child.close()  # its sentinel's descriptor


@dataclass(frozen=True)
class Run:
    """One run's latencies (seconds), card by card: to the announcement, and to the moment
    the shoe's driver handed the decoded read to the controller (the pty, the thread's
    waking and the driver: what comes before the controller's own work)."""

    announced: list[float]
    handed: list[float]


def measure(
    directory: Path, game: str, cards: int, *, fsync: bool, seed: int, gap: float = 0.0
) -> Run:
    """Latencies of at least ``cards`` card reads."""
    announced = Stamps()
    handed = Stamps()
    result: dict[str, Any] = {}
    table = table_side(table_process, "table", directory, game, cards=cards, seed=seed, gap=gap)
    with table as (ready, taken):
        try:
            _serve_until_dealt(
                directory,
                game,
                fsync=fsync,
                ready=ready,
                taken=taken,
                announced=announced,
                handed=handed,
                result=result,
            )
        finally:
            reset_logging()
    PACE[0] = float(result["idle"])
    return paired(result["written"], announced.times, handed.times, cards)


def _serve_until_dealt(
    directory: Path,
    game: str,
    *,
    fsync: bool,
    ready: Connection,
    taken: Connection,
    announced: Stamps,
    handed: Stamps,
    result: dict[str, Any],
) -> None:
    """The controller as ``tablectl run`` runs it, until the dealer has dealt its cards."""
    ports = ready.recv()
    settings = load_config(write_config(directory, game, ports, fsync=fsync))
    configure_logging(settings.log, table_id=settings.table_id)
    # As tablectl run: the display feed is the controller's display (no display attached).
    feed = DisplayFeed(directory / "display.sock", settings.table_id)
    controller = build_controller(settings, display=feed, repeat_window=REPEAT_WINDOW)
    if DISPATCH[0] == "loop":
        # The A/B's other design (docs/app.md, The loop): the drivers' threads only read and
        # queue; every input is handled on the loop's thread, which takes it from the queue.
        controller.dispatch.on_drivers_thread = lambda event: False  # type: ignore[method-assign]

    def on_announce(controller: Controller, events: list[Event]) -> None:
        now = time.perf_counter()
        last = controller.journal.last
        if events and last is not None and last.kind == "card":
            announced.stamp(int(str(last.data["seq"])), now)

    controller.listeners.append(on_announce)
    handle = controller.handle

    def handle_then_tell_the_dealer(event: object) -> None:
        # The dealer acts again once the whole input is handled (its decision journaled):
        # each card meets an idle controller, as at a dealer's pace.
        if isinstance(event, TagRead):
            handed.stamp(event.seq, time.perf_counter())
        before = controller.inputs
        handle(event)
        if controller.inputs != before:
            taken.send_bytes(controller.inputs.to_bytes(8, "big"))

    controller.handle = handle_then_tell_the_dealer  # type: ignore[method-assign]  # the run loop calls it
    stop = threading.Event()

    def wait_for_dealer() -> None:
        try:
            result.update(ready.recv())
        except EOFError:
            result.update(written={}, idle=0.0)
        stop.set()

    served = threading.Event()

    def go_once_up() -> None:
        # The table opens paused, both devices lost, and refuses every press until its core
        # has taken both hellos (docs/app.md, Devices lost and found): the dealer's first act
        # is a new hand's press, so it goes once the core holds neither device lost, not once
        # the drivers are started (the panel's hello may be taken before the shoe's).
        while controller.core.pauses:
            if served.wait(0.001):
                return
        ready.send("go")

    waiter = threading.Thread(target=wait_for_dealer, name="dealer-done")
    waiter.start()
    goer = threading.Thread(target=go_once_up, name="dealer-go")
    goer.start()
    try:
        serve(controller, stop, feed=feed)
    finally:
        served.set()
        goer.join()
    waiter.join()
    ready.send("bye")


def paired(
    written: dict[tuple[int, int], float],
    announced: dict[tuple[int, int], float],
    handed: dict[tuple[int, int], float],
    cards: int,
) -> Run:
    """Each card's times from the wire to the driver's hand-off and to its announcement; at
    least ``cards`` of them. A card announced without a hand-off between its write and its
    announcement is a fault of the measurement, and raised, not dropped."""
    keys = [key for key, end in announced.items() if key in written and written[key] < end]
    if len(keys) < cards:
        # A dealer and a controller that disagree (an alarm, a stall) end the run early.
        raise RuntimeError(
            f"measured {len(keys)} cards of the {cards} asked for: the run stopped early"
        )
    for key in keys:
        if not written[key] < handed.get(key, -1.0) < announced[key]:
            raise RuntimeError(
                f"card {key}: no hand-off by the driver between its write and its announcement"
            )
    return Run(
        announced=[announced[key] - written[key] for key in keys],
        handed=[handed[key] - written[key] for key in keys],
    )


def report(label: str, latencies: list[float]) -> str:
    cuts = statistics.quantiles(latencies, n=100)
    ms = [value * 1e3 for value in (cuts[49], cuts[98], max(latencies))]
    return (
        f"{label}: {len(latencies)} cards, p50 {ms[0]:.3f} ms, p99 {ms[1]:.3f} ms, "
        f"max {ms[2]:.3f} ms"
    )


def ratios(label: str, latencies: list[float], peer: list[float]) -> str:
    """``latencies`` against ``peer`` (measured in the same run), at the p50 and the p99."""
    ours, theirs = statistics.quantiles(latencies, n=100), statistics.quantiles(peer, n=100)
    return f"{label}: p50 x{ours[49] / theirs[49]:.2f}, p99 x{ours[98] / theirs[98]:.2f}"


# --- the floor: the machine's own cost, no controller ------------------------------------

#: A CRD sentence as the shoe writes it (docs/protocol.md 3.1).
FLOOR_SENTENCE = b"$SHCRD,1234,slot,E004015012345678,81523908*3D\r\n"


def floor_writer(count: int, pause: float, *, ready: Connection, taken: Connection) -> None:
    """The table side of the floor: write ``count`` sentences to a pty, each once the reader
    took the one before and ``pause`` has passed; send the write times back."""
    pin(TABLE_CPU)
    master, slave = pty.openpty()
    try:
        tty.setraw(slave)
        ready.send(os.ttyname(slave))
        ready.recv()  # the reader has the port open
        written: list[float] = []
        for number in range(count):
            time.sleep(pause)
            written.append(time.perf_counter())
            os.write(master, FLOOR_SENTENCE)
            if not taken.poll(10.0):
                raise TimeoutError(f"the floor's reader took no sentence {number}")
            taken.recv_bytes()
        ready.send(written)
    finally:
        os.close(master)
        os.close(slave)


def measure_floor(count: int, pause: float) -> list[float]:
    """Latencies (seconds) of ``count`` sentences from a bare pty write to a reading thread
    of this process finding the line's end, read as the drivers read (one byte, then all
    that has come)."""
    arrived: list[float] = []
    with table_side(floor_writer, "floor", count, pause) as (ready, taken):
        port = serial.serial_for_url(ready.recv(), timeout=0.02)
        try:

            def read() -> None:
                buffer = b""
                while len(arrived) < count:
                    data = port.read(1)
                    if data and (waiting := port.in_waiting):
                        data += port.read(waiting)
                    buffer += data
                    if buffer.endswith(b"\n"):
                        arrived.append(time.perf_counter())
                        buffer = b""
                        taken.send_bytes(b"1")

            reader = threading.Thread(target=read, name="floor-reader")
            reader.start()
            ready.send("go")
            written = ready.recv()
            reader.join()
        finally:
            port.close()
    return [end - start for start, end in zip(written, arrived, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--game", default="mambo", choices=sorted(GAMES))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        help="seconds the dealer waits before each card and button (default 0: back to back)",
    )
    parser.add_argument(
        "--pin", action="store_true", help="table and controller each on its own core"
    )
    parser.add_argument("--dir", type=Path, help="where the journal goes (the table's disk)")
    parser.add_argument(
        "--dispatch",
        choices=("reader", "loop"),
        default="reader",
        help="where an input is handled: on its driver's reading thread, as tablectl run does "
        "(default), or queued to the loop's thread (the A/B of docs/app.md, The loop)",
    )
    args = parser.parse_args()
    PINNED[0] = args.pin
    DISPATCH[0] = args.dispatch
    with tempfile.TemporaryDirectory(dir=args.dir) as folder:
        for fsync in (False, True):
            sub = Path(folder) / f"fsync-{'on' if fsync else 'off'}"
            sub.mkdir()
            run = measure(sub, args.game, args.cards, fsync=fsync, seed=args.seed, gap=args.gap)
            print(report(f"fsync {'on' if fsync else 'off'}", run.announced), flush=True)
            print(report("  of which to the driver's hand-off", run.handed), flush=True)
            if not fsync:
                floor = measure_floor(args.cards, PACE[0])
                print(report("floor (bare pty to a reading thread)", floor), flush=True)
                print(ratios("fsync off against the floor", run.announced, floor), flush=True)


if __name__ == "__main__":
    main()
