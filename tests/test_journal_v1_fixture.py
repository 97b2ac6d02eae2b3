"""A journal written at schema version 1 (before version 2's tag families, docs/journal.md, The
schema) still verifies, decodes, recalls and replays: ``tests/fixtures/journal-v1`` holds one,
three hands of Mambo stud (14.13A) at three seats (tests/fixtures/README.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.history.recall import hands
from controller.journal import JournalReader, schema, verify
from controller.poker.games import GAMES
from controller.table.core import TableCore
from drivers.seam.tags import TagFamily, tag_family
from simulator.simtable import demo_config

JOURNAL = Path(__file__).parent / "fixtures" / "journal-v1" / "mambo"


@pytest.mark.fast
def test_the_version_1_journal_verifies_and_every_record_decodes_at_its_version() -> None:
    report = verify(JOURNAL)
    assert report.intact, report.summary()
    records = list(JournalReader(JOURNAL))
    assert {r.data.get("version") for r in records if r.kind in schema.VERSIONED} == {1}
    for record in records:
        schema.decode(record)
    uids = {str(r.data["uid"]) for r in records if r.kind == "card"}
    assert {tag_family(uid) for uid in uids} == {TagFamily.ISO15693}


@pytest.mark.fast
def test_the_version_1_journal_recalls_and_replays_without_a_mismatch() -> None:
    assert [h.number for h in hands(JournalReader(JOURNAL), 10)] == [1, 2, 3]
    spec = GAMES["mambo"]
    core = TableCore(spec, demo_config(spec, 3))
    for record in JournalReader(JOURNAL):
        core.replay(record)
    assert core.finished == 3
