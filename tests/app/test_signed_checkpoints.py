"""Signed checkpoints (docs/journal.md, Signed checkpoints): a table with a key
journals it at every start and signs every checkpoint; ``verify`` with its public key catches a
journal rewritten without the private key, even re-hashed; a rotation hands over signed by the
old key, and the old key's signature after it is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest
from apphelp import AS_ROOT, dealer, json_log, sim_table, table_toml
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_app_commands import ROOT

from controller.cli.commands.status import KeyCheck, check_journal, check_signing
from controller.cli.main import main
from controller.config.settings import KeySettings
from controller.journal import GENESIS, JournalReader, Record, keyfiles, schema, signing, verify
from controller.journal import tablerecords as rec
from controller.journal.record import make_record_line, parse_line
from controller.journal.tablekey import TABLE_KEY, TableKeyError, read_key
from controller.journal.verify_signatures import SignatureCheck
from controller.table.core import TableCore
from simulator.table import Simulator


def _keys(tmp_path: Path) -> KeySettings:
    settings = KeySettings(tmp_path / "keys" / "table.key")
    keyfiles.init(settings)
    return settings


def _public(settings: KeySettings) -> str:
    return signing.parse_public_text(settings.public_key.read_text(), source="table.pub")


def _records(directory: Path) -> list[Record]:
    return list(JournalReader(directory))


def _dealt(tmp_path: Path, keys: KeySettings | None, hands: int = 2) -> Path:
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=hands).run()
    return tmp_path / "journal"


def _journal_lines(directory: Path) -> list[bytes]:
    lines: list[bytes] = []
    for path in sorted(directory.glob("journal-*.jsonl")):
        lines.extend(path.read_bytes().splitlines())
    return lines


def _rewrite(directory: Path, change: dict[int, dict[str, object] | None]) -> None:
    """The journal re-chained after changing (or, None, dropping fields of) the records of
    ``change``'s seqs: what someone without the private key can do (one file)."""
    lines = _journal_lines(directory)
    out, prev = [], GENESIS
    for line in lines:
        record = parse_line(line)
        data = dict(record.data)
        if record.seq in change:
            edit = change[record.seq]
            if edit is None:
                data.pop("signature")
            else:
                data.update(edit)
        moment = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC)
        new, text = make_record_line(record.seq, moment, record.kind, data, prev)
        out.append(text)
        prev = new.hash
    for path in directory.glob("journal-*.jsonl"):
        path.unlink()
    (directory / "journal-000001.jsonl").write_bytes(b"".join(out))


def test_a_keyed_table_journals_its_key_and_signs_every_checkpoint(tmp_path: Path) -> None:
    """The table_key record at the start, before the devices' records; every checkpoint signed
    over its own seq and prev by that key (docs/journal.md, Signed checkpoints)."""
    keys = _keys(tmp_path)
    directory = _dealt(tmp_path, keys)
    records = _records(directory)
    public = _public(keys)
    first_key = next(r for r in records if r.kind == TABLE_KEY)
    first_device = next(r for r in records if r.kind == rec.DEVICE)
    assert first_key.seq < first_device.seq
    assert first_key.data == {"public_key": public, "key_id": signing.key_id(public)}
    checkpoints = [r for r in records if r.kind == rec.CHECKPOINT]
    assert len(checkpoints) == 2
    for checkpoint in checkpoints:
        decoded = schema.decode(checkpoint)
        assert isinstance(decoded, schema.CheckpointData)
        assert decoded.signature is not None
        assert decoded.signature.key_id == signing.key_id(public)
        assert signing.verify_checkpoint(
            public, checkpoint.seq, checkpoint.prev, decoded.signature.signature
        )
    report = verify(directory, check=SignatureCheck(public))
    assert report.intact, report.summary()
    assert report.checked is not None
    assert "2 checkpoints signed" in report.checked


def test_a_replay_ignores_the_signature_and_rebuilds_the_same_table(tmp_path: Path) -> None:
    """The core never holds the key: a whole replay of a signed journal passes every checkpoint
    (compared without its signature) and ends where the table ended."""
    keys = _keys(tmp_path)
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=3).run()
        live = table.controller.core
        spec, config = table.spec, table.config
    core = TableCore(spec, config)
    for record in _records(tmp_path / "journal"):
        core.replay(record)
    assert core.table.state == live.table.state
    assert (core.finished, core.records) == (live.finished, live.records)


