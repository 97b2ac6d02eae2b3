"""``tablectl journal verify --public-key FILE``: the checkpoints' signatures beside the chain
(docs/journal.md, Signed checkpoints).

A chain alone is no proof against someone who rewrites the journal and computes the chain
afresh; a signature by the table's key is, without the private key. ``SignatureCheck`` follows
the keys the journal names (its ``table_key`` records) and refuses, as the first bad record:

- a ``table_key`` for another key than the one in force without the hand-over (``previous``
  and ``rotation_signature``), or a hand-over not signed by the key in force;
- a checkpoint after the first ``table_key`` without a signature, or signed by any key but the
  one in force (a key rotated away among them), or whose signature does not verify over its
  own seq and prev;
- a signed checkpoint before any ``table_key``;

and, at the end, a journal in which the key in FILE never came in force. Each checkpoint's
signature covers every record before it, so the key in FILE (the floor's registered key, the
first or one handed over to) vouches for the journal up to its last checkpoint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.journal import Record, schema, signing, verdict
from controller.journal import tablerecords as rec
from controller.journal.tablekey import TABLE_KEY
from controller.poker.words import counted


@dataclass
class SignatureCheck:
    """The ``RecordCheck`` (controller/journal/verify.py) of the table key ``public_key``."""

    public_key: str
    key_id: str = field(init=False)
    #: The key in force (its public key hex) and its id; None before the first table_key.
    in_force: str | None = field(default=None, init=False)
    in_force_id: str | None = field(default=None, init=False)
    #: Every key id that came in force, in order.
    keys: list[str] = field(default_factory=list, init=False)
    signed: int = field(default=0, init=False)
    unsigned_before_key: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        self.key_id = signing.key_id(self.public_key)

    def __call__(self, record: Record) -> str | None:
        if record.kind not in (TABLE_KEY, rec.CHECKPOINT):
            return None
        try:
            data = schema.decode(record)
        except schema.SchemaError as error:
            return str(error)
        if isinstance(data, schema.TableKeyData):
            return self._table_key(data)
        assert isinstance(data, schema.CheckpointData)
        return self._checkpoint(record, data.signature)

    def _table_key(self, data: schema.TableKeyData) -> str | None:
        try:
            named = signing.key_id(data.public_key)
        except signing.SigningError as error:
            return f"table_key: {error}"
        if named != data.key_id:
            return f"table_key: key_id {data.key_id} is not its public key's id ({named})"
        if self.in_force is None or data.key_id == self.in_force_id:
            if self.in_force is None:
                self.keys.append(data.key_id)
            self.in_force, self.in_force_id = data.public_key, data.key_id
            return None
        wrong = self._hand_over(self.in_force, data)
        if wrong is None:
            self.in_force, self.in_force_id = data.public_key, data.key_id
            self.keys.append(data.key_id)
        return wrong

    def _hand_over(self, in_force: str, data: schema.TableKeyData) -> str | None:
        """What is wrong with a new key's hand-over from the key in force (None: nothing)."""
        if data.previous is None or data.rotation_signature is None:
            return (
                f"table_key {data.key_id} replaces key {self.in_force_id} without its hand-over "
                "(previous and rotation_signature): a key the journal was not handed to"
            )
        if data.previous != self.in_force_id:
            return (
                f"table_key {data.key_id}: hands over from key {data.previous}, but the key in "
                f"force is {self.in_force_id}"
            )
        if not signing.verify_rotation(
            in_force, data.previous, data.public_key, data.rotation_signature
        ):
            return (
                f"table_key {data.key_id}: the hand-over's rotation_signature is not key "
                f"{data.previous}'s signature over it"
            )
        return None

    def _checkpoint(
        self, record: Record, signature: schema.CheckpointSignatureData | None
    ) -> str | None:
        if self.in_force is None:
            if signature is not None:
                return (
                    f"checkpoint signed by key {signature.key_id}, but no table_key record "
                    "before it names a key"
                )
            self.unsigned_before_key += 1
            return None
        if signature is None:
            return f"checkpoint without a signature, though key {self.in_force_id} is in force"
        if signature.key_id != self.in_force_id:
            rotated = " (a key rotated away)" if signature.key_id in self.keys else ""
            return (
                f"checkpoint signed by key {signature.key_id}{rotated}, but the key in force "
                f"is {self.in_force_id}"
            )
        if not signing.verify_checkpoint(
            self.in_force, record.seq, record.prev, signature.signature
        ):
            return (
                f"checkpoint's signature is not key {self.in_force_id}'s over its seq and prev: "
                "the journal was rewritten without the private key"
            )
        self.signed += 1
        return None

    def end(self) -> str | None:
        if not self.keys:
            return (
                f"no table_key record: the journal is not signed, so key {self.key_id} "
                "vouches for none of it"
            )
        if self.key_id not in self.keys:
            return (
                f"the key given ({self.key_id}) never came in force in this journal; its keys "
                f"are {', '.join(self.keys)}: a wrong key file, or a journal of another table"
            )
        return None

    def vouched_by(self) -> str:
        return verdict.by_given(self.key_id)

    def summary(self) -> str:
        keys = ", ".join(self.keys) or "none"
        before = (
            f"; {counted(self.unsigned_before_key, 'unsigned checkpoint')} before its first key"
            if self.unsigned_before_key
            else ""
        )
        return (
            f"signatures: {counted(self.signed, 'checkpoint')} signed by the key in force "
            f"(keys in order: {keys}; given {self.key_id}){before}"
        )
