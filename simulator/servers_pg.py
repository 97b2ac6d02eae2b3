"""A throwaway PostgreSQL 15 on loopback (docs/floor.md, Servers and credentials): for
the floor's tests, ``tablectl floor demo`` and the benchmarks.

``initdb`` makes a cluster in a folder of its own; PostgreSQL refuses to run as root, so when we
are root the folder belongs to ``nobody`` and the server runs as ``nobody`` (nothing is created
system-wide). It listens on 127.0.0.1 only, at a port chosen once (a restart keeps it), with its
Unix socket in the folder. Over TCP every role, the superuser included, logs in with a
SCRAM-SHA-256 password; over the socket the superuser is trusted (only this machine's root or
``nobody`` can reach the folder).

``durable=False`` turns off fsync only: a killed server loses nothing (its writes are in the
kernel's page cache, and commits still wait for the WAL's write), only a power cut would, which
no test makes. The benchmarks keep fsync on (the default), as a floor host does.
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path
from typing import Final

import psycopg

from simulator.servers import (
    Guarded,
    ServerError,
    Throwaway,
    binary,
    free_port,
    unprivileged_user,
    wait_until,
)

PG_BIN: Final = Path("/usr/lib/postgresql/15/bin")
PG_PACKAGE: Final = "postgresql-15"
SUPERUSER: Final = "postgres"


class PostgresServer(Throwaway):
    """One PostgreSQL cluster on 127.0.0.1; ``start()`` it (again after a stop or a kill: same
    port, same data). ``close()`` stops it and removes its folder."""

    def __init__(self, *, durable: bool = True, port: int | None = None) -> None:
        self._initdb = binary(str(PG_BIN / "initdb"), PG_PACKAGE)
        self._postgres = binary(str(PG_BIN / "postgres"), PG_PACKAGE)
        self.user = unprivileged_user()
        # Not under pytest's tmp_path: its folders are root's 0700, which nobody cannot enter.
        self.directory = Path(tempfile.mkdtemp(prefix="tablectl-pg-"))
        self.port = port if port is not None else free_port()
        self.password = secrets.token_hex(16)
        self._databases = itertools.count(1)
        self._process: Guarded | None = None
        try:
            self._init(durable)
        except BaseException:
            shutil.rmtree(self.directory, ignore_errors=True)
            raise

    @property
    def data(self) -> Path:
        return self.directory / "data"

    @property
    def socket_directory(self) -> Path:
        return self.directory / "socket"

    @property
    def log(self) -> Path:
        return self.directory / "postgres.log"

    @property
    def admin_dsn(self) -> str:
        """The superuser's connection string, over TCP with its password."""
        return self.dsn("postgres")

    def dsn(self, database: str, user: str = SUPERUSER, password: str | None = None) -> str:
        secret = self.password if password is None else password
        return (
            f"host=127.0.0.1 port={self.port} dbname={database} user={user} "
            f"password={secret} connect_timeout=10"
        )

    def _init(self, durable: bool) -> None:
        self.socket_directory.mkdir()
        password_file = self.directory / "password"
        password_file.write_text(self.password + "\n")
        if self.user is not None:
            for path in (self.directory, self.socket_directory, password_file):
                shutil.chown(path, self.user)
        done = subprocess.run(
            [
                self._initdb,
                "--pgdata",
                str(self.data),
                "--username",
                SUPERUSER,
                "--pwfile",
                str(password_file),
                "--auth-host=scram-sha-256",
                "--auth-local=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-instructions",
            ],
            user=self.user,
            cwd=self.directory,
            capture_output=True,
            text=True,
            check=False,
        )
        password_file.unlink()
        if done.returncode != 0:
            raise ServerError(f"initdb failed ({done.returncode}): {done.stderr.strip()}")
        settings = {
            "listen_addresses": "'127.0.0.1'",
            "port": str(self.port),
            "unix_socket_directories": f"'{self.socket_directory}'",
            "password_encryption": "'scram-sha-256'",
            "fsync": "on" if durable else "off",
            "logging_collector": "off",
        }
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n# tablectl's throwaway server (simulator/servers_pg.py)\n")
            conf.writelines(f"{key} = {value}\n" for key, value in settings.items())

    def start(self) -> None:
        """Start the server and wait until the superuser can connect."""
        if self.running():
            raise ServerError(f"PostgreSQL at 127.0.0.1:{self.port} is running already")
        # SIGINT to stop is PostgreSQL's fast shutdown: it ends the sessions instead of waiting
        # on them. A kill takes its backends too (the process group); start() again recovers
        # from the WAL.
        self._process = Guarded(
            "PostgreSQL",
            [self._postgres, "-D", str(self.data)],
            log=self.log,
            stop_signal=signal.SIGINT,
            user=self.user,
        )
        wait_until(self._answers, self._process, f"PostgreSQL at 127.0.0.1:{self.port}")

    def close(self) -> None:
        """Stop the server and remove its folder."""
        if self.running():
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

    def keep_in(self, folder: Path) -> Path:
        """Stop the server and move its folder to ``folder`` (new) instead of removing it, its
        socket's setting moved with it: ``pg_ctl -D folder/data start`` starts the same cluster
        again, on the same port, as the same user (``tablectl floor demo --keep``)."""
        if self.running():
            self.stop()
        shutil.move(self.directory, folder)
        self.directory = folder
        if self.user is not None:  # a copy to another file system is root's: give it back
            for path in (folder, *folder.rglob("*")):
                shutil.chown(path, self.user)
        with (self.data / "postgresql.conf").open("a") as conf:  # the last setting wins
            conf.write(f"unix_socket_directories = '{self.socket_directory}'\n")
        return folder

    def ctl(self, *args: str) -> list[str]:
        """The command line of ``pg_ctl`` on this cluster, as the user the server runs as."""
        command = [str(PG_BIN / "pg_ctl"), "-D", str(self.data), *args]
        return command if self.user is None else ["runuser", "-u", self.user, "--", *command]

    def new_database(self) -> str:
        """A fresh, empty database (its superuser's connection string)."""
        name = f"test_{os.getpid()}_{next(self._databases)}"
        with psycopg.connect(self.admin_dsn, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.dsn(name)

    def _answers(self) -> bool:
        try:
            with psycopg.connect(self.admin_dsn, connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False
