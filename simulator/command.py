"""What ``tablectl sim`` runs: the simulated shoe and panel on ptys, the console, the bot.

``controller/cli/commands/sim.py`` declares the command and its options and imports this
module only when ``tablectl sim`` runs: the controller's other commands never load the
simulator (docs/simulator.md).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final, TextIO

from drivers.seam.tags import TagFamily
from simulator.bench import Bench, take_bench
from simulator.botcli import Bot, bot_session, make_bot
from simulator.console import Console
from simulator.decks import write_deck_file
from simulator.devices import PANEL_IDENTITY, SHOE_IDENTITY, Identity
from simulator.display_watch import DisplayWatch
from simulator.keypad_testbed import (
    KeypadBenchError,
    KeypadCable,
    KeypadTestbed,
    fit_testbed_keypad,
    run_line,
    spec_for,
    under_preload,
)
from simulator.pn532.shoe import fit_pn532, pn532_readers
from simulator.table import DEVICES, Simulator

#: How long a keypad's controller is given to let go of the keypad unplugged as the simulator
#: stops (it sees udev's 'remove' at once: docs/hardware-keypad.md, Unplugged and plugged back).
LET_GO: Final = 2.0


class Busy(Exception):
    """Another simulator holds the folder (exit status 2, as a usage error)."""


@contextlib.contextmanager
def _claimed(directory: Path) -> Iterator[None]:
    """Hold the folder's lock, so two simulators never fight over the same links."""
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(f"another simulator serves {directory}; give another --dir") from None
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _history(path: Path, interactive: bool) -> Iterator[None]:
    """Readline history at a terminal, loaded before and saved after."""
    if not interactive:
        yield
        return
    import readline  # noqa: PLC0415 -- only a terminal session needs line editing

    path = path.expanduser()
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    readline.set_history_length(1000)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            readline.write_history_file(path)