def test_a_rehashed_forged_chain_passes_the_chain_but_not_the_signatures(tmp_path: Path) -> None:
    """An edit before a checkpoint, the chain computed afresh: plain verify finds it intact,
    verify with the public key names the checkpoint whose signature no longer holds."""
    keys = _keys(tmp_path)
    directory = _dealt(tmp_path, keys)
    records = _records(directory)
    checkpoint = next(r for r in records if r.kind == rec.CHECKPOINT)
    edited = next(r for r in records if r.kind in (rec.SEATING, rec.DEVICE))
    assert edited.seq < checkpoint.seq
    _rewrite(directory, {edited.seq: {"reason": "rewritten"}})
    assert verify(directory).intact
    report = verify(directory, check=SignatureCheck(_public(keys)))
    assert not report.intact
    assert report.problem is not None
    assert report.problem.seq == checkpoint.seq
    assert "rewritten without the private key" in report.problem.reason


def test_a_stripped_signature_is_refused(tmp_path: Path) -> None:
    keys = _keys(tmp_path)
    directory = _dealt(tmp_path, keys)
    checkpoint = next(r for r in _records(directory) if r.kind == rec.CHECKPOINT)
    _rewrite(directory, {checkpoint.seq: None})
    assert verify(directory).intact
    report = verify(directory, check=SignatureCheck(_public(keys)))
    assert report.problem is not None
    assert report.problem.seq == checkpoint.seq
    assert "without a signature" in report.problem.reason


def test_a_wrong_public_key_is_refused(tmp_path: Path) -> None:
    """Another table's key, or a journal with no key at all: nothing is vouched for."""
    keys = _keys(tmp_path)
    directory = _dealt(tmp_path, keys)
    other = _keys(tmp_path / "other")
    report = verify(directory, check=SignatureCheck(_public(other)))
    assert report.problem is not None
    assert report.problem.whole_journal
    assert "never came in force" in report.problem.reason
    unsigned = _dealt(tmp_path / "unsigned", None, hands=1)
    report = verify(unsigned, check=SignatureCheck(_public(keys)))
    assert report.problem is not None
    assert "no table_key record" in report.problem.reason


def test_an_honest_rotation_passes_and_the_old_key_is_deleted(tmp_path: Path) -> None:
    """keys rotate, then a start: the table_key hand-over is signed by the old key, the old
    key's file is gone, later checkpoints are signed by the new key; verify passes with the old
    key's table.pub and with the new one's."""
    keys = _keys(tmp_path)
    old_public = _public(keys)
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=1).run()
        made = keyfiles.rotate(keys)
        assert keys.old_private_key.exists()
        table.stop_controller()
        table.start_controller()
        assert not keys.old_private_key.exists()
        dealer(table, hands=1).run()
    directory = tmp_path / "journal"
    handed = [r for r in _records(directory) if r.kind == TABLE_KEY][-1]
    assert handed.data["key_id"] == made.key.key_id
    assert handed.data["previous"] == signing.key_id(old_public)
    assert signing.verify_rotation(
        old_public,
        signing.key_id(old_public),
        made.key.public_key,
        str(handed.data["rotation_signature"]),
    )
    for public in (old_public, made.key.public_key):
        report = verify(directory, check=SignatureCheck(public))
        assert report.intact, report.summary()


def test_a_checkpoint_signed_by_the_old_key_after_the_rotation_is_refused(tmp_path: Path) -> None:
    """After the hand-over, a checkpoint re-signed by the rotated-away key (its holder forging
    what came after) is refused, naming the key rotated away."""
    keys = _keys(tmp_path)
    old = read_key(keys.private_key)
    assert old is not None
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=1).run()
        made = keyfiles.rotate(keys)
        table.stop_controller()
        table.start_controller()
        dealer(table, hands=1).run()
    directory = tmp_path / "journal"
    last = [r for r in _records(directory) if r.kind == rec.CHECKPOINT][-1]
    forged = {
        "key_id": old.key_id,
        "signature": signing.sign_checkpoint(old.private, last.seq, last.prev),
    }
    _rewrite(directory, {last.seq: {"signature": forged}})
    report = verify(directory, check=SignatureCheck(made.key.public_key))
    assert report.problem is not None
    assert report.problem.seq == last.seq
    assert "a key rotated away" in report.problem.reason


