"""The controller's unix sockets (the control socket, the display feed): bound, accepted on by a
thread of their own, and removed.

Both are local stream sockets in the controller's runtime folder, mode 0660 so the
users of group ``tablectl`` may reach them, with no network listener. A socket left by
a controller that was killed is replaced; one another controller still answers on is
refused, since a table has one controller.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Final, Self

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


class Listener(ABC):
    """A socket ``listen`` made and the thread that accepts on it until ``close``: the life the
    control socket and the display feed share. Each binds its own socket (its own error), hands
    it to ``_accept_on``, and says what a connection is given (``_take``, on the accepting
    thread) and whether a failed ``accept`` ends the accepting (``_not_accepted``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._sock: socket.socket | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _accept_on(self, sock: socket.socket, name: str) -> None:
        """Start accepting on ``sock`` in a thread called ``name``."""
        self._sock = sock
        self._thread = threading.Thread(target=self._accepting, name=name, daemon=True)
        self._thread.start()

    def _accepting(self) -> None:
        assert self._sock is not None
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            except OSError as error:
                if self._not_accepted(error):
                    continue
                return
            self._take(conn)

    @abstractmethod
    def _take(self, conn: socket.socket) -> None:
        """Give ``conn`` what it came for (on the accepting thread)."""

    def _not_accepted(self, error: OSError) -> bool:
        """Whether to accept on after ``accept`` raised ``error``; here no."""
        return False

    def _stop_accepting(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _remove(self) -> None:
        # After ``_stop_accepting``: the accepting thread never has its socket closed under it.
        if self._sock is not None:
            remove(self._sock, self.path)
            self._sock = None

    def close(self) -> None:
        """Stop accepting, close and remove the socket."""
        self._stop_accepting()
        self._remove()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @abstractmethod
    def start(self) -> None:
        """Bind the socket (the server's own error if it cannot) and ``_accept_on`` it."""


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