def run_sim(
    args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    """Run the simulator and its console until 'quit' or the end of the input (the command
    line's own process, ``stdin`` None: one with a keypad panel runs itself again under
    umockdev's preload first, ``simulator.keypad_testbed.under_preload``)."""
    as_command = stdin is None
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout

    def show(seat: int, text: str) -> None:
        lit = f"seat {seat} lit" if seat else "no seat lit"
        stdout.write(f"\npanel: {lit}; {text!r}\n")
        stdout.flush()

    try:
        # --config: the links and deck files where the table.toml names them (simulator/bench.py)
        bench = take_bench(args)
        shoe = Identity(
            SHOE_IDENTITY.model,
            args.shoe_serial or SHOE_IDENTITY.serial,
            SHOE_IDENTITY.firmware,
            args.protocol,
        )
        panel = Identity(
            PANEL_IDENTITY.model,
            args.panel_serial or PANEL_IDENTITY.serial,
            PANEL_IDENTITY.firmware,
            args.protocol,
        )
        bot = make_bot(args)
        if bench is not None and bench.keypad is not None:
            under_preload(as_command)  # returns only once under it
    except ValueError as exc:
        print(f"tablectl sim: error: {exc}", file=sys.stderr)
        return 2
    # controller/cli/commands/sim.py gives the default without --config; take_bench with it
    directory: Path = args.dir
    try:
        with _stopped_by_signals():
            return _serve(
                args,
                directory,
                shoe=shoe,
                panel=panel,
                stdin=stdin,
                stdout=stdout,
                show=show,
                bot=bot,
                bench=bench,
            )
    except (OSError, Busy, KeypadBenchError) as exc:
        print(f"tablectl sim: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("tablectl sim: stopped (Ctrl-C); the links are removed", file=sys.stderr)
        return 128 + signal.SIGINT
    except Signalled as stop:
        # The devices are unplugged and the links removed on the way out: a link left behind
        # would point at a freed pty, which the next process's pty may take.
        with contextlib.suppress(OSError):  # after a SIGHUP the terminal may be gone
            print(f"tablectl sim: stopped by {stop.name}; the links are removed", file=sys.stderr)
        return 128 + stop.signum


class Signalled(BaseException):
    """SIGTERM or SIGHUP came: the simulator stops as at 'quit' (a BaseException, as
    KeyboardInterrupt is, so no handler on the way takes it for an error of its own)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum
        self.name = signal.Signals(signum).name


#: The signals that stop the simulator cleanly; SIGINT is Python's KeyboardInterrupt already
#: (at the prompt it only says how to leave; while the console waits for a bot it stops it).
STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP raise ``Signalled`` in the main thread, so the simulator's ``with``
    blocks unplug the devices and remove the links (their default kills the process first)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (a test may run the command elsewhere)
        return

    def stop(signum: int, _frame: object) -> None:
        raise Signalled(signum)

    previous = {signum: signal.signal(signum, stop) for signum in STOP_SIGNALS}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _serve(
    args: argparse.Namespace,
    directory: Path,
    *,
    shoe: Identity,
    panel: Identity,
    stdin: TextIO,
    stdout: TextIO,
    show: Callable[[int, str], None],
    bot: Bot | None = None,
    bench: Bench | None = None,
) -> int:
    """Serve the devices and the console; ``bench``: what a table.toml names (the deck files,
    else ``deck-A.txt`` and ``deck-B.txt`` in ``--decks`` or the folder; a keypad panel)."""
    interactive = stdin.isatty()
    decks = None if bench is None else bench.decks
    pn532 = getattr(args, "shoe", "tablectl") == "pn532"
    with _claimed(directory), contextlib.ExitStack() as stack:
        sim = Simulator(
            transport="pty",
            directory=directory,
            seed=args.seed,
            shoe_identity=shoe,
            panel_identity=panel,
            on_display=show if args.watch else None,
            tags=TagFamily.ISO14443A if pn532 else TagFamily.ISO15693,
        )
        with sim:
            readers = None
            if pn532:  # the cards pitched past PN532s at DIR/slot and DIR/discard
                readers, _ = stack.enter_context(pn532_readers(directory))
                fit_pn532(sim, readers)
            if decks is None:
                written = sim.write_deck_files(args.decks or directory)
            else:
                written = list(decks)
                for path, deck in zip(decks, sim.decks, strict=True):
                    path.parent.mkdir(parents=True, exist_ok=True)
                    write_deck_file(path, deck)
            console = Console(sim, stdin, stdout, interactive, seed=args.seed)
            keypad = None
            if bench is not None and bench.keypad is not None:
                keypad = _fit_keypad(stack, sim, bench)
            for device in DEVICES:
                if device == "shoe" and readers is not None:
                    console.say(
                        f"shoe: PN532 readers, slot {readers.address('slot')}, discard "
                        f'{readers.address("discard")} ([devices.shoe] kind = "pn532")'
                    )
                    continue
                if device == "panel" and keypad is not None:
                    console.say(keypad)
                    continue
                console.say(f"{device}: {sim.address(device)}")
            console.say(f"decks: {' '.join(str(path) for path in written)}")
            with sim.locked():
                top = sim.shoe.stub[0].code
            console.say(
                f"seed {args.seed}: deck A in play, shuffled, top card {top}. "
                "Type 'help' for the commands."
                if interactive
                else f"seed {args.seed}: deck A in play, shuffled, top card {top}."
            )
            with (
                _history(args.history, interactive),
                bot_session(bot, args, sim, console.say, wait_at_end=not interactive) as runner,
            ):
                console.runner = runner
                _loop(console)
    return 1 if console.failures and not interactive else 0


def _fit_keypad(stack: contextlib.ExitStack, sim: Simulator, bench: Bench) -> str:
    """The table.toml's keypad, emulated by umockdev, takes the dealer's presses; what to
    tell the technician (docs/simulator.md, The keypad panel)."""
    assert bench.keypad is not None
    assert bench.display is not None
    keypads = KeypadTestbed()
    stack.callback(keypads.close)
    spec = keypads.plug(spec_for(bench.keypad))
    cable = KeypadCable(keypads, spec)
    watch = stack.enter_context(DisplayWatch(bench.display))
    # On the way out the keypad is unplugged first, and the controller given a moment to let
    # go of it, while umockdev still answers for its node (stopped under a reader, umockdev's
    # preload library aborts the reader's next ioctl).
    stack.callback(_unplugged, cable, watch)
    fit_testbed_keypad(sim, cable, bench.keypad.keymap, watch)
    return (
        f"panel: a USB keypad emulated by umockdev, {spec.node} ({bench.keypad.wanted}); "
        f"start the controller so: {run_line(keypads.root, bench.config)}"
    )


def _unplugged(cable: KeypadCable, watch: DisplayWatch) -> None:
    if cable.plugged:
        cable.unplug()
    deadline = time.monotonic() + LET_GO
    while watch.holds_keypad() is None and time.monotonic() < deadline:
        time.sleep(0.01)


def _loop(console: Console) -> None:
    while True:
        try:
            console.cmdloop()
            return
        except KeyboardInterrupt:
            if not console.interactive:
                raise  # piped: Ctrl-C stops it, as it stops any filter
            console.say("^C (type 'quit' to leave)")
