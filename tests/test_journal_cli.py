"""``tablectl journal verify``: the verdict it prints and its exit status (0, 1, 2)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from journal_support import write_journal

from controller.cli.main import EXIT_BROKEN_PIPE, build_parser, main
from controller.config.settings import JournalSettings
from controller.journal import JournalWriter, verify

#: A journal as a table writes it (tests/fixtures/README.md).
TABLE_JOURNAL = Path(__file__).parent / "fixtures" / "journal-before-schema" / "mambo"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["journal", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_journal_of_one_record_is_counted_in_the_singular(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One record in one file: "1 record checked in 1 file", not "1 records ... 1 files"."""
    write_journal(tmp_path, 1)
    status, out, _ = _run(capsys, "verify", "--journal", str(tmp_path))
    assert status == 0
    assert "  1 record checked in 1 file; head: seq 1 " in out


def test_intact_journal_exits_0_and_prints_the_head(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An intact journal: exit 0, 'intact', the record and file counts, the head as an anchor."""
    records = write_journal(tmp_path, 9, hands_per_file=1)
    status, out, err = _run(capsys, "verify", "--journal", str(tmp_path))
    assert status == 0
    assert out.splitlines()[0] == (
        f"journal {tmp_path}: links intact; signatures NOT CHECKED: no key given "
        "(--public-key FILE)"
    )
    assert "9 records checked in 3 files" in out
    assert f"anchor 9:{records[-1].hash}" in out
    assert err == ""


def test_tampered_journal_exits_1_naming_the_first_bad_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An edited record: exit 1, NOT INTACT, and file:line (seq) of the first bad record."""
    write_journal(tmp_path, 9, hands_per_file=1)
    second = tmp_path / "journal-000002.jsonl"
    second.write_bytes(second.read_bytes().replace(b'"seat":4', b'"seat":5'))
    status, out, _ = _run(capsys, "verify", "--journal", str(tmp_path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"journal {tmp_path}: links NOT INTACT at record 5; signatures not judged past the break"
    )
    assert "4 records checked" in out
    assert "first bad record: journal-000002.jsonl:2 (seq 5): hash" in out
    assert "(the record was edited)" in out


def test_torn_tail_exits_1_and_says_where(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A torn last record is reported (exit 1) with its place and the seq it follows."""
    write_journal(tmp_path, 4)
    with (tmp_path / "journal-000001.jsonl").open("ab") as stream:
        stream.write(b'{"data":{"card"')
    status, out, _ = _run(capsys, "verify", "--journal", str(tmp_path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"journal {tmp_path}: TORN TAIL, links intact up to record 4; signatures NOT CHECKED: "
        "no key given (--public-key FILE)"
    )
    assert "journal-000001.jsonl:5: torn last record, 15 bytes" in out


def test_anchor_catches_records_cut_off_the_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --anchor SEQ:HASH from an earlier verify, a journal cut short exits 1."""
    records = write_journal(tmp_path, 4)
    anchor = f"4:{records[-1].hash}"
    assert _run(capsys, "verify", "--journal", str(tmp_path), "--anchor", anchor)[0] == 0
    journal_file = tmp_path / "journal-000001.jsonl"
    journal_file.write_bytes(journal_file.read_bytes()[: -len(records[-1].line())])
    status, out, _ = _run(capsys, "verify", "--journal", str(tmp_path), "--anchor", anchor)
    assert status == 1
    assert "the journal ends at seq 3" in out
    assert "anchor 4: NOT MATCHED (the journal ends before that seq" in out


def test_verify_says_an_anchor_past_a_broken_link_was_not_reached(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A record edited before the anchored one: the chain breaks there, the anchor is not
    reached (neither matched nor said to differ), exit 1."""
    records = write_journal(tmp_path, 4)
    journal_file = tmp_path / "journal-000001.jsonl"
    journal_file.write_bytes(journal_file.read_bytes().replace(b'"seq":2,', b'"seq":7,', 1))
    status, out, _ = _run(
        capsys, "verify", "--journal", str(tmp_path), "--anchor", f"4:{records[-1].hash}"
    )
    assert status == 1
    assert "anchor 4: not reached (the chain is broken before it)" in out


def test_missing_directory_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A --journal that does not exist: exit 2 and the path named on stderr, as the command
    line is read; a file given for it is said to be a file."""
    a_file = TABLE_JOURNAL / "journal-000001.jsonl"
    for given, found in ((tmp_path / "nope", "it does not exist"), (a_file, "it is a file")):
        with pytest.raises(SystemExit) as refused:
            _run(capsys, "verify", "--journal", str(given))
        out, err = capsys.readouterr()
        assert refused.value.code == 2
        assert out == ""
        assert f"argument --journal: {given}: expected a readable folder: {found}" in err


def test_directory_without_journal_files_is_a_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pointing at a directory with no journal files is not called intact: exit 2."""
    status, _, err = _run(capsys, "verify", "--journal", str(tmp_path))
    assert status == 2
    assert "no journal files (journal-NNNNNN.jsonl)" in err


def test_bad_anchor_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--anchor that is not SEQ:HASH: argparse exits 2 and says what was expected."""
    with pytest.raises(SystemExit) as exit_info:
        main(["journal", "verify", "--journal", str(tmp_path), "--anchor", "4:abc"])
    assert exit_info.value.code == 2
    assert "expected a positive seq, a colon and 64 lowercase hex digits" in capsys.readouterr().err


def test_journal_without_an_action_prints_help_and_exits_2(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``tablectl journal`` alone names the actions and exits 2."""
    status, _, err = _run(capsys)
    assert status == 2
    assert "verify" in err


def test_the_console_entry_point_runs_verify(tmp_path: Path) -> None:
    """``python -m controller journal verify`` works end to end in a fresh process."""
    write_journal(tmp_path, 2)
    result = subprocess.run(
        [sys.executable, "-m", "controller", "journal", "verify", "--journal", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert "intact" in result.stdout


def test_verify_says_when_a_writer_has_the_journal_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Verifying a live journal says so: it may grow, and its last line may be mid-write."""
    write_journal(tmp_path, 2)
    with JournalWriter.open(tmp_path, fsync=False):
        status, out, _ = _run(capsys, "verify", "--journal", str(tmp_path))
        assert status == 0
        assert "a writer has the journal open" in out
        assert verify(tmp_path).writer_open
    assert not verify(tmp_path).writer_open
    assert "a writer" not in _run(capsys, "verify", "--journal", str(tmp_path))[1]


def test_verify_says_the_anchor_matched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--anchor of a record still there, unchanged: the output says it matched, not only exit 0."""
    records = write_journal(tmp_path, 4)
    status, out, _ = _run(
        capsys, "verify", "--journal", str(tmp_path), "--anchor", f"2:{records[1].hash}"
    )
    assert status == 0
    assert "anchor 2: matched (the record is there, unchanged)" in out


def test_verify_says_the_anchor_did_not_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--anchor with another hash than the record's: the output says NOT MATCHED, exit 1."""
    records = write_journal(tmp_path, 4)
    status, out, _ = _run(
        capsys, "verify", "--journal", str(tmp_path), "--anchor", f"3:{records[1].hash}"
    )
    assert status == 1
    assert "anchor 3: NOT MATCHED" in out


def test_every_journal_command_defaults_to_the_deployed_journal() -> None:
    """verify and recall read the deployed journal, /var/lib/tablectl/journal (docs/deploy.md),
    when no --journal is given; export reads the config's [journal] dir, which defaults to it."""
    parser = build_parser()
    deployed = Path("/var/lib/tablectl/journal")
    assert parser.parse_args(["journal", "verify"]).journal == deployed
    assert parser.parse_args(["recall"]).journal == deployed
    assert parser.parse_args(["export", "--out", "x"]).journal is None
    assert JournalSettings().dir == deployed


@pytest.mark.parametrize("command", [["journal", "verify"], ["recall"]])
def test_a_reader_that_goes_away_ends_the_command_quietly(
    tmp_path: Path, command: list[str]
) -> None:
    """``tablectl recall | head``: when the reader of stdout is gone, the command stops with
    status 141 (as a shell reports SIGPIPE) and no BrokenPipeError traceback on stderr.
    Recall reads a table's journal (its records decoded by the journal's schema: a made-up
    hand_started is refused), the committed one of a Mambo table."""
    if command == ["recall"]:
        shutil.copytree(TABLE_JOURNAL, tmp_path, dirs_exist_ok=True)
    else:
        write_journal(tmp_path, 4)
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line is written
    try:
        result = subprocess.run(
            [sys.executable, "-m", "controller", *command, "--journal", str(tmp_path)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent.parent,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert result.stderr == ""
    assert result.returncode == EXIT_BROKEN_PIPE
