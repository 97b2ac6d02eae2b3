"""What a start journals for the table's key (controller/journal/tablekey.py ``key_start``), in
every state a rotation can leave the files and the journal in (docs/journal.md, Signed
checkpoints: What a start refuses)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.journal import signing
from controller.journal.tablekey import TableKey, TableKeyError, key_start, unsigned_start

OLD = TableKey.of(Ed25519PrivateKey.generate(), Path("/k/table.key.old"))
NEW = TableKey.of(Ed25519PrivateKey.generate(), Path("/k/table.key"))


@pytest.mark.fast
def test_an_unsigned_journal_or_the_same_key_journals_the_key_plainly() -> None:
    for journaled in (None, NEW.key_id):
        start = key_start(journaled, NEW, None)
        assert (start.record.key_id, start.record.previous, start.retire) == (
            NEW.key_id,
            None,
            None,
        )


@pytest.mark.fast
def test_the_old_key_in_force_hands_over_signed_and_is_retired() -> None:
    start = key_start(OLD.key_id, NEW, OLD)
    assert start.record.previous == OLD.key_id
    assert start.retire == OLD.path
    assert start.record.rotation_signature is not None
    assert signing.verify_rotation(
        OLD.public_key, OLD.key_id, NEW.public_key, start.record.rotation_signature
    )


@pytest.mark.fast
def test_a_hand_over_journaled_before_a_crash_is_not_journaled_twice() -> None:
    """The start journaled the rotation and stopped before deleting table.key.old: the next
    journals the new key plainly and deletes the old one now."""
    start = key_start(NEW.key_id, NEW, OLD)
    assert start.record.previous is None
    assert start.retire == OLD.path


@pytest.mark.fast
def test_a_journal_signed_by_another_key_is_refused() -> None:
    stranger = TableKey.of(Ed25519PrivateKey.generate(), Path("/x"))
    with pytest.raises(TableKeyError, match=f"signed by key {stranger.key_id}"):
        key_start(stranger.key_id, NEW, OLD)
    with pytest.raises(TableKeyError, match="tablectl keys rotate"):
        key_start(OLD.key_id, NEW, None)
    with pytest.raises(TableKeyError, match=r"there is no private key at /k/table\.key"):
        unsigned_start(OLD.key_id, NEW.path)
    unsigned_start(None, NEW.path)  # an unsigned journal runs on unsigned
