"""controller/forwarder/subjects.py: a table's subject and a record's message id, both ways."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.forwarder.subjects import (
    RecordId,
    SubjectError,
    record_id_of,
    subject_of,
    table_of,
)

pytestmark = pytest.mark.fast

table_ids = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}", fullmatch=True)
journal_ids = st.from_regex(r"[0-9a-f]{64}", fullmatch=True)


@given(table_ids)
def test_a_tables_subject_names_the_table_back_even_with_dots_in_its_id(table_id: str) -> None:
    assert table_of(subject_of(table_id)) == table_id


@given(table_ids, journal_ids, st.integers(min_value=1, max_value=2**63))
def test_a_message_id_names_its_record_back(table_id: str, journal_id: str, seq: int) -> None:
    record = RecordId(table_id, journal_id, seq)
    assert record_id_of(record.message_id()) == record


def test_a_subject_of_no_tables_journal_is_refused_by_name() -> None:
    with pytest.raises(SubjectError, match=r"subject 'tablectl\.other\.T1': expected"):
        table_of("tablectl.other.T1")
    with pytest.raises(SubjectError, match="is not a table id"):
        table_of("tablectl.journal.")
    with pytest.raises(SubjectError, match="is not a table id"):
        subject_of("no spaces")


@pytest.mark.parametrize(
    "message_id",
    [
        "T1:abc:1",
        "T1:" + "a" * 64,
        "T1:" + "a" * 64 + ":0",
        "T1:" + "a" * 64 + ":01",
        "T1:" + "A" * 64 + ":1",
        "T1:" + "a" * 64 + ":-1",
        ":" + "a" * 64 + ":1",
    ],
)
def test_a_message_id_tablectl_does_not_send_is_refused(message_id: str) -> None:
    with pytest.raises(SubjectError, match="message id"):
        record_id_of(message_id)
