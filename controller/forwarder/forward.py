"""The forwarder (docs/floor.md, The forwarder): a table's journal, record by record, to the
floor's NATS JetStream stream, exactly once and in order, resumed from the stream itself.

The journal is the outbox: the table writes it and never waits on the network; this process
follows it (``controller.forwarder.follow``) and publishes each record's line, as its exact bytes,
to the table's own subject under its message id ``<table id>:<journal id>:<seq>``
(``controller.forwarder.subjects``), waiting for the broker's acknowledgement before the next. So
the order is the journal's, and nothing is skipped.

Exactly once, with no bookkeeping of its own that could disagree with the broker:

- at each connection the forwarder asks the stream for the last message on the table's subject
  (the direct get, the one JetStream call a table's user may make) and resumes after the seq
  its message id names, when its journal id is this journal's; another journal id (the journal
  was begun anew) is logged and this journal is sent from seq 1;
- each publish carries ``Nats-Msg-Id`` (the broker drops a duplicate inside its window, and
  acknowledges it as one) and ``Nats-Expected-Last-Subject-Sequence``, the stream sequence of
  the subject's last message as the forwarder last saw it, so the broker refuses a record if
  anything else reached the subject in between (a second forwarder of the same table, by
  mistake): nothing is ever stored twice or out of order, even after the duplicate window;
- any failure (a timeout, a lost connection, a refusal) ends the connection; the next one
  resumes from the stream again, after a backoff (``Backoff``). The forwarder never exits
  because the broker is down or slow; it stops only on a journal that does not verify.

Log lines never hold a record's data (hole cards are in it): seqs, counts, servers, errors.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import nats
import structlog
from nats.aio.client import Client
from nats.js import JetStreamContext
from nats.js.errors import APIError, NoStreamResponseError, NotFoundError

from controller.config.floorlink import POLL, PasswordFileError, read_password
from controller.config.settings import FloorLinkSettings
from controller.forwarder import LOGGER
from controller.forwarder.follow import Follower, journal_id
from controller.forwarder.subjects import (
    STREAM,
    RecordId,
    SubjectError,
    inbox_prefix_of,
    record_id_of,
    subject_of,
)
from controller.forwarder.watch import JournalWatch
from controller.journal import Record, RecordError
from controller.journal.record import parse_line
from controller.journal.retention import Forwarded

#: How long a connection to one server may take.
CONNECT_TIMEOUT: Final = 5.0
#: The most records read from the journal at a time (each is published and acknowledged).
BATCH: Final = 500
#: JetStream's error code for a Nats-Expected-Last-Subject-Sequence that is not the subject's.
WRONG_LAST_SEQUENCE: Final = 10071

_log = structlog.get_logger(LOGGER)


class SessionLost(Exception):
    """A connection ended: the message says why; the forwarder reconnects and resumes."""


@dataclass(slots=True)
class Progress:
    """Where the forwarder stands, for the status line and ``systemctl status``."""

    journal_id: str | None = None
    #: The last seq read from the journal, published (sent) and acknowledged by the broker.
    read: int = 0
    sent: int = 0
    acked: int = 0
    connected: str | None = None  #: the server of the current connection, None between

    @property
    def behind(self) -> int:
        """Records in the journal the stream does not hold yet (as far as read)."""
        return max(0, self.read - self.acked)

    def line(self) -> str:
        """One line for a technician; names no record's content."""
        where = f"connected to {self.connected}" if self.connected else "not connected"
        return f"seq {self.acked} acked, {self.sent} sent, {self.behind} behind; {where}"


class Backoff:
    """The pause before the next connection: doubling from ``first`` to ``most``, back to
    ``first`` once a connection forwarded a record or found the stream caught up."""

    def __init__(self, first: float = 0.5, most: float = 30.0) -> None:
        self.first, self.most = first, most
        self.next = first

    def failed(self) -> float:
        pause, self.next = self.next, min(self.most, self.next * 2)
        return pause

    def succeeded(self) -> None:
        self.next = self.first


