"""The console's faults: what ``fault NAME`` injects, and injecting it.

``FAULTS`` lists every fault with its arguments and what it does (``help fault``);
``inject`` reads a fault's arguments and performs it on the ``Simulator``: a line fault
of a device, unplugging and power cycles, the shoe's own faults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from controller.poker.cards import Card
from controller.poker.words import counted
from drivers.seam.events import Lid, Reader
from simulator.console_args import UsageError, as_device, as_number
from simulator.table import Simulator


@dataclass(frozen=True, slots=True)
class FaultSpec:
    """One fault the ``fault`` command injects: its arguments and what it does."""

    arguments: str
    summary: str


FAULTS: Final[dict[str, FaultSpec]] = {
    "drop": FaultSpec("DEVICE [COUNT]", "lose the next COUNT sentences the device writes (1)"),
    "garble": FaultSpec("DEVICE [COUNT]", "flip a bit in each of the next COUNT sentences (1)"),
    "delay": FaultSpec(
        "DEVICE SECONDS [COUNT]", "hold the next COUNT sentences (1); what follows waits behind"
    ),
    "noise": FaultSpec("DEVICE [BYTES]", "a burst of BYTES random bytes on the line (64)"),
    "silent": FaultSpec(
        "DEVICE [SECONDS]", "the device hangs, deaf and mute, for SECONDS or until 'speak'"
    ),
    "speak": FaultSpec("DEVICE", "the hung device recovers"),
    "unplug": FaultSpec("DEVICE", "pull the USB cable: the port fails and its link goes"),
    "replug": FaultSpec("DEVICE", "plug it back in behind the same link; it says hello"),
    "power-cycle": FaultSpec("DEVICE", "switch off and on: a new boot id, unsent sentences lost"),
    "clear": FaultSpec("DEVICE", "disarm the line faults armed on the device"),
    "lid": FaultSpec("open|closed", "open or close the shoe's lid"),
    "reader": FaultSpec(
        "fault|ok", "the shoe's RFID reader fails (cards leave unread) or recovers"
    ),
    "jam": FaultSpec("on|off", "a card sticks in the shoe's slot, or is freed"),
    "duplicate": FaultSpec(
        "[EXTRA]", "the next card dealt lingers: read EXTRA more times (2), 50 ms apart"
    ),
    "reread": FaultSpec(
        "[SECONDS]", "the next card dealt passes the slot again SECONDS later (1): read twice"
    ),
    "uptime": FaultSpec("MS", "the shoe's clock runs on to MS ms (4294967000: it wraps soon)"),
    "foreign": FaultSpec("", "a tag enrolled in neither deck passes the slot"),
    "other-deck": FaultSpec("[CARD]", "a card of the deck not in play passes the slot"),
    "twice": FaultSpec("[CARD]", "a card already dealt passes the slot again"),
}


def inject(sim: Simulator, name: str, rest: list[str]) -> str:
    """Inject the fault ``name`` with its arguments ``rest`` (their count checked by the
    console against ``FAULTS``); return what happened, in the technician's words."""
    if name in ("lid", "reader", "jam"):
        return _shoe_state(sim, name, rest[0].lower())
    if name in ("duplicate", "reread", "uptime"):
        return _shoe_reader(sim, name, rest)
    if name == "foreign":
        return f"a stray tag {sim.foreign_tag()} passed the slot (enrolled in neither deck)"
    if name in ("other-deck", "twice"):
        card = Card.parse(rest[0]) if rest else None
        if name == "other-deck":
            card = sim.other_deck(card)
            return f"{card.code} of the deck not in play passed the slot"
        card = sim.dealt_twice(card)
        return f"{card.code}, dealt already, passed the slot again"
    device_name = as_device(rest[0].lower())
    return _line_fault(sim, name, device_name, rest[1:])


def _shoe_reader(sim: Simulator, name: str, rest: list[str]) -> str:
    """The reads the shoe's reader makes, timed on its clock (docs/protocol.md 7)."""
    where = f"fault {name}"
    if name == "duplicate":
        extra = int(as_number(where, "extra", rest[0], int)) if rest else 2
        sim.duplicate_reads(extra)
        return f"the next card dealt will be read {extra + 1} times"
    if name == "reread":
        after = as_number(where, "seconds", rest[0], float) if rest else 1.0
        sim.reread(after)
        return f"the next card dealt will pass the slot again {after:g} s later"
    ms = int(as_number(where, "ms", rest[0], int))
    sim.set_uptime(ms)
    return f"the shoe's clock reads {ms} ms"


def _shoe_state(sim: Simulator, name: str, value: str) -> str:
    choices = {"lid": ("open", "closed"), "reader": ("fault", "ok"), "jam": ("on", "off")}
    if value not in choices[name]:
        raise UsageError(f"{name} {value!r}: expected {' or '.join(choices[name])}")
    if name == "lid":
        sim.set_lid(Lid(value))
    elif name == "reader":
        sim.set_reader(Reader(value))
    else:
        sim.set_jam(value == "on")
    return f"shoe {name} {value}"


def _line_fault(sim: Simulator, name: str, device: str, rest: list[str]) -> str:
    where = f"fault {name}"
    if name in ("drop", "garble"):
        count = int(as_number(where, "count", rest[0], int)) if rest else 1
        (sim.drop if name == "drop" else sim.garble)(device, count)
        verb = "dropped" if name == "drop" else "garbled"
        return f"the {device}'s next {counted(count, 'sentence')} will be {verb}"
    if name == "delay":
        if not rest:
            raise UsageError(f"expected 'fault delay {device} SECONDS [COUNT]'")
        seconds = as_number(where, "seconds", rest[0], float)
        count = int(as_number(where, "count", rest[1], int)) if len(rest) > 1 else 1
        sim.delay(device, seconds, count)
        return f"the {device}'s next {counted(count, 'sentence')} will be held {seconds:g} s"
    if name == "noise":
        length = int(as_number(where, "bytes", rest[0], int)) if rest else 64
        sim.noise(device, length)
        return f"{counted(length, 'byte')} of noise on the {device}'s line"
    if name == "silent":
        hang = as_number(where, "seconds", rest[0], float) if rest else None
        sim.silence(device, hang)
        until = f"for {hang:g} s" if hang is not None else "until 'fault speak'"
        return f"the {device} is silent {until}"
    actions: dict[str, tuple[Callable[[str], None], str]] = {
        "speak": (sim.speak, "speaks again"),
        "unplug": (sim.unplug, "is unplugged"),
        "replug": (sim.replug, "is plugged back in at"),
        "power-cycle": (sim.power_cycle, "was switched off and on"),
        "clear": (sim.clear_faults, "has no line fault armed"),
    }
    action, done = actions[name]
    action(device)
    if name == "replug":  # where it is now: a replugged keypad has another event node
        done += f" {sim.address(device)}"
    return f"the {device} {done}"
