"""``tablectl floor serve``: the tables' journals from JetStream into the floor's store
(docs/floor.md, The floor).

A durable pull consumer (explicit acks) on the stream ``TABLECTL_JOURNAL``; each fetched batch
is stored in one transaction (``ingest``) and acknowledged only after its commit, so a crash
between the two redelivers a batch the store already holds, which it drops as duplicates. While
a batch commits, the next is fetched and prepared (``ingest.store_all``: the Python work of one
beside PostgreSQL's of the other), and acknowledged after its own commit in turn.
PostgreSQL down: the batch is retried, not acknowledged, until it commits (or JetStream
redelivers it to another floor process after ``[serve] ack_wait``: the same dedupe). SIGTERM
or SIGINT: the batches in hand are finished, then the process stops. The log names counts,
tables and seqs, never a record's data (hole cards are in them).

Beside the ingest, on its own connection, the floor walks every stored chain after each start
and every ``[serve] walk_every`` seconds (controller/floor/chainwatch.py): a break raises one
``chain_broken`` alarm.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

import nats
import psycopg
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import (
    AckPolicy,
    ConsumerConfig,
    DeliverPolicy,
    RetentionPolicy,
    StorageType,
    StreamConfig,
)
from nats.js.errors import NotFoundError

from controller.floor import chainwatch, ingest, store
from controller.floor.floortoml import FloorConfig, read_secret
from controller.floor.ingest import Arrival, IngestResult, Prepared, prepare, store_all
from controller.forwarder.subjects import STREAM, STREAM_SUBJECTS

#: How long the stream keeps a record (limits retention by age, never a work queue: a forwarder
#: resumes after the last record on its subject, so that record must still be there). A year:
#: a table shut for a season still finds its last record, and the floor's store holds them all.
MAX_AGE_SECONDS: Final = 366 * 24 * 3600
#: The broker drops a message whose id it saw this recently (2 minutes, JetStream's default):
#: a forwarder's resend after a lost ack. After it, the floor's unique key drops it.
DUPLICATE_WINDOW_SECONDS: Final = 120.0
#: How long a fetch waits for the first record before the loop looks at its stop flag again.
FETCH_WAIT_SECONDS: Final = 1.0
#: The most a fetch that found the stream empty waits for more once a message came: what a
#: record may wait at the floor before its batch's transaction starts.
FETCH_GATHER_SECONDS: Final = 0.05
#: Between tries when PostgreSQL does not answer: 0.5 s doubling to 10 s.
RETRY_FIRST, RETRY_MOST = 0.5, 10.0
#: A walk of the stored chains that failed (PostgreSQL away) is tried again this soon, not a
#: whole ``[serve] walk_every`` later.
WALK_RETRY_SECONDS: Final = 60.0

log = structlog.get_logger("controller.floor")
Connection = psycopg.AsyncConnection[tuple[object, ...]]
T = TypeVar("T")


def stream_config(replicas: int = 1) -> StreamConfig:
    """The stream every table publishes to (docs/floor.md, Subjects and message ids), in
    ``replicas`` copies (``[nats] replicas``: 3 on the production cluster)."""
    return StreamConfig(
        name=STREAM,
        subjects=[STREAM_SUBJECTS],
        retention=RetentionPolicy.LIMITS,
        storage=StorageType.FILE,
        max_age=MAX_AGE_SECONDS,
        duplicate_window=DUPLICATE_WINDOW_SECONDS,
        allow_direct=True,
        num_replicas=replicas,
    )


def consumer_config(name: str, ack_wait: float) -> ConsumerConfig:
    """The durable pull consumer every floor process shares: explicit acks, after commit."""
    return ConsumerConfig(
        durable_name=name,
        ack_policy=AckPolicy.EXPLICIT,
        deliver_policy=DeliverPolicy.ALL,
        ack_wait=ack_wait,
        filter_subject=STREAM_SUBJECTS,
    )


@dataclass
class Totals:
    """What the floor stored since it started."""

    batches: int = 0
    stored: int = 0
    duplicates: int = 0
    conflicts: int = 0
    alarms: int = 0

    def add(self, result: IngestResult) -> None:
        self.batches += 1
        self.stored += result.stored
        self.duplicates += result.duplicates
        self.conflicts += result.conflicts
        self.alarms += len(result.alarms)


async def connect_nats(config: FloorConfig) -> NATS:
    settings = config.nats
    tls = None
    if settings.tls_ca is not None:
        tls = ssl.create_default_context(cafile=str(settings.tls_ca))
    return await nats.connect(
        servers=list(settings.servers),
        user=settings.user,
        password=read_secret(settings.password_file),
        tls=tls,
        name="tablectl-floor",
        # The broker down at the start or later: keep trying (a service's life); the log says
        # so in one line each time, and a stop cuts the wait short (Floor.run).
        max_reconnect_attempts=-1,
        allow_reconnect=True,
        reconnect_time_wait=2,
        error_cb=_client_error,
        disconnected_cb=_disconnected,
        reconnected_cb=_reconnected,
    )


async def _client_error(error: Exception) -> None:
    """nats-py's asynchronous errors, one line each without a traceback."""
    log.warning("nats_error", error=str(error) or type(error).__name__)