def tls_context(floor: FloorLinkSettings) -> ssl.SSLContext | None:
    """The TLS context ``[floor]`` asks for (None: nats:// servers); ssl.SSLError or OSError
    for a file that is not a certificate or key."""
    if not floor.tls:
        return None
    context = ssl.create_default_context(
        ssl.Purpose.SERVER_AUTH, cafile=None if floor.tls_ca is None else str(floor.tls_ca)
    )
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if floor.tls_cert is not None and floor.tls_key is not None:
        context.load_cert_chain(str(floor.tls_cert), str(floor.tls_key))
    return context


#: How often, at most, the forwarder rewrites journal-forwarded.json while it forwards (and
#: once more as it stops: ``Forwarder.note_last``).
NOTE_EVERY: Final = 10.0


class Forwarder:
    """Forwards the journal in ``journal`` of table ``table_id`` to ``floor``'s servers."""

    def __init__(
        self,
        table_id: str,
        journal: Path,
        floor: FloorLinkSettings,
        *,
        poll: float = POLL,
        status_every: float = 60.0,
        on_status: Callable[[Progress], None] | None = None,
    ) -> None:
        self.table_id = table_id
        self.subject = subject_of(table_id)
        self.journal = journal
        self.floor = floor
        self.poll = poll
        self.status_every = status_every
        self.on_status = on_status
        self.progress = Progress()
        self.backoff = Backoff()
        self._tls = tls_context(floor)
        self._last_status = 0.0
        self._noted: tuple[str, int] | None = None  # what journal-forwarded.json says
        self._noted_at = -NOTE_EVERY
        self._note_lock = threading.Lock()
        self._noted_last = False

    async def run(self, *, until_caught_up: bool = False) -> None:
        """Forward for ever (until cancelled), or until the stream holds the whole journal as
        it is then. A JournalError (a record that does not verify) ends it."""
        self._noted_last = False
        try:
            while True:
                try:
                    await self._session(until_caught_up=until_caught_up)
                    return
                except SessionLost as lost:
                    pause = self.backoff.failed()
                    _log.warning(
                        "forward_retrying", reason=str(lost), retry_in=pause, **self._where()
                    )
                    await asyncio.sleep(pause)
        finally:
            self.note_last()

    def note_last(self) -> None:
        """On every stop (SIGTERM or SIGINT cancelling ``run``, the journal's end with
        ``until_caught_up``, an error): write ``journal-forwarded.json`` now if the stream has
        acknowledged more than it says, so retention knows all the floor holds (docs/journal.md,
        Retention and dispute holds). Written in this thread: a stop is no time for another."""
        ours = self.progress.journal_id
        if ours is None or self.progress.acked < 1:
            return
        noted = (ours, self.progress.acked)
        if noted == self._noted:
            return
        try:
            self._write_note(noted, last=True)
            self._noted = noted
        except OSError as error:
            _log.warning("forward_acked_not_noted", error=str(error), acked=self.progress.acked)

    def _write_note(self, noted: tuple[str, int], *, last: bool = False) -> None:
        """Write ``noted``; once the last note is written, a write still in its thread from
        before the stop (cancelled while it waited) writes nothing over it."""
        with self._note_lock:
            if self._noted_last:
                return
            Forwarded(*noted).write(self.journal)
            self._noted_last = last

    def _where(self) -> dict[str, int]:
        return {"acked": self.progress.acked, "behind": self.progress.behind}

    async def _session(self, *, until_caught_up: bool) -> None:
        """One connection, until it fails (SessionLost), or, ``until_caught_up``, until the
        stream holds the journal as it is."""
        ours = await self._journal_id()
        client = await self._connect()
        try:
            # How long a publish waits for its acknowledgement, and a direct get for its answer.
            js = client.jetstream(timeout=self.floor.ack_timeout)
            after, last_seq = await self._resume(js, ours)
            follower = Follower(self.journal, after=after)
            watch = JournalWatch(self.journal)
            watch.start()
            try:
                await self._forward(
                    js, follower, watch, ours, last_seq, until_caught_up=until_caught_up
                )
            finally:
                watch.close()
                follower.close()
        finally:
            self.progress.connected = None
            await client.close()

    async def _journal_id(self) -> str:
        """This journal's id, once its first record is written (a new table's journal may
        not have one yet)."""
        waiting = False
        while True:
            found = await asyncio.to_thread(journal_id, self.journal)
            if found is not None:
                if found != self.progress.journal_id:
                    self.progress = Progress(journal_id=found)
                return found
            if not waiting:
                _log.info("forward_waiting_for_journal", journal=str(self.journal))
                waiting = True
            await asyncio.sleep(self.poll)

    async def _connect(self) -> Client:
        try:
            password = read_password(self.floor.password_file)
        except PasswordFileError as error:
            raise SessionLost(str(error)) from None
        _log.info("forward_connecting", servers=list(self.floor.servers), user=self.floor.user)
        try:
            client = await nats.connect(
                servers=list(self.floor.servers),
                user=self.floor.user,
                password=password,
                tls=self._tls,
                inbox_prefix=inbox_prefix_of(self.table_id),
                name=f"tablectl forward {self.table_id}",
                # Each failure ends the connection; the next one resumes from the stream.
                allow_reconnect=False,
                max_reconnect_attempts=1,
                reconnect_time_wait=0.2,
                connect_timeout=CONNECT_TIMEOUT,
                error_cb=_log_client_error,
            )
        except (OSError, TimeoutError, nats.errors.Error, ssl.SSLError) as error:
            raise SessionLost(f"no server answered: {_text(error)}") from None
        self.progress.connected = str(client.connected_url.netloc if client.connected_url else "")
        _log.info("forward_connected", server=self.progress.connected)
        return client

    async def _resume(self, js: JetStreamContext, ours: str) -> tuple[Record | None, int]:
        """The record to resume after (None: from seq 1) and the stream sequence of the
        subject's last message (0: none), from the stream's last message on the subject."""
        try:
            message = await js.get_last_msg(STREAM, self.subject, direct=True)
        except NotFoundError:
            _log.info(
                "forward_resumed",
                journal=ours,
                after_seq=0,
                detail="the stream holds nothing of this table yet",
            )
            return None, 0
        except nats.errors.NoRespondersError:
            raise SessionLost(
                f"the stream {STREAM} does not answer (the floor has not created it yet, or it "
                "does not allow direct gets)"
            ) from None
        except TimeoutError:
            raise SessionLost(
                "asking the stream where the table stands: no answer within "
                f"{self.floor.ack_timeout:g} s ([floor] ack_timeout)"
            ) from None
        except nats.errors.Error as error:
            raise SessionLost(f"asking the stream where the table stands: {_text(error)}") from None
        last_seq = int(message.seq or 0)
        headers = message.headers or {}
        record = resume_point(
            self.table_id, ours, headers.get("Nats-Msg-Id"), bytes(message.data or b"")
        )
        if record is None:
            labelled = _record_id(headers.get("Nats-Msg-Id"))
            _log.warning(
                "forward_new_journal",
                journal=ours,
                stream_journal=None if labelled is None else labelled.journal_id,
                stream_seq=None if labelled is None else labelled.seq,
                detail="the stream's last record of this table is of another journal (the "
                "journal was begun anew); this journal is sent from seq 1, and the floor "
                "raises it",
            )
            return None, last_seq
        self.progress.acked = self.progress.sent = record.seq
        _log.info("forward_resumed", journal=ours, after_seq=record.seq)
        await self._note_acked(ours)
        return record, last_seq

    async def _forward(
        self,
        js: JetStreamContext,
        follower: Follower,
        watch: JournalWatch,
        ours: str,
        last_seq: int,
        *,
        until_caught_up: bool,
    ) -> None:
        while True:
            watch.drain()  # a write from here on wakes the wait below, read now or not
            lines = await asyncio.to_thread(follower.available, BATCH)
            if not lines:
                self.backoff.succeeded()
                self.progress.read = self.progress.acked
                if until_caught_up:
                    await self._note_acked(ours, now=True)
                    _log.info("forward_caught_up", acked=self.progress.acked)
                    return
                await self._note_acked(ours)
                self._status()
                await watch.changed(self.poll)
                continue
            self.progress.read = lines[-1].record.seq
            for line in lines:
                seq = line.record.seq
                self.progress.sent = seq
                last_seq = await self._publish(
                    js, line.raw, RecordId(self.table_id, ours, seq), last_seq
                )
                self.progress.acked = seq
                self.backoff.succeeded()
                self._status()
            await self._note_acked(ours)

    async def _note_acked(self, ours: str, *, now: bool = False) -> None:
        """Tell the table's retention what the stream holds (``journal-forwarded.json``,
        controller/journal/retention.py): it deletes no file the floor has not acknowledged. At
        most every NOTE_EVERY seconds (unless ``now``) while it forwards: the file is written,
        fsynced and renamed in the folder the forwarder watches, and retention, which deletes
        files days old, needs no fresher word; ``note_last`` writes it on every stop. A failed
        write only keeps files longer: the forwarding goes on."""
        noted = (ours, self.progress.acked)
        clock = asyncio.get_running_loop().time()
        if noted == self._noted or (not now and clock - self._noted_at < NOTE_EVERY):
            return
        try:
            await asyncio.to_thread(self._write_note, noted)
            self._noted, self._noted_at = noted, clock
        except OSError as error:
            _log.warning("forward_acked_not_noted", error=str(error), acked=self.progress.acked)

    async def _publish(
        self, js: JetStreamContext, raw: bytes, record: RecordId, last_seq: int
    ) -> int:
        """Publish one record and wait for its acknowledgement; the subject's new last stream
        sequence."""
        headers = publish_headers(record, last_seq)
        try:
            ack = await js.publish(
                self.subject, raw, timeout=self.floor.ack_timeout, stream=STREAM, headers=headers
            )
        except APIError as error:
            if error.err_code == WRONG_LAST_SEQUENCE:
                raise SessionLost(
                    f"the broker refused seq {record.seq}: another message reached the subject "
                    "first (is a second forwarder running for this table?)"
                ) from None
            raise SessionLost(f"the broker refused seq {record.seq}: {_text(error)}") from None
        except NoStreamResponseError:
            raise SessionLost(f"no stream takes {self.subject} (the floor creates it)") from None
        except TimeoutError:
            raise SessionLost(
                f"publishing seq {record.seq}: no acknowledgement within "
                f"{self.floor.ack_timeout:g} s ([floor] ack_timeout)"
            ) from None
        except nats.errors.Error as error:
            raise SessionLost(f"publishing seq {record.seq}: {_text(error)}") from None
        if ack.stream != STREAM:
            raise SessionLost(f"seq {record.seq} was stored in stream {ack.stream}, not {STREAM}")
        return int(ack.seq)

    def _status(self) -> None:
        """The status line, every ``status_every`` seconds."""
        now = asyncio.get_running_loop().time()
        if now - self._last_status < self.status_every:
            return
        self._last_status = now
        progress = self.progress
        _log.info(
            "forward_status",
            read=progress.read,
            sent=progress.sent,
            acked=progress.acked,
            behind=progress.behind,
            server=progress.connected,
        )
        if self.on_status is not None:
            self.on_status(progress)


