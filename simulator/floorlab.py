"""The casino floor on one machine (docs/floor.md, The demo): the harness of
``tablectl floor demo``, the fault tests and the benchmarks.

In a folder of its own ``FloorLab`` starts a throwaway nats-server (or takes a 3-node
``NatsCluster``) and PostgreSQL (simulator/servers*.py), sets the floor's database up with
``tablectl floor setup`` and runs ``tablectl floor serve``; then N simulated tables, each the
simulator's shoe and panel on real ptys dealt by the random dealer bot at full speed (in this
process: the lightest real way to run many on two cores) to a real controller (``tablectl run``,
a process), with its own table.toml (a ``[floor]`` section with the table's user and password
file) and its own ``tablectl forward``. Every part is a handle a test may stop, kill (SIGKILL)
and start again on the same files: ``nats``, ``postgres``, ``floor``, each table's ``table``
(its controller) and ``forwarder``.

    with FloorLab(directory, tables=3, hands=20) as lab:
        lab.wait_dealt()
        lab.close_tables()  # the journals final
        lab.wait_caught_up()
        assert all(c.same for c in lab.compare().values())

``compare()`` is the check the fault tests and the demo end with: per table, the journal's
records against the floor's rows (the same seq holding the same exact line; missing; extra),
the floor's chain walk and its alarms (simulator/floorlab_check.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

import nats
import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from controller.config.settings import KeySettings
from controller.floor import keys, software, store
from controller.forwarder.subjects import STREAM, STREAM_SUBJECTS, subject_of
from controller.history import attest
from controller.journal import signing
from controller.poker.games import GAMES
from simulator.floorlab_check import Comparison, Lag, compare_table, journal_end, lag
from simulator.floorlab_parts import TABLECTL, Part, PartError, SimulatedTable, pace_at_full_speed
from simulator.pace import Pace
from simulator.servers import ServerError, log_tail
from simulator.servers_nats import NatsCluster, NatsServer
from simulator.servers_pg import SUPERUSER, PostgresServer
from simulator.simtable import demo_config
from simulator.table import Simulator
from simulator.tablefile import write_table_toml

#: How long ``wait_dealt`` and ``wait_caught_up`` wait by default before failing loudly: far
#: past what the run takes here (a loaded 2-core machine included).
PATIENCE: Final = 300.0
_POLL: Final = 0.05

__all__ = ["Comparison", "FloorLab", "Lag", "PartError"]


def table_ids(count: int) -> tuple[str, ...]:
    """The simulated tables' ids: T1, T2, ..."""
    if count < 1:
        raise ValueError(f"tables {count}: expected 1 or more")
    return tuple(f"T{number}" for number in range(1, count + 1))


class LabTable:
    """One simulated table of the lab: ``table`` (its controller, dealt by its bot) and its
    ``forwarder``; ``config`` its table.toml, ``journal`` its journal's folder."""

    def __init__(self, table: SimulatedTable, forwarder: Part, config: Path) -> None:
        self.table = table
        self.forwarder = forwarder
        self.config = config
        self.journal = config.parent / "journal"

    @property
    def table_id(self) -> str:
        return self.table.table_id


