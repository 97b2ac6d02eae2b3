"""The table's journal: every input and decision, hash-chained, on disk before it is acknowledged.

The chain and its files (``record``, ``files``, ``writer``, ``ondisk``, ``verify``, ``compress``,
``signing``) and the format the table writes and the floor reads (``schema``, ``codec``,
``schemajson``, ``tablerecords``), the table's key (``tablekey``, ``keyfiles``,
``verify_signatures``) and the rotated files' retention (``retention``, ``keeper``). See
docs/journal.md for the record format, the chain, durability and recovery.

It may use the configuration, the drivers' sentences and the poker core; never the running
table, the display, the history or the floor (pyproject.toml, the layers contract).
"""

from controller.journal.files import JournalError, Position, TornTail, set_aside
from controller.journal.ondisk import JournalReader, Tail, read_tail
from controller.journal.record import GENESIS, JsonObject, JsonValue, Record, RecordError
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
