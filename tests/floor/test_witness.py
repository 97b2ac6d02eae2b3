"""controller/floor/witness.py: the floor's judgement of each arriving record of a table's chain."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from controller.floor.witness import (
    BREAK,
    CONFLICT,
    JOURNAL_BEGUN_ANEW,
    MISLABELED,
    UNREADABLE,
    Chain,
    Judgement,
    Verdict,
    begun_anew,
    mislabeled,
)
from controller.forwarder.subjects import RecordId
from controller.journal.record import GENESIS, make_record_line, parse_line

pytestmark = pytest.mark.fast

START = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def journal(count: int, *, salt: str = "") -> list[bytes]:
    """``count`` linked record lines, as a table's JournalWriter writes them (no newline)."""
    lines, prev = [], GENESIS
    for seq in range(1, count + 1):
        record, line = make_record_line(
            seq, START + timedelta(seconds=seq), "button", {"n": seq, "salt": salt}, prev
        )
        lines.append(line.rstrip(b"\n"))
        prev = record.hash
    return lines


def journal_id(lines: list[bytes]) -> str:
    return make_hash(lines[0])


def make_hash(line: bytes) -> str:
    return parse_line(line).hash


def chain_for(lines: list[bytes]) -> Chain:
    return Chain("T1", journal_id(lines))


def judge(chain: Chain, lines: list[bytes], seq: int, stored: str | None = None) -> Judgement:
    return chain.judge(RecordId("T1", chain.journal_id, seq), lines[seq - 1], stored)


def test_records_in_order_each_join_the_chain_and_move_the_head() -> None:
    lines = journal(5)
    chain = chain_for(lines)
    for seq in range(1, 6):
        judgement = judge(chain, lines, seq)
        assert judgement.verdict is Verdict.STORE
        assert judgement.alarms == ()
        assert judgement.linked == (seq,)
    assert chain.head is not None
    assert chain.head.seq == 5
    assert chain.head.hash == make_hash(lines[4])


def test_the_same_record_again_is_a_duplicate_dropped_without_alarm() -> None:
    lines = journal(3)
    chain = chain_for(lines)
    for seq in (1, 2, 3):
        judge(chain, lines, seq)
    again = judge(chain, lines, 2, stored=make_hash(lines[1]))
    assert again.verdict is Verdict.DUPLICATE
    assert again.alarms == ()
    assert again.linked == ()


def test_a_rewritten_record_under_a_seq_already_held_is_a_conflict_with_the_line_as_evidence() -> (
    None
):
    lines = journal(3)
    rewritten = journal(3, salt="rewritten")
    rewritten[0] = lines[0]  # same root: the journal id stays, the rest re-hashed
    chain = chain_for(lines)
    for seq in (1, 2, 3):
        judge(chain, lines, seq)
    arriving = chain.judge(RecordId("T1", chain.journal_id, 2), rewritten[1], make_hash(lines[1]))
    assert arriving.verdict is Verdict.CONFLICT
    (alarm,) = arriving.alarms
    assert (alarm.kind, alarm.table_id, alarm.journal_id, alarm.seq) == (
        CONFLICT,
        "T1",
        chain.journal_id,
        2,
    )
    assert alarm.evidence == rewritten[1]
    assert alarm.held == make_hash(lines[1])
    assert chain.head is not None
    assert chain.head.hash == make_hash(lines[2])


def test_a_record_that_does_not_name_the_floors_record_before_it_is_a_break() -> None:
    lines = journal(3)
    other = journal(3, salt="other")
    chain = chain_for(lines)
    judge(chain, lines, 1)
    judge(chain, lines, 2)
    arriving = chain.judge(RecordId("T1", chain.journal_id, 3), other[2], None)
    assert arriving.verdict is Verdict.STORE
    (alarm,) = arriving.alarms
    assert (alarm.kind, alarm.seq) == (BREAK, 3)
    assert alarm.held == make_hash(lines[1])
    # The chain goes on from the record that broke it: one alarm, not one per record after.
    assert arriving.linked == (3,)


