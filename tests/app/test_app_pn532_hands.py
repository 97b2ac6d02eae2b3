"""Whole hands dealt by the bench bot through simulated PN532 readers at the dealing slot and
the discard reader (docs/hardware.md; docs/simulator.md, PN532 readers): the same seed deals
the same hands to the same results as through the protocol shoe, each card a pitch of its
NTAG213 tag past a reader's field, journaled once with the host's origin."""

from __future__ import annotations

from pathlib import Path

import pytest
from apphelp import journal_records

from drivers.seam.tags import TagFamily, tag_family
from simulator.demo import run_headless


def reads(journal: Path) -> list[dict[str, object]]:
    return [data for kind, data in journal_records(journal) if kind == "card"]


def dealt_alike(tmp_path: Path, game: str, hands: int) -> None:
    protocol = run_headless(game, hands, tmp_path / "protocol", seed=5)
    pn532 = run_headless(game, hands, tmp_path / "pn532", seed=5, shoe="pn532")
    assert (pn532.hands, pn532.voided, pn532.journal_intact) == (hands, 0, True)
    assert (pn532.net, pn532.settled, pn532.showdowns) == (
        protocol.net,
        protocol.settled,
        protocol.showdowns,
    )
    assert "(the PN532s' reads take no acknowledgement)" in pn532.lines()[1]
    cards = reads(pn532.journal)
    assert len(cards) == len(reads(protocol.journal))  # every card read once: none missed
    assert {tag_family(str(c["uid"])) for c in cards} == {TagFamily.ISO14443A}
    assert {str(c["boot"])[0] for c in cards} == {"H"}  # the host's origin
    decisions = [d for kind, d in journal_records(pn532.journal) if kind == "decision"]
    assert not [d for d in decisions if "alarm" in str(d) or "refused" in str(d)]


def test_a_hand_of_mambo_through_pn532_readers_settles_as_through_the_protocol_shoe(
    tmp_path: Path,
) -> None:
    dealt_alike(tmp_path, "mambo", 1)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["five-card-stud", "triple-draw"])
def test_hands_of_each_game_through_pn532_readers(tmp_path: Path, game: str) -> None:
    """Triple draw's discards pass the discard reader's PN532."""
    dealt_alike(tmp_path, game, 2)
