"""A simulated table: the virtual shoe and panel, their lines, their ports and one serving thread.

``Simulator`` is the Python API the console and the tests use. It owns the
two device cores (simulator.virtualshoe, simulator.virtualpanel), a fault line for each
(simulator.faults) and a connector for each (simulator.transports: real
ptys or ``sim://`` URLs). One thread serves both devices
(simulator.serving): it reads what the host writes to the ptys and writes
what the devices say when their timers fall due. Every action (deal, press,
a fault) runs under one lock and its output is written at once.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final, Literal, TypeVar

from controller.poker.words import counted
from drivers.seam.events import ROLES
from drivers.seam.tags import TagFamily
from simulator.decks import TagDeck, make_decks, shuffled, write_deck_file
from simulator.devices import (
    PANEL_IDENTITY,
    SHOE_IDENTITY,
    DeviceError,
    Identity,
    Timing,
)
from simulator.faults import LineFaults
from simulator.serving import ServedEndpoints
from simulator.sim_device import SimDevice, Trace, boot_id
from simulator.table_actions import TableActions
from simulator.transports import DEFAULT_TABLE, Endpoint, MemoryEndpoint, PtyEndpoint
from simulator.virtualpanel import VirtualPanel
from simulator.virtualshoe import VirtualShoe

Transport = Literal["pty", "memory"]
#: The simulated table's devices: one protocol device a role.
DEVICES: Final = ROLES
#: The serving thread wakes at least this often (a fault's timer, a stop request).
MAX_WAIT: Final = 0.1

_T = TypeVar("_T")


class Simulator(TableActions, ServedEndpoints):
    """The simulated shoe and panel, served on ptys or as ``sim://`` URLs.

    Use it as a context manager (or call ``start`` and ``close``: ``ServedEndpoints``'s,
    as is ``locked``). ``seed``
    makes the decks' tags, the shuffles, the boot ids and the faults' random
    choices repeatable. The dealer's and the technician's actions (deal, press, the
    faults) are ``simulator.table_actions.TableActions``.
    """

    def __init__(
        self,
        *,
        transport: Transport = "pty",
        directory: Path | None = None,
        table: str = DEFAULT_TABLE,
        seed: int = 0,
        timing: Timing | None = None,
        clock: Callable[[], float] = time.monotonic,
        shoe_identity: Identity = SHOE_IDENTITY,
        panel_identity: Identity = PANEL_IDENTITY,
        on_display: Callable[[int, str], None] | None = None,
        tags: TagFamily = TagFamily.ISO15693,
    ) -> None:
        if transport == "pty" and directory is None:
            raise ValueError("a pty simulator needs a directory for its 'shoe' and 'panel' links")
        self.seed = seed
        self.transport = transport
        # ``tags``: the cards' tag family, ISO/IEC 14443-A for a shoe of PN532 readers
        # (simulator/pn532/shoe.py).
        self.decks: tuple[TagDeck, TagDeck] = make_decks(seed, tags)
        self._foreign_tags = 0
        now = clock()
        timing = timing or Timing()
        # The shoe powers up loaded with deck A shuffled, so its first status says 'ok'.
        shoe = VirtualShoe(
            self.decks,
            boot_id(seed, "shoe", 1),
            now,
            identity=shoe_identity,
            timing=timing,
            stub=shuffled(seed),
        )
        panel = VirtualPanel(
            boot_id(seed, "panel", 1),
            now,
            identity=panel_identity,
            timing=timing,
            on_display=on_display,
        )
        self.devices: dict[str, SimDevice] = {}
        try:
            for core in (shoe, panel):
                self.devices[core.name] = SimDevice(
                    core,
                    LineFaults(random.Random(f"tablectl-line-{seed}-{core.name}")),
                    self._endpoint(core.name, transport, directory, table),
                )
        except ValueError:  # the table's sim:// name is taken: give back the one registered
            for device in self.devices.values():
                device.endpoint.close()
            raise
        super().__init__(clock, directory, thread_name="tablectl-sim", max_wait=MAX_WAIT)

    def _endpoint(
        self, name: str, transport: Transport, directory: Path | None, table: str
    ) -> Endpoint:
        receive = self._receiver(name)
        if transport == "pty":
            assert directory is not None  # checked by the constructor
            return PtyEndpoint(name, receive, directory)
        return MemoryEndpoint(name, receive, table)

    @property
    def shoe(self) -> VirtualShoe:
        """The shoe's core (read its state under ``locked()``)."""
        core = self.devices["shoe"].core
        assert isinstance(core, VirtualShoe)
        return core

    @property
    def panel(self) -> VirtualPanel:
        """The panel's core (read its state under ``locked()``)."""
        core = self.devices["panel"].core
        assert isinstance(core, VirtualPanel)
        return core

    def address(self, device: str) -> str:
        """The path (pty) or URL (memory) a program opens to reach ``device`` (a keypad
        panel: its event node, ``panel_cable``)."""
        if device == "panel" and self.panel_cable is not None:
            return self.panel_cable.address
        return self._device(device).endpoint.address

    def write_deck_files(self, directory: Path) -> list[Path]:
        """Write both decks' enrollment files (``deck-A.txt``, ``deck-B.txt``)."""
        directory.mkdir(parents=True, exist_ok=True)
        paths = []
        for deck in self.decks:
            path = directory / f"deck-{deck.name}.txt"
            write_deck_file(path, deck)
            paths.append(path)
        return paths

    # --- serving (simulator.serving) --------------------------------------------------------

    def _endpoints(self) -> dict[str, Endpoint]:
        return {name: device.endpoint for name, device in self.devices.items()}

    def _heard(self, name: str, data: bytes, now: float) -> None:
        self.devices[name].from_host(data, now)

    def _pump(self, now: float) -> None:
        for device in self.devices.values():
            device.pump(now)

    def _deadline(self, now: float) -> float:
        return min(device.deadline(now) for device in self.devices.values())

    def _act(self, action: Callable[[], _T]) -> _T:
        with self.locked():
            return action()

    def _device(self, name: str) -> SimDevice:
        device = self.devices.get(name)
        if device is None:
            raise DeviceError(f"device {name!r}: expected one of {' '.join(DEVICES)}")
        return device

    # --- what the technician sees -----------------------------------------------------------

    def trace(self, device: str, printer: Trace | None, heartbeats: bool = False) -> None:
        """Print every sentence ``device`` writes (>) and hears (<); None stops it."""
        sim_device = self._device(device)
        with self._lock:
            sim_device.trace = printer
            sim_device.trace_heartbeats = heartbeats

    def describe(self) -> str:
        """Both devices' state, in a few lines of text."""
        with self._lock:
            return "\n".join(self._describe(name) for name in self.devices)

    def _describe(self, name: str) -> str:
        device = self.devices[name]
        core, line, endpoint = device.core, device.line, device.endpoint
        link = core.link
        where = endpoint.address + (
            f" -> {endpoint.slave_name}"
            if isinstance(endpoint, PtyEndpoint) and endpoint.plugged
            else ""
        )
        host = (
            "welcomed"
            if link.welcomed
            else (link.refusal or ("waiting for the host's welcome" if endpoint.plugged else "-"))
        )
        lines = [
            f"{name}: {where} ({'plugged in' if endpoint.plugged else 'UNPLUGGED'})",
            f"  {core.identity.model} serial {core.identity.serial} firmware "
            f"{core.identity.firmware} protocol {core.identity.protocol} boot {core.boot}",
            f"  host: {host}; queries {link.queries}, welcomes {link.welcomes}, acks {link.acks}",
            f"  sequence: oldest unacknowledged {core.sender.oldest}, "
            f"{core.sender.backlog} waiting for an ack",
            f"  line faults: {line.describe()}; dropped {line.counters.dropped}, garbled "
            f"{line.counters.garbled}, delayed {line.counters.delayed}, noise bytes "
            f"{line.counters.noise_bytes}",
        ]
        if link.errors:
            lines.append(f"  last bad input from the host: {link.errors[-1]}")
        if isinstance(core, VirtualShoe):
            top = core.stub[0].code if core.stub else "-"
            last = core.dealt[-1].card.code if core.dealt else "-"
            lines.append(
                f"  lid {core.lid}, reader {core.reader}, feed {core.feed}; deck {core.deck.name} "
                f"in play, {counted(len(core.stub), 'card')} in the shoe (top {top}), "
                f"{len(core.dealt)} dealt (last {last}); clock {core.clock_ms(self.clock())} ms"
            )
        elif isinstance(core, VirtualPanel):
            seat = f"seat {core.light} lit" if core.light else "no seat lit"
            lines.append(f"  display: {seat}; text {core.text!r}")
        return "\n".join(lines)

    def wait_for(self, condition: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Poll ``condition`` (under the lock) until it holds or ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if condition():
                    return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