async def _disconnected() -> None:
    log.warning("nats_disconnected")


async def _reconnected() -> None:
    log.info("nats_reconnected")


async def ensure_stream(js: Any, replicas: int = 1) -> None:
    """Create the stream if the broker has not got it. An existing one keeps its settings but
    its replica count, which follows ``[nats] replicas`` (JetStream copies or drops the
    replicas in place: a single server grown into a cluster, docs/floor.md, Production
    layout)."""
    try:
        info = await js.stream_info(STREAM)
    except NotFoundError:
        await js.add_stream(stream_config(replicas))
        log.info("stream_created", stream=STREAM, subjects=STREAM_SUBJECTS, replicas=replicas)
        return
    if info.config.num_replicas != replicas:
        await js.update_stream(replace(info.config, num_replicas=replicas))
        log.info("stream_replicas_changed", stream=STREAM, replicas=replicas)


class Floor:
    """The serving loop: fetch a batch, store it, acknowledge it; until ``stop``."""

    def __init__(self, config: FloorConfig) -> None:
        self.config = config
        self.totals = Totals()
        self._stop = asyncio.Event()
        self._db: psycopg.AsyncConnection[tuple[object, ...]] | None = None

    def stop(self) -> None:
        self._stop.set()

    async def run(self, ready: Callable[[], None] | None = None) -> None:
        nc = await self._connect()
        if nc is None:
            return  # stopped before a broker answered
        try:
            js = nc.jetstream()
            await ensure_stream(js, self.config.nats.replicas)
            # Created, or updated to this configuration (its ack_wait) if it exists already.
            await js.add_consumer(
                STREAM, consumer_config(self.config.consumer, self.config.ack_wait)
            )
            sub = await js.pull_subscribe(
                STREAM_SUBJECTS,
                durable=self.config.consumer,
                stream=STREAM,
            )
            # PostgreSQL down at the start is waited for as it is later: retried, one warning
            # line each (a floor restarted during a database restart serves once it is back).
            if await self._retrying(_connected) is None:
                return  # stopped before PostgreSQL answered
            log.info("floor_serving", consumer=self.config.consumer, batch=self.config.batch)
            if ready is not None:
                ready()
            watching = asyncio.ensure_future(self._watch_chains())
            try:
                await store_all(
                    lambda wait: self._take(sub, wait),
                    self._store,
                    self._stored,
                    lambda: not self._stop.is_set(),
                )
            finally:
                self._stop.set()  # the walk ends between two chunks
                await asyncio.gather(watching, return_exceptions=True)
        finally:
            if self._db is not None:
                await self._db.close()
            await nc.flush()  # the last batch's acks
            await nc.close()
            log.info("floor_stopped", **vars(self.totals))

    async def _connect(self) -> NATS | None:
        """The broker's connection, tried until it answers; None if stopped first."""
        connecting = asyncio.ensure_future(connect_nats(self.config))
        stopping = asyncio.ensure_future(self._stop.wait())
        await asyncio.wait((connecting, stopping), return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        if connecting.done():
            return connecting.result()
        connecting.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await connecting
        log.info("floor_stopped", **vars(self.totals))
        return None

    async def _take(self, sub: Any, wait: bool) -> tuple[list[Msg], Prepared] | None:
        """A batch fetched and prepared; None when none came: with ``wait``, in the fetch's
        wait (``_fetch``); without (while the batch before commits), in FETCH_GATHER_SECONDS."""
        try:
            if wait:
                messages = await _fetch(sub, self.config.batch)
            else:
                messages = await sub.fetch(self.config.batch, timeout=FETCH_GATHER_SECONDS)
        except TimeoutError:
            # nats-py's own TimeoutError, or asyncio's plain one when its no-wait probe used
            # the whole wait (a cluster's slower round trip): no message this time, either way.
            return None
        return messages, prepare([_arrival(message) for message in messages])

    async def _stored(self, messages: list[Msg], result: IngestResult) -> None:
        """A batch committed: acknowledged (never before), counted and its alarms logged."""
        for message in messages:
            await message.ack()
        self.totals.add(result)
        for kind, table, journal, seq in result.alarms:
            log.warning("floor_alarm", alarm=kind, table_id=table, journal=journal, seq=seq)
        log.debug(
            "batch_stored",
            records=len(messages),
            stored=result.stored,
            duplicates=result.duplicates,
            conflicts=result.conflicts,
        )

    async def _store(
        self, batch: Prepared, meanwhile: Callable[[], Awaitable[None]]
    ) -> IngestResult | None:
        """The batch committed; retried while PostgreSQL does not answer. None if stopped:
        nothing acknowledged, all redelivered."""
        return await self._retrying(lambda db: ingest.store(db, batch, meanwhile))

    async def _retrying(self, work: Callable[[Connection], Awaitable[T]]) -> T | None:
        """``work`` done on the store's connection, tried again while PostgreSQL does not
        answer (0.5 s doubling to 10 s); None if stopped first."""
        pause = RETRY_FIRST
        while True:
            try:
                db = await self._database()
                return await work(db)
            except psycopg.OperationalError as error:
                log.warning("store_unavailable", error=str(error).strip(), retry_in=pause)
                await self._drop_database()
            if self._stop.is_set():
                return None
            with contextlib.suppress(TimeoutError):  # the pause, cut short by a stop
                async with asyncio.timeout(pause):
                    await self._stop.wait()
            pause = min(pause * 2, RETRY_MOST)

    async def _watch_chains(self) -> None:
        """Every stored chain walked now (a start) and every ``walk_every`` seconds until the
        stop, on a connection of its own (controller/floor/chainwatch.py). A walk that failed
        is said in one line and tried again after WALK_RETRY_SECONDS."""
        while not self._stop.is_set():
            pause = min(self.config.walk_every, WALK_RETRY_SECONDS)  # unless it walked
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.config.writer.dsn(), autocommit=True
                )
                async with conn:
                    totals = await chainwatch.walk_all(conn, self._stop.is_set)
            except psycopg.Error as error:
                log.warning("chain_walk_failed", error=str(error).strip())
            except Exception as error:  # a walk's fault must not end the floor's ingest
                log.error("chain_walk_failed", error=f"{type(error).__name__}: {error}")
            else:
                if not self._stop.is_set():
                    log.info(
                        "chain_walked",
                        journals=totals.journals,
                        records=totals.records,
                        seconds=round(totals.seconds, 3),
                        broken=len(totals.broken),
                        alarms_raised=totals.raised,
                    )
                    self.totals.alarms += totals.raised
                pause = self.config.walk_every
            with contextlib.suppress(TimeoutError):  # the pause, cut short by a stop
                async with asyncio.timeout(pause):
                    await self._stop.wait()

    async def _database(self) -> psycopg.AsyncConnection[tuple[object, ...]]:
        if self._db is None or self._db.closed:
            self._db = await psycopg.AsyncConnection.connect(self.config.writer.dsn())
            await self._db.set_autocommit(True)  # ingest opens its own transaction
            async with self._db.cursor() as cur:
                await cur.execute("SELECT coalesce(max(version), 0) FROM schema_version")
                row = await cur.fetchone()
            version = int(row[0]) if row else 0  # type: ignore[call-overload]
            if version != len(store.MIGRATIONS):
                raise store.StoreError(
                    f"the floor's database holds schema version {version}, this tablectl needs "
                    f"{len(store.MIGRATIONS)}: run `tablectl floor setup` as its owner"
                )
        return self._db

    async def _drop_database(self) -> None:
        if self._db is not None:
            try:
                await self._db.close()
            finally:
                self._db = None


