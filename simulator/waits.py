"""How the bot runner waits on the simulator's devices, as a dealer waits at the table.

A jammed feed or a full store (the host not acknowledging) holds an act until it clears
(``unjammed``); with ``BotRunner(wait_for_acks=True)`` the runner waits for the host's
acknowledgement of what an act made a device report (``until_acknowledged``); before the
first act it waits for a host's welcome (``until_welcomed``). Each wait says once why it
waits and once that it goes on, through the runner's ``say``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from controller.poker.words import counted
from simulator.devices import DeviceError
from simulator.table import Simulator

#: How long an acknowledgement may take before the runner says it is waiting for one: a
#: controller acknowledges in milliseconds (docs/app.md), so a second means it is not there.
ACK_PATIENCE = 1.0

#: How often the runner looks again at a device it waits for.
POLL = 0.001

_T = TypeVar("_T")


class RunnerError(RuntimeError):
    """The devices could not perform an act as the bot meant it (the shoe out of step)."""


class RunnerStopped(Exception):
    """``stop`` came while ``perform`` waited for the devices to take an act (a jam, a full
    store): the act was not done. ``acts`` and ``run`` hold it for ``resume``."""


def unjammed(
    sim: Simulator,
    action: Callable[[], _T],
    *,
    stall: float,
    wake: threading.Event,
    say: Callable[[str], None],
) -> _T:
    """Do ``action``; while the shoe's feed is jammed or a device's store is full (the
    host not acknowledging), wait as a dealer waits, up to ``stall`` seconds (the runner's
    ``pace.stall``), and say so once. ``wake`` set (a stop, or a press to see to first)
    raises ``RunnerStopped``: the act was not done."""
    deadline = time.monotonic() + stall
    waited = False
    while True:
        try:
            done = action()
        except DeviceError as error:
            if "jam" not in str(error) and "full" not in str(error):
                raise
            if not waited:
                say(f"waiting: {why_stalled(sim, error)}")
                waited = True
            if time.monotonic() >= deadline:
                raise RunnerError(f"the devices stayed jammed for {stall} s: {error}") from error
            if wake.wait(POLL * 10):  # a stop, or a press to see to first
                raise RunnerStopped from error
            continue
        if waited:
            say("going on: the devices take acts again")
        return done


def why_stalled(sim: Simulator, error: DeviceError) -> str:
    """The technician's words for a device that cannot take an act."""
    with sim.locked():
        if sim.shoe.jammed:
            return "the shoe's feed is jammed (a card is stuck in the slot: 'fault jam off')"
        device = "panel" if "panel" in str(error) else "shoe"
        backlog = sim.devices[device].core.sender.backlog
    return (
        f"the {device}'s store is full ({counted(backlog, 'sentence')} unacknowledged): "
        "is a controller attached?"
    )


def until_acknowledged(
    sim: Simulator, device: str, *, stop: threading.Event, say: Callable[[str], None]
) -> None:
    """Wait until the host has acknowledged every sentence ``device`` sent, while a host is
    welcomed on it (none: nothing to wait for), or ``stop``; said once after ACK_PATIENCE."""
    began = time.monotonic()
    waited = False
    while True:
        with sim.locked():
            core = sim.devices[device].core
            left = core.sender.backlog if core.link.welcomed else 0
        if not left:
            break
        if not waited and time.monotonic() - began >= ACK_PATIENCE:
            say(
                f"waiting: the controller has not acknowledged the {device}'s last "
                f"{counted(left, 'sentence')} for {ACK_PATIENCE:g} s: is it still running?"
            )
            waited = True
        if stop.wait(POLL):
            return
    if waited:
        say("going on: the controller acknowledged")


def until_welcomed(
    sim: Simulator,
    devices: tuple[str, ...],
    *,
    stop: threading.Event,
    say: Callable[[str], None],
) -> bool:
    """Wait until a host (the controller) has welcomed each of ``devices``; False if
    ``stop`` came first. Silent when they are welcomed already."""

    def unwelcomed() -> list[str]:
        with sim.locked():
            return [d for d in devices if not sim.devices[d].core.link.welcomed]

    if not unwelcomed():
        return True
    names = " and the ".join(devices)
    say(f"waiting for a controller to welcome the {names} (is it running?)")
    while unwelcomed():
        if stop.wait(POLL * 10):
            return False
    say(f"the controller welcomed the {names}: dealing")
    return True


def journaled_up(directory: Path) -> bool:
    """Whether the controller journaling in ``directory`` has taken both devices' hellos since
    it started. A device welcomed on the wire may not be journaled up yet, each device on its
    own thread, and a new hand pressed in between is refused, the table still paused for the
    other (docs/app.md, Devices lost and found), which a dealer meets by pressing again and a
    bot does not: a bot that restarts controllers presses new hand once this is true.

    True when, after the newest start's ``software`` record, a ``ready`` ``device`` record
    stands for each device; a newest plain file with no start in it began with a hand this
    process dealt, so both were up."""
    while True:
        files = sorted(directory.glob("journal-*.jsonl"))
        if not files:
            return False
        try:
            text = files[-1].read_text(encoding="utf-8")
        except FileNotFoundError:
            continue  # closed at a hand's start and compressed since the listing: list again
        break
    ready: set[str] = set()
    started = False
    for line in text.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the line being written
        if record["kind"] == "software":
            ready.clear()
            started = True
        elif record["kind"] == "device" and record["data"].get("event") == "ready":
            ready.add(record["data"]["device"])
        elif record["kind"] == "device":
            ready.discard(record["data"]["device"])
    return ready >= {"shoe", "panel"} if started else True


def until_witnessed(
    check: Callable[[], str | None],
    *,
    stop: threading.Event,
    say: Callable[[str], None],
    patience: float = ACK_PATIENCE,
) -> bool:
    """Wait until ``check`` (a ``PressWitness``'s: simulator/table_actions.py) says nothing
    holds the press back; said once, with its reason, after ``patience``; False if ``stop``
    came first. A keypad's press takes no acknowledgement: this is the bench's stand-in."""
    began = time.monotonic()
    said = False
    while (why := check()) is not None:
        if not said and time.monotonic() - began >= patience:
            say(f"waiting: {why}")
            said = True
        if stop.wait(POLL * 10):
            return False
    if said:
        say("going on: the controller took it")
    return True
