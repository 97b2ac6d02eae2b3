"""The guardian of one throwaway server (simulator/servers.py): run as a script, standard library
only, so it needs nothing of tablectl.

    python servers_guard.py --lifeline FD --log FILE --stop-signal N [--user NAME] -- COMMAND...

It starts COMMAND in a process group of its own (as NAME when given), writes the server's pid on
stdout, and then waits for one of two things:

- the lifeline FD (a pipe's read end) reaching end of file: whoever started it is gone (even
  killed with SIGKILL: the kernel closes the write end all the same); it stops the server with
  the stop signal, and after ``STOP_PATIENCE`` seconds kills its process group;
- the server exiting (stopped or killed by its owner): it exits with the server's status.

So a test process killed mid-run leaves no server running forever, and no prctl is needed.
"""

from __future__ import annotations

import argparse
import os
import selectors
import signal
import subprocess
import sys
from types import FrameType

#: How long a stopped server may take to shut down before its process group is killed.
STOP_PATIENCE = 20.0


class _Stop(Exception):
    """SIGTERM reached the guardian: stop the server as on end of file."""


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise _Stop


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="servers_guard")
    parser.add_argument("--lifeline", type=int, required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--stop-signal", type=int, required=True)
    parser.add_argument("--user")
    parser.add_argument("command", nargs="+")
    return parser.parse_args(argv)


def _stop(server: subprocess.Popen[bytes], stop_signal: int) -> int:
    if server.poll() is None:
        os.kill(server.pid, stop_signal)
        try:
            return server.wait(STOP_PATIENCE)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
    return server.wait()


def main(argv: list[str]) -> int:
    options = _arguments(argv)
    signal.signal(signal.SIGTERM, _on_term)
    with open(options.log, "ab") as log:
        server = subprocess.Popen(
            options.command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            user=options.user,
            start_new_session=True,  # its own process group: a kill takes its children too
        )
    sys.stdout.write(f"{server.pid}\n")
    sys.stdout.close()
    exited = os.pidfd_open(server.pid)
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(options.lifeline, selectors.EVENT_READ)
            selector.register(exited, selectors.EVENT_READ)
            while True:
                for key, _ in selector.select():
                    if key.fd == exited:
                        return _status(server.wait())
                    if not os.read(key.fd, 1):  # end of file: the owner is gone
                        return _status(_stop(server, options.stop_signal))
    except _Stop:
        return _status(_stop(server, options.stop_signal))
    finally:
        os.close(exited)


def _status(returncode: int) -> int:
    return returncode if returncode >= 0 else 128 - returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
