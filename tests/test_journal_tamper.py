"""Tampering: every edit, deletion, reordering or cut of a record is found, and named rightly.

The journal under test has six records in two files (three per file), so
every operation is tried on each record, at a file boundary and within a file.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journal_support import write_journal

from controller.journal import Anchor, JournalError, JournalWriter, Record, VerifyReport, verify
from controller.journal.record import canonical_json

pytestmark = pytest.mark.fast

COUNT = 6
PER_FILE = 3


@dataclass(frozen=True)
class Pristine:
    """The untouched journal: its records and the bytes of each file."""

    records: list[Record]
    files: dict[str, bytes]


def _write_pristine() -> Pristine:
    with tempfile.TemporaryDirectory() as name:
        records = write_journal(Path(name), COUNT, hands_per_file=1)  # a hand is 3 records
        files = {path.name: path.read_bytes() for path in sorted(Path(name).iterdir())}
    assert len(files) == COUNT // PER_FILE
    return Pristine(records, files)


PRISTINE = _write_pristine()


def _file_name(index: int) -> str:
    return f"journal-{index // PER_FILE + 1:06d}.jsonl"


def _lines() -> dict[str, list[bytes]]:
    return {name: data.splitlines(keepends=True) for name, data in PRISTINE.files.items()}


def _lay_out(directory: Path, lines: dict[str, list[bytes]]) -> None:
    for name, file_lines in lines.items():
        (directory / name).write_bytes(b"".join(file_lines))


def _problem(report: VerifyReport) -> JournalError:
    assert report.problem is not None, "the tampering was not detected"
    return report.problem


def _assert_named(problem: JournalError, index: int, seq: int | None = None) -> None:
    """The problem is at record ``index``'s place: its file, its line, its seq."""
    where = (problem.file.name, problem.line, problem.seq)
    assert where == (_file_name(index), index % PER_FILE + 1, index + 1 if seq is None else seq)


def test_the_pristine_journal_verifies() -> None:
    """The journal the tamper tests start from is intact (else they would prove nothing)."""
    with tempfile.TemporaryDirectory() as name:
        _lay_out(Path(name), _lines())
        report = verify(name)
    assert report.intact
    assert report.records == COUNT


EDITS = {
    "seq": lambda record: record["seq"] + 100,
    "ts": lambda _: "2026-11-29T13:59:59.999999Z",
    "kind": lambda _: "button",
    "data": lambda record: {**record["data"], "seat": 9},
    "prev": lambda _: "e" * 64,
    "hash": lambda _: "f" * 64,
}


@pytest.mark.parametrize("field", sorted(EDITS))
@pytest.mark.parametrize("index", range(COUNT))
def test_editing_any_field_of_any_record_is_named_at_that_record(
    tmp_path: Path, index: int, field: str
) -> None:
    """Changing seq, ts, kind, data, prev or hash of record k is reported at record k."""
    lines = _lines()
    name, line = _file_name(index), index % PER_FILE
    fields = json.loads(lines[name][line])
    fields[field] = EDITS[field](fields)
    lines[name][line] = canonical_json(fields) + b"\n"
    _lay_out(tmp_path, lines)
    problem = _problem(verify(tmp_path))
    _assert_named(problem, index)
    with pytest.raises(JournalError):
        JournalWriter.open(tmp_path, fsync=False)


@pytest.mark.parametrize("index", range(COUNT))
def test_a_record_edited_and_rehashed_breaks_the_link_to_the_next(
    tmp_path: Path, index: int
) -> None:
    """A forger who recomputes record k's hash is caught at k+1, or by an anchor if k is last."""
    lines = _lines()
    name, line = _file_name(index), index % PER_FILE
    original = PRISTINE.records[index]
    forged = Record(
        original.seq, original.ts, original.kind, {"forged": True}, original.prev, original.hash
    )
    forged = Record(
        forged.seq, forged.ts, forged.kind, forged.data, forged.prev, forged.computed_hash()
    )
    lines[name][line] = forged.line()
    _lay_out(tmp_path, lines)
    head = PRISTINE.records[-1]
    if index == COUNT - 1:
        assert verify(tmp_path).intact  # the chain alone cannot tell: the last record has no next
        problem = _problem(verify(tmp_path, anchor=Anchor(head.seq, head.hash)))
        _assert_named(problem, index)
        assert "the anchor" in str(problem)
    else:
        problem = _problem(verify(tmp_path))
        _assert_named(problem, index + 1)
        assert "the chain is broken" in str(problem)


