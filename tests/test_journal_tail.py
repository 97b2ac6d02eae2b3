"""The start-up's read of the journal's end (``read_tail``, ``JournalWriter.open(resume_kind=)``):
it checks the last file whole, back to the last checkpoint, and the link into them; it costs
the same at any journal age; the whole chain is left to ``verify`` (docs/journal.md, What a
start checks).
On start the engine is rebuilt by replaying the journal; a torn last record is detected, reported
and set aside, and nothing before it is lost (docs/journal.md, Torn tails)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from journal_support import StepClock

from controller.journal import (
    JournalError,
    JournalReader,
    JournalWriter,
    Record,
    read_tail,
    verify,
)
from controller.journal.record import make_record_line

pytestmark = pytest.mark.fast

CHECKPOINT = "checkpoint"


def _deal(writer: JournalWriter, hand: int, *, finished: bool = True) -> None:
    """One made-up hand: a button, its hand start, two cards and, if finished, a checkpoint."""
    writer.append("button", {"button": "new_hand"})
    writer.append("hand_started", {"hand": hand})
    writer.append("card", {"card": "As", "hand": hand})
    writer.append("card", {"card": "Kd", "hand": hand})
    if finished:
        writer.append(CHECKPOINT, {"after_hand": hand})


def _journal(directory: Path, hands: int, *, unfinished: bool, per_file: int = 2) -> None:
    """``hands`` finished hands, ``per_file`` a file, then one unfinished hand if asked."""
    with JournalWriter.open(
        directory, clock=StepClock(), fsync=False, hands_per_file=per_file
    ) as w:
        for hand in range(1, hands + 1):
            _deal(w, hand)
        if unfinished:
            _deal(w, hands + 1, finished=False)


def _open(directory: Path, per_file: int = 2) -> tuple[JournalWriter, list[Record]]:
    """The journal opened as a start opens it: from its end, replayed from the last checkpoint."""
    replayed: list[Record] = []
    writer = JournalWriter.open(
        directory,
        clock=StepClock(),
        fsync=False,
        hands_per_file=per_file,
        replay=replayed.append,
        resume_kind=CHECKPOINT,
    )
    return writer, replayed


def _from_last_checkpoint(directory: Path) -> list[Record]:
    records = list(JournalReader(directory))
    last = max(i for i, record in enumerate(records) if record.kind == CHECKPOINT)
    return records[last:]


def _files(directory: Path) -> list[Path]:
    return sorted(directory.glob("journal-*.jsonl"))


def _rewrite_line(path: Path, index: int, edit: dict[str, object], *, rehash: bool) -> Record:
    """Line ``index`` of ``path`` with fields replaced; re-hashed (a forger's edit) if asked."""
    lines = path.read_bytes().splitlines(keepends=True)
    fields = json.loads(lines[index])
    fields.update(edit)
    if rehash:
        record, line = make_record_line(
            fields["seq"], StepClock()(), fields["kind"], fields["data"], fields["prev"]
        )
    else:
        line = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode() + b"\n"
        record = Record(**fields)
    lines[index] = line
    path.write_bytes(b"".join(lines))
    return record


def test_a_start_after_rotation_replays_from_the_checkpoint_at_the_previous_files_end(
    tmp_path: Path,
) -> None:
    """docs/journal.md, What a start checks: the current file began a new hand at rotation
    and holds no checkpoint yet; the start finds the last one at the previous file's end,
    replays from it exactly what a whole read gives from it, and the chain goes on."""
    _journal(tmp_path, 6, unfinished=True)
    files = _files(tmp_path)
    assert len(files) == 4
    assert CHECKPOINT not in [
        json.loads(line)["kind"] for line in files[-1].read_bytes().splitlines()
    ]
    expected = _from_last_checkpoint(tmp_path)
    writer, replayed = _open(tmp_path)
    with writer:
        assert replayed == expected
        assert replayed[0].kind == CHECKPOINT
        assert replayed[0].data == {"after_hand": 6}
        assert writer.last == expected[-1]
        writer.append("card", {"card": "7c", "hand": 7})
    assert verify(tmp_path).intact


def test_a_start_with_a_checkpoint_in_the_current_file_replays_from_it(tmp_path: Path) -> None:
    """The last checkpoint in the current file: the replay begins there; the records before it
    in the file are checked, not replayed."""
    _journal(tmp_path, 5, unfinished=True)  # file 3 holds hand 5, its checkpoint, and hand 6
    writer, replayed = _open(tmp_path)
    writer.close()
    assert replayed == _from_last_checkpoint(tmp_path)
    assert replayed[0].data == {"after_hand": 5}


def test_the_tail_read_checks_only_the_journals_end(tmp_path: Path) -> None:
    """The start reads the last file whole, the previous file back to its last checkpoint, and
    the one record before that: not the older files."""
    _journal(tmp_path, 6, unfinished=True)
    tail = read_tail(tmp_path, CHECKPOINT)
    assert len(tail.current) == 3  # the unfinished hand's start and two cards
    assert len(tail.records) == 1 + 4  # hand 6's checkpoint, hand 7's button, start, cards
    assert tail.checked == 1 + 5  # ... hand 6's last card before it, and the button after it
    assert tail.last == list(JournalReader(tmp_path))[-1]


def test_tamper_in_an_old_file_is_left_to_verify_which_finds_it(tmp_path: Path) -> None:
    """docs/journal.md, What a start checks: an edit in a file before the journal's end does
    not stop the start (it is not read); ``tablectl journal verify`` checks the whole chain
    and names it."""
    _journal(tmp_path, 6, unfinished=True)
    _rewrite_line(_files(tmp_path)[0], 2, {"data": {"card": "Ah", "hand": 1}}, rehash=False)
    writer, replayed = _open(tmp_path)
    writer.close()
    assert replayed[0].data == {"after_hand": 6}
    problem = verify(tmp_path).problem
    assert problem is not None
    assert problem.file.name == "journal-000001.jsonl"
    assert problem.seq == 3
    assert "was edited" in str(problem)


def test_a_tampered_last_record_of_the_previous_file_refuses_the_start(tmp_path: Path) -> None:
    """docs/journal.md, What a start checks: the record before the current file is read and
    checked for its own hash: edited, the start is refused with an error naming its file and
    seq."""
    _journal(tmp_path, 5, unfinished=True)
    previous = _files(tmp_path)[-2]
    last = len(previous.read_bytes().splitlines()) - 1
    edited = _rewrite_line(previous, last, {"data": {"after_hand": 9}}, rehash=False)
    with pytest.raises(JournalError, match=r"journal-000002\.jsonl:10 \(seq 21\): .*was edited"):
        _open(tmp_path)
    assert edited.seq == 21  # hand 5's button: rotation came at its hand start


def test_a_rehashed_last_record_of_the_previous_file_breaks_the_link_into_the_current(
    tmp_path: Path,
) -> None:
    """Edited and re-hashed, the previous file's last record checks alone, but the current
    file's first record no longer links to it: refused, naming that record's file and seq."""
    _journal(tmp_path, 5, unfinished=True)
    previous = _files(tmp_path)[-2]
    last = len(previous.read_bytes().splitlines()) - 1
    _rewrite_line(previous, last, {"data": {"after_hand": 9}}, rehash=True)
    with pytest.raises(
        JournalError, match=r"journal-000003\.jsonl:1 \(seq 22\): prev is .*hash of seq 21"
    ):
        _open(tmp_path)


@pytest.mark.parametrize("unfinished", [True, False])
def test_any_record_of_the_checked_end_edited_refuses_the_start(
    tmp_path: Path, unfinished: bool
) -> None:
    """Every record the start reads is checked: one edited (its hash's first digit changed)
    anywhere in the span, or the record before it, refuses the start and is named."""
    pristine = tmp_path / "pristine"
    _journal(pristine, 6, unfinished=unfinished)
    checked = read_tail(pristine, CHECKPOINT).checked
    lines = [
        (path.name, index)
        for path in _files(pristine)
        for index in range(len(path.read_bytes().splitlines()))
    ]
    assert checked > 2
    for name, index in lines[-checked:]:
        case = tmp_path / f"{name}-{index}"
        case.mkdir()
        for path in _files(pristine):
            (case / path.name).write_bytes(path.read_bytes())
        raw = (case / name).read_bytes().splitlines(keepends=True)
        start = raw[index].index(b'"hash":"') + len(b'"hash":"')
        digit = b"1" if raw[index][start : start + 1] != b"1" else b"2"
        raw[index] = raw[index][:start] + digit + raw[index][start + 1 :]
        (case / name).write_bytes(b"".join(raw))
        with pytest.raises(JournalError, match="was edited") as raised:
            _open(case)
        assert raised.value.file.name == name
        assert raised.value.line == index + 1


def test_a_deleted_record_just_before_the_checkpoint_refuses_the_start(tmp_path: Path) -> None:
    """The link into the span is checked: the record before the last checkpoint removed, the
    checkpoint follows the wrong seq."""
    _journal(tmp_path, 6, unfinished=True)
    previous = _files(tmp_path)[-2]
    lines = previous.read_bytes().splitlines(keepends=True)
    del lines[-3]  # hand 6's last card (seq 29), before its checkpoint and hand 7's button
    previous.write_bytes(b"".join(lines))
    with pytest.raises(JournalError, match=r"journal-000003\.jsonl:8 \(seq 29\): found seq 30"):
        _open(tmp_path)


def test_a_torn_tail_of_the_current_file_is_set_aside_and_nothing_before_it_lost(
    tmp_path: Path,
) -> None:
    """A power cut mid-write leaves an unfinished last line: detected, reported, set
    aside; every record before it replayed, and the chain goes on from the last intact one."""
    _journal(tmp_path, 5, unfinished=True)
    expected = _from_last_checkpoint(tmp_path)
    current = _files(tmp_path)[-1]
    with current.open("ab") as stream:
        stream.write(b'{"data":{"card":"Q')
    writer, replayed = _open(tmp_path)
    with writer:
        assert writer.recovered_torn is not None
        assert writer.recovered_torn.after_seq == expected[-1].seq
        assert replayed == expected
        writer.append("card", {"card": "Qs", "hand": 6})
    assert verify(tmp_path).intact
    assert list(tmp_path.glob("*.torn"))


def test_a_torn_first_line_of_a_new_file_resumes_at_the_previous_files_checkpoint(
    tmp_path: Path,
) -> None:
    """A power cut writing the first record after a rotation: the current file holds only a
    torn line; it is set aside, and the start resumes at the previous file's last checkpoint."""
    _journal(tmp_path, 6, unfinished=False)
    expected = _from_last_checkpoint(tmp_path)
    (tmp_path / "journal-000004.jsonl").write_bytes(b'{"data":{"hand":7},"ha')
    writer, replayed = _open(tmp_path)
    with writer:
        assert writer.recovered_torn is not None
        assert writer.recovered_torn.file.name == "journal-000004.jsonl"
        assert writer.recovered_torn.after_seq == expected[-1].seq
        assert replayed == expected
        _deal(writer, 7)
    assert verify(tmp_path).intact
    assert (tmp_path / "journal-000004.jsonl").read_bytes().count(b"\n") == 5


def test_a_journal_without_checkpoints_is_read_and_replayed_whole(tmp_path: Path) -> None:
    """Written before checkpoints existed: the start goes back to the first record, whose link
    to the genesis value is checked, and replays everything."""
    with JournalWriter.open(tmp_path, clock=StepClock(), fsync=False, hands_per_file=1) as w:
        for hand in range(1, 4):
            w.append("hand_started", {"hand": hand})
            w.append("card", {"card": "As"})
    writer, replayed = _open(tmp_path)
    writer.close()
    assert replayed == list(JournalReader(tmp_path))
    _rewrite_line(_files(tmp_path)[0], 0, {"prev": "1" * 64}, rehash=True)
    with pytest.raises(JournalError, match=r"journal-000001\.jsonl:1 \(seq 1\).*genesis"):
        _open(tmp_path)


def test_a_missing_or_empty_earlier_file_refuses_the_start(tmp_path: Path) -> None:
    """The files' names are all checked at start (cheap): a gap or an empty earlier file
    refuses it, as the whole read does."""
    _journal(tmp_path, 6, unfinished=True)
    (tmp_path / "journal-000001.jsonl").write_bytes(b"")
    with pytest.raises(JournalError, match="holds no record but is not the last file"):
        _open(tmp_path)
    (tmp_path / "journal-000001.jsonl").unlink()
    with pytest.raises(JournalError, match=r"journal-000001\.jsonl is missing before it"):
        _open(tmp_path)


def test_hands_in_the_current_file_are_counted_so_rotation_is_unchanged(tmp_path: Path) -> None:
    """A writer reopened from the tail counts the hands already in the current file: stopping
    and starting every hand rotates where one uninterrupted writer does."""
    once, restarted = tmp_path / "once", tmp_path / "restarted"
    _journal(once, 7, unfinished=False, per_file=3)
    for hand in range(1, 8):
        writer, _ = _open(restarted, per_file=3)
        with writer:
            _deal(writer, hand)
    assert [len(p.read_bytes().splitlines()) for p in _files(restarted)] == [
        len(p.read_bytes().splitlines()) for p in _files(once)
    ]


def test_an_empty_last_file_made_just_before_a_power_cut_resumes_from_the_previous_file(
    tmp_path: Path,
) -> None:
    """docs/journal.md, Files and rotation: a file created at rotation just before a power cut
    is empty; the start resumes at the previous file's last checkpoint, and the next record
    goes into the empty file."""
    _journal(tmp_path, 6, unfinished=False)
    expected = _from_last_checkpoint(tmp_path)
    (tmp_path / "journal-000004.jsonl").write_bytes(b"")
    writer, replayed = _open(tmp_path)
    with writer:
        assert replayed == expected
        assert writer.current_file == tmp_path / "journal-000004.jsonl"
        writer.append("hand_started", {"hand": 7})
    assert len(_files(tmp_path)) == 4
    assert verify(tmp_path).intact
