"""Every example configuration in docs/examples loads, and the engine deals with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config.game import SECTION_KEYS
from controller.config.tabletoml import load_config
from controller.poker.engine import Table

pytestmark = pytest.mark.fast

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"
#: The tables' examples; floor.toml is the floor's (tests/floor/test_serve_config.py reads it).
TOML_EXAMPLES = sorted(path for path in EXAMPLES.glob("*.toml") if path.name != "floor.toml")


def test_there_is_an_example_for_every_game() -> None:
    """docs/examples holds the full example and a short one per game."""
    names = {path.name for path in TOML_EXAMPLES}
    assert {"table.toml", "five-card-stud.toml", "mambo.toml", "triple-draw.toml"} <= names


@pytest.mark.parametrize("path", TOML_EXAMPLES, ids=lambda path: path.name)
def test_each_example_loads_and_the_engine_accepts_it(path: Path) -> None:
    """The loader accepts the example, and the engine opens a table with its settings."""
    settings = load_config(path)
    Table(settings.game, settings.table_setup())
    assert settings.source == str(path)


def test_the_full_example_writes_every_key() -> None:
    """docs/examples/table.toml shows every key the loader knows (the udev match as a comment)."""
    text = (EXAMPLES / "table.toml").read_text(encoding="utf-8")
    for section, keys in SECTION_KEYS.items():
        for key in keys:
            if section in ("", "devices"):
                continue
            assert re.search(rf"^(# )?{key} = ", text, re.MULTILINE), (
                f"{section}.{key} is not in docs/examples/table.toml"
            )
