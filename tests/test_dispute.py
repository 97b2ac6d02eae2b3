"""The dispute bundle (13:69E-1.31(b): a disputed hand's game history captured and
kept; docs/journal.md, The dispute bundle): ``tablectl dispute`` makes it from a keyed simulated
table's journal, ``tablectl dispute verify`` checks it in a fresh folder; an edit re-chained, an
edited recall and a missing file each fail it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from keyedtable import keyed_table

from controller.cli.main import main
from controller.history import attest, dispute
from controller.journal import JournalReader, Record, signing
from controller.journal import tablerecords as rec
from controller.journal.record import make_record_line, parse_line
from controller.journal.tablekey import TABLE_KEY

TABLE_ID = "DISPUTE-1"


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One keyed table's configuration for the module (dealing is the slow part)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield keyed_table(tmp_path_factory.mktemp("table"), monkeypatch, TABLE_ID, seed=1)


def records(config: Path) -> list[Record]:
    return list(JournalReader(config.parent / "journal"))


def made(config: Path, hand: int, out: Path, capsys: pytest.CaptureFixture[str]) -> str:
    status = main(["dispute", "--hand", str(hand), "--config", str(config), "--out", str(out)])
    said = capsys.readouterr()
    assert status == 0, said.err + said.out
    return said.out


def verified(bundle: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    status = main(["dispute", "verify", str(bundle), "--json", *extra])
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert (status == 0) == found["ok"]
    assert found["verified"] == (found["ok"] and found["key_source"] == "file")
    return found


def failed(found: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["detail"] for c in found["checks"] if not c["ok"]}


def test_a_bundle_verifies_on_its_own_in_a_fresh_folder(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand 3 (after the restart): its records run from hand 2's signed checkpoint (before the
    second start's software record) to hand 3's; copied elsewhere with no table.toml, the
    bundle verifies by its own key and by the table's table.pub (the stronger)."""
    said = made(table, 3, tmp_path / "made", capsys)
    assert "from a signed checkpoint to the signed checkpoint after it" in said
    fresh = tmp_path / "elsewhere" / "bundle"
    shutil.copytree(tmp_path / "made", fresh)
    manifest = dispute.read_manifest((fresh / dispute.MANIFEST).read_bytes())
    journal = records(table)
    software = [r.seq for r in journal if r.kind == "software"]
    checkpoints = [r.seq for r in journal if r.kind == rec.CHECKPOINT]
    assert manifest.software_seq == software[1]
    assert (manifest.begins, manifest.first_seq) == ("checkpoint", checkpoints[1])
    assert (manifest.ends, manifest.last_seq) == ("checkpoint", checkpoints[2])
    lines = (fresh / dispute.RECORDS).read_bytes().splitlines()
    assert lines == [r.line().rstrip(b"\n") for r in journal[checkpoints[1] - 1 : checkpoints[2]]]
    assert {f.name for f in manifest.files} == {
        dispute.RECORDS, dispute.RECALL, dispute.RECALL_JSON, dispute.PHH, dispute.TERMS,
        dispute.SOFTWARE_FILE, dispute.PUBLIC_KEY,
    }  # fmt: skip
    assert (fresh / dispute.RECALL).read_text().startswith("Hand 3, Mambo Stud, ")
    public = table.parent / "keys" / "table.pub"
    assert (fresh / dispute.PUBLIC_KEY).read_text().strip() == public.read_text().strip()
    # The maker named: this tablectl, as controller/history/attest.py reads its files.
    found = attest.installed(None)
    assert manifest.version == 2
    assert manifest.made_by == dispute.MadeBy(found.version, found.digest)
    own = verified(fresh, capsys)
    assert own["ok"], own
    assert not own["verified"], own
    assert own["key_source"] == "bundle"
    assert "proves nothing against whoever made it" in own["key_strength"]
    given = verified(fresh, capsys, "--public-key", str(public))
    assert given["verified"], given
    assert given["key_source"] == "file"
    # docs/journal.md, Verdicts: the bundle's own table.pub checks nothing a forger could not
    # make; the first line says so, and says who vouches when a key is given.
    assert main(["dispute", "verify", str(fresh)]) == 0
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith(
            ": links intact; signatures NOT CHECKED: no key given (--public-key FILE); they agree "
            "with the bundle's own table.pub only"
        )
    )
    assert main(["dispute", "verify", str(fresh), "--public-key", str(public)]) == 0
    key_id = signing.key_id(signing.parse_public_text(public.read_text(), source="table.pub"))
    assert (
        capsys.readouterr()
        .out.splitlines()[0]
        .endswith(f": links intact; signatures GOOD, checked with the key given ({key_id})")
    )


