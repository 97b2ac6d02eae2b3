"""What the floor's store tells, read through the read-only role (docs/floor.md, The store):
a table's last hands (``floor recall``) and every stored chain walked from its first record to
its head (``floor verify``).

A recall reads the hand's records back from the lines the table sent and tells them with the
table's own recall (controller/history/recall.py), so the floor shows a hand exactly as
``tablectl recall`` on the table does, to the same audience, and cannot drift from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import psycopg

from controller.floor import keys
from controller.floor.chainwalk import ChainWalk, Registry
from controller.floor.chainwatch import CHAIN_BROKEN
from controller.history.recall import HandRecord, hands
from controller.journal import tablerecords as rec
from controller.journal.ondisk import link_problem
from controller.journal.record import Record, RecordError, parse_line
from controller.journal.verdict import Verdict

Conn = psycopg.Connection[tuple[object, ...]]
#: Rows a walk fetches at a time: its memory does not grow with the journal.
WALK_ROWS = 2000


class ReportError(Exception):
    """What was asked is not in the store: says what is there."""


@dataclass(frozen=True, slots=True)
class AlarmAck:
    """An alarm's acknowledgement: who, when, and what they noted."""

    user: str
    at: str
    note: str


@dataclass(frozen=True, slots=True)
class FloorAlarm:
    """An alarm the witness raised (docs/floor.md, The witness), and whether it is open."""

    table_id: str
    journal_id: str
    seq: int
    kind: str
    message: str
    raised_at: str
    id: int = 0
    #: None: open (no one has acknowledged it), or the store's acknowledgements cannot be read.
    acknowledged: AlarmAck | None = None

    @property
    def open(self) -> bool:
        return self.acknowledged is None


@dataclass(slots=True)
class ChainReport:
    """One stored journal, walked (controller/floor/chainwalk.py, the web's walk too)."""

    table_id: str
    journal_id: str
    #: Records checked and found intact, from record 1 (to the break, if any).
    records: int = 0
    head_seq: int = 0
    head_hash: str | None = None
    #: What makes the chain not whole or shows a forgery: each fails ``floor verify``.
    problems: list[str] = field(default_factory=list)
    #: The signatures' verdict: vouched for by the table's registered key, or why not.
    signatures: str = ""
    #: The first line: links and signatures in the one vocabulary (docs/journal.md, Verdicts).
    verdict: str = ""
    #: The same verdict as its parts (``--json``: links, signatures, detail, at, bad_at).
    judged: Verdict | None = None


@dataclass(frozen=True, slots=True)
class VerifyReport:
    chains: list[ChainReport]
    alarms: list[FloorAlarm]
    #: Why acknowledgements could not be read (None: read): every alarm is then counted open.
    acks_unread: str | None = None

    @property
    def open_alarms(self) -> list[FloorAlarm]:
        return [alarm for alarm in self.alarms if alarm.open]

    @property
    def clean(self) -> bool:
        """No chain with a problem and no open alarm: acknowledged alarms are listed, not
        counted (a supervisor has seen to each, with a note)."""
        return not self.open_alarms and not any(chain.problems for chain in self.chains)


def current_journal(conn: Conn, table_id: str) -> str:
    """The journal the floor last began for ``table_id`` (ReportError naming the tables held)."""
    row = conn.execute(
        "SELECT journal_id FROM chain_heads WHERE table_id = %s", (table_id,)
    ).fetchone()
    if row is None:
        known = [str(r[0]) for r in conn.execute("SELECT table_id FROM tables ORDER BY 1")]
        held = ", ".join(known) if known else "none yet"
        raise ReportError(f"table {table_id!r}: the floor holds no journal of it (tables: {held})")
    return str(row[0])


@dataclass(frozen=True, slots=True)
class BrokenRecord:
    """A stored record of the recalled hands that fails its check: its line does not hash to
    itself or to the store's index of it, or does not link to the record before it."""

    seq: int
    why: str
    #: The hand it cut (told up to ``told_to``); None: it fell between hands.
    hand: int | None
    #: The last record the cut hand is told from (``told_to``); None: none, or no hand cut.
    told_to: int | None = None


def told_to(records: Sequence[Record]) -> int | None:
    """The last record a hand cut short by a record that is not intact is told from: the last
    decision record before the break, not the record just before it (an input's record, a
    card or a button, sits between two decisions and tells nothing of the hand). floor recall,
    the hand page and the feeds' ``told_to`` all say this one (docs/floor-web.md, The hand
    page); None: no decision record before the break."""
    return next((r.seq for r in reversed(records) if r.kind in rec.DECISIONS), None)


