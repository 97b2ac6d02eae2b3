"""simulator.tablefile: the table.toml for a simulated table loads back as the same table."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config.tabletoml import load_config
from controller.poker.games import GAMES
from simulator.simtable import demo_config
from simulator.tablefile import write_table_toml

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_written_table_loads_back_with_its_seats_dealer_stakes_and_stacks(
    tmp_path: Path, game: str
) -> None:
    """A button game is written with its button and blinds (14.12A(c)), a stud game with its
    dealer, ante and bring-in (14.13(c),(d)); the loader reads back the same TableSetup,
    devices, decks and journal."""
    config = demo_config(GAMES[game], 4)
    decks = [tmp_path / "deck-A.txt", tmp_path / "deck-B.txt"]
    path = write_table_toml(
        tmp_path,
        table_id="T-1",
        game=game,
        config=config,
        shoe={"path": "/dev/pts/7", "heartbeat_timeout": 3.0},
        panel={"path": "/dev/pts/8"},
        decks=decks,
        log={"format": "json"},
    )
    settings = load_config(path)
    assert settings.table_id == "T-1"
    assert settings.game is GAMES[game]
    assert settings.table_setup() == config
    assert settings.shoe.url == "/dev/pts/7"
    assert settings.shoe.heartbeat_timeout == 3.0
    assert settings.panel.url == "/dev/pts/8"
    assert (settings.decks.a, settings.decks.b) == (decks[0], decks[1])
    assert settings.journal.dir == tmp_path / "journal"
    assert settings.journal.fsync is False
