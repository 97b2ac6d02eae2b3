"""Where a table's journal travels on the floor's NATS JetStream, and under which message id
(docs/floor.md, Subjects and message ids). Pure: strings in, strings out; the forwarder and the
floor both name things through this module, so the two cannot disagree.

- Every table publishes to its own subject, ``tablectl.journal.<table id>``; the broker lets a
  table's user publish to that subject only, so the floor takes the subject as the table's
  identity. A table id may hold '.', so the id is everything after the prefix (one token or
  more), never one token.
- Every record travels once under the message id ``<table id>:<journal id>:<seq>``, so the
  broker drops a duplicate inside its window and the floor drops one after it.
- The **journal id** is the hash of the journal's first record (seq 1): the chain's root. It
  needs no file of its own that could be lost or disagree with the journal, and a journal begun
  anew (a new table PC, a journal rewritten from its first record) has another id, which the
  floor sees and raises (docs/floor.md, The witness).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

#: The JetStream stream holding every table's journal.
STREAM: Final = "TABLECTL_JOURNAL"
#: The subjects of every table's journal; a table's own is ``SUBJECT_PREFIX + table id``.
SUBJECT_PREFIX: Final = "tablectl.journal."
STREAM_SUBJECTS: Final = SUBJECT_PREFIX + ">"

#: A table id as table.toml allows it ([table] id, controller/config/game.py).
_TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_JOURNAL_ID: Final = re.compile(r"[0-9a-f]{64}")


class SubjectError(ValueError):
    """A subject or message id that is not one tablectl sends: names it and what was expected."""


def subject_of(table_id: str) -> str:
    """The subject table ``table_id`` publishes its journal to."""
    _check_table_id(table_id, "table id")
    return SUBJECT_PREFIX + table_id


def table_of(subject: str) -> str:
    """The table whose journal subject ``subject`` is (SubjectError for another subject)."""
    if not subject.startswith(SUBJECT_PREFIX):
        raise SubjectError(
            f"subject {subject!r}: expected {SUBJECT_PREFIX}<table id>, a table's journal"
        )
    table_id = subject[len(SUBJECT_PREFIX) :]
    _check_table_id(table_id, f"subject {subject!r}")
    return table_id


def inbox_prefix_of(table_id: str) -> str:
    """The inbox prefix of table ``table_id``'s connection (nats-py's ``inbox_prefix``).

    The replies to a table's requests (a publish's ack, the direct get of its last record) come
    to subjects under it, and the table's user may subscribe there only: with ``_INBOX.>`` it
    could read the replies the floor gets, every table's hole cards among them. The id travels
    as one token of hex, so no table's prefix covers another's (a table id may hold '.'), and
    none is a nats-py default inbox (``_INBOX.<22 letters and digits>``, no '-')."""
    _check_table_id(table_id, "table id")
    return "_INBOX.table-" + table_id.encode().hex()


def direct_get_subject(table_id: str) -> str:
    """The JetStream direct-get subject of the last record on table ``table_id``'s subject
    (nats-py's ``get_last_msg(STREAM, subject, direct=True)`` requests it): the one JetStream
    API a table's user may call (the forwarder resumes after that record)."""
    return f"$JS.API.DIRECT.GET.{STREAM}.{subject_of(table_id)}"


#: The inbox prefix of ``floor web``'s connection: its user may subscribe under it only. One
#: token with a '-', so neither a table's (``_INBOX.table-<hex>``) nor a nats-py default.
WEB_INBOX_PREFIX: Final = "_INBOX.floor-web"


def web_permissions() -> dict[str, object]:
    """Exactly what ``floor web``'s NATS user needs (docs/floor-web.md, The web's NATS user):
    make the headers-only ordered consumer it follows the stream with (again, after a gap),
    answer that consumer's flow control, and hear the replies on its own inbox. It may not
    publish a record, nor delete, purge or change the stream or anyone's consumer."""
    return {
        "publish": {
            "allow": [
                f"$JS.API.CONSUMER.CREATE.{STREAM}",
                f"$JS.API.CONSUMER.CREATE.{STREAM}.>",
                f"$JS.FC.{STREAM}.>",
            ]
        },
        "subscribe": {"allow": [WEB_INBOX_PREFIX + ".>"]},
    }


@dataclass(frozen=True, slots=True)
class RecordId:
    """One journal record on the floor: the table, its journal (the first record's hash) and
    the record's seq."""

    table_id: str
    journal_id: str
    seq: int

    def message_id(self) -> str:
        """The ``Nats-Msg-Id`` the record travels under."""
        return f"{self.table_id}:{self.journal_id}:{self.seq}"


def record_id_of(message_id: str) -> RecordId:
    """The record a ``Nats-Msg-Id`` names (SubjectError naming it when it is not one)."""
    parts = message_id.split(":")
    expected = "expected <table id>:<journal id, 64 hex digits>:<seq>"
    if len(parts) != 3:
        raise SubjectError(f"message id {message_id!r}: {expected}")
    table_id, journal_id, seq = parts
    _check_table_id(table_id, f"message id {message_id!r}")
    if not _JOURNAL_ID.fullmatch(journal_id) or not seq.isdigit() or seq.startswith("0"):
        raise SubjectError(f"message id {message_id!r}: {expected}")
    return RecordId(table_id, journal_id, int(seq))


def _check_table_id(table_id: str, where: str) -> None:
    if not _TABLE_ID.fullmatch(table_id):
        raise SubjectError(
            f"{where}: {table_id!r} is not a table id (1 to 32 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit)"
        )