async def _connected(db: Connection) -> bool:
    """Nothing to do but reach the store (and check its schema's version: ``_database``)."""
    return True


async def _fetch(sub: Any, batch: int) -> list[Msg]:
    """Up to ``batch`` messages: what the stream holds now, at once; when it holds none, the
    first to arrive within FETCH_WAIT_SECONDS (TimeoutError: none came). nats-py's fetch of N
    that found nothing at once waits its whole timeout for the N-th: with 1 s, a floor of tables
    dealing at a dealer's pace held each record up to a second (docs/performance.md, The floor).
    So the wait for more is FETCH_GATHER_SECONDS, and the long wait is for one message."""
    try:
        found: list[Msg] = await sub.fetch(batch, timeout=FETCH_GATHER_SECONDS)
        return found
    except TimeoutError:
        first: list[Msg] = await sub.fetch(1, timeout=FETCH_WAIT_SECONDS)
        return first


def _arrival(message: Msg) -> Arrival:
    headers = message.headers or {}
    try:
        broker_at = message.metadata.timestamp
    except Exception:  # a message without JetStream metadata: no broker time to compare
        broker_at = None
    return Arrival(message.subject, headers.get("Nats-Msg-Id"), message.data, broker_at)


#: The cyclic collector's first threshold in floor serve (Python's default is 700). A batch
#: allocates some ten thousand containers (each record's data decoded, twice: parsed and its
#: events read), none of them left in a cycle, so at 700 the collector ran about fifteen times a
#: batch, each time walking the young objects, and the older generations in turn: about a fifth
#: of ingest's Python time (docs/performance.md, The floor). Garbage in cycles (asyncio's
#: futures and exceptions) waits longer, and is still collected.
COLLECT_AFTER: Final = 50_000


def collect_less() -> tuple[int, int, int]:
    """Set floor serve's collector thresholds (``COLLECT_AFTER``); the thresholds before."""
    before = gc.get_threshold()
    gc.set_threshold(COLLECT_AFTER, before[1], before[2])
    return before


def serve(config: FloorConfig) -> Totals:
    """Run the floor until SIGTERM or SIGINT; returns what it stored."""
    collect_less()
    gc.freeze()  # what the start made lives as long as the process: no collector walks it
    floor = Floor(config)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, floor.stop)
        await floor.run()

    asyncio.run(main())
    return floor.totals
