"""The control socket: the floor's requests to the running controller (``tablectl seat``).

A unix stream socket at the path ``[control] socket`` of ``table.toml``
(docs/deploy.md). A client sends one JSON object on one line and gets one JSON
line back: ``{"ok": true, "text": ...}`` or ``{"ok": false, "reason": ...}``.
Requests: ``{"change": "sit", "seat": 3, "chips": 500}``, ``{"change": "leave",
"seat": 3}``, ``{"change": "rebuy", "seat": 3, "chips": 200}`` and ``{"change":
"show"}``. The socket's thread only parses a request and puts it on the
controller's event queue; the controller's loop journals it with who asked (the peer's uid
and user name from the socket's credentials), applies it and answers (docs/app.md, Seat
changes). Only users of group ``tablectl`` reach the socket (mode 0660).
"""

from __future__ import annotations

import json
import pwd
import queue
import socket
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from controller.journal import JsonObject
from controller.table import unixsocket
from controller.table.seating import SeatChange, SeatingError, seat_change_of
from drivers.seam.events import EventSink

SHOW: Final = "show"
#: How long a client waits for the loop's answer; the loop answers within one event.
ANSWER_TIMEOUT: Final = 10.0
#: The longest request line read: a request is a few dozen bytes.
MAX_REQUEST: Final = 4096
#: How often the accepting thread looks up to see whether it should stop.
POLL: Final = 0.1


class ControlError(Exception):
    """The control socket cannot be reached or answered badly; the message says what to do."""


@dataclass(frozen=True, slots=True)
class Peer:
    """Who asked on the control socket: the peer process's uid from the socket's credentials
    (SO_PEERCRED, which the kernel fills in: a client cannot claim another's) and its user
    name (None: a uid with no name in the user database)."""

    uid: int
    user: str | None

    def fields(self) -> JsonObject:
        """The ``seating`` record's ``uid`` and ``user`` (docs/journal.md, Seat changes)."""
        data: JsonObject = {"uid": self.uid}
        if self.user is not None:
            data["user"] = self.user
        return data


def peer_of(conn: socket.socket) -> Peer:
    """The credentials of the process at the other end of a unix socket (SO_PEERCRED:
    struct ucred, three ints: pid, uid, gid)."""
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, _UCRED.size)
    _pid, uid, _gid = _UCRED.unpack(raw)
    try:
        user: str | None = pwd.getpwuid(uid).pw_name
    except KeyError:
        user = None
    return Peer(uid, user)


_UCRED: Final = struct.Struct("3i")


@dataclass
class SeatRequest:
    """A request for the controller's loop: a seat change, or None to show the seats; ``peer``
    who asked (None: not through the socket)."""

    change: SeatChange | None
    answer: queue.Queue[JsonObject] = field(default_factory=lambda: queue.Queue(maxsize=1))
    peer: Peer | None = None


def parse_request(line: bytes) -> SeatRequest:
    """The request one line holds; SeatingError naming what was expected."""
    try:
        data = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise SeatingError(
            f"request {line[:80]!r}: expected one line of JSON, e.g. "
            '{"change": "sit", "seat": 3, "chips": 500}'
        ) from None
    if isinstance(data, dict) and data.get("change") == SHOW:
        return SeatRequest(None)
    return SeatRequest(seat_change_of(data))


class ControlServer(unixsocket.Listener):
    """Accepts the floor's requests on a unix socket and queues them for the controller; a
    failed ``accept`` ends the accepting (``Listener._not_accepted``)."""

    def __init__(self, path: Path, events: EventSink[Any], timeout: float = ANSWER_TIMEOUT) -> None:
        super().__init__(path)
        self.events = events
        self.timeout = timeout

    def start(self) -> None:
        """Bind the socket (group-writable: the floor's users are in group tablectl)."""
        try:
            sock = unixsocket.listen(self.path, "control socket", backlog=4)
        except OSError as error:
            raise ControlError(str(error)) from None
        self._accept_on(sock, "tablectl-control")

    def _take(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(self.timeout)
            try:
                conn.sendall(json.dumps(self._answer(conn)).encode() + b"\n")
            except OSError:
                return  # the client went away: nothing to tell it

    def _answer(self, conn: socket.socket) -> JsonObject:
        try:
            line = _read_line(conn)
            request = parse_request(line)
            request.peer = peer_of(conn)
        except (SeatingError, OSError) as exc:
            return {"ok": False, "reason": str(exc)}
        self.events.put(request)
        waited = 0.0
        while waited < self.timeout and not self._stop.is_set():  # a closing table: no answer
            try:
                return request.answer.get(timeout=POLL)
            except queue.Empty:
                waited += POLL
        return {
            "ok": False,
            "reason": f"the controller did not answer within {waited:.1f} s (stopping, or "
            "busy); check its log (journalctl -u tablectl) and ask again",
        }


def _read_line(conn: socket.socket) -> bytes:
    data = b""
    while b"\n" not in data:
        chunk = conn.recv(MAX_REQUEST)
        if not chunk:
            break
        data += chunk
        if len(data) > MAX_REQUEST:
            raise SeatingError(f"request of {len(data)} bytes: expected one short JSON line")
    return data.split(b"\n", 1)[0]


def send(path: Path, request: JsonObject, timeout: float = ANSWER_TIMEOUT + 2) -> JsonObject:
    """Send one request to the controller at ``path``; its answer. ControlError if no one is
    there."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            raise ControlError(
                f"control socket {path}: no controller is running there; start the table "
                "(systemctl start tablectl) or check [control] socket in table.toml"
            ) from None
        except PermissionError:
            raise ControlError(
                f"control socket {path}: permission denied; expected a user in group tablectl"
            ) from None
        sock.sendall(json.dumps(request).encode() + b"\n")
        answer = _read_line(sock)
    try:
        data = json.loads(answer)
    except json.JSONDecodeError:
        raise ControlError(
            f"control socket {path}: answered {answer[:80]!r}; expected JSON"
        ) from None
    if not isinstance(data, dict):
        raise ControlError(f"control socket {path}: answered {data!r}; expected an object")
    return data
