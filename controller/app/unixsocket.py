"""The controller's unix sockets (the control socket, the display feed): bound, and removed.

Both are local stream sockets in the controller's runtime folder, mode 0660 so the
users of group ``tablectl`` may reach them, with no network listener. A socket left by
a controller that was killed is replaced; one another controller still answers on is
refused, since a table has one controller.
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path
from typing import Final

#: How often an accepting thread looks up from ``accept`` to see whether it should stop.
POLL: Final = 0.1


def listen(path: Path, what: str, backlog: int) -> socket.socket:
    """A listening socket at ``path`` (``accept`` times out every ``POLL``); OSError with a
    message naming ``what`` and the fix if another controller answers there or it cannot be
    bound."""
    if path.exists():
        if answers(path):
            raise OSError(
                f"{what} {path}: another controller answers there; expected one "
                "controller per table"
            )
        path.unlink()  # left by a controller that was killed
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(str(path))
        os.chmod(path, 0o660)
        sock.listen(backlog)
        sock.settimeout(POLL)
    except OSError as exc:
        sock.close()
        raise OSError(
            f"{what} {path}: {exc.strerror}; expected a folder the table's user may write "
            "(RuntimeDirectory=tablectl in the systemd unit)"
        ) from None
    return sock


def remove(sock: socket.socket, path: Path) -> None:
    """Close a socket ``listen`` made and remove its path."""
    sock.close()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def answers(path: Path) -> bool:
    """Whether a process listens at ``path``."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(str(path))
        except OSError:
            return False
    return True
