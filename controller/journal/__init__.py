"""The table's journal: every input and decision, hash-chained, on disk before it is acknowledged.

See docs/journal.md for the record format, the chain, durability and recovery.
"""

from controller.journal.files import JournalError, Position, TornTail, set_aside
from controller.journal.record import GENESIS, JsonObject, JsonValue, Record, RecordError
from controller.journal.store import JournalReader, Tail, read_tail
from controller.journal.verify import Anchor, VerifyReport, verify
from controller.journal.writer import JournalWriter, utc_now

__all__ = [
    "GENESIS",
    "Anchor",
    "JournalError",
    "JournalReader",
    "JournalWriter",
    "JsonObject",
    "JsonValue",
    "Position",
    "Record",
    "RecordError",
    "Tail",
    "TornTail",
    "VerifyReport",
    "read_tail",
    "set_aside",
    "utc_now",
    "verify",
]
