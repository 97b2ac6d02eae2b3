"""``tablectl floor demo --web`` (docs/floor-web.md, The demo): as soon as the demo's ``floor
serve`` serves, before its tables deal, ``floor web`` on loopback over the same floor, one user
of each role with a random password printed once, the address printed; the tables then deal
while it serves, and after the summary the floor is kept running until Ctrl-C or SIGTERM, then
every part stopped and the demo's folder removed (exit 0), or kept with ``--keep``.
"""

from __future__ import annotations

import http.client
import os
import secrets
import time
from pathlib import Path
from typing import Final, TextIO

import psycopg

from controller.floor import store
from controller.floor.web import users
from controller.floor.web.dbschema import ROLES
from controller.floor.web.webtoml import DEFAULT_USER
from simulator.floorlab import FloorLab
from simulator.floorlab_parts import TABLECTL, Part, PartError
from simulator.servers import free_port

#: How long floor web may take to answer its login page after it starts.
STARTUP: Final = 60.0


class DemoWeb:
    """``floor web`` over a lab's floor: ``start(lab)`` makes the users, starts it and prints
    how to log in; ``serve()`` waits for the demo's end; ``stop()`` stops it."""

    def __init__(self, out: TextIO, say: TextIO, *, kept: bool) -> None:
        self.out, self.say, self.kept = out, say, kept
        self.web: Part | None = None

    def start(self, lab: FloorLab) -> None:
        """Start floor web over ``lab``'s floor, make the users and print how to log in;
        PartError if floor web does not start."""
        folder = lab.floor_config.parent
        port = free_port()
        _private(folder / "web.secret", secrets.token_hex(32))
        web_password = secrets.token_hex(16)
        _private(folder / "web.password", web_password)
        _private(folder / "web-nats.password", lab.nats.web_user.password)
        with lab.floor_config.open("a", encoding="utf-8") as toml:
            toml.write(
                f'[web]\nlisten = "127.0.0.1"\nport = {port}\nsecret_file = "web.secret"\n'
                f'user = "{DEFAULT_USER}"\npassword_file = "web.password"\n'
                f'[web.nats]\nuser = "{lab.nats.web_user.user}"\n'
                'password_file = "web-nats.password"\n'
            )
        passwords = {role: secrets.token_urlsafe(12) for role in ROLES}
        with psycopg.connect(lab.owner_dsn, autocommit=True) as conn:
            # floor setup made the web's role; its password as [web] password_file holds it.
            store.set_password(conn, DEFAULT_USER, web_password)
            for role, password in passwords.items():
                users.add(conn, role, role, password)
        self.web = Part(
            "tablectl floor web",
            [*TABLECTL, "floor", "web", "--config", str(lab.floor_config)],
            folder / "web.log",
        )
        self.web.start()
        _wait_answering(self.web, port)
        where = (
            "they are nowhere else once the demo ends"
            if not self.kept
            else "the kept floor keeps them, hashed"
        )
        lines = [
            f"the floor's web view: http://127.0.0.1:{port}/ (this machine only)",
            f"users (each password shown this once; {where}):",
            *(f"  {role:<13} {password}" for role, password in passwords.items()),
            "the tables deal from now on: the floor page shows each hand as it is played; "
            "Ctrl-C or SIGTERM stops the demo",
        ]
        print("\n".join(lines), file=self.out, flush=True)
        print("tablectl floor demo: serving the web view", file=self.say, flush=True)

    def serve(self) -> None:
        """Serve until a signal ends the demo (KeyboardInterrupt or the demo's Signalled, let
        through); PartError if floor web stops by itself."""
        assert self.web is not None
        while self.web.running():
            time.sleep(0.5)  # a signal interrupts this with the demo's stop
        raise PartError(f"tablectl floor web stopped by itself:\n{_tail(self.web.log)}")

    def stop(self) -> None:
        if self.web is not None:
            self.web.stop()


def _wait_answering(web: Part, port: int) -> None:
    deadline = time.monotonic() + STARTUP
    while not _answers(port):
        if not web.running():
            raise PartError(f"tablectl floor web did not start:\n{_tail(web.log)}")
        if time.monotonic() > deadline:
            raise PartError(f"tablectl floor web not answering after {STARTUP:.0f} s")
        time.sleep(0.1)


def _answers(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/login")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def _private(path: Path, secret: str) -> None:
    """A secret's file, readable by this user only."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(secret + "\n")


def _tail(log: Path) -> str:
    try:
        return "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-20:])
    except OSError:
        return "(no log)"