def test_a_start_refuses_a_key_the_journal_was_not_handed_to(tmp_path: Path) -> None:
    """A key file replaced by hand (not rotated): the signed journal does not continue under
    it, and a signed journal whose key is gone does not continue unsigned."""
    keys = _keys(tmp_path)
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=1).run()
        table.stop_controller()
        keys.private_key.unlink()
        keyfiles.init(keys)
        with pytest.raises(TableKeyError, match="tablectl keys rotate"):
            table.start_controller()
        keys.private_key.unlink()
        with pytest.raises(TableKeyError, match="there is no private key"):
            table.start_controller()


def test_a_rehashed_forgery_is_never_said_verified_without_a_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """docs/journal.md, Verdicts: a record edited and the chain re-hashed links whole. Without a
    key the first line says the signatures were NOT CHECKED (exit 0: nothing the links show);
    with the table's key it says BAD at the first checkpoint after the edit, exit 1."""
    keys = _keys(tmp_path)
    directory = _dealt(tmp_path, keys)
    edited = next(r for r in _records(directory) if r.kind == rec.HAND_STARTED)
    _rewrite(directory, {edited.seq: {"reason": "rewritten"}})
    first = next(
        r.seq for r in _records(directory) if r.kind == rec.CHECKPOINT and r.seq > edited.seq
    )
    journal = str(directory)
    capsys.readouterr()
    assert main(["journal", "verify", "--journal", journal]) == 0
    said = capsys.readouterr().out.splitlines()[0]
    assert said == (
        f"journal {journal}: links intact; signatures NOT CHECKED: no key given (--public-key FILE)"
    )
    assert main(["journal", "verify", "--journal", journal, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["links"], report["signatures_checked"]) == ("intact", "not checked")
    public = str(keys.public_key)
    assert main(["journal", "verify", "--journal", journal, "--public-key", public]) == 1
    out = capsys.readouterr().out
    assert (
        out.splitlines()[0] == f"journal {journal}: links intact; signatures BAD at record {first}"
    )
    assert "the journal was rewritten without the private key" in out
    assert main(["journal", "verify", "--journal", journal, "--json", "--public-key", public]) == 1
    assert json.loads(capsys.readouterr().out)["signatures_checked"] == "bad"


def test_journal_verify_public_key_in_text_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The right key passes (exit 0, the signatures' line); another table's fails (exit 1,
    named); a file that is no public key is a usage error (exit 2)."""
    keys = _keys(tmp_path)
    key = keys.private_key
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=1).run()
    journal = str(tmp_path / "journal")
    public = str(key.parent / "table.pub")
    capsys.readouterr()
    assert main(["journal", "verify", "--journal", journal, "--public-key", public]) == 0
    out = capsys.readouterr().out
    key_id = signing.key_id(signing.parse_public_text(Path(public).read_text(), source=public))
    assert out.splitlines()[0] == (
        f"journal {journal}: links intact; signatures GOOD, checked with the key given ({key_id})"
    )
    assert "signatures: 1 checkpoint signed by the key in force" in out
    assert main(["journal", "verify", "--journal", journal, "--public-key", public, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["intact"] is True
    assert report["signatures"].startswith("signatures: 1 checkpoint")
    other = tmp_path / "other.pub"
    other.write_text(signing.public_hex(Ed25519PrivateKey.generate()) + "\n")
    assert main(["journal", "verify", "--journal", journal, "--public-key", str(other)]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith(f"journal {journal}: links intact; signatures BAD: ")
    assert "never came in force" in out
    bad = tmp_path / "bad.pub"
    bad.write_text("hello\n")
    assert main(["journal", "verify", "--journal", journal, "--public-key", str(bad)]) == 2
    assert "expected an Ed25519 public key as 64 hex digits" in capsys.readouterr().err
    unreadable = tmp_path / "binary.pub"
    unreadable.write_bytes(b"\x80\x00")  # one not there is refused as the command line is read
    assert main(["journal", "verify", "--journal", journal, "--public-key", str(unreadable)]) == 2
    assert "expected a readable table.pub" in capsys.readouterr().err


def test_status_says_whether_the_journal_is_signed(tmp_path: Path) -> None:
    """tablectl status reads the key in force from the journal (the key file is the service
    user's alone): signed by the table's key, or NOT SIGNED."""
    keys = _keys(tmp_path / "signed")
    signed = _dealt(tmp_path / "signed", keys, hands=1)
    unsigned = _dealt(tmp_path / "unsigned", None, hands=1)
    _journal, since = check_journal(signed)
    assert check_signing(since) == KeyCheck(signing.key_id(_public(keys)), signed=True)
    _journal, since = check_journal(unsigned)
    assert check_signing(since) == KeyCheck(None, signed=False)


def _run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "run", "--config", str(config), *AS_ROOT],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_tablectl_run_refuses_a_key_file_that_is_no_key_naming_it(tmp_path: Path) -> None:
    """A configured key that is no Ed25519 key, or cannot be read (a folder in its place):
    exit 1 with the file named, no traceback, nothing journaled."""
    bad = tmp_path / "bad.key"
    bad.write_text("-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n")
    unreadable = tmp_path / "folder.key"
    unreadable.mkdir()
    with Simulator(transport="pty", directory=tmp_path / "sim", seed=4) as sim:
        config = table_toml(tmp_path, sim)
        text = config.read_text(encoding="utf-8")
        for key, said in (
            (bad, "not an unencrypted PEM PKCS8 private key"),
            (unreadable, "cannot be read"),
        ):
            config.write_text(text + f'\n[keys]\nprivate_key = "{key}"\n', encoding="utf-8")
            done = _run(config)
            assert done.returncode == 1, done.stderr
            assert f"tablectl run: {key}" in done.stderr
            assert said in done.stderr
            assert "Traceback" not in done.stderr
    assert not list((tmp_path / "journal").glob("journal-*.jsonl"))


def test_a_table_without_a_key_file_runs_unsigned_and_says_so(tmp_path: Path) -> None:
    """No file at [keys] private_key: the table deals, its checkpoints unsigned, and the start
    logs journal_unsigned (a warning) with what to do."""
    with (
        json_log(tmp_path) as lines,
        sim_table(tmp_path, keys=KeySettings(tmp_path / "none" / "table.key")) as table,
    ):
        dealer(table, hands=1).run()
    warned = [line for line in lines if line["event"] == "journal_unsigned"]
    assert len(warned) == 1
    assert warned[0]["level"] == "warning"
    assert "tablectl keys init" in str(warned[0]["todo"])
    records = _records(tmp_path / "journal")
    assert not [r for r in records if r.kind == TABLE_KEY]
    assert all("signature" not in r.data for r in records if r.kind == rec.CHECKPOINT)


def test_a_key_slipped_in_without_or_with_a_forged_hand_over_is_refused(tmp_path: Path) -> None:
    """A forger's own key journaled at a later start (to sign what follows with it): without
    the hand-over it is refused, and with a hand-over signed by the forger's key too."""
    keys = _keys(tmp_path)
    with sim_table(tmp_path, keys=keys) as table:
        dealer(table, hands=1).run()
        table.stop_controller()
        table.start_controller()  # the same key journaled again: no rotation
    directory = tmp_path / "journal"
    second = [r for r in _records(directory) if r.kind == TABLE_KEY][1]
    forger = Ed25519PrivateKey.generate()
    public = signing.public_hex(forger)
    slipped = {"public_key": public, "key_id": signing.key_id(public)}
    _rewrite(directory, {second.seq: slipped})
    report = verify(directory, check=SignatureCheck(_public(keys)))
    assert report.problem is not None
    assert report.problem.seq == second.seq
    assert "without its hand-over" in report.problem.reason
    previous = signing.key_id(_public(keys))
    forged = signing.sign(forger, signing.rotation_message(previous, public))
    _rewrite(directory, {second.seq: {"previous": previous, "rotation_signature": forged}})
    report = verify(directory, check=SignatureCheck(_public(keys)))
    assert report.problem is not None
    assert report.problem.seq == second.seq
    assert "is not key" in report.problem.reason