@pytest.mark.parametrize("index", range(COUNT))
def test_deleting_any_record_is_named_at_its_place(tmp_path: Path, index: int) -> None:
    """Deleting record k is reported where k should be; the last one needs an anchor."""
    lines = _lines()
    del lines[_file_name(index)][index % PER_FILE]
    _lay_out(tmp_path, lines)
    if index == COUNT - 1:
        assert verify(tmp_path).intact  # a shorter journal is still a journal
        head = PRISTINE.records[-1]
        problem = _problem(verify(tmp_path, anchor=Anchor(head.seq, head.hash)))
        assert problem.seq == COUNT
        assert "cut off its end" in str(problem)
        return
    problem = _problem(verify(tmp_path))
    assert problem.seq == index + 1
    assert f"found seq {index + 2}, expected seq {index + 1}" in str(problem)
    # The record that followed now stands where the deleted one was.
    if index % PER_FILE == PER_FILE - 1:
        assert (problem.file.name, problem.line) == (_file_name(index + 1), 1)
    else:
        assert (problem.file.name, problem.line) == (_file_name(index), index % PER_FILE + 1)


@pytest.mark.parametrize("index", range(COUNT - 1))
def test_swapping_any_record_with_the_next_is_named_at_the_first_of_the_two(
    tmp_path: Path, index: int
) -> None:
    """Records k and k+1 swapped, within a file or across the file boundary: reported at k."""
    lines = _lines()
    a = (_file_name(index), index % PER_FILE)
    b = (_file_name(index + 1), (index + 1) % PER_FILE)
    lines[a[0]][a[1]], lines[b[0]][b[1]] = lines[b[0]][b[1]], lines[a[0]][a[1]]
    _lay_out(tmp_path, lines)
    problem = _problem(verify(tmp_path))
    _assert_named(problem, index)
    assert f"found seq {index + 2}, expected seq {index + 1}" in str(problem)


@pytest.mark.parametrize("index", range(COUNT))
def test_cutting_a_file_in_the_middle_of_any_record_is_named_at_that_record(
    tmp_path: Path, index: int
) -> None:
    """A file cut inside record k: torn tail after k-1 if in the last file, else an error at k."""
    lines = _lines()
    name, line = _file_name(index), index % PER_FILE
    cut = lines[name][line][: len(lines[name][line]) // 2]
    lines[name] = [*lines[name][:line], cut]
    _lay_out(tmp_path, lines)
    report = verify(tmp_path)
    assert not report.intact
    if name == max(lines):
        assert report.problem is None
        assert report.torn is not None
        assert (report.torn.file.name, report.torn.line) == (name, line + 1)
        assert report.torn.after_seq == index
    else:
        _assert_named(_problem(report), index)
        assert "no newline" in str(report.problem)


@pytest.mark.parametrize("index", range(PER_FILE))
def test_cutting_a_file_before_the_last_at_a_record_boundary_is_found_in_the_next(
    tmp_path: Path, index: int
) -> None:
    """Records k.. cut off the end of file 1: the first record of file 2 no longer follows."""
    lines = _lines()
    lines[_file_name(0)] = lines[_file_name(0)][:index]
    _lay_out(tmp_path, lines)
    problem = _problem(verify(tmp_path))
    if index == 0:
        assert "holds no record but is not the last file" in str(problem)
    else:
        assert (problem.file.name, problem.line, problem.seq) == (
            _file_name(PER_FILE),
            1,
            index + 1,
        )


@given(data=st.data())
def test_changing_any_single_byte_is_reported_at_the_line_that_holds_it(
    data: st.DataObject,
) -> None:
    """Property: whatever byte of whatever file changes, verify names the line it is on."""
    name = data.draw(st.sampled_from(sorted(PRISTINE.files)), label="file")
    original = PRISTINE.files[name]
    offset = data.draw(st.integers(0, len(original) - 1), label="offset")
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != original[offset]), label="byte")
    changed = original[:offset] + bytes([byte]) + original[offset + 1 :]
    line = original[:offset].count(b"\n") + 1
    with tempfile.TemporaryDirectory() as directory:
        files = {**PRISTINE.files, name: changed}
        for file_name, content in files.items():
            (Path(directory) / file_name).write_bytes(content)
        report = verify(directory)
    assert not report.intact
    if report.problem is not None:
        assert (report.problem.file.name, report.problem.line) == (name, line)
    else:
        # Only the last line of the last file can pass for torn; it is still reported.
        assert report.torn is not None
        assert (report.torn.file.name, report.torn.line) == (name, line)
        assert name == max(PRISTINE.files)
