"""docs/deploy.md stays true: every key is in its reference, and its sample errors are real."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from confighelp import section, to_toml, valid

from controller.config.game import SECTION_KEYS
from controller.config.tabletoml import SettingsError, parse_config
from controller.poker.games import GAMES

pytestmark = pytest.mark.fast

DEPLOY = Path(__file__).resolve().parent.parent / "docs" / "deploy.md"


def _reference() -> str:
    text = DEPLOY.read_text(encoding="utf-8")
    return text[text.index("## Configuration reference") :]


@pytest.mark.parametrize(
    ("where", "key"),
    [
        (where, key)
        for where, keys in SECTION_KEYS.items()
        if where not in ("", "devices")
        for key in keys
    ],
)
def test_every_key_is_in_the_reference(where: str, key: str) -> None:
    """Each key the loader knows has a row in docs/deploy.md's configuration reference."""
    assert f"| `{key}` |" in _reference(), f"{where}.{key} has no row in docs/deploy.md"


def test_every_section_is_in_the_reference() -> None:
    """Each section the loader knows has a heading in the reference."""
    headings = re.findall(r"^### `\[([a-z.]+)\]`", _reference(), re.MULTILINE)
    assert set(headings) >= {"table", "stakes", "stacks", "devices.shoe", "decks", "journal", "log"}


def test_the_sample_errors_are_what_the_loader_says() -> None:
    """The two errors shown in docs/deploy.md, step 4, are the loader's words."""
    data = valid()
    section(data, "stakes")["big_bet"] = 4
    section(data, "devices.shoe")["baud_rate"] = 115200
    with pytest.raises(SettingsError) as caught:
        parse_config(to_toml(data), source="/etc/tablectl/table.toml")
    text = DEPLOY.read_text(encoding="utf-8")
    assert str(caught.value) in text


@pytest.mark.parametrize("key", sorted(GAMES))
def test_the_table_rows_name_every_game_and_its_seats(key: str) -> None:
    """The [table] `game` row names every registered game, and the `seats` row its most seats
    (14.13(b), 14.13A(b), 14.12A(b)), so no game the loader takes is missing from the guide."""
    rows = {
        line.split("|")[1].strip(): line
        for line in _reference().splitlines()
        if line.startswith(("| `game` |", "| `seats` |"))
    }
    spec = GAMES[key]
    assert f'`"{key}"`' in rows["`game`"]
    assert f"{spec.max_seats} for " in rows["`seats`"]