@dataclass(slots=True)
class Recall:
    """The last hands of a table's current journal as the store holds them: each hand told from
    the records that are intact; every record that is not, named; the journal's chain_broken
    alarms (controller/floor/chainwatch.py)."""

    journal_id: str
    hands: list[HandRecord] = field(default_factory=list)
    broken: list[BrokenRecord] = field(default_factory=list)
    alarms: list[FloorAlarm] = field(default_factory=list)

    def cut(self, hand: HandRecord) -> BrokenRecord | None:
        """The broken record that cut ``hand`` short, if one did."""
        return next((b for b in self.broken if b.hand == hand.number and not hand.finished), None)


def recall(conn: Conn, table_id: str, count: int) -> Recall:
    """The last ``count`` hands of the table's current journal, oldest first. A record that
    fails its hash or its link is not told: the hand it falls in is told up to the record
    before it, and the hands after it from their own intact records (``Recall.broken``)."""
    journal_id = current_journal(conn, table_id)
    found = Recall(journal_id)
    row = conn.execute(
        "SELECT min(started_seq) FROM (SELECT started_seq FROM hands WHERE table_id = %s "
        "AND journal_id = %s AND started_seq IS NOT NULL ORDER BY hand DESC LIMIT %s) AS last",
        (table_id, journal_id, count),
    ).fetchone()
    if row is None or row[0] is None:
        return found
    told: list[HandRecord] = []
    for part in _intact_parts(conn, table_id, journal_id, int(row[0])):  # type: ignore[call-overload]
        segment = hands(part.records)
        if part.broken is not None:
            last = segment[-1] if segment else None
            cut = last.number if last is not None and not last.finished else None
            said = told_to(part.records) if cut is not None else None
            found.broken.append(BrokenRecord(part.broken[0], part.broken[1], cut, said))
        told.extend(segment)
    found.hands = told[-count:] if count > 0 else []
    acks, _unread = acknowledgements(conn)  # unread: each alarm shown open, as verify does
    found.alarms = [
        FloorAlarm(str(t), str(j), int(s), str(k), str(m), _moment(at), int(i), acks.get(int(i)))  # type: ignore[call-overload]
        for t, j, s, k, m, at, i in conn.execute(
            "SELECT table_id, journal_id, seq, kind, message, raised_at, id FROM alarms "
            "WHERE table_id = %s AND journal_id = %s AND source = 'floor' AND kind = %s "
            "ORDER BY id",
            (table_id, journal_id, CHAIN_BROKEN),
        )
    ]
    return found


@dataclass(slots=True)
class _Part:
    """Intact records in a row, and the record that ended the row (seq, why), if one did."""

    records: list[Record] = field(default_factory=list)
    broken: tuple[int, str] | None = None


def _intact_parts(conn: Conn, table_id: str, journal_id: str, start: int) -> Iterator[_Part]:
    """The journal's records in the chain from seq ``start``, each re-hashed from its stored
    line, held to the store's index of it and linked to the one before, read a few thousand at
    a time; cut into parts at each record that fails."""
    part = _Part()
    prev: str | None = None  # the hash the next record must link to (None: the first read)
    with conn.transaction(), conn.cursor(name="tablectl_recall") as cur:
        cur.itersize = WALK_ROWS
        cur.execute(
            "SELECT seq, hash, line FROM records WHERE table_id = %s AND journal_id = %s "
            "AND seq >= %s AND linked ORDER BY seq",
            (table_id, journal_id, start),
        )
        for seq, stored_hash, line in cur:
            number, held = int(str(seq)), str(stored_hash)
            why = _record_problem(number, held, bytes(line), prev)  # type: ignore[call-overload]
            if isinstance(why, str):
                part.broken = (number, why)
                yield part
                part = _Part()
            else:
                part.records.append(why)
            prev = held  # the store's index: what the record after it links to
    yield part


def _record_problem(seq: int, stored_hash: str, line: bytes, prev: str | None) -> Record | str:
    """The stored record, or why it is not the one the chain holds at ``seq``."""
    try:
        record = parse_line(line)
    except RecordError as error:
        return f"its stored line is not an intact record: {error}"
    if record.seq != seq or record.hash != stored_hash:
        return (
            f"its stored line is record {record.seq} with hash {record.hash}, but the store "
            f"indexes it as record {seq} with hash {stored_hash}"
        )
    return (link_problem(record, seq, prev) if prev is not None else None) or record


def verify(conn: Conn, table_id: str | None = None) -> VerifyReport:
    """Every stored journal (of ``table_id`` only, if given) walked from seq 1 to its head, and
    the witness's alarms."""
    where, params = ("WHERE table_id = %s", (table_id,)) if table_id is not None else ("", ())
    journals = conn.execute(
        f"SELECT table_id, journal_id, head_seq, head_hash FROM journals {where} "
        "ORDER BY table_id, first_seen",
        params,
    ).fetchall()
    if table_id is not None and not journals:
        current_journal(conn, table_id)  # raises, naming the tables held
    chains = [
        _walk(conn, ChainReport(str(t), str(j), head_seq=int(str(s)), head_hash=_text(h)))
        for t, j, s, h in journals
    ]
    acks, unread = acknowledgements(conn)
    alarms = [
        FloorAlarm(str(t), str(j), int(s), str(k), str(m), _moment(at), int(i), acks.get(int(i)))  # type: ignore[call-overload]
        for i, t, j, s, k, m, at in conn.execute(
            f"SELECT id, table_id, journal_id, seq, kind, message, raised_at FROM alarms {where} "
            + ("AND" if where else "WHERE")
            + " source = 'floor' ORDER BY id",
            params,
        )
    ]
    return VerifyReport(chains, alarms, unread)


