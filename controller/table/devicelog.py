"""The log lines of the devices' state (docs/deploy.md, Reading the log): a device back, lost
or refused, and the shoe's faults pausing the table or cleared (docs/app.md, Devices lost and
found, and The shoe's state). Each is logged once the core has taken the record."""

from __future__ import annotations

from typing import Any, Final

from controller.journal.schema import DeviceData
from controller.poker.announce import announce
from controller.table.core import TableCore
from controller.table.devicestate import Cause

#: What ends a refused device's pause: its driver has stopped for good (docs/app.md).
RESTART_TODO: Final = (
    "connect the right device or correct the configuration, then restart the controller"
)


def log_device(log: Any, core: TableCore, record: DeviceData) -> None:
    """The line of a ``device`` record: back (and what it lost or whether it restarted), or
    pausing the table, lost or refused."""
    name = record.device
    status = core.devices[name]
    if status.connected:
        log.info("device_back", device=name, outcome=record.outcome)
        if status.restarted:
            log.warning("device_restarted", device=name, todo=status.message)
        if status.lost:
            log.warning("device_sentences_lost", device=name, lost=status.lost, todo=status.message)
    elif status.refused:
        log.error(
            "table_paused",
            device=name,
            cause=status.refused.value,  # wrong serial, wrong version: docs/protocol.md 3.3
            reason=record.reason,
            where=announce(core.table.pending),
            todo=RESTART_TODO,
        )
    else:
        log.warning(
            "table_paused",
            device=name,
            cause=Cause.LOST.value,
            reason=record.reason,
            where=announce(core.table.pending),
        )


def log_shoe_status(log: Any, core: TableCore, paused: tuple[str, ...]) -> tuple[str, ...]:
    """The line of a ``shoe_status`` record, given the faults last logged as pausing the
    table (``paused``); returns the faults that pause it now."""
    faults: tuple[str, ...] = ()
    if core.devices["shoe"].connected:  # a lost shoe's pause is logged as its loss (log_device)
        faults = tuple(pause.cause.value for pause in core.shoe_faults())
    if faults and faults != paused:
        log.warning(
            "table_paused",
            device="shoe",
            cause=" and ".join(faults),  # reader fault, jammed (docs/protocol.md 3.1)
            reason=" and ".join(faults),
            where=announce(core.table.pending),
            **core.shoe.fields(),
        )
    elif paused and not faults:
        log.info("shoe_fault_cleared", where=announce(core.table.pending), **core.shoe.fields())
    else:
        # A report that changes no pause (the lid while a jam holds, a repeat after a welcome).
        log.info("shoe_status", **core.shoe.fields())
    return faults
