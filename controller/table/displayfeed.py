"""The display feed: the dealer's display published on a unix socket (``tablectl display``).

``DisplayFeed`` is the controller's ``display``: after every input, while a display
is attached, the loop hands it the ``TableView`` it built, the same view an in-process
display is given, so a face-down card is a back (controller/poker/announce.py
``hidden_cards``; docs/display.md, What the table sees). While none is attached no
view is built. Each display that attaches gets the feed's hello, the table as it
stands (built for it at the controller's next turn), then every new view, one JSON
line each (``controller.display.wire``).

The controller never waits on a display. ``__call__`` runs on the loop's thread,
under the table's lock: it encodes the view once and offers the line to each display's
own bounded queue, without blocking. A display whose queue is full (it reads slower
than the table deals), whose socket stays full for ``send_timeout``, or that sends
anything (a display only reads) is dropped and logged (``display_detached``,
``display_refused``); each display has its own thread, so one stuck display delays
no other. Any number may attach. No network listener: a unix socket, mode 0660, group
``tablectl`` where that group exists (docs/display.md, The socket).
"""

from __future__ import annotations

import contextlib
import grp
import os
import queue
import select
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import structlog

from controller.display import wire
from controller.display.view import TableView
from controller.table import unixsocket

#: The group of the floor's and the display's users (docs/deploy.md, udev/README.md).
GROUP: Final = "tablectl"
#: Views a display may fall behind by before it is dropped: a burst of a whole round's
#: cards is a few dozen views; a display that lags by more is not reading.
QUEUE_VIEWS: Final = 64
#: How long one line may wait to be taken by the display's socket before it is dropped.
SEND_TIMEOUT: Final = 5.0
#: The kernel's buffer for each display's socket: bounded too, so what a display has not
#: read is at most this and its queue (a few dozen views either way).
SEND_BUFFER: Final = 64 * 1024
#: How often each display's thread and the accepting thread look up to see whether to stop.
POLL: Final = 0.1
#: How much of what a display sent the log shows.
HEARD_SHOWN: Final = 40


class FeedError(Exception):
    """The feed's socket cannot be bound; the message says what to do."""


@dataclass
class _Display:
    """One attached display: its socket, its queue of lines, and the thread that sends them."""

    number: int
    conn: socket.socket
    peer: str
    #: Room for the hello, the view on attach and ``queue_views`` more.
    lines: queue.Queue[bytes]
    #: Why the feed dropped it (set on the loop's thread); None while it is attached.
    dropped: str | None = None
    thread: threading.Thread | None = None


