"""The ``table.toml`` that points ``tablectl run`` at a simulated table.

One writer for the benches, tests and benchmarks that run the controller as the
service runs it: the table's seats, dealer or button, stakes and stacks come
from a ``TableSetup`` (a button game names its button and blinds, 14.12A(c);
a stud game its dealer, ante and bring-in), the devices from what the caller
gives (the simulator's ports, a udev match, a link).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from controller.poker.engine import TableSetup
from controller.poker.games import GAMES
from controller.poker.games.spec import ForcedBet

TomlValue = str | int | float | bool | Path


def _value(value: TomlValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value))  # a TOML basic string: JSON's escapes are TOML's


def _section(name: str, items: Mapping[str, TomlValue]) -> str:
    lines = [f"[{name}]", *(f"{key} = {_value(value)}" for key, value in items.items())]
    return "\n".join(lines)


def write_table_toml(
    directory: Path,
    *,
    table_id: str,
    game: str,
    config: TableSetup,
    shoe: Mapping[str, TomlValue],
    panel: Mapping[str, TomlValue],
    decks: Sequence[Path],
    fsync: bool = False,
    log: Mapping[str, TomlValue] | None = None,
    journal: Mapping[str, TomlValue] | None = None,
) -> Path:
    """Write ``directory/table.toml`` (journal in ``directory/journal``, with ``journal``'s
    other keys of ``[journal]``, e.g. ``hands_per_file``); return its path."""
    stakes = config.stakes
    if GAMES[game].forced_bet is ForcedBet.BLINDS:
        position: dict[str, TomlValue] = {"button": config.dealer}
        forced: dict[str, TomlValue] = {
            "small_blind": stakes.small_blind,
            "big_blind": stakes.big_blind,
        }
    else:
        position = {"dealer": config.dealer}
        forced = {"ante": stakes.ante, "bring_in": stakes.bring_in}
    seats = ", ".join(str(seat) for seat in config.seats)
    sections = [
        _section("table", {"id": table_id, "game": game, **position}) + f"\nseats = [{seats}]",
        _section("stakes", {**forced, "small_bet": stakes.small_bet, "big_bet": stakes.big_bet}),
        _section("devices.shoe", shoe),
        _section("devices.panel", panel),
        _section("decks", {"a": decks[0], "b": decks[1]}),
        _section("journal", {"dir": directory / "journal", "fsync": fsync, **(journal or {})}),
    ]
    if config.stacks:
        sections.append(_section("stacks", {str(s): n for s, n in config.stacks.items()}))
    if log is not None:
        sections.append(_section("log", log))
    path = directory / "table.toml"
    path.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    return path