#: Whether this role may read the acknowledgements (the web's table, web.alarm_acks): a store
#: without the web's schema has none; one set up before the reader was granted them, unread.
_ACKS_READABLE = (
    "SELECT has_schema_privilege(n.oid, 'USAGE') AND has_table_privilege(c.oid, 'SELECT') "
    "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname = 'web' AND c.relname = 'alarm_acks'"
)


def acknowledgements(conn: Conn) -> tuple[dict[int, AlarmAck], str | None]:
    """Every acknowledged alarm's id and its acknowledgement (docs/floor-web.md, Alarms), and
    why they could not be read (None: read, or the store keeps none). The one place verify reads
    them."""
    row = conn.execute(_ACKS_READABLE).fetchone()
    if row is None:
        return {}, None
    if not row[0]:
        return {}, (
            "the acknowledgements (web.alarm_acks) cannot be read by this role: every alarm is "
            "counted open; run tablectl floor setup again as the database's owner"
        )
    found = conn.execute("SELECT alarm_id, user_name, at, note FROM web.alarm_acks")
    return {
        int(str(alarm)): AlarmAck(str(user), _moment(at), str(note))
        for alarm, user, at, note in found
    }, None


def _moment(value: object) -> str:
    """A moment as the floor's pages show it: UTC, to the second."""
    if isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return str(value)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _walk(conn: Conn, chain: ChainReport) -> ChainReport:
    """Walk one chain as the table wrote it: each line re-hashed, each link checked, each
    signature checked against the table's registered key (``ChainWalk``)."""
    walk = ChainWalk(
        chain.table_id,
        chain.journal_id,
        stored_head=chain.head_seq,
        stored_head_hash=chain.head_hash,
        registry=_registry(conn, chain.table_id),
    )
    held_from: int | None = None
    with conn.transaction(), conn.cursor(name="tablectl_verify") as cur:
        cur.itersize = WALK_ROWS
        cur.execute(
            "SELECT seq, hash, line, linked FROM records WHERE table_id = %s AND journal_id = %s "
            "ORDER BY seq",
            (chain.table_id, chain.journal_id),
        )
        for seq, stored_hash, line, linked in cur:
            if not linked:
                held_from = int(str(seq))
                break
            if not walk.take(int(str(seq)), str(stored_hash), bytes(line)):  # type: ignore[call-overload]
                break
    walk.end()
    walk.held = 0 if held_from is None else 1  # a gap before it: the links are not intact
    chain.records = walk.records
    chain.judged = walk.judged()
    chain.verdict = chain.judged.text()
    chain.problems = _problems(walk, held_from)
    chain.signatures = _signatures(walk)
    return chain


def _registry(conn: Conn, table_id: str) -> Registry:
    return {str(k): (str(p), bool(f)) for k, p, f in conn.execute(keys.REGISTRY, (table_id,))}


def _problems(walk: ChainWalk, held_from: int | None) -> list[str]:
    """A break, records held beyond a gap, a refused signature, a key the registry does not
    hold: each evidence that the floor's copy is not the table's whole, own chain."""
    problems = []
    if walk.broken is not None:
        problems.append(f"record {walk.broken_seq}: {walk.broken}")
    if held_from is not None:
        problems.append(
            f"record {held_from} is held beyond a gap: the floor has not got record "
            f"{walk.last_seq + 1}"
        )
    if walk.bad:
        problems.append(
            f"{walk.bad} signature(s) refused, the first at record {walk.first_bad_seq}: "
            f"{walk.first_bad}"
        )
    if walk.registry and walk.keys and walk.key_problem is not None:
        problems.append(walk.key_problem)  # a key came in force the registry does not hold
    return problems


def _signatures(walk: ChainWalk) -> str:
    """The signatures' verdict in a line. Not vouched for (no key registered, a journal from
    before the table's key) is said, not failed: it shows no forgery, only no proof."""
    if walk.key_problem is not None:
        return f"not vouched for: {walk.key_problem}"
    keys = ", ".join(f"{use.key_id} ({use.state})" for use in walk.keys)
    return (
        f"{walk.signed} checkpoint(s) signed by the table's registered key (keys: {keys}); "
        f"{walk.unsigned} unsigned before its first key"
    )
