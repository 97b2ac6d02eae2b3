"""One stored journal walked from its first record to the floor's head, by the journal's own
rules: the one walk of ``tablectl floor verify`` (controller/floor/report.py) and of the web's
verification page (controller/floor/web/chains.py), each feeding it the stored rows its own way.

Pure: rows in (seq order, as the store indexes them: seq, hash, the exact line), a verdict out.
Each line is re-hashed from its exact bytes (``parse_line``), held to the store's index of it,
to the journal's id at its root, and linked by the table's reader's own rule
(controller/journal/ondisk.py ``link_problem``). Given the keys the floor's registry holds for
the table, every ``table_key`` and checkpoint goes through ``SignatureCheck``
(controller/journal/verify_signatures.py, ``journal verify --public-key``'s), and each key that
came in force must be one the registry holds (docs/journal.md, Signed checkpoints): a chain
re-hashed after a rewrite links record by record, and only the signatures tell it from the
table's own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.journal import schema, verdict
from controller.journal import tablerecords as rec
from controller.journal.ondisk import link_problem
from controller.journal.record import GENESIS, Record, RecordError, parse_line
from controller.journal.tablekey import TABLE_KEY
from controller.journal.verify_signatures import SignatureCheck

#: The floor's registry of one table's keys: key id -> (public key hex, in force now).
Registry = dict[str, tuple[str, bool]]

NOT_REGISTERED = "not registered"


def key_state(keys: Registry, key_id: str, public_key: str | None) -> str:
    """What the registry says of a key (its public key, when known, must be the one held)."""
    held = keys.get(key_id)
    if held is None or (public_key is not None and held[0] != public_key):
        return NOT_REGISTERED
    return "registered" if held[1] else "retired"


def stored_record(
    journal_id: str, seq: int, stored_hash: str, line: bytes, prev: str
) -> Record | str:
    """The record stored at ``seq`` if it is the one the chain needs there, else what is wrong:
    its line re-hashed, the store's index of it, the root, the link to ``prev``."""
    try:
        record = parse_line(line)
    except RecordError as error:
        return f"its stored line is not an intact record: {error}"
    if record.seq != seq or record.hash != stored_hash:
        return (
            f"its stored line is record {record.seq} with hash {record.hash}, but the store "
            f"indexes it as record {seq} with hash {stored_hash}"
        )
    if seq == 1 and record.hash != journal_id:
        return f"record 1 hashes to {record.hash}, not to the journal's id {journal_id}"
    return link_problem(record, seq, prev) or record


def checkpoint_signature(record: Record) -> schema.CheckpointSignatureData | None:
    """A checkpoint record's signature (None: unsigned); SchemaError if it is not readable."""
    data = schema.decode(record)
    assert isinstance(data, schema.CheckpointData)
    return data.signature


@dataclass(frozen=True, slots=True)
class KeyUse:
    """A key that came in force in the journal, and what the registry says of it."""

    key_id: str
    state: str


