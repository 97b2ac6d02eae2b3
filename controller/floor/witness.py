"""The floor's witness of each table's hash chain (docs/floor.md, The witness). Pure: no I/O.

The floor holds, for each table's journal (a table id and a journal id), its **head**: the last
record linked without a gap from the journal's first, and the records it holds beyond a gap
(several floor processes share the consumer, so one table's records may arrive out of order
between batches). Each arriving record is judged against that:

- the record's own hash is re-checked from its exact bytes (``parse_line``): a line that does not
  hash to itself is ``unreadable``;
- a record the floor already holds at that seq with the same hash is a **duplicate** (dropped);
  with another hash a **conflict**: the table's journal was rewritten after forwarding, and the
  floor keeps both (its own copy stays in the store, the arriving line is the alarm's evidence);
- a record whose ``prev`` is not the hash of the record before it that the floor holds (or whose
  successor, already held, does not name it) is a **break**;
- a journal id the table has not sent before, when it sent another, is ``journal_begun_anew``;
- the subject, the message id and the record must agree (``mislabeled``).

A link is checked once, when the later of its two records arrives, in either order. After a
break the chain goes on from the record that broke it, so one rewrite raises one alarm and the
store's evidence, not an alarm for every record after it.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from controller.forwarder.subjects import RecordId
from controller.journal.record import GENESIS, Record, RecordError, parse_line

#: The alarm kinds the witness raises (the store's ``alarms.kind`` for a floor alarm).
CONFLICT: Final = "conflict"
BREAK: Final = "break"
JOURNAL_BEGUN_ANEW: Final = "journal_begun_anew"
MISLABELED: Final = "mislabeled"
UNREADABLE: Final = "unreadable"
WITNESS_ALARMS: Final = (CONFLICT, BREAK, JOURNAL_BEGUN_ANEW, MISLABELED, UNREADABLE)


class Verdict(Enum):
    """What the floor does with an arriving record."""

    #: A new record: store it.
    STORE = "store"
    #: The floor holds it already, byte for byte: drop it.
    DUPLICATE = "duplicate"
    #: The floor holds another record at that seq: keep the floor's, alarm with this one.
    CONFLICT = "conflict"
    #: Not a record tablectl writes, or not the one its label says: alarm, store nothing.
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class Link:
    """What the witness keeps of a record: its seq, its hash and the hash it names before it."""

    seq: int
    hash: str
    prev: str


@dataclass(frozen=True, slots=True)
class WitnessAlarm:
    """A floor alarm: names the table, the journal and the seq; ``evidence`` is the arriving
    line's exact bytes, ``held`` the hash the floor holds where that differs."""

    kind: str
    table_id: str
    journal_id: str
    seq: int
    message: str
    evidence: bytes
    held: str | None = None


@dataclass(frozen=True, slots=True)
class Judgement:
    """The witness's answer for one arriving record."""

    verdict: Verdict
    #: The record parsed (None when its bytes are not one).
    record: Record | None
    alarms: tuple[WitnessAlarm, ...] = ()
    #: The seqs that joined the chain behind the head, in order (the record and the held
    #: records its arrival released): what the floor derives its hands from, in order.
    linked: tuple[int, ...] = ()


