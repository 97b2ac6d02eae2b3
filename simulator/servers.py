"""What the throwaway servers of the floor share (docs/floor.md, Servers and
credentials): finding a binary (naming the Debian package that has it), a free loopback port,
waiting until a server answers, and a server process watched by its guardian
(simulator/servers_guard.py), so that nothing is left running when its owner dies.

The servers themselves: NATS in simulator/servers_nats.py, PostgreSQL in
simulator/servers_pg.py, the throwaway TLS certificates in simulator/servers_tls.py. The tests
(tests/floor/conftest.py), ``tablectl floor demo`` and the benchmarks use them; nothing here
imports pytest.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

#: How long a server may take to answer after it was started (a loaded 2-core machine included).
READY_PATIENCE: Final = 60.0
#: How long a stopped server may take to exit (the guardian allows it 20 s, then kills).
STOP_PATIENCE: Final = 30.0
_POLL: Final = 0.02
_GUARD: Final = Path(__file__).with_name("servers_guard.py")

#: The lifeline of every guardian this process starts: each holds the read end, only this
#: process the write end, so when it dies (SIGKILL included) every guardian reads end of file
#: and stops its server. Made once, at import: a server's restart opens no descriptor (the
#: suite's leak check would see a new one), and nothing writes to it.
_LIFELINE_READ, _LIFELINE_WRITE = os.pipe()


class ServerError(RuntimeError):
    """A throwaway server that cannot be found, started or stopped: says which and why."""


def binary(path: str, package: str) -> str:
    """The executable ``path`` (a name on PATH or an absolute path), or a ServerError naming the
    Debian package to install."""
    found = shutil.which(path)
    if found is None:
        raise ServerError(
            f"{path} not found: install the Debian package {package} "
            f"(apt-get install --no-install-recommends {package})"
        )
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket listening on TCP ``port`` of 127.0.0.1: a
    server that answers on a port ``free_port`` gave may be another process's that took the
    port first (another test worker's), where ours then failed to bind (Linux's /proc)."""
    wanted = f"0100007F:{port:04X}"
    inodes = set()
    with contextlib.suppress(OSError), open("/proc/net/tcp", encoding="ascii") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == wanted and fields[3] == "0A":  # TCP_LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    fds = Path(f"/proc/{pid}/fd")
    with contextlib.suppress(OSError):
        for fd in fds.iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) in inodes:
                    return True
    return False


def unprivileged_user() -> str | None:
    """The user a server that refuses root runs as: ``nobody`` when we are root, else None (as
    ourselves)."""
    return "nobody" if os.geteuid() == 0 else None


def log_tail(log: Path, lines: int = 15) -> str:
    """The last lines of a server's log, for an error message."""
    try:
        text = log.read_text(errors="replace")
    except OSError:
        return "(no log)"
    return "\n".join(text.splitlines()[-lines:]) or "(empty log)"


def group_alive(group: int) -> bool:
    """Whether a process of process group ``group`` still runs (a zombie, which holds no
    memory and waits only to be reaped, does not count)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # ended meanwhile
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
        state, _ppid, pgrp = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(pgrp) == group and state != "Z":
            return True
    return False


class Guarded:
    """One server process under its guardian: started at once, stopped or killed on demand.

    The server runs in a process group of its own (its pid is the group's id), so a kill takes
    the children it forked (PostgreSQL's backends) with it, as a crash of the machine's server
    would. The guardian holds the read end of this process's lifeline: when this process dies,
    it stops the server."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        *,
        log: Path,
        stop_signal: signal.Signals,
        user: str | None = None,
    ) -> None:
        self.name = name
        self.log = log
        user_option = ["--user", user] if user else []
        self._guard = subprocess.Popen(
            [
                sys.executable,
                str(_GUARD),
                "--lifeline",
                str(_LIFELINE_READ),
                "--log",
                str(log),
                "--stop-signal",
                str(int(stop_signal)),
                *user_option,
                "--",
                *command,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            pass_fds=(_LIFELINE_READ,),
            start_new_session=True,  # a Ctrl-C in the terminal reaches the test, not the guard
        )
        assert self._guard.stdout is not None
        with self._guard.stdout:
            line = self._guard.stdout.readline()
        if not line.strip().isdigit():
            self._reap()
            raise ServerError(f"{name} did not start ({command[0]}):\n{log_tail(log)}")
        self.pid = int(line)
        self._stop_signal = stop_signal

    def running(self) -> bool:
        """Whether the server (and so its guardian) still runs."""
        return self._guard.poll() is None

    def stop(self) -> int:
        """Stop the server with its stop signal and wait until it exited; its exit status."""
        self._signal(self._stop_signal)
        return self._reap()

    def kill(self) -> int:
        """SIGKILL the server's process group (the server and its children) and wait until
        none of them runs: the guardian reaps the server only, and a backend still being torn
        down holds PostgreSQL's shared memory, so a start at once was refused ("pre-existing
        shared memory block ... is still in use")."""
        self._signal(signal.SIGKILL, group=True)
        status = self._reap()
        deadline = time.monotonic() + STOP_PATIENCE
        while group_alive(self.pid):
            if time.monotonic() > deadline:
                raise ServerError(
                    f"{self.name}: its processes still run {STOP_PATIENCE:.0f} s after SIGKILL"
                )
            time.sleep(_POLL)
        return status

    def _signal(self, sig: signal.Signals, *, group: bool = False) -> None:
        # While the guardian runs it has not reaped the server, so the pid is still the server's.
        if self.running():
            with contextlib.suppress(ProcessLookupError):  # exited since the check
                (os.killpg if group else os.kill)(self.pid, sig)

    def _reap(self) -> int:
        try:
            status = self._guard.wait(STOP_PATIENCE)
        except subprocess.TimeoutExpired:
            self._signal(signal.SIGKILL, group=True)
            self._guard.wait()
            raise ServerError(f"{self.name} did not stop within {STOP_PATIENCE:.0f} s") from None
        return status


class Throwaway:
    """What every throwaway server does with its one process (``_process``: None before its
    first start, the same object between a stop and the next start): stop it, kill it, say
    whether it runs. The server sets ``_process`` when it starts one."""

    __slots__ = ()
    _process: Guarded | None

    def stop(self) -> None:
        """Stop the server with its stop signal and wait until it exited."""
        if self._process is not None:
            self._process.stop()

    def kill(self) -> None:
        """SIGKILL the server and its children, as a crash would."""
        if self._process is not None:
            self._process.kill()

    def running(self) -> bool:
        return self._process is not None and self._process.running()


def wait_until(
    ready: Callable[[], bool], process: Guarded, what: str, patience: float = READY_PATIENCE
) -> None:
    """Poll ``ready`` (a connection attempt) until it holds; a ServerError with the log's tail
    when the server exits first or does not answer within ``patience`` seconds."""
    deadline = time.monotonic() + patience
    while not ready():
        if not process.running():
            raise ServerError(f"{what} exited while starting:\n{log_tail(process.log)}")
        if time.monotonic() > deadline:
            raise ServerError(
                f"{what} did not answer within {patience:.0f} s:\n{log_tail(process.log)}"
            )
        time.sleep(_POLL)
