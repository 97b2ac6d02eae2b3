"""Who asked (docs/journal.md, Seat changes): a seat change on the control socket is
journaled with the peer's uid and user name from the socket's credentials (SO_PEERCRED), shown
in recall; the socket refuses a peer outside its group (mode 0660)."""

from __future__ import annotations

import grp
import os
import pwd
import queue
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from apphelp import dealer, journal_records, sim_table

from controller.history.recall import format_hand, hands
from controller.journal import JournalReader
from controller.journal import tablerecords as rec
from controller.table.control import ControlServer, send

#: The system's python, which any user may run (the venv's lives under /root here).
SYSTEM_PYTHON = "/usr/bin/python3"

#: A client as another user: one request on one line, the answer printed, or the refusal.
CLIENT = """
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
try:
    s.connect(sys.argv[1])
except PermissionError:
    print("refused"); sys.exit(3)
s.sendall(sys.argv[2].encode() + b"\\n")
print(s.makefile().readline().strip())
"""

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or not Path(SYSTEM_PYTHON).exists(),
    reason="runs a client as the user nobody: needs root and /usr/bin/python3",
)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder anyone may enter (pytest's own are root's alone), so that only the socket's
    mode and group decide who reaches it."""
    folder = Path(tempfile.mkdtemp(prefix="tablectl-peer-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _group() -> int:
    """The socket's group: tablectl if the machine has it, else users (100)."""
    try:
        return grp.getgrnam("tablectl").gr_gid
    except KeyError:
        return grp.getgrnam("users").gr_gid


def _as_nobody(socket: Path, request: str, groups: list[int]) -> subprocess.CompletedProcess[str]:
    nobody = pwd.getpwnam("nobody")
    return subprocess.run(
        [SYSTEM_PYTHON, "-c", CLIENT, str(socket), request],
        user=nobody.pw_uid,
        group=nobody.pw_gid,
        extra_groups=groups,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_seat_change_is_journaled_with_who_asked_and_recall_shows_it(tmp_path: Path) -> None:
    """This process asks: its uid and name are in the seating record, and recall's line for
    the change names them."""
    path = tmp_path / "ctl.sock"
    me = os.getuid()
    name = pwd.getpwuid(me).pw_name
    with sim_table(tmp_path, seats=3) as table:
        dealer(table, hands=1).run()
        with ControlServer(path, table.controller.events):
            assert send(path, {"change": "rebuy", "seat": 1, "chips": 100})["ok"] is True
    seatings = [d for kind, d in journal_records(tmp_path / "journal") if kind == rec.SEATING]
    assert seatings == [{"change": "rebuy", "seat": 1, "chips": 100, "uid": me, "user": name}]
    first = hands(JournalReader(tmp_path / "journal"))[0]
    assert f"  seat change: rebuy seat 1 100 (asked by {name}, uid {me})" in format_hand(first)


@needs_root
def test_another_users_seat_change_names_that_user(tmp_path: Path, open_folder: Path) -> None:
    """nobody, in the socket's group, asks: the record names nobody's uid, not the
    controller's: the credentials are the kernel's, not what the client says."""
    path = open_folder / "ctl.sock"
    nobody = pwd.getpwnam("nobody")
    with sim_table(tmp_path, seats=3) as table:
        dealer(table, hands=1).run()
        with ControlServer(path, table.controller.events):
            os.chown(path, -1, _group())
            done = _as_nobody(path, '{"change": "leave", "seat": 2}', [_group()])
            assert done.returncode == 0, done.stderr
            assert '"ok": true' in done.stdout
    seatings = [d for kind, d in journal_records(tmp_path / "journal") if kind == rec.SEATING]
    assert seatings == [{"change": "leave", "seat": 2, "uid": nobody.pw_uid, "user": "nobody"}]


@needs_root
def test_the_socket_refuses_a_peer_outside_its_group(open_folder: Path) -> None:
    """The socket is mode 0660: nobody outside its group cannot connect, and nothing reaches
    the controller; the same user in the group can."""
    path = open_folder / "ctl.sock"
    events: queue.SimpleQueue[object] = queue.SimpleQueue()
    with ControlServer(path, events, timeout=0.2):
        os.chown(path, -1, _group())
        assert path.stat().st_mode & 0o777 == 0o660
        refused = _as_nobody(path, '{"change": "show"}', [])
        assert (refused.returncode, refused.stdout.strip()) == (3, "refused")
        assert events.empty()
        admitted = _as_nobody(path, '{"change": "show"}', [_group()])
        assert admitted.returncode == 0, admitted.stderr
        request = events.get(timeout=60)  # the show request, queued for the loop
    assert request.peer is not None  # type: ignore[attr-defined]
    assert request.peer.user == "nobody"  # type: ignore[attr-defined]
