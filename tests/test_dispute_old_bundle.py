"""A dispute bundle made by an earlier tablectl (tests/fixtures/bundle-before-wording: the code
before the table's one wording, docs/display.md, The table's words) still verifies: its records,
chain and signatures are the evidence and are checked as ever; its told files, that software's
words, are compared with this tablectl's telling only when the same software made the bundle,
and otherwise said to differ, not failed (docs/journal.md, The dispute bundle)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.history import dispute
from controller.journal.record import parse_line

pytestmark = pytest.mark.fast

FIXTURE = Path(__file__).parent / "fixtures" / "bundle-before-wording"
BUNDLE = FIXTURE / "bundle"
TABLE_PUB = FIXTURE / "table.pub"


def verified(bundle: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = main(["dispute", "verify", str(bundle), "--public-key", str(TABLE_PUB), "--json"])
    found: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert (status == 0) == found["ok"]
    assert found["verified"] == (found["ok"] and found["key_source"] == "file")
    return found


def checks(found: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in found["checks"]}


def test_the_fixture_is_a_version_1_bundle_in_the_earlier_words() -> None:
    """What the test stands on: no maker named, and recall.txt in the words of before (the
    game's id, a raise said as the chips put in) where this tablectl says them otherwise."""
    manifest = dispute.read_manifest((BUNDLE / dispute.MANIFEST).read_bytes())
    assert (manifest.version, manifest.made_by) == (1, None)
    told = (BUNDLE / dispute.RECALL).read_text(encoding="utf-8")
    assert told.startswith("Hand 1, mambo, ")
    assert "    seat 1 raises 8\n" in told
    records = [parse_line(line) for line in (BUNDLE / dispute.RECORDS).read_bytes().splitlines()]
    again = dispute.derived(records, 1, manifest.table_id, manifest.hand_started_seq)
    now = again[dispute.RECALL].decode()
    assert now.startswith("Hand 1, Mambo Stud, ")
    assert "    seat 1 raises to 10\n" in now


def test_an_earlier_tablectl_s_bundle_verifies_and_its_told_files_are_noted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = verified(BUNDLE, capsys)
    assert found["ok"], found
    by_name = checks(found)
    assert list(by_name) == [
        "manifest", "files", "chain", "signatures", "hand", "terms and software", "told",
    ]  # fmt: skip
    assert all(c["ok"] for c in found["checks"])
    assert (
        "the tablectl that made it not named (a version 1 bundle)"
        in (by_name["manifest"]["detail"])
    )
    assert "the records up to 60 are under key" in by_name["signatures"]["detail"]
    told = by_name["told"]
    assert told["note"] is True
    assert told["detail"].startswith(
        "hand.phh, recall.json, recall.txt differ from this tablectl's telling of "
        "the records (tablectl "
    )
    assert "made by other software (not named: a version 1 bundle)" in told["detail"]
    assert "; software.json, terms.json equal." in told["detail"]
    assert "the evidence is the records and their signatures, checked above" in told["detail"]
    assert [c["name"] for c in found["checks"] if c["note"]] == ["told"]


def test_the_note_is_printed_as_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dispute", "verify", str(BUNDLE), "--public-key", str(TABLE_PUB)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(
        f"dispute bundle {BUNDLE} (table DISPUTE-OLD, hand 1): links intact; signatures GOOD, "
        "checked with the key given ("
    )
    assert lines[-1].startswith("  told: note: hand.phh, recall.json, recall.txt")
    assert all(": ok: " in line for line in lines[1:-1])


def test_an_earlier_tablectl_s_bundle_with_a_record_edited_still_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evidence is checked as ever: a record's amount edited (the manifest's hash of the
    records put right) fails the chain, whichever software made the bundle."""
    bundle = tmp_path / "bundle"
    shutil.copytree(BUNDLE, bundle)
    records = bundle / dispute.RECORDS
    text = records.read_bytes()
    raised = b'"amount":8,"kind":"action_taken"'
    assert text.count(raised) == 1
    records.write_bytes(text.replace(raised, raised.replace(b"8", b"9")))
    manifest = dispute.read_manifest((bundle / dispute.MANIFEST).read_bytes())
    files = tuple(
        dispute.BundleFile(f.name, dispute.sha256((bundle / f.name).read_bytes()))
        for f in manifest.files
    )
    fields = {name: getattr(manifest, name) for name in dispute.Manifest.__dataclass_fields__}
    edited = dispute.Manifest(**{**fields, "files": files})
    (bundle / dispute.MANIFEST).write_bytes(dispute.manifest_text(edited))
    found = verified(bundle, capsys)
    assert not found["ok"]
    failed = {c["name"]: c["detail"] for c in found["checks"] if not c["ok"]}
    assert list(failed) == ["chain"]
    assert "hash" in failed["chain"]