def test_records_out_of_order_are_held_until_the_gap_fills_then_join_in_order() -> None:
    lines = journal(5)
    chain = chain_for(lines)
    assert judge(chain, lines, 4).linked == ()
    assert judge(chain, lines, 2).linked == ()
    assert judge(chain, lines, 1).linked == (1, 2)
    filled = judge(chain, lines, 3)
    assert filled.alarms == ()
    assert filled.linked == (3, 4)
    assert chain.held == {}
    assert chain.head is not None
    assert chain.head.seq == 4


def test_a_held_record_whose_predecessor_arrives_later_and_does_not_link_is_a_break() -> None:
    lines = journal(4)
    other = journal(4, salt="other")
    chain = chain_for(lines)
    judge(chain, lines, 1)
    judge(chain, lines, 3)  # held
    arriving = chain.judge(RecordId("T1", chain.journal_id, 2), other[1], None)
    # Both its links fail: 1 -> 2 (its prev) and 2 -> 3 (the held record's prev).
    assert [(alarm.kind, alarm.seq) for alarm in arriving.alarms] == [(BREAK, 2), (BREAK, 2)]
    assert [alarm.held for alarm in arriving.alarms] == [make_hash(lines[0]), make_hash(lines[1])]


def test_a_held_successor_that_does_not_name_the_arriving_record_is_a_break() -> None:
    lines = journal(4)
    other = journal(4, salt="other")
    chain = chain_for(lines)
    chain.judge(RecordId("T1", chain.journal_id, 3), other[2], None)  # held, of another chain
    judge(chain, lines, 1)
    arriving = judge(chain, lines, 2)
    (alarm,) = arriving.alarms
    assert alarm.kind == BREAK
    assert alarm.seq == 2
    assert alarm.held == make_hash(other[1])  # what the held successor names


def test_a_line_that_does_not_hash_to_itself_is_refused_as_unreadable() -> None:
    lines = journal(1)
    chain = chain_for(lines)
    edited = lines[0].replace(b'"n":1', b'"n":2')
    arriving = chain.judge(RecordId("T1", chain.journal_id, 1), edited, None)
    assert arriving.verdict is Verdict.REFUSED
    (alarm,) = arriving.alarms
    assert alarm.kind == UNREADABLE
    assert alarm.evidence == edited
    assert chain.head is None


def test_a_message_id_naming_another_seq_than_the_record_is_mislabeled() -> None:
    lines = journal(2)
    chain = chain_for(lines)
    arriving = chain.judge(RecordId("T1", chain.journal_id, 1), lines[1], None)
    assert arriving.verdict is Verdict.REFUSED
    assert arriving.alarms[0].kind == MISLABELED


def test_a_first_record_that_is_not_the_journal_id_it_came_under_is_mislabeled() -> None:
    lines = journal(1)
    chain = Chain("T1", "f" * 64)
    arriving = chain.judge(RecordId("T1", "f" * 64, 1), lines[0], None)
    assert [alarm.kind for alarm in arriving.alarms] == [MISLABELED]


def test_a_message_id_of_another_table_on_a_tables_subject_is_mislabeled() -> None:
    lines = journal(1)
    record_id = RecordId("T2", journal_id(lines), 1)
    alarm = mislabeled("T1", record_id, lines[0])
    assert alarm is not None
    assert alarm.kind == MISLABELED
    assert alarm.table_id == "T1"
    assert mislabeled("T2", record_id, lines[0]) is None


def test_a_known_table_beginning_another_journal_is_an_alarm_for_a_supervisor() -> None:
    lines = journal(1)
    assert begun_anew("T1", journal_id(lines), (), lines[0], 1) is None
    assert begun_anew("T1", journal_id(lines), (journal_id(lines),), lines[0], 1) is None
    alarm = begun_anew("T1", journal_id(lines), ("a" * 64,), lines[0], 1)
    assert alarm is not None
    assert alarm.kind == JOURNAL_BEGUN_ANEW
    assert alarm.seq == 1
