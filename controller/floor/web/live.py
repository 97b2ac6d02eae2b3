"""The floor page's live feed (docs/floor-web.md, Live): the JetStream stream as the signal, the
store as the truth.

``Live`` follows the stream with an ephemeral, ordered, headers-only consumer from its newest
message: it gets each record's ``Nats-Msg-Id`` (table, journal, seq) and never the record's bytes,
so no hole card reaches this process over NATS. It marks the table with the seq, and at most every
``DEBOUNCE`` seconds reads the marked tables' rows from PostgreSQL (the reader role); a table whose
stored head is still short of the seq (``floor serve`` not yet committed it) is read again at the
next turn. It holds each table's hand as last read (``views.Held``), so a marked table's read is
only its decision records after the held seq, all the marked tables' in one query
(``views.read_rows``): reading each hand whole every turn fell behind at 200 tables
(docs/performance.md, Why the web view lags). Every ``FULL_REFRESH`` seconds every table is read,
which brings what the stream does not signal (the witness's alarms, a table the floor stored
while this process was down, records whose signal was missed) and keeps the page right while the
broker is away; a share of the tables in turn is read whole then (``WHOLE_ROUNDS``), so each
held hand is checked against the store. A row is sent to the browsers only when it changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import Awaitable, Callable
from typing import Any, Final

import nats
import nats.errors
import psycopg
import structlog
from nats.aio.client import Client as NATS
from nats.aio.msg import Msg
from nats.js.api import DeliverPolicy

from controller.floor.floortoml import FloorConfig, read_secret
from controller.floor.web.floorview import Held, TableRow, read_rows
from controller.forwarder.subjects import (
    STREAM,
    STREAM_SUBJECTS,
    WEB_INBOX_PREFIX,
    SubjectError,
    record_id_of,
)

log = structlog.get_logger("tablectl.floor.web")

DEBOUNCE: Final = 0.2
FULL_REFRESH: Final = 5.0
#: A browser this far behind is dropped (its EventSource reconnects and gets a fresh snapshot).
QUEUE_LIMIT: Final = 256
RETRY: Final = 2.0
#: Each full read reads this fraction (1/N) of the tables whole, in turn: every held hand is read
#: again from its first record every N full reads, and no one read decodes every hand on the
#: floor (200 tables' hands whole took about a second, the page's every update held up behind it).
WHOLE_ROUNDS: Final = 6

Reader = Callable[[], Awaitable[psycopg.AsyncConnection[tuple[object, ...]]]]


def sse(event: str, data: object) -> bytes:
    """One server-sent event (one data line: JSON holds no newline)."""
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


class Live:
    def __init__(self, config: FloorConfig, reader: Reader) -> None:
        self.config = config
        self._reader = reader
        self._marked: dict[str, int] = {}
        #: When each mark was made or last saw the table's stored head move: one the store has
        #: not moved towards in FULL_REFRESH seconds (a chain held beyond a gap, say) is left to
        #: the full reads, not read every turn. A store catching up keeps its marks: dropped,
        #: its tables would be read only at each full read, every read 5 s of the store's
        #: records (memory stepped up by a tenth at 200 tables, docs/performance.md).
        self._since: dict[str, float] = {}
        #: Each table as last read: the next read of it is only what came after.
        self._held: dict[str, Held] = {}
        #: Where the next full read's share of whole reads begins (``WHOLE_ROUNDS``).
        self._rotation = 0
        #: The reads' connection, kept from turn to turn (a connection a turn, a few times a
        #: second, cost more than the read); dropped after a failed read, made again at the next.
        self._conn: psycopg.AsyncConnection[tuple[object, ...]] | None = None
        self._wake = asyncio.Event()
        self._sent: dict[str, dict[str, object]] = {}
        self._listeners: set[asyncio.Queue[bytes | None]] = set()
        #: The table pages' feeds: each told the id of a table whose row changed.
        self._watchers: set[asyncio.Queue[str | None]] = set()
        #: The alarms pages' feeds: each told (once, however many) that a table's open alarms
        #: changed, a new one raised or one acknowledged.
        self._alarm_watchers: set[asyncio.Queue[None]] = set()
        self.following = False

    # The browsers' side.
    def listen(self) -> asyncio.Queue[bytes | None]:
        queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_LIMIT)
        self._listeners.add(queue)
        return queue

    def leave(self, queue: asyncio.Queue[bytes | None]) -> None:
        self._listeners.discard(queue)

    def watch(self) -> asyncio.Queue[str | None]:
        """A queue of the tables whose row changed (a table page's feed reads its own again)."""
        queue: asyncio.Queue[str | None] = asyncio.Queue(QUEUE_LIMIT)
        self._watchers.add(queue)
        return queue

    def unwatch(self, queue: asyncio.Queue[str | None]) -> None:
        self._watchers.discard(queue)

    def watch_alarms(self) -> asyncio.Queue[None]:
        """A queue told when any table's open alarms changed (the alarms page reads its list)."""
        queue: asyncio.Queue[None] = asyncio.Queue(1)
        self._alarm_watchers.add(queue)
        return queue

    def unwatch_alarms(self, queue: asyncio.Queue[None]) -> None:
        self._alarm_watchers.discard(queue)

    def alarms_changed(self) -> None:
        """Tell the alarms pages' feeds to read their list again (an alarm raised or acked)."""
        for queue in list(self._alarm_watchers):
            with contextlib.suppress(asyncio.QueueFull):  # told already and not yet read: enough
                queue.put_nowait(None)

    def status(self) -> bytes:
        return sse("status", {"live": self.following})

    def _send(self, message: bytes) -> None:
        for queue in list(self._listeners):
            try:
                queue.put_nowait(message)
            except asyncio.QueueFull:
                self._listeners.discard(queue)
                with contextlib.suppress(asyncio.QueueFull):
                    queue.get_nowait()
                    queue.put_nowait(None)  # the end of that browser's stream

    # The stream's side.
    def mark(self, table_id: str, seq: int) -> None:
        self._marked[table_id] = max(seq, self._marked.get(table_id, 0))
        self._since.setdefault(table_id, asyncio.get_running_loop().time())
        self._wake.set()

    async def on_message(self, message: Msg) -> None:
        message_id = (message.headers or {}).get("Nats-Msg-Id")
        if message_id is None:
            return
        try:
            record = record_id_of(message_id)
        except SubjectError:
            return  # not one tablectl sends: the floor's witness raises the alarm of it
        self.mark(record.table_id, record.seq)

    async def run(self) -> None:
        if self.config.web.nats is None:
            log.warning(
                "web_nats_user_shared",
                user=self.config.nats.user,
                why="[web.nats] is not set: the web follows the stream as the floor's user, which "
                "may delete it; give the web its own (docs/floor-web.md, The web's NATS user)",
            )
        try:
            await asyncio.gather(self._follow(), self._refresh())
        finally:
            await self._disconnect()

    async def _follow(self) -> None:
        told = ""
        while True:
            try:
                client = await _connect(self.config)
                try:
                    await client.jetstream().subscribe(
                        STREAM_SUBJECTS,
                        stream=STREAM,  # named: the web's user may not look streams up
                        cb=self.on_message,
                        ordered_consumer=True,
                        headers_only=True,
                        deliver_policy=DeliverPolicy.NEW,
                        idle_heartbeat=5.0,
                    )
                    self._set_following(True)
                    told = ""
                    while client.is_connected or client.is_reconnecting:
                        await asyncio.sleep(RETRY)
                        self._set_following(client.is_connected)
                finally:
                    self._set_following(False)
                    with contextlib.suppress(Exception):
                        await client.close()
            except (OSError, nats.errors.Error, TimeoutError) as error:
                said = str(error) or type(error).__name__
                if said != told:  # once a cause, not every RETRY seconds
                    log.warning("web_stream_unavailable", error=said)
                    told = said
            await asyncio.sleep(RETRY)

    def _set_following(self, following: bool) -> None:
        if following != self.following:
            self.following = following
            self._send(self.status())

    async def _refresh(self) -> None:
        loop = asyncio.get_running_loop()
        next_full = 0.0
        while True:
            timeout = max(0.0, next_full - loop.time())
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout):  # not wait_for: it can lose a cancel
                    await self._wake.wait()
            await asyncio.sleep(DEBOUNCE)  # gather a burst of records into one read
            self._wake.clear()
            full = loop.time() >= next_full
            try:
                await self._read(None if full else list(self._marked))
            except (psycopg.Error, OSError) as error:
                log.warning("web_store_unavailable", error=str(error).strip())
                if self._marked:
                    self._wake.set()
                await asyncio.sleep(RETRY)
                continue
            if full:
                next_full = loop.time() + FULL_REFRESH

    async def _read(self, tables: list[str] | None) -> None:
        """Read ``tables`` (None: every table, a share whole) and send the rows that changed."""
        if self._conn is None:
            self._conn = await self._reader()
        before = {t: h.seq for t, h in self._held.items()}
        try:
            kept = self._held if tables is not None else self._held_but_a_share()
            rows, held = await read_rows(self._conn, tables, kept)
        except BaseException:
            await self._disconnect()  # broken, or mid-query when cancelled: not used again
            raise
        if tables is None:
            self._held = held  # a table the floor no longer holds is let go
        else:
            for table in tables:  # one not held now (no hand row yet) is read whole next time
                self._held.pop(table, None)
            self._held.update(held)
        now = asyncio.get_running_loop().time()
        for row in rows:
            target = self._marked.get(row.table_id)
            if target is not None and row.records >= target:
                del self._marked[row.table_id]
                del self._since[row.table_id]
            elif target is not None and row.records > before.get(row.table_id, row.records):
                self._since[row.table_id] = now  # the store moved towards the mark
            self._publish(row)
        for table in [t for t, at in self._since.items() if now - at > FULL_REFRESH]:
            del self._marked[table], self._since[table]
        if self._marked:
            self._wake.set()  # not stored yet: read again at the next turn

    async def _disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(psycopg.Error, OSError):
                await conn.close()

    def _held_but_a_share(self) -> dict[str, Held]:
        """What is held less the share of tables whose turn it is to be read whole."""
        tables = sorted(self._held)
        if not tables:
            return {}
        share = -(-len(tables) // WHOLE_ROUNDS)
        start = self._rotation % len(tables)
        self._rotation = start + share
        due = {tables[(start + n) % len(tables)] for n in range(share)}
        return {table: held for table, held in self._held.items() if table not in due}

    def _publish(self, row: TableRow) -> None:
        data = row.as_json()
        before = self._sent.get(row.table_id)
        if before != data:
            if before is None or (before["alarms"], before["alarm"]) != (row.alarms, row.alarm):
                self.alarms_changed()
            self._sent[row.table_id] = data
            self._send(sse("table", data))
            self._tell(row.table_id)

    def _tell(self, table_id: str) -> None:
        for queue in list(self._watchers):
            try:
                queue.put_nowait(table_id)
            except asyncio.QueueFull:  # that page's feed ends; its EventSource reconnects
                self._watchers.discard(queue)
                with contextlib.suppress(asyncio.QueueFull):
                    queue.get_nowait()
                    queue.put_nowait(None)


async def _connect(config: FloorConfig) -> NATS:
    """To ``[nats]``'s servers as ``[web.nats]``'s user (else ``[nats]``'s), under the web's
    own inbox prefix, the one its user may hear replies on."""
    settings = config.nats
    tls = ssl.create_default_context(cafile=str(settings.tls_ca)) if settings.tls_ca else None
    options: dict[str, Any] = {"tls": tls} if tls is not None else {}
    own = config.web.nats
    user, password_file = (own.user, own.password_file) if own else (settings.user, None)
    return await nats.connect(
        servers=list(settings.servers),
        user=user,
        password=read_secret(password_file or settings.password_file),
        inbox_prefix=WEB_INBOX_PREFIX,
        name="tablectl-floor-web",
        max_reconnect_attempts=-1,
        reconnect_time_wait=RETRY,
        error_cb=_quiet,
        disconnected_cb=_nothing,
        reconnected_cb=_nothing,
        **options,
    )


async def _quiet(error: Exception) -> None:
    log.warning("web_stream_error", error=str(error) or type(error).__name__)


async def _nothing() -> None:
    return None
