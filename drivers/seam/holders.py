"""Who holds a device another program has open: named in a refusal, never guessed.

A device path one controller holds (a serial port's lock, an input device's grab) is refused
to a second (docs/drivers.md, One controller per device), with one line naming the holder
where the system shows it: ``port_holders`` reads /proc/locks (any user may), else the
processes with the device open, from /proc/*/fd (one's own, unless root). Every backend that
opens a device path may use it; ``PortHeld`` is the seam's ``DeviceHeld`` that says so.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from drivers.seam.device import DeviceHeld

#: A holder's command line is cut here: the refusal stays one line.
_COMMAND_MAX: Final = 160
#: At most this many holders are named (a port open in many processes is named by a few).
_HOLDERS_MAX: Final = 3


@dataclass(frozen=True, slots=True)
class PortHolder:
    """A process that holds a port: its pid and command line (empty if it cannot be read)."""

    pid: int
    command: str = ""

    def __str__(self) -> str:
        return f"pid {self.pid} ({self.command})" if self.command else f"pid {self.pid}"


def held_message(url: str, holders: tuple[PortHolder, ...], device: str | None) -> str:
    """One line: whose port ``url`` is (and where it leads), and who holds it."""
    real = os.path.realpath(url)
    who = (
        " and ".join(map(str, holders))
        if holders
        # Another user's process, or a sandbox's /proc (the service's ProtectProc=).
        else f"another program, one this process cannot see (as root, fuser -v {real} names it)"
    )
    where = url if real == url else f"{url} ({real})"
    whose = f"the {device}'s port" if device else "port"
    return f"{whose} {where} is held by {who}"


class PortHeld(OSError, DeviceHeld):
    """A device path another program holds, naming it (``held_message``): an ``OSError``, as
    the open that met it raised one, so a reading thread's retry takes it as it takes any."""

    def __init__(
        self, url: str, holders: tuple[PortHolder, ...], device: str | None = None
    ) -> None:
        self.url = url
        self.holders = holders
        #: "shoe" or "panel" once known.
        self.device = device
        super().__init__(held_message(url, holders, device))


def port_holders(path: str) -> tuple[PortHolder, ...]:
    """The processes that hold the device at ``path``, as far as this process can see.

    The holder of its lock, from /proc/locks (readable by every user); else (a program that
    holds it by TIOCEXCL alone) every process with it open, from /proc/*/fd (one's own
    processes only, unless root). Empty if neither shows one.
    """
    try:
        device = os.stat(path)
    except OSError:
        return ()
    pids = _lock_holders(device) or _openers(device)
    return tuple(PortHolder(pid, _command(pid)) for pid in sorted(set(pids))[:_HOLDERS_MAX])


def _lock_holders(device: os.stat_result) -> list[int]:
    """The pids holding a flock on ``device``'s inode: /proc/locks names it
    MAJOR:MINOR:INODE of its file system (majors and minors in hex)."""
    key = f"{os.major(device.st_dev):02x}:{os.minor(device.st_dev):02x}:{device.st_ino}"
    try:
        lines = Path("/proc/locks").read_text(encoding="ascii", errors="replace").splitlines()
    except OSError:
        return []
    pids = []
    for line in lines:
        # "1: FLOCK  ADVISORY  WRITE 4321 00:19:3 0 EOF"; a waiter's line has "->" second.
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == key:
            with contextlib.suppress(ValueError):
                if (pid := int(fields[4])) > 0:  # 0 or -1: not visible in this pid namespace
                    pids.append(pid)
    return pids


def _openers(device: os.stat_result) -> list[int]:
    """The pids with the character device ``device`` open, of those this user may look at."""
    if not stat.S_ISCHR(device.st_mode):
        return []
    pids = []
    with contextlib.suppress(OSError), os.scandir("/proc") as processes:
        for process in processes:
            if process.name.isdigit() and _has_open(process.path, device.st_rdev):
                pids.append(int(process.name))
    return pids


def _has_open(process: str, rdev: int) -> bool:
    try:
        with os.scandir(f"{process}/fd") as descriptors:
            for descriptor in descriptors:
                with contextlib.suppress(OSError):
                    held = os.stat(descriptor.path)
                    if stat.S_ISCHR(held.st_mode) and held.st_rdev == rdev:
                        return True
    except OSError:  # another user's process, or gone
        return False
    return False


def _command(pid: int) -> str:
    """A process's command line, one line, cut at ``_COMMAND_MAX``; "" if unreadable."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    command = " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)
    command = " ".join(command.split())  # no newline or tab from an odd argument
    if len(command) > _COMMAND_MAX:
        command = command[: _COMMAND_MAX - 3] + "..."
    return command