@dataclass(slots=True)
class ChainWalk:
    """The walk of one stored journal: ``take`` each linked row in seq order while it answers
    True, then ``end``; the fields are the verdict."""

    table_id: str
    journal_id: str
    #: The floor's head as the witness stored it: the walk must end there.
    stored_head: int = 0
    stored_head_hash: str | None = None
    #: The registry's keys of the table (empty: none, so no signature can be vouched for).
    registry: Registry = field(default_factory=dict)
    #: Records checked and found intact (before the break, if any).
    records: int = 0
    last_seq: int = 0
    last_hash: str | None = None
    #: The first record that breaks the chain, and why (None: none).
    broken_seq: int | None = None
    broken: str | None = None
    #: Records held beyond a gap: stored, not linked, so not walked (the caller counts them).
    held: int = 0
    signed: int = 0
    unsigned: int = 0
    #: Checkpoints or table_key records whose signature the check refused.
    bad: int = 0
    first_bad_seq: int | None = None
    first_bad: str | None = None
    keys: list[KeyUse] = field(default_factory=list)
    #: What is wrong with the keys as a whole (none came in force, one not registered).
    key_problem: str | None = None
    #: The public key of each key id that came in force, as its table_key record gives it.
    public_keys: dict[str, str] = field(default_factory=dict)
    _check: SignatureCheck | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        # The check starts from a registered key (the one in force, else any) and follows the
        # keys the journal names; ``end`` then holds each one to the registry.
        in_force = [public for public, current in self.registry.values() if current]
        chosen = in_force or [public for public, _ in self.registry.values()]
        self._check = SignatureCheck(chosen[0]) if chosen else None

    def take(self, seq: int, stored_hash: str, line: bytes) -> bool:
        """The stored row at ``seq``; whether the walk goes on (False: it broke there)."""
        expected = self.last_seq + 1
        if seq != expected:
            return self._break(seq, f"the floor has not got record {expected}: a gap before it")
        found = stored_record(self.journal_id, seq, stored_hash, line, self.last_hash or GENESIS)
        if isinstance(found, str):
            return self._break(seq, found)
        if self._check is not None:
            self._signatures(found)
        self.records, self.last_seq, self.last_hash = self.records + 1, seq, found.hash
        return True

    def end(self) -> None:
        """After the last row: the walk must reach the floor's head; the keys are judged."""
        if self.broken is None:
            self._reach_head()
        self._judge_keys()

    def _reach_head(self) -> None:
        if self.last_seq != self.stored_head:
            self._break(
                self.last_seq + 1,
                f"the walk ends at record {self.last_seq}, but the floor's head is record "
                f"{self.stored_head}",
            )
        elif self.stored_head_hash is not None and self.last_hash != self.stored_head_hash:
            self._break(
                self.last_seq,
                f"the floor's head is record {self.stored_head} with hash "
                f"{self.stored_head_hash}, but the walk reaches hash {self.last_hash} there",
            )

    def _break(self, seq: int, why: str) -> bool:
        self.broken_seq, self.broken = seq, why
        return False

    def _signatures(self, record: Record) -> None:
        """One record through the signature check; a refusal is counted and the walk goes on
        (the check's state is as before the refused record), so every bad one is counted."""
        assert self._check is not None
        if record.kind not in (TABLE_KEY, rec.CHECKPOINT):
            return
        wrong = self._check(record)
        if wrong is not None:
            self.bad += 1
            if self.first_bad is None:
                self.first_bad_seq, self.first_bad = record.seq, f"{record.kind}: {wrong}"
        elif record.kind == TABLE_KEY:
            data = schema.decode(record)
            assert isinstance(data, schema.TableKeyData)
            self.public_keys.setdefault(data.key_id, data.public_key)
        elif checkpoint_signature(record) is None:
            self.unsigned += 1
        else:
            self.signed += 1

    def _judge_keys(self) -> None:
        """Each key that came in force must be one the floor's registry holds for the table."""
        if self._check is None:
            self.key_problem = (
                f"the floor's registry holds no key of table {self.table_id} (tablectl floor "
                "key register): no signature can be vouched for"
            )
            return
        self.keys = [
            KeyUse(k, key_state(self.registry, k, self.public_keys.get(k)))
            for k in self._check.keys
        ]
        if not self.keys:
            self.key_problem = "no table_key record: the journal is not signed"
            return
        strangers = [use.key_id for use in self.keys if use.state == NOT_REGISTERED]
        if strangers:
            self.key_problem = (
                f"key {', '.join(strangers)} came in force in the journal, but the floor's "
                f"registry does not hold it for table {self.table_id}: whoever wrote these "
                "records need not be the table"
            )

    @property
    def intact(self) -> bool:
        """The chain whole from record 1 to the head, and no signature refused."""
        return self.broken is None and self.bad == 0

    @property
    def verified(self) -> bool:
        return self.judged().verified

    def judged(self) -> verdict.Verdict:
        """The links and the signatures in the one vocabulary (docs/journal.md, Verdicts), as
        ``tablectl journal verify`` says a table's: a key that came in force but is not the
        registry's is a signature BAD; no key registered, signatures NOT CHECKED. Records
        ``held`` beyond a gap break the links at the record the floor lacks."""
        links, at = verdict.Links.INTACT, None
        if self.broken is not None:
            links, at = verdict.Links.BROKEN, self.broken_seq
        elif self.held:
            links, at = verdict.Links.BROKEN, self.last_seq + 1
        if self.bad:
            return verdict.Verdict(links, verdict.Signatures.BAD, at=at, bad_at=self.first_bad_seq)
        if links is verdict.Links.BROKEN:
            return verdict.Verdict(links, verdict.Signatures.NOT_JUDGED, at=at)
        if self._check is None:
            why = verdict.no_key_registered(self.table_id)
            return verdict.Verdict(links, verdict.Signatures.NOT_CHECKED, why)
        if not self.keys:
            return verdict.Verdict(links, verdict.Signatures.NOT_CHECKED, verdict.NOT_SIGNED)
        strangers = [use.key_id for use in self.keys if use.state == NOT_REGISTERED]
        if strangers:
            said = (
                f"key {', '.join(strangers)} signs it, but it is not registered for table "
                f"{self.table_id}"
            )
            return verdict.Verdict(links, verdict.Signatures.BAD, said)
        return verdict.Verdict(
            links, verdict.Signatures.GOOD, verdict.by_registered([k.key_id for k in self.keys])
        )

    @property
    def verdict(self) -> str:
        return self.judged().text()
