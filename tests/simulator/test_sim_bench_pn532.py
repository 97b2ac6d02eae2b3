"""``tablectl sim --config table.toml`` for a table whose shoe is PN532 readers
(``[devices.shoe] kind = "pn532"``, docs/hardware.md): the simulator makes the readers' links
``port`` and ``discard_port`` name and the deck files of NTAG213 tags (docs/simulator.md,
Dealing through PN532 readers), or refuses in one line with what to write."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_sim_bench import run_sim

from controller.poker.games import GAMES
from drivers.deck import Deck
from drivers.seam.tags import TagFamily, tag_family
from simulator.simtable import demo_config
from simulator.tablefile import TomlValue, write_table_toml


def pn532_toml(directory: Path, shoe: dict[str, TomlValue]) -> Path:
    return write_table_toml(
        directory,
        table_id="BENCH-PN532",
        game="mambo",
        config=demo_config(GAMES["mambo"], 4),
        shoe={"kind": "pn532", **shoe},
        panel={"path": directory / "bench" / "panel"},
        decks=(directory / "decks/red.txt", directory / "decks/blue.txt"),
    )


def test_the_simulator_makes_the_pn532_readers_and_decks_the_table_toml_names(
    tmp_path: Path,
) -> None:
    bench = tmp_path / "bench"
    config = pn532_toml(tmp_path, {"port": bench / "slot", "discard_port": bench / "discard"})
    status, out, err = run_sim("deal\ndiscard 2c\n", "--config", str(config))
    assert status == 0, out + err
    assert f"shoe: PN532 readers, slot {bench / 'slot'}, discard {bench / 'discard'}" in out
    assert "read once" in out
    deck = Deck.load(tmp_path / "decks/red.txt")
    assert {tag_family(uid) for uid in deck.cards} == {TagFamily.ISO14443A}
    assert not (bench / "slot").exists()  # the links go with the simulator


@pytest.mark.fast
@pytest.mark.parametrize(
    ("ports", "wanted"),
    [
        ({"port": "{bench}/slot"}, "has no discard_port"),
        ({"port": "{bench}/reader", "discard_port": "{bench}/discard"}, "names {bench}/reader"),
        ({"port": "{bench}/slot", "discard_port": "{tmp}/other/discard"}, "in two folders"),
    ],
)
def test_pn532_ports_the_simulator_cannot_make_are_refused_with_what_to_write(
    tmp_path: Path, ports: dict[str, str], wanted: str
) -> None:
    bench = tmp_path / "bench"
    shoe: dict[str, TomlValue] = {
        key: value.format(bench=bench, tmp=tmp_path) for key, value in ports.items()
    }
    config = pn532_toml(tmp_path, shoe)
    status, out, err = run_sim("", "--config", str(config))
    assert status == 2, out + err
    assert wanted.format(bench=bench, tmp=tmp_path) in err
    assert 'port = "DIR/slot" and discard_port = "DIR/discard"' in err
    assert len(err.splitlines()) == 1
