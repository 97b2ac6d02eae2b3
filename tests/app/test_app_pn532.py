"""``tablectl run``'s service with a PN532 shoe (docs/hardware.md): table.toml names
``kind = "pn532"`` and its readers, the controller opens them through the seam, and a card
pitched past the slot's reader is journaled as a card of the deck in play with the host's
origin (docs/journal.md, Durability), a tag of the other family as a foreign tag."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from apphelp import THREE_SEATS, journal_records

from controller.cli.commands.config import summary
from controller.config.tabletoml import load_config
from controller.poker.cards import DECK
from controller.poker.inputs import ReadPoint
from controller.table.loop import Controller
from controller.table.service import build_controller
from drivers.deck import Deck
from drivers.pn532.backend import Pn532Shoe
from simulator.pn532.serve import Pn532Readers
from simulator.pn532.shoe import Pn532Pitch
from simulator.tablefile import write_table_toml

PATIENCE = 20.0


def decks(directory: Path) -> list[Path]:
    """Decks A and B of NTAG213 stickers (7-byte UIDs)."""
    directory.mkdir()
    paths = []
    for number, name in enumerate("AB"):
        uids = [f"04{number:02X}{n:010X}" for n in range(52)]
        path = directory / f"deck-{name}.txt"
        Deck(name, dict(zip(uids, DECK, strict=True))).save(path)
        paths.append(path)
    return paths


def until(controller: Controller, condition: Callable[[], bool]) -> None:
    """Handle the drivers' events until ``condition`` holds (the readers run on the wall)."""
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert time.monotonic() < deadline, "the controller never got there"
        controller.drain()
        time.sleep(0.005)


def records(directory: Path, kind: str) -> list[dict[str, Any]]:
    return [data for k, data in journal_records(directory) if k == kind]


def test_a_card_past_the_slots_pn532_is_journaled_with_the_hosts_origin(tmp_path: Path) -> None:
    with Pn532Readers(tmp_path / "dev", ("slot", "discard")) as readers:
        shoe_keys = {
            "kind": "pn532",
            "port": readers.address("slot"),
            "discard_port": readers.address("discard"),
        }
        path = write_table_toml(
            tmp_path,
            table_id="PN532-1",
            game="mambo",
            config=THREE_SEATS,
            shoe=shoe_keys,
            panel={"path": "/nonexistent/panel"},
            decks=decks(tmp_path / "decks"),
        )
        settings = load_config(path)
        assert f"dealing slot reader at {readers.address('slot')}" in summary(settings)
        controller = build_controller(settings)
        shoe = controller.shoe
        assert isinstance(shoe, Pn532Shoe)
        journal = settings.journal.dir
        try:
            shoe.start()
            until(
                controller,
                lambda: any(r.get("event") == "ready" for r in records(journal, "device")),
            )
            # A dealer's pitch on the wall clock: a card its reader never listed in that time
            # (a host kept off the CPU past its polls: docs/hardware.md, What a PN532 shoe
            # loses) is pitched again (``left``), and the next card waits until the field is
            # clear: one card at a time, two in the field are two at once.
            pitch = Pn532Pitch(readers)
            pitch(ReadPoint.DEALING_SLOT, "0400" + "0" * 10, 0.0)  # an NTAG213's 7-byte UID
            until(controller, lambda: pitch.left() == 0 and bool(records(journal, "card")))
            pitch(ReadPoint.DEALING_SLOT, "DEADBEEF", 0.0)  # a MIFARE Classic's 4-byte UID
            until(controller, lambda: pitch.left() == 0 and bool(records(journal, "tag")))
        finally:
            controller.close()
    ready = [r for r in records(journal, "device") if r.get("event") == "ready"]
    assert [(r["device"], r["boot"]) for r in ready] == [("shoe", shoe.boot)]
    (card,) = records(journal, "card")
    assert (card["device"], card["boot"], card["seq"]) == ("shoe", shoe.boot, 0)
    assert card["uid"] == "04000000000000"
    assert card["card"] == DECK[0].code
    (tag,) = records(journal, "tag")
    assert (tag["uid"], tag["seq"]) == ("DEADBEEF", 1)
    assert "not enrolled" in tag["reason"]