def test_a_hand_of_the_first_start_is_bundled_from_the_genesis(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No signed checkpoint before the first start's software record: hand 1's records begin at
    record 1 (the genesis), and verify."""
    made(table, 1, tmp_path / "b", capsys)
    manifest = dispute.read_manifest((tmp_path / "b" / dispute.MANIFEST).read_bytes())
    assert (manifest.begins, manifest.first_seq, manifest.keys[0].seq) == ("genesis", 1, 2)
    assert verified(tmp_path / "b", capsys)["ok"]


def _rechained(bundle: Path, seq: int) -> None:
    """Record ``seq`` of the bundle edited and every record after it re-hashed, the manifest's
    hash of the records put right: what a forger without the private key can do."""
    lines = (bundle / dispute.RECORDS).read_bytes().splitlines()
    out: list[bytes] = []
    prev = parse_line(lines[0]).prev
    for line in lines:
        record = parse_line(line)
        data = dict(record.data)
        if record.seq == seq:
            data["reason"] = "rewritten"
        moment = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC)
        new, text = make_record_line(record.seq, moment, record.kind, data, prev)
        out.append(text)
        prev = new.hash
    (bundle / dispute.RECORDS).write_bytes(b"".join(out))
    _rehash(bundle)


def _rehash(bundle: Path) -> None:
    manifest = dispute.read_manifest((bundle / dispute.MANIFEST).read_bytes())
    files = tuple(
        dispute.BundleFile(f.name, dispute.sha256((bundle / f.name).read_bytes()))
        for f in manifest.files
    )
    text = dispute.manifest_text(dispute.Manifest(**{**_fields(manifest), "files": files}))
    (bundle / dispute.MANIFEST).write_bytes(text)


def _fields(manifest: dispute.Manifest) -> dict[str, Any]:
    return {name: getattr(manifest, name) for name in dispute.Manifest.__dataclass_fields__}


def test_a_record_edited_and_rechained_fails_the_signature(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made(table, 3, tmp_path / "b", capsys)
    journal = records(table)
    manifest = dispute.read_manifest((tmp_path / "b" / dispute.MANIFEST).read_bytes())
    device = next(r.seq for r in journal if r.kind == rec.DEVICE and r.seq > manifest.first_seq)
    _rechained(tmp_path / "b", device)
    found = verified(tmp_path / "b", capsys)
    assert not found["ok"]
    wrong = failed(found)
    assert list(wrong) == ["signatures"]
    assert "rewritten without the private key" in wrong["signatures"]


def test_a_forger_s_own_key_in_the_bundle_fails_against_the_table_s_key(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bundle re-signed whole with a forger's key passes its own table.pub (which is why that
    proves little), and fails against the table's table.pub."""
    made(table, 3, tmp_path / "b", capsys)
    bundle = tmp_path / "b"
    forger = Ed25519PrivateKey.generate()
    public = signing.public_hex(forger)
    lines = (bundle / dispute.RECORDS).read_bytes().splitlines()
    out, prev = [], parse_line(lines[0]).prev
    for line in lines:
        record = parse_line(line)
        data = dict(record.data)
        if record.kind == TABLE_KEY:
            data = {"public_key": public, "key_id": signing.key_id(public)}
        if record.kind == rec.CHECKPOINT:
            data["signature"] = {
                "key_id": signing.key_id(public),
                "signature": signing.sign_checkpoint(forger, record.seq, prev),
            }
        moment = datetime.fromisoformat(record.ts[:-1]).replace(tzinfo=UTC)
        new, text = make_record_line(record.seq, moment, record.kind, data, prev)
        out.append(text)
        prev = new.hash
    (bundle / dispute.RECORDS).write_bytes(b"".join(out))
    (bundle / dispute.PUBLIC_KEY).write_text(public + "\n")
    manifest = dispute.read_manifest((bundle / dispute.MANIFEST).read_bytes())
    keys = (dispute.BundleKey(signing.key_id(public), public),)
    fields = {**_fields(manifest), "keys": keys}
    (bundle / dispute.MANIFEST).write_bytes(dispute.manifest_text(dispute.Manifest(**fields)))
    _rehash(bundle)
    own = verified(bundle, capsys)
    assert own["ok"]
    assert not own["verified"]
    # Never said verified without a qualification: the signatures were not checked.
    assert own["signatures_checked"] == "not checked"
    assert "signatures NOT CHECKED: no key given" in own["verdict"]
    assert main(["dispute", "verify", str(bundle)]) == 0
    assert "; signatures NOT CHECKED: no key given" in capsys.readouterr().out.splitlines()[0]
    found = verified(bundle, capsys, "--public-key", str(table.parent / "keys" / "table.pub"))
    assert "never came in force" in failed(found)["signatures"]
    assert found["signatures_checked"] == "bad"
    assert found["verdict"] == "links intact; signatures BAD"


def test_an_edited_recall_fails(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made(table, 3, tmp_path / "b", capsys)
    recall = tmp_path / "b" / dispute.RECALL
    recall.write_text(recall.read_text().replace("settled:", "settled (edited):", 1))
    found = verified(tmp_path / "b", capsys)
    assert "recall.txt's SHA-256" in failed(found)["files"]
    _rehash(tmp_path / "b")  # the manifest made to match: the recall no longer is the records'
    found = verified(tmp_path / "b", capsys)
    assert failed(found) == {
        "told": "recall.txt not what the records tell (made again from them, they differ)"
    }


def test_an_edited_recall_another_software_made_is_noted_not_vouched_for(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same edit in a bundle whose manifest names other software: its told files are that
    software's words, so verify says they differ and are not vouched for, and verifies the
    evidence (docs/journal.md, The dispute bundle)."""
    made(table, 3, tmp_path / "b", capsys)
    bundle = tmp_path / "b"
    recall = bundle / dispute.RECALL
    recall.write_text(recall.read_text().replace("settled:", "settled (edited):", 1))
    manifest = dispute.read_manifest((bundle / dispute.MANIFEST).read_bytes())
    other = dispute.MadeBy("0.0.9", "ab" * 32)
    fields = {**_fields(manifest), "made_by": other}
    (bundle / dispute.MANIFEST).write_bytes(dispute.manifest_text(dispute.Manifest(**fields)))
    _rehash(bundle)
    found = verified(bundle, capsys)
    assert found["ok"], found
    told = next(c for c in found["checks"] if c["name"] == "told")
    assert told["note"] is True
    assert told["detail"].startswith(
        "recall.txt differs from this tablectl's telling of the records (tablectl "
    )
    assert "made by other software (tablectl 0.0.9, files digest abababababab)" in told["detail"]
    assert "; hand.phh, recall.json, software.json, terms.json equal." in told["detail"]
    manifest_check = next(c for c in found["checks"] if c["name"] == "manifest")
    assert "made by tablectl 0.0.9, files digest abababababab" in manifest_check["detail"]


def test_a_missing_file_fails(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made(table, 3, tmp_path / "b", capsys)
    (tmp_path / "b" / dispute.PHH).unlink()
    found = verified(tmp_path / "b", capsys)
    assert failed(found) == {"files": "hand.phh is missing"}
    (tmp_path / "b" / dispute.MANIFEST).unlink()
    assert "manifest.json cannot be read" in failed(verified(tmp_path / "b", capsys))["manifest"]


def test_what_dispute_refuses_is_named(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A hand not in the journal, a folder not empty (exit 2); a journal that does not verify
    (exit 1), naming the first bad record."""
    base = ["dispute", "--config", str(table), "--out"]
    assert main([*base, str(tmp_path / "a"), "--hand", "9"]) == 2
    assert "hand 9 is not in the journal" in capsys.readouterr().err
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    assert main([*base, str(tmp_path / "full"), "--hand", "3"]) == 2
    assert "--out" in capsys.readouterr().err
    assert main(["dispute", "--hand", "3"]) == 2
    assert "expected --hand N and --out DIR" in capsys.readouterr().err
    copy = tmp_path / "copy"
    shutil.copytree(table.parent / "journal", copy / "journal")
    shutil.copytree(table.parent / "keys", copy / "keys")
    config = copy / "table.toml"
    text = table.read_text().replace(str(table.parent / "journal"), str(copy / "journal"))
    config.write_text(text)
    first = copy / "journal" / "journal-000001.jsonl"
    lines = first.read_bytes().splitlines(keepends=True)
    lines[4] = lines[4].replace(b'"seq":5', b'"seq":5 ')
    first.write_bytes(b"".join(lines))
    assert (
        main(["dispute", "--config", str(config), "--out", str(tmp_path / "c"), "--hand", "3"]) == 1
    )
    err = capsys.readouterr().err
    assert "does not verify" in err
    assert "seq 5" in err
    assert not (tmp_path / "c").exists()


def test_a_later_hand_of_a_start_reaches_back_to_its_software_record(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand 4, the second start's second hand: its records begin at hand 2's signed checkpoint,
    the last before that start's software record, not at hand 3's (the software in force and its
    key are then records of the bundle, under the same signatures)."""
    made(table, 4, tmp_path / "b", capsys)
    manifest = dispute.read_manifest((tmp_path / "b" / dispute.MANIFEST).read_bytes())
    journal = records(table)
    checkpoints = [r.seq for r in journal if r.kind == rec.CHECKPOINT]
    assert (manifest.first_seq, manifest.last_seq) == (checkpoints[1], checkpoints[3])
    assert "  software: " in (tmp_path / "b" / dispute.RECALL).read_text()
    assert verified(tmp_path / "b", capsys)["ok"]


def test_a_hand_in_play_is_not_bundled(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The journal cut in hand 4 (a table stopped mid-hand): the recall would show face-down
    cards of a hand in play (controller/poker/announce.py hidden_cards), so dispute refuses,
    exit 1."""
    copy = tmp_path / "copy"
    shutil.copytree(table.parent / "keys", copy / "keys")
    (copy / "journal").mkdir()
    journal = records(table)
    started = [r.seq for r in journal if r.kind == rec.HAND_STARTED][3]
    cut = b"".join(r.line() for r in journal[: started + 5])
    (copy / "journal" / "journal-000001.jsonl").write_bytes(cut)
    config = copy / "table.toml"
    config.write_text(table.read_text().replace(str(table.parent), str(copy)))
    out = tmp_path / "b"
    assert main(["dispute", "--config", str(config), "--out", str(out), "--hand", "4"]) == 1
    assert "hand 4 is in play: its face-down cards stay hidden" in capsys.readouterr().err
    assert not out.exists()


def test_a_hand_without_its_signed_checkpoint_yet_ends_at_the_journal_s_end_said_so(
    table: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The journal cut just before hand 4's checkpoint (the power went between the hand's end
    and it): the bundle runs to the journal's end, says so, and verify says which records only
    the chain covers."""
    copy = tmp_path / "copy"
    shutil.copytree(table.parent / "keys", copy / "keys")
    (copy / "journal").mkdir()
    journal = records(table)
    last = [r.seq for r in journal if r.kind == rec.CHECKPOINT][3]
    cut = b"".join(r.line() for r in journal[: last - 1])
    (copy / "journal" / "journal-000001.jsonl").write_bytes(cut)
    config = copy / "table.toml"
    config.write_text(table.read_text().replace(str(table.parent), str(copy)))
    said = made(config, 4, tmp_path / "b", capsys)
    assert "to the journal's end (no signed checkpoint follows the hand yet)" in said
    manifest = dispute.read_manifest((tmp_path / "b" / dispute.MANIFEST).read_bytes())
    assert (manifest.ends, manifest.last_seq) == ("journal_end", last - 1)
    found = verified(tmp_path / "b", capsys)
    assert found["ok"], found
    detail = next(c["detail"] for c in found["checks"] if c["name"] == "signatures")
    assert "are covered by the chain only (no signed checkpoint follows them yet)" in detail
