"""Helpers the configuration tests share: a valid table.toml as data, written out as TOML."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path

from controller.config.tabletoml import Problem, SettingsError, TableSettings, parse_config

TomlValue = str | int | float | bool | list[int] | dict[str, "TomlValue"]


def valid() -> dict[str, TomlValue]:
    """A small, valid Mambo table (a fresh copy each time, to be edited by a test)."""
    return copy.deepcopy(
        {
            "table": {"id": "T1", "game": "mambo", "seats": [1, 2, 3]},
            "stakes": {"ante": 1, "bring_in": 2, "small_bet": 5, "big_bet": 10},
            "devices": {
                "shoe": {"path": "/dev/tablectl/shoe"},
                "panel": {"path": "/dev/tablectl/panel"},
            },
            "decks": {"a": "/etc/tablectl/decks/a.txt", "b": "/etc/tablectl/decks/b.txt"},
        }
    )


def section(data: dict[str, TomlValue], name: str) -> dict[str, TomlValue]:
    """A section of ``data`` to edit (``devices.shoe`` for a nested one; "" for the top)."""
    node: TomlValue = data
    for part in name.split(".") if name else []:
        assert isinstance(node, dict)
        node = node.setdefault(part, {})
    assert isinstance(node, dict)
    return node


def _value(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    return json.dumps(value)


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def to_toml(data: Mapping[str, TomlValue], prefix: str = "") -> str:
    """The TOML text of ``data``: plain values first, then each sub-table as a [section]."""
    lines = []
    tables = []
    for key, value in data.items():
        if isinstance(value, dict) and (value or not prefix):
            tables.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    text = "\n".join(lines) + "\n"
    for key, value in tables:
        name = f"{prefix}.{_key(key)}" if prefix else _key(key)
        text += f"\n[{name}]\n" + to_toml(value, name)
    return text


def load(data: Mapping[str, TomlValue]) -> TableSettings:
    """Settings from ``data`` written as TOML and read back by the loader."""
    return parse_config(to_toml(data))


def problems(data: Mapping[str, TomlValue]) -> tuple[Problem, ...]:
    """Every problem the loader finds in ``data``; fails if it finds none."""
    try:
        parse_config(to_toml(data))
    except SettingsError as exc:
        return exc.problems
    raise AssertionError(f"expected the loader to refuse:\n{to_toml(data)}")


def problem_at(data: Mapping[str, TomlValue], key: str) -> Problem:
    """The one problem the loader reports at ``key``; fails if there are others."""
    found = problems(data)
    assert [p.key for p in found] == [key], "\n".join(str(p) for p in found)
    return found[0]


def export_config(tmp_path: Path, table: str, stakes: str) -> Path:
    """A table.toml for ``tablectl export`` beside a sim_table's journal in tmp_path: the given
    [table] and [stakes] bodies, stable device paths and deck names (export opens neither)."""
    config = tmp_path / "table.toml"
    config.write_text(
        f"""[table]
{table}

[stakes]
{stakes}

[devices.shoe]
path = "/dev/tablectl/shoe"

[devices.panel]
path = "/dev/tablectl/panel"

[decks]
a = "deck-a.txt"
b = "deck-b.txt"

[journal]
dir = "{tmp_path / "journal"}"
""",
        encoding="utf-8",
    )
    return config
