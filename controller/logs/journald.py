"""journald: whether a stream is journald's, the syslog priorities, and the native protocol.

Under systemd a service's standard error is a stream socket to journald, and
systemd sets ``JOURNAL_STREAM`` to that stream's ``DEVICE:INODE``
(systemd.exec(5)): a process compares it with ``os.fstat`` of its standard error
to know that journald, not a terminal or a file, reads what it writes (a child
that inherited the variable but not the stream sees different numbers).

journald reads a ``<N>`` at the start of a stream line as the line's syslog
priority (``SyslogLevelPrefix=``, on by default), which is what ``journalctl -p
warning`` filters on. Its native protocol (``Entry``, ``JournalSocket``) carries
fields of our own besides: one datagram a line, ``KEY=value`` lines, a value that
holds a newline written as the key, a newline, its length (64 bits, little-endian)
and the bytes (https://systemd.io/JOURNAL_NATIVE_PROTOCOL/).
"""

from __future__ import annotations

import errno
import fcntl
import os
import socket
import stat
import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Final, TextIO

#: Where journald listens for native entries.
SOCKET: Final = Path("/run/systemd/journal/socket")

#: The syslog priority (RFC 5424) of each level the controller logs at.
PRIORITIES: Final = {"debug": 7, "info": 6, "warning": 4, "error": 3, "critical": 2}
#: A level of no known name (a library's own level) is logged as a notice: shown, not alarming.
NOTICE: Final = 5

#: What a sealed memfd must not do any more before journald takes it (as sd_journal_send seals).
_SEALS: Final = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SEAL


def priority(level: str) -> int:
    """The syslog priority of a level name (``warning`` is 4)."""
    return PRIORITIES.get(level, NOTICE)


def is_journal_stream(stream: TextIO, environ: Mapping[str, str] | None = None) -> bool:
    """True if ``stream`` is the journald stream ``JOURNAL_STREAM`` names."""
    value = (os.environ if environ is None else environ).get("JOURNAL_STREAM", "")
    device, colon, inode = value.partition(":")
    if not (colon and device.isdigit() and inode.isdigit()):
        return False
    try:
        found = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):  # a StringIO has no descriptor: not journald
        return False
    return (found.st_dev, found.st_ino) == (int(device), int(inode))


def entry(fields: Mapping[str, str]) -> bytes:
    """One native journal entry: the fields in order, a value with a newline length-framed."""
    parts = []
    for key, value in fields.items():
        data = value.encode("utf-8")
        name = key.encode("ascii")
        if b"\n" in data:
            parts.append(name + b"\n" + struct.pack("<Q", len(data)) + data + b"\n")
        else:
            parts.append(name + b"=" + data + b"\n")
    return b"".join(parts)


def listening(path: Path) -> bool:
    """True if ``path`` is a socket (journald's is there when journald runs)."""
    try:
        return stat.S_ISSOCK(os.stat(path).st_mode)
    except OSError:
        return False


class JournalSocket:
    """Sends native entries to journald, addressed at each send (a restarted journald binds
    its socket anew). An entry too big for one datagram goes in a sealed memfd, passed over
    the socket, as sd_journal_send does (a traceback can pass the datagram's limit)."""

    def __init__(self, path: Path = SOCKET) -> None:
        self.path = str(path)
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    def send(self, data: bytes) -> None:
        """Send one entry; OSError if journald cannot be reached."""
        try:
            self._sock.sendto(data, self.path)
        except OSError as error:
            if error.errno not in (errno.EMSGSIZE, errno.ENOBUFS):
                raise
            self._send_sealed(data)

    def _send_sealed(self, data: bytes) -> None:
        fd = os.memfd_create("tablectl-log", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, _SEALS)
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))]
            self._sock.sendmsg([], rights, 0, self.path)
        finally:
            os.close(fd)

    def close(self) -> None:
        """Close the socket."""
        self._sock.close()