class FloorLab:
    """The floor's servers, ``floor serve`` and ``tables`` simulated tables with their
    forwarders, in ``directory``; a context manager (``start()`` and ``close()``)."""

    def __init__(
        self,
        directory: Path,
        *,
        tables: int | Sequence[str] = 3,
        hands: int = 20,
        game: str = "mambo",
        seed: int = 0,
        seats: int = 4,
        cluster: bool = False,
        postgres: PostgresServer | None = None,
        batch: int = 200,
        pace: Pace | None = None,
        keep_store: Path | None = None,
        floor_up: Callable[[FloorLab], None] | None = None,
    ) -> None:
        if game not in GAMES:
            raise ValueError(f"game {game!r}: expected one of {', '.join(sorted(GAMES))}")
        if hands < 1:
            raise ValueError(f"hands {hands}: expected 1 or more")
        self.directory = directory
        self.ids = table_ids(tables) if isinstance(tables, int) else tuple(tables)
        self.hands, self.game, self.seed, self.seats = hands, game, seed, seats
        self.batch = batch
        self.pace = pace or pace_at_full_speed()
        directory.mkdir(parents=True, exist_ok=True)
        self.nats: NatsServer | NatsCluster = (
            NatsCluster(directory / "nats", self.ids)
            if cluster
            else NatsServer(directory / "nats", self.ids)
        )
        self._own_postgres = postgres is None
        #: Where ``close()`` moves the PostgreSQL it started, stopped, instead of removing it.
        self.keep_store = keep_store
        #: Called once ``floor serve`` serves, before any table starts (the demo's web view).
        self.floor_up = floor_up
        self.postgres = postgres if postgres is not None else PostgresServer()
        self.tables: dict[str, LabTable] = {}
        self._simulators: list[Simulator] = []
        self.floor: Part | None = None
        self.floor_config = directory / "floor" / "floor.toml"
        self._reader_dsn = ""
        self._owner_dsn = ""

    # --- starting -----------------------------------------------------------------------------

    def __enter__(self) -> FloorLab:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """The servers, the floor's database (``floor setup``), ``floor serve``, then each
        table's controller, forwarder and dealer."""
        self.nats.start()
        if self._own_postgres:
            self.postgres.start()
        self._setup_floor()
        self.floor = Part(
            "tablectl floor serve", self._floor_command(), self.floor_config.parent / "floor.log"
        )
        self.floor.start()
        self._wait_log(self.floor, "floor_serving")  # the stream exists: forwarders may start
        if self.floor_up is not None:
            self.floor_up(self)
        for table_id in self.ids:
            self.tables[table_id] = self._make_table(table_id)
        for lab_table in self.tables.values():
            # Just before its start, its table.toml whole: what it journals is what the lab
            # approved unless a file of the product changes in between (a checkout others edit).
            self._approve_software(lab_table.config)
            lab_table.table.start()
            lab_table.forwarder.start()
        for lab_table in self.tables.values():
            lab_table.table.wait_up()
            lab_table.table.deal()

    def _nats_urls(self) -> list[str]:
        return self.nats.urls if isinstance(self.nats, NatsCluster) else [self.nats.url]

    def _setup_floor(self) -> None:
        folder = self.floor_config.parent
        folder.mkdir(parents=True, exist_ok=True)
        owner = self.postgres.new_database()
        passwords = {name: os.urandom(12).hex() for name in ("nats", "postgres", "reader")}
        passwords["nats"] = self.nats.floor_user.password
        for name, secret in passwords.items():
            _secret_file(folder / f"{name}.password", secret)
        dbname = str(conninfo_to_dict(owner)["dbname"])
        replicas = "replicas = 3\n" if isinstance(self.nats, NatsCluster) else ""
        self.floor_config.write_text(
            "# The floor of tablectl's floor lab (simulator/floorlab.py): throwaway servers.\n"
            "[nats]\n"
            f"servers = {json.dumps(self._nats_urls())}\n"
            f"user = {json.dumps(self.nats.floor_user.user)}\n"
            f'password_file = "nats.password"\n{replicas}'
            "[postgres]\n"
            f'host = "127.0.0.1"\nport = {self.postgres.port}\ndbname = "{dbname}"\n'
            f'user = "{store.WRITER}"\npassword_file = "postgres.password"\n'
            f'[reader]\nuser = "{store.READER}"\npassword_file = "reader.password"\n'
            f"[serve]\nbatch = {self.batch}\nack_wait = 5\n",
            encoding="utf-8",
        )
        # The owner's password in the environment, not on a command line anyone may read.
        owner_fields = conninfo_to_dict(owner)
        secret = str(owner_fields.pop("password", ""))
        command = [*TABLECTL, "floor", "setup", "--config", str(self.floor_config)]
        done = subprocess.run(
            [*command, "--owner-dsn", make_conninfo(**owner_fields)],  # type: ignore[arg-type]
            env={**os.environ, "PGPASSWORD": secret},
            capture_output=True,
            text=True,
            timeout=PATIENCE,
            check=False,
        )
        if done.returncode != 0:
            raise PartError(
                f"tablectl floor setup failed ({done.returncode}): {done.stderr.strip()}"
            )
        self._reader_dsn = make_conninfo(owner, user=store.READER, password=passwords["reader"])
        self._owner_dsn = owner

    @property
    def owner_dsn(self) -> str:
        """The floor database owner's connection (the DBA's: users, the web's role), once
        started."""
        return self._owner_dsn

    def _floor_command(self) -> list[str]:
        return [*TABLECTL, "floor", "serve", "--config", str(self.floor_config)]

    def _make_table(self, table_id: str) -> LabTable:
        folder = self.directory / "tables" / table_id
        folder.mkdir(parents=True, exist_ok=True)
        seed = self.seed * 1000 + len(self._simulators)
        sim = Simulator(transport="pty", directory=folder / "sim", seed=seed)
        self._simulators.append(sim)
        sim.start()
        spec = GAMES[self.game]
        config = demo_config(spec, self.seats)
        path = write_table_toml(
            folder,
            table_id=table_id,
            game=self.game,
            config=config,
            shoe={"path": sim.address("shoe"), "heartbeat_timeout": 3.0},
            panel={"path": sim.address("panel")},
            decks=sim.write_deck_files(folder / "decks"),
            log={"format": "json", "level": "warning", "file": folder / "table.log"},
        )
        self._add_floor_section(path, table_id, folder)
        self._give_key(path, table_id, folder)
        bot = SimulatedTable.make_bot(spec, config, seed, self.hands)
        table = SimulatedTable(table_id, folder, sim=sim, config_path=path, bot=bot, pace=self.pace)
        forwarder = Part(
            f"tablectl forward ({table_id})",
            [*TABLECTL, "forward", "--config", str(path), "--poll", "0.05"],
            folder / "forward.out",
        )
        return LabTable(table, forwarder, path)

    def _give_key(self, path: Path, table_id: str, folder: Path) -> None:
        """The table's own Ed25519 key (``[keys]``), registered with the floor as at install:
        its checkpoints are signed, and the floor checks each against it (docs/journal.md, Signed
        checkpoints). Its folder holds what ``tablectl keys init`` leaves (controller/table/
        keyfiles.py): ``table.key`` and ``table.pub`` beside it, which ``tablectl dispute``
        reads."""
        key = Ed25519PrivateKey.generate()
        key_path = folder / "table.key"
        key_path.touch(mode=0o600)
        key_path.write_bytes(signing.private_key_pem(key))
        settings = KeySettings(private_key=key_path)
        settings.public_key.write_text(signing.public_hex(key) + "\n", encoding="ascii")
        with path.open("a", encoding="utf-8") as toml:
            toml.write(f"\n[keys]\nprivate_key = {json.dumps(str(key_path))}\n")
        with psycopg.connect(self._owner_dsn, autocommit=True) as conn:
            keys.register(conn, table_id, signing.public_hex(key))

    def _approve_software(self, path: Path) -> None:
        """The lab's owner approves the software the table starts with, as the floor approves a
        release at install (docs/deploy.md): its software record raises no alarm (docs/floor.md,
        Software and keys)."""
        found = attest.installed(path)
        with psycopg.connect(self._owner_dsn, autocommit=True) as conn:
            software.approve(conn, found.digest, found.version, "the floor lab's own tables")

    def _add_floor_section(self, path: Path, table_id: str, folder: Path) -> None:
        user = self.nats.table_user(table_id)
        secret = folder / "floor.password"
        _secret_file(secret, user.password)
        with path.open("a", encoding="utf-8") as toml:
            toml.write(
                "\n[floor]\n"
                f"servers = {json.dumps(self._nats_urls())}\n"
                f"user = {json.dumps(user.user)}\n"
                f"password_file = {json.dumps(str(secret))}\n"
            )

    # --- waiting ------------------------------------------------------------------------------

    def wait_dealt(self, patience: float = PATIENCE) -> None:
        """Until every table's dealer has dealt its hands (or was stopped); a PartError naming
        each table that has not, and why, after ``patience`` seconds or a dealer's error."""
        deadline = time.monotonic() + patience
        for lab_table in self.tables.values():
            table = lab_table.table
            if not table.done.wait(max(0.0, deadline - time.monotonic())):
                raise PartError(
                    f"table {table.table_id}: {table.hands_dealt} of {self.hands} hands dealt "
                    f"after {patience:.0f} s; its controller {table.controller_part.state()}"
                )
        errors = [t.table.error for t in self.tables.values() if t.table.error]
        if errors:
            raise PartError("; ".join(errors))

    def close_tables(self) -> None:
        """Stop every table's dealer, then its controller (each waited for): its journal is
        final, for ``wait_caught_up`` and ``compare``. A dealer done is not a journal done: the
        controller acknowledges an input before it journals the input's decision and, at a
        hand's end, its checkpoint (controller/table/loop.py ``_input``), so the floor could
        hold a journal to its end a moment before that end grew."""
        for lab_table in self.tables.values():
            lab_table.table.end_dealing()
        for lab_table in self.tables.values():
            lab_table.table.stop()

    def heads(self) -> dict[str, tuple[str, int]]:
        """Each table's journals' chain heads in the floor's store: (journal id, head seq)."""
        heads: dict[str, tuple[str, int]] = {}
        with self.reader() as conn:
            for table_id, journal_id, head in conn.execute(
                b"SELECT table_id, journal_id, head_seq FROM journals ORDER BY first_seen"
            ):
                heads[str(table_id)] = (str(journal_id), int(str(head)))
        return heads

    def behind(self) -> dict[str, tuple[int, int]]:
        """The tables whose journal the floor does not hold to its end: (the journal's last
        seq, the floor's head of that journal)."""
        heads = self.heads()
        late: dict[str, tuple[int, int]] = {}
        for table_id, lab_table in self.tables.items():
            end = journal_end(lab_table.journal)
            if end is None:
                continue  # nothing journaled yet: nothing to hold
            journal_id, last = end
            held_id, head = heads.get(table_id, ("", 0))
            floor = head if held_id == journal_id else 0
            if floor != last:
                late[table_id] = (last, floor)
        return late

    def wait_caught_up(self, patience: float = PATIENCE) -> None:
        """Until the floor's store holds every table's whole journal (its head at the journal's
        last seq), looked at every 50 ms; a PartError after ``patience`` seconds naming each
        table behind and every part's state."""
        deadline = time.monotonic() + patience
        late = self.behind()
        while late:
            died = self.died()
            if died:
                raise PartError(f"the floor is behind ({late}) and a part exited: {died}")
            if time.monotonic() > deadline:
                raise PartError(
                    f"the floor is behind after {patience:.0f} s: "
                    + ", ".join(f"{t} journal {j}, floor {f}" for t, (j, f) in late.items())
                    + f"; parts: {self.states()}"
                )
            time.sleep(_POLL)
            late = self.behind()

    def died(self) -> str:
        """The parts that exited by themselves (not stopped or killed here), with the end of
        their output; empty when none did."""
        parts = [self.floor] if self.floor is not None else []
        for lab_table in self.tables.values():
            parts += [lab_table.table.controller_part, lab_table.forwarder]
        return "; ".join(
            f"{part.name} exited by itself:\n{log_tail(part.log)}"
            for part in parts
            if part.starts and not part.running() and part.exit_status is None
        )

    def states(self) -> str:
        """Every part's state, for an error message."""
        parts = [f"floor serve {self.floor.state() if self.floor else 'not started'}"]
        for table_id, lab_table in self.tables.items():
            parts.append(f"{table_id} controller {lab_table.table.controller_part.state()}")
            parts.append(f"{table_id} forwarder {lab_table.forwarder.state()}")
        return "; ".join(parts)

    @staticmethod
    def _wait_log(part: Part, word: str, patience: float = 60.0) -> None:
        deadline = time.monotonic() + patience
        while not (part.log.exists() and word in part.log.read_text(errors="replace")):
            if not part.running():
                raise PartError(f"{part.name} {part.state()}:\n{part.log.read_text()}")
            if time.monotonic() > deadline:
                raise PartError(f"{part.name}: no {word!r} within {patience:.0f} s")
            time.sleep(_POLL)

    # --- checking -----------------------------------------------------------------------------

    def reader(self) -> psycopg.Connection[tuple[object, ...]]:
        """A connection to the floor's store as its read-only role."""
        return psycopg.connect(self._reader_dsn)

    def compare(self) -> dict[str, Comparison]:
        """Per table: its journal's records against the floor's rows, the floor's walk of its
        chain and the floor's alarms on it."""
        with self.reader() as conn:
            return {t: compare_table(conn, t, lab.journal) for t, lab in self.tables.items()}

    def forwarded(self) -> dict[str, int]:
        """Each table's records the broker's stream holds (its subject's message count), read
        as the floor's user."""
        return asyncio.run(self._forwarded())

    async def _forwarded(self) -> dict[str, int]:
        user = self.nats.floor_user
        client = await nats.connect(
            self._nats_urls(), user=user.user, password=user.password, allow_reconnect=False
        )
        try:
            info = await client.jetstream().stream_info(STREAM, subjects_filter=STREAM_SUBJECTS)
        finally:
            await client.close()
        held = info.state.subjects or {}
        return {table_id: int(held.get(subject_of(table_id), 0)) for table_id in self.ids}

    def lag(self) -> Lag:
        """From each record's append to the table's journal (its ts) to the floor's receipt of
        the batch that stored it (received_at, committed just after): every stored record."""
        with self.reader() as conn:
            return lag(conn)

    # --- ending -------------------------------------------------------------------------------

    def close(self) -> None:
        """Stop every dealer, controller, forwarder, the floor and the servers this lab
        started (a PostgreSQL it was given is left running)."""
        for lab_table in self.tables.values():
            lab_table.table.end_dealing()
        for lab_table in self.tables.values():
            _quietly(lab_table.forwarder.stop)
            _quietly(lab_table.table.stop)
        for sim in self._simulators:
            sim.close()
        if self.floor is not None:
            _quietly(self.floor.stop)
        self.nats.stop()
        if self._own_postgres and self.keep_store is not None:
            self.postgres.keep_in(self.keep_store)
        elif self._own_postgres:
            self.postgres.close()

    def owner_socket_dsn(self) -> str:
        """The owner's connection over the server's Unix socket (trusted there, no password):
        what ``floor key list --owner-dsn`` takes on the lab's store, its socket where it is
        now (moved by ``keep_store``)."""
        dbname = str(conninfo_to_dict(self._owner_dsn)["dbname"])
        return make_conninfo(
            host=str(self.postgres.socket_directory),
            port=str(self.postgres.port),
            dbname=dbname,
            user=SUPERUSER,
        )


def _quietly(action: Callable[[], object]) -> None:
    """Stop a part on the way out: one that will not stop is killed by its guardian."""
    with contextlib.suppress(PartError, ServerError):
        action()


def _secret_file(path: Path, secret: str) -> None:
    path.write_text(secret + "\n", encoding="utf-8")
    os.chmod(path, 0o600)