@dataclass(slots=True)
class Chain:
    """What the floor holds of one table's journal: the head, and the records beyond a gap."""

    table_id: str
    journal_id: str
    #: The last record linked without a gap from seq 1 (None: seq 1 not held yet).
    head: Link | None = None
    #: Records held beyond the head's gap, by seq.
    held: dict[int, Link] = field(default_factory=dict)

    @property
    def head_seq(self) -> int:
        return 0 if self.head is None else self.head.seq

    def judge(
        self,
        record_id: RecordId,
        line: bytes,
        stored_hash: str | None,
        parsed: Record | RecordError | None = None,
    ) -> Judgement:
        """Judge the record ``line`` labelled ``record_id``; ``stored_hash`` is the hash of the
        record the floor's store holds at that seq (None: none). ``parsed`` is ``read(line)``
        when the caller read it ahead (the ingest does, while the previous batch commits);
        None: read here. A record judged STORE is taken into the chain at once: the caller
        stores it in the same transaction."""
        record = read(line) if parsed is None else parsed
        if isinstance(record, RecordError):
            return self._refused(UNREADABLE, record_id.seq, line, f"not a journal record: {record}")
        if record.seq != record_id.seq or record_id.journal_id != self.journal_id:
            return self._refused(
                MISLABELED,
                record_id.seq,
                line,
                f"message id {record_id.message_id()} labels record seq {record.seq}",
            )
        if stored_hash is None:
            stored_hash = self._hash_at(record.seq)
        if stored_hash == record.hash:
            return Judgement(Verdict.DUPLICATE, record)
        if stored_hash is not None:
            return Judgement(
                Verdict.CONFLICT,
                record,
                (
                    self._alarm(
                        CONFLICT,
                        record.seq,
                        line,
                        f"record {record.seq} arrived with hash {record.hash}, the floor holds "
                        f"{stored_hash}: the journal was rewritten after it was forwarded",
                        held=stored_hash,
                    ),
                ),
            )
        return self._take(record, line)

    def _take(self, record: Record, line: bytes) -> Judgement:
        link = Link(record.seq, record.hash, record.prev)
        head = self.head
        if (
            head is not None
            and link.seq == head.seq + 1
            and link.prev == head.hash
            and not self.held
        ):
            # The usual record: the head's successor, linking to it, nothing held beyond.
            # What the checks below find for it (no root, no neighbour but the head, which it
            # names), without them: every record of a table dealing goes this way.
            self.head = link
            return Judgement(Verdict.STORE, record, (), (link.seq,))
        alarms = [*self._check_root(record, line), *self._check_links(link, line)]
        if link.seq <= self.head_seq:
            # Below the head yet not held: the store lost a record it acknowledged. Keep it.
            alarms.append(
                self._alarm(BREAK, link.seq, line, f"the floor holds no record {link.seq}")
            )
            return Judgement(Verdict.STORE, record, tuple(alarms))
        self.held[link.seq] = link
        linked: list[int] = []
        while (following := self.held.get(self.head_seq + 1)) is not None:
            del self.held[following.seq]
            self.head = following
            linked.append(following.seq)
        return Judgement(Verdict.STORE, record, tuple(alarms), tuple(linked))

    def _check_root(self, record: Record, line: bytes) -> list[WitnessAlarm]:
        if record.seq != 1:
            return []
        if record.prev != GENESIS:
            return [self._alarm(BREAK, 1, line, f"record 1 names prev {record.prev}, not genesis")]
        if record.hash != self.journal_id:
            return [
                self._alarm(
                    MISLABELED,
                    1,
                    line,
                    f"record 1 hashes to {record.hash}, not the journal id it was sent under",
                )
            ]
        return []

    def _check_links(self, link: Link, line: bytes) -> list[WitnessAlarm]:
        """The links to the neighbours the floor holds, checked now that the later arrived."""
        alarms = []
        before = self._link_at(link.seq - 1)
        if before is not None and link.prev != before.hash:
            alarms.append(
                self._alarm(
                    BREAK,
                    link.seq,
                    line,
                    f"record {link.seq} names prev {link.prev}, but the floor's record "
                    f"{before.seq} hashes to {before.hash}",
                    held=before.hash,
                )
            )
        after = self._link_at(link.seq + 1)
        if after is not None and after.prev != link.hash:
            alarms.append(
                self._alarm(
                    BREAK,
                    link.seq,
                    line,
                    f"record {link.seq} hashes to {link.hash}, but the floor's record "
                    f"{after.seq} names prev {after.prev}",
                    held=after.prev,
                )
            )
        return alarms

    def _link_at(self, seq: int) -> Link | None:
        if self.head is not None and seq == self.head.seq:
            return self.head
        return self.held.get(seq)

    def _hash_at(self, seq: int) -> str | None:
        link = self._link_at(seq)
        return None if link is None else link.hash

    def _refused(self, kind: str, seq: int, line: bytes, message: str) -> Judgement:
        return Judgement(Verdict.REFUSED, None, (self._alarm(kind, seq, line, message),))

    def _alarm(
        self, kind: str, seq: int, line: bytes, message: str, held: str | None = None
    ) -> WitnessAlarm:
        return WitnessAlarm(kind, self.table_id, self.journal_id, seq, message, line, held)


def read(line: bytes) -> Record | RecordError:
    """``line`` as ``parse_line`` reads it (form, own hash, canonical), or its error: what
    ``Chain.judge`` judges, readable ahead of the judging since it needs no chain."""
    try:
        return parse_line(line)
    except RecordError as error:
        return error


def mislabeled(subject_table: str, record_id: RecordId, line: bytes) -> WitnessAlarm | None:
    """An alarm if the message id names another table than the subject it came on (the broker
    lets a table publish to its own subject only, so the subject is the table's identity)."""
    if record_id.table_id == subject_table:
        return None
    return WitnessAlarm(
        MISLABELED,
        subject_table,
        record_id.journal_id,
        record_id.seq,
        f"message id {record_id.message_id()} names table {record_id.table_id!r} on table "
        f"{subject_table!r}'s subject",
        line,
    )


def begun_anew(
    table_id: str, journal_id: str, known: Collection[str], line: bytes, seq: int
) -> WitnessAlarm | None:
    """An alarm when table ``table_id`` sends journal ``journal_id`` while the floor holds
    another journal of it (``known``): a new table PC, or a journal rewritten from its first
    record, for a supervisor to explain."""
    if not known or journal_id in known:
        return None
    return WitnessAlarm(
        JOURNAL_BEGUN_ANEW,
        table_id,
        journal_id,
        seq,
        f"table {table_id!r} began journal {journal_id} while the floor holds "
        f"{len(known)} other journal(s) of it",
        line,
    )
