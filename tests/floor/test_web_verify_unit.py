"""The verification walk's rules on one record and its verdict's words (issue 18, auditor;
docs/floor-web.md, Verification (the auditor)), over a real journal's lines (the Mambo fixture),
without a database: what ``reverify`` answers for each stored row."""

from __future__ import annotations

import pytest
from floorhelp import fixture_lines, rewritten

from controller.floor.web.chains import Reverified, _record_problem, key_state
from controller.journal.record import GENESIS, Record, canonical_json, parse_line

LINES = fixture_lines()
ROOT = parse_line(LINES[0]).hash


def stored(seq: int, line: bytes | None = None, prev: str | None = None) -> Record | str:
    """``_record_problem`` for the row at ``seq`` holding ``line`` (the fixture's by default),
    indexed by the fixture's hash, after the fixture's record before it."""
    record = parse_line(LINES[seq - 1])
    if prev is None:
        prev = GENESIS if seq == 1 else parse_line(LINES[seq - 2]).hash
    return _record_problem(ROOT, seq, record.hash, line or LINES[seq - 1], prev)


@pytest.mark.fast
def test_every_record_of_an_intact_journal_is_the_one_its_seq_needs() -> None:
    prev = GENESIS
    for seq, line in enumerate(LINES, start=1):
        record = _record_problem(ROOT, seq, parse_line(line).hash, line, prev)
        assert isinstance(record, Record), record
        prev = record.hash


@pytest.mark.fast
def test_an_edited_line_a_row_moved_a_broken_link_and_a_foreign_root_are_each_named() -> None:
    # Record 41's content changed, its hash left as it was.
    record = parse_line(LINES[40])
    fields = {"seq": 41, "ts": record.ts, "kind": record.kind, "prev": record.prev,
              "data": {**record.data, "altered": True}, "hash": record.hash}  # fmt: skip
    edited = stored(41, canonical_json(fields))  # type: ignore[arg-type]
    assert isinstance(edited, str)
    assert edited.startswith("its stored line is not an intact record: hash ")
    assert "does not match the record's content" in edited
    # Record 42's line stored at seq 41: the store's index of it says otherwise.
    moved = stored(41, LINES[41])
    assert isinstance(moved, str)
    assert "its stored line is record 42" in moved
    assert "indexes it as record 41" in moved
    # Record 41 after a record it does not name.
    broken = stored(41, prev="f" * 64)
    assert isinstance(broken, str)
    assert f"prev is {parse_line(LINES[40]).prev}, expected {'f' * 64}" in broken
    # Another journal's first record where this one's id should be.
    foreign = _record_problem("a" * 64, 1, ROOT, LINES[0], GENESIS)
    assert foreign == f"record 1 hashes to {ROOT}, not to the journal's id {'a' * 64}"


@pytest.mark.fast
def test_a_rehashed_chain_links_record_by_record_which_is_why_the_signatures_decide() -> None:
    # floorhelp.rewritten: record 60 changed and every record after it re-hashed. Each forged
    # row is self-consistent and links to the forged one before it: no chain rule catches it.
    forged = rewritten(LINES, 60)
    prev = parse_line(forged[58]).hash
    for seq in range(60, len(forged) + 1):
        record = _record_problem(ROOT, seq, parse_line(forged[seq - 1]).hash, forged[seq - 1], prev)
        assert isinstance(record, Record), record
        prev = record.hash


@pytest.mark.fast
def test_the_registry_says_registered_retired_or_not_registered() -> None:
    keys = {"k1": ("a" * 64, False), "k2": ("b" * 64, True)}
    assert key_state(keys, "k2", "b" * 64) == "registered"
    assert key_state(keys, "k1", None) == "retired"
    assert key_state(keys, "k2", "c" * 64) == "not registered"  # the id, another key
    assert key_state(keys, "k3", None) == "not registered"


@pytest.mark.fast
def test_the_verdict_names_the_worst_first() -> None:
    out = Reverified("T1", ROOT, records=10, last_seq=10, stored_head=10)
    assert out.verified
    assert out.verdict == "intact and signed by the table's registered key"
    out.key_problem = "no table_key record: the journal is not signed"
    assert out.verdict.startswith("NOT VOUCHED FOR")
    out.bad, out.first_bad_seq = 2, 7
    assert out.verdict == "FORGED OR DAMAGED: a signature fails at record 7"
    out.broken_seq, out.broken = 5, "its stored line is not an intact record"
    assert out.verdict == "NOT INTACT: the chain breaks at record 5"
    assert not out.verified