class DisplayFeed(unixsocket.Listener):
    """Publishes each view the controller builds to every attached display."""

    def __init__(
        self,
        path: Path,
        table_id: str,
        *,
        queue_views: int = QUEUE_VIEWS,
        send_timeout: float = SEND_TIMEOUT,
        send_buffer: int = SEND_BUFFER,
        group: str = GROUP,
    ) -> None:
        super().__init__(path)
        self.table_id = table_id
        self.queue_views = queue_views
        self.send_timeout = send_timeout
        self.send_buffer = send_buffer
        self.group = group
        self._lock = threading.Lock()
        self._latest: TableView | None = None
        self._displays: list[_Display] = []
        self._attached = 0
        self._log = structlog.get_logger("controller.feed").bind()
        #: Set by the controller whose display this is (``Controller``): puts a build of the
        #: table's view on its queue. With it, no view is built while no display is attached
        #: (a view costs more than the rest of a card's announcement), and a display that
        #: attaches is given the table as it stands, built for it under the table's turn.
        self.ask_for_view: Callable[[], None] | None = None

    # --- the controller's side -------------------------------------------------------------

    def __call__(self, view: TableView) -> None:
        """Publish ``view``; never blocks (the loop's thread, under the table's lock)."""
        with self._lock:
            self._latest = view
            displays = list(self._displays)
        if not displays:
            return  # nothing to encode: an attaching display is given the newest view
        try:
            line = wire.view_line(view)
        except (TypeError, ValueError) as error:  # a view the feed cannot write: a bug
            # The table deals on: its panel and log still announce; only the screen waits.
            self._log.error("display_feed_failed", error=repr(error), hand=view.hand_number)
            return
        for display in displays:
            self._offer(display, line)

    def _offer(self, display: _Display, line: bytes) -> None:
        if display.dropped is not None:
            return
        if display.lines.qsize() >= self.queue_views:
            self._drop(display, f"fell {self.queue_views} views behind the table")
            return
        try:
            display.lines.put_nowait(line)
        except queue.Full:  # raced its own drop: the thread is ending
            self._drop(display, f"fell {self.queue_views} views behind the table")

    def _drop(self, display: _Display, reason: str) -> None:
        """Detach ``display`` now; its thread logs it and closes its socket."""
        display.dropped = reason
        with contextlib.suppress(OSError):
            display.conn.shutdown(socket.SHUT_RDWR)  # a send in progress stops at once

    def wanted(self) -> bool:
        """Whether a view would reach anyone: a display is attached. Read without the lock on
        the loop's thread (a list's length is one read); a display attaching just after is
        given its own view (``ask_for_view``)."""
        return bool(self._displays)

    @property
    def attached(self) -> int:
        """How many displays are attached now."""
        with self._lock:
            return len(self._displays)

    # --- life ----------------------------------------------------------------------------

    def start(self) -> None:
        """Bind the socket (mode 0660, group tablectl) and start taking displays."""
        try:
            sock = unixsocket.listen(self.path, "display socket", backlog=8)
        except OSError as error:
            raise FeedError(str(error)) from None
        self._give_to_group()
        self._accept_on(sock, "tablectl-feed")
        self._log.info("display_feed_open", socket=str(self.path))

    def _give_to_group(self) -> None:
        """The socket's group: ``tablectl`` where it exists (the display's user is in it)."""
        try:
            gid = grp.getgrnam(self.group).gr_gid
        except KeyError:
            return  # a bench without the group: the controller's own group keeps it
        try:
            os.chown(self.path, -1, gid)
        except OSError as exc:
            self._log.warning(
                "display_socket_group",
                socket=str(self.path),
                error=exc.strerror,
                todo=f"run the controller with group {self.group} (Group= in its unit), or "
                "displays of that group cannot attach",
            )

    def close(self) -> None:
        """Stop taking displays, detach every display, remove the socket."""
        self._stop_accepting()
        with self._lock:
            displays = list(self._displays)
        for display in displays:
            if display.dropped is None:
                self._drop(display, "the controller closed")
            if display.thread is not None:
                display.thread.join()
        self._remove()

    # --- the displays' side --------------------------------------------------------------

    def _not_accepted(self, error: OSError) -> bool:
        # Out of descriptors, or a display gone before it was taken: keep taking others (the
        # socket itself is closed only after the accepting thread has ended).
        self._log.warning("display_not_attached", error=error.strerror or str(error))
        self._stop.wait(POLL)
        return True

    def _take(self, conn: socket.socket) -> None:
        try:
            self._attach(conn)
        except OSError as error:
            conn.close()
            self._log.warning("display_not_attached", error=error.strerror or str(error))

    def _attach(self, conn: socket.socket) -> None:
        conn.settimeout(self.send_timeout)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
        with self._lock:
            self._attached += 1
            display = _Display(self._attached, conn, _peer(conn), queue.Queue(self.queue_views + 2))
            # The hello and the table as it stands now, before any view published after it.
            display.lines.put_nowait(wire.hello_line(self.table_id))
            ask = self.ask_for_view
            if ask is None and self._latest is not None:
                display.lines.put_nowait(wire.view_line(self._latest))
            self._displays.append(display)
        self._log.info("display_attached", display=display.number, peer=display.peer)
        display.thread = threading.Thread(
            target=self._send, args=(display,), name=f"tablectl-feed-{display.number}", daemon=True
        )
        display.thread.start()
        if ask is not None:
            ask()  # the view comes as the controller's next turn, like any other

    def _send(self, display: _Display) -> None:
        """The display's thread: its lines out, until it goes, is dropped, or the feed closes."""
        refused: str | None = None
        try:
            while display.dropped is None:
                refused = _heard(display.conn)
                if refused is not None:
                    break
                try:
                    line = display.lines.get(timeout=POLL)
                except queue.Empty:
                    continue
                self._send_line(display, line)
        finally:
            with self._lock:
                self._displays.remove(display)
            display.conn.close()
        self._detached(display, refused)

    def _send_line(self, display: _Display, line: bytes) -> None:
        try:
            display.conn.sendall(line)
        except TimeoutError:
            self._drop(display, f"read nothing for {self.send_timeout:g} s")
        except OSError:
            if display.dropped is None:  # not our own shutdown: the display went
                display.dropped = "the display closed the connection"

    def _detached(self, display: _Display, refused: str | None) -> None:
        if refused is not None and refused != _CLOSED_BY_DISPLAY:
            self._log.warning(
                "display_refused",
                display=display.number,
                peer=display.peer,
                heard=refused,
                reason="a display only reads the feed; expected it to send nothing",
            )
            return
        reason = display.dropped or "the display closed the connection"
        log: Callable[..., object] = self._log.info
        if reason not in (_CLOSED_BY_DISPLAY, "the controller closed"):
            log = self._log.warning  # dropped: the display did not keep up
        log("display_detached", display=display.number, peer=display.peer, reason=reason)


_CLOSED_BY_DISPLAY: Final = "the display closed the connection"


def _heard(conn: socket.socket) -> str | None:
    """What the display sent, if anything (a display only reads): the bytes, shortened, or
    ``_CLOSED_BY_DISPLAY`` once it has closed its end; None if it sent nothing."""
    poller = select.poll()
    poller.register(conn, select.POLLIN)
    if not poller.poll(0):
        return None
    try:
        data = conn.recv(HEARD_SHOWN, socket.MSG_DONTWAIT)
    except BlockingIOError:
        return None
    except OSError:
        return _CLOSED_BY_DISPLAY
    if not data:
        return _CLOSED_BY_DISPLAY
    return repr(data)


def _peer(conn: socket.socket) -> str:
    """Who attached, for the log: the process and user the kernel vouches for (SO_PEERCRED)."""
    try:
        creds = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
    except OSError:
        return "unknown"
    pid, uid, _gid = struct.unpack("3i", creds)
    return f"pid {pid} uid {uid}"


def open_feed(feed: DisplayFeed | None) -> DisplayFeed | None:
    """Start ``feed``; None (and an error in the log) if its socket cannot be bound: the
    table deals without a display rather than not at all."""
    if feed is None:
        return None
    try:
        feed.start()
    except FeedError as error:
        structlog.get_logger("controller.feed").error(
            "display_socket_unavailable",
            error=str(error),
            todo="no display can attach (tablectl display) until the table restarts with a "
            "usable [display] socket",
        )
        return None
    return feed