def publish_headers(record: RecordId, last_seq: int) -> dict[str, str]:
    """The headers of record ``record``'s publish, the subject's last stream sequence being
    ``last_seq`` (0: none): its message id, for the broker's duplicate check, and the sequence
    the broker must still find there, so that nothing else got in between."""
    return {
        "Nats-Msg-Id": record.message_id(),
        "Nats-Expected-Last-Subject-Sequence": str(last_seq),
    }


def resume_point(table_id: str, ours: str, message_id: str | None, payload: bytes) -> Record | None:
    """The record to resume after, from the stream's last message on the table's subject
    (its ``Nats-Msg-Id`` and payload): that record when it is of journal ``ours``; None when it
    is of another journal (or of none tablectl sends): this journal goes from seq 1.
    SessionLost when its payload is not the record its id names."""
    labelled = _record_id(message_id)
    if labelled is None or labelled.journal_id != ours or labelled.table_id != table_id:
        return None
    try:
        record = parse_line(payload)
    except RecordError as error:
        raise SessionLost(f"the stream's last record is not a record: {error}") from None
    if record.seq != labelled.seq:
        raise SessionLost(
            f"the stream's last record is seq {record.seq} under the id of seq {labelled.seq}"
        )
    return record


def _record_id(value: str | None) -> RecordId | None:
    if value is None:
        return None
    try:
        return record_id_of(value)
    except SubjectError:
        return None


def _text(error: BaseException) -> str:
    return str(error) or type(error).__name__


async def _log_client_error(error: Exception) -> None:
    """nats-py's asynchronous errors (a permission refused, a connection lost), one line each
    without a traceback."""
    _log.warning("forward_client_error", error=_text(error))
