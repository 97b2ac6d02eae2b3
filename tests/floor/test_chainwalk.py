"""The floor's one walk of a stored chain (controller/floor/chainwalk.py: ``floor verify``'s and
the web's verification page's; docs/floor-web.md, Verification (the auditor))
on one record and on a whole chain, over a real journal's lines (the Mambo fixture), without a
database: what either walk answers for the stored rows."""

from __future__ import annotations

import pytest
from floorhelp import fixture_lines, rewritten

from controller.floor.chainwalk import ChainWalk, KeyUse, key_state, stored_record
from controller.journal.record import GENESIS, Record, canonical_json, parse_line

LINES = fixture_lines()
ROOT = parse_line(LINES[0]).hash


def stored(seq: int, line: bytes | None = None, prev: str | None = None) -> Record | str:
    """``stored_record`` for the row at ``seq`` holding ``line`` (the fixture's by default),
    indexed by the fixture's hash, after the fixture's record before it."""
    record = parse_line(LINES[seq - 1])
    if prev is None:
        prev = GENESIS if seq == 1 else parse_line(LINES[seq - 2]).hash
    return stored_record(ROOT, seq, record.hash, line or LINES[seq - 1], prev)


@pytest.mark.fast
def test_every_record_of_an_intact_journal_is_the_one_its_seq_needs() -> None:
    prev = GENESIS
    for seq, line in enumerate(LINES, start=1):
        record = stored_record(ROOT, seq, parse_line(line).hash, line, prev)
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
    foreign = stored_record("a" * 64, 1, ROOT, LINES[0], GENESIS)
    assert foreign == f"record 1 hashes to {ROOT}, not to the journal's id {'a' * 64}"


@pytest.mark.fast
def test_a_rehashed_chain_links_record_by_record_which_is_why_the_signatures_decide() -> None:
    # floorhelp.rewritten: record 60 changed and every record after it re-hashed. Each forged
    # row is self-consistent and links to the forged one before it: no chain rule catches it.
    forged = rewritten(LINES, 60)
    prev = parse_line(forged[58]).hash
    for seq in range(60, len(forged) + 1):
        record = stored_record(ROOT, seq, parse_line(forged[seq - 1]).hash, forged[seq - 1], prev)
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
def test_the_verdict_says_the_links_then_the_signatures_in_the_tables_words() -> None:
    # docs/journal.md, Verdicts: the words journal verify and dispute verify say too.
    registry = {"k1": ("a" * 64, True)}
    out = ChainWalk("T1", ROOT, stored_head=10, records=10, last_seq=10, registry=registry)
    out.keys = [KeyUse("k1", "registered")]
    assert out.verified
    assert out.verdict == (
        "links intact; signatures GOOD, checked with the table's registered key k1"
    )
    out.keys = [KeyUse("k9", "not registered")]
    assert not out.verified
    assert out.verdict == (
        "links intact; signatures BAD: key k9 signs it, but it is not registered for table T1"
    )
    assert out.judged().exit_status == 1
    out.keys = []
    assert out.verdict == (
        "links intact; signatures NOT CHECKED: the journal signs nothing (no table_key record)"
    )
    assert out.judged().exit_status == 0
    out.bad, out.first_bad_seq = 2, 7
    assert out.verdict == "links intact; signatures BAD at record 7"
    out.broken_seq, out.broken = 5, "its stored line is not an intact record"
    assert out.verdict == "links NOT INTACT at record 5; signatures BAD at record 7"
    out.bad = 0
    assert out.verdict == "links NOT INTACT at record 5; signatures not judged past the break"
    assert not out.verified
    bare = ChainWalk("T1", ROOT, stored_head=10, records=10, last_seq=10)
    assert bare.verdict == (
        "links intact; signatures NOT CHECKED: the floor has no key registered for table T1 "
        "(tablectl floor key register)"
    )
    assert not bare.verified


def walked(
    lines: list[bytes],
    head: int | None = None,
    head_hash: str | None = None,
    indexed_as: list[bytes] | None = None,
) -> ChainWalk:
    """``lines`` fed as the store's rows, each indexed by the seq and hash of its line in
    ``indexed_as`` (its own by default); the head the floor holds is the last line's unless
    given."""
    index = [parse_line(line) for line in indexed_as or lines]
    walk = ChainWalk(
        "T1",
        ROOT,
        stored_head=index[-1].seq if head is None else head,
        stored_head_hash=index[-1].hash if head_hash is None else head_hash,
    )
    for line, record in zip(lines, index, strict=True):
        if not walk.take(record.seq, record.hash, line):
            break
    walk.end()
    return walk


@pytest.mark.fast
def test_a_whole_chain_is_intact_but_vouched_for_by_no_key_without_the_registry() -> None:
    walk = walked(LINES)
    assert (walk.records, walk.last_seq, walk.last_hash) == (
        len(LINES),
        len(LINES),
        parse_line(LINES[-1]).hash,
    )
    assert walk.broken is None
    assert walk.intact
    assert not walk.verified
    assert walk.key_problem == (
        "the floor's registry holds no key of table T1 (tablectl floor key register): no "
        "signature can be vouched for"
    )


@pytest.mark.fast
def test_a_missing_row_stops_the_walk_at_the_gap() -> None:
    walk = walked(LINES[:40] + LINES[41:])
    assert (walk.records, walk.broken_seq) == (40, 42)
    assert walk.broken == "the floor has not got record 41: a gap before it"
    assert walk.verdict.startswith("links NOT INTACT at record 42; ")


@pytest.mark.fast
def test_the_walk_must_end_at_the_floor_s_head_and_its_hash() -> None:
    short = walked(LINES[:50], head=len(LINES))
    assert (short.broken_seq, short.broken) == (
        51,
        f"the walk ends at record 50, but the floor's head is record {len(LINES)}",
    )
    other = walked(LINES, head_hash="e" * 64)
    assert other.broken_seq == len(LINES)
    assert other.broken == (
        f"the floor's head is record {len(LINES)} with hash {'e' * 64}, but the walk reaches "
        f"hash {parse_line(LINES[-1]).hash} there"
    )


@pytest.mark.fast
def test_an_edited_line_breaks_the_walk_at_its_seq_and_nothing_after_it_is_counted() -> None:
    edited = list(LINES)
    edited[29] = edited[29].replace(b'"seq":30', b'"seq":31', 1)
    walk = walked(edited, indexed_as=LINES)
    assert (walk.records, walk.last_seq, walk.broken_seq) == (29, 29, 30)
    assert walk.broken is not None
    assert walk.broken.startswith("its stored line is not an intact record")
