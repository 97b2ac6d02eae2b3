"""The loader and the engine agree: what the engine refuses, the loader refuses at the key.

The loader checks each stake itself (so it can name the key and report every
problem at once) and then builds the engine's Stakes and TableSetup, so the
engine's own checks run as well. These tests hold the two to each other.
"""

from __future__ import annotations

import dataclasses

import pytest
from confighelp import TomlValue, load, problems, section, to_toml, valid
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.config.game import SECTION_KEYS, engine_problem
from controller.config.tabletoml import (
    MISSING,
    Problem,
    SettingsError,
    parse_config,
)
from controller.poker.engine import ConfigError, Stakes, TableSetup
from controller.poker.games import GAMES
from controller.poker.games.spec import ForcedBet, GameSpec

pytestmark = pytest.mark.fast

STAKE_KEYS = ("ante", "bring_in", "small_bet", "big_bet", "cap", "chip", "rake_percent", "rake_cap")


@given(
    st.fixed_dictionaries(
        {},
        optional={key: st.integers(min_value=-3, max_value=24) for key in STAKE_KEYS},
    )
)
def test_the_loader_refuses_at_a_stakes_key_whatever_the_engine_refuses(
    stakes: dict[str, int],
) -> None:
    """rules-interpretation.md, Betting structure: for any stakes, the engine's Stakes refuses them
    exactly when the loader does; the loader's own check names the key (never the engine's
    backstop).
    """
    data = valid()
    data["stakes"] = dict(stakes)
    engine_stakes = dict(stakes)
    if engine_stakes.get("rake_cap", 0) < 0:
        engine_stakes.pop("rake_cap")  # the engine's "no cap" is None; TOML has no null
    try:
        expected = Stakes(**engine_stakes)
    except (ConfigError, TypeError):  # TypeError: small_bet or big_bet left out
        expected = None
    if expected is not None and stakes.get("rake_cap", 0) >= 0:
        assert load(data).stakes == expected
        return
    found = problems(data)
    assert found
    assert all(p.key.startswith("stakes.") for p in found), found
    assert not any("refused by the engine" in p.expected for p in found), found


def test_engine_refusals_are_mapped_to_the_key_they_name() -> None:
    """A refusal from the engine's own checks is reported at the key of the setting it names
    as data (``ConfigError.field``), never found by reading its message: a big bet below the
    small bet is the big bet's fault, as the loader's own check says."""
    data: dict[str, object] = {"small_bet": 5, "big_bet": 3}
    with pytest.raises(ConfigError) as caught:
        Stakes(small_bet=5, big_bet=3)
    assert caught.value.field == "stakes.big_bet"
    problem = engine_problem("stakes", data, caught.value)
    assert (problem.key, problem.value) == ("stakes.big_bet", 3)
    assert problem.expected.startswith("refused by the engine: stakes: small_bet=5, big_bet=3")

    with pytest.raises(ConfigError) as caught:
        TableSetup(seats=(1, 2), stakes=Stakes(5, 10), stacks={2: 3}, dealer=0).validate(
            dataclasses.replace(GAMES["mambo"], max_seats=1)
        )
    assert engine_problem("table", {}, caught.value).key == "table.seats"

    with pytest.raises(ConfigError) as caught:
        TableSetup(seats=(1, 2), stakes=Stakes(5, 10, chip=5), stacks={2: 3}).validate(
            GAMES["mambo"]
        )
    problem = engine_problem("table", {}, caught.value)
    assert (problem.key, problem.value) == ("stacks.2", MISSING)


def test_an_engine_refusal_naming_no_key_falls_back_to_its_section() -> None:
    """A refusal naming no setting (no ``field``) is still reported, at the section; a key in
    its message is not read as one."""
    problem = engine_problem("stakes", {"cap": 0}, ConfigError("stakes: cap=0 is odd"))
    assert problem.key == "stakes"
    problem = engine_problem("stakes", {}, ConfigError("something new"))
    assert (problem.key, problem.expected) == ("stakes", "refused by the engine: something new")


# --- A button game (the registry's shape for Triple Draw 2-7, 14.12A) ---------------------

BUTTON_GAME: GameSpec = dataclasses.replace(
    GAMES["five-card-stud"],
    key="button-test",
    name="a button game",
    max_seats=7,
    forced_bet=ForcedBet.BLINDS,
    button_moves=True,
)
BUTTON_GAMES = {**GAMES, BUTTON_GAME.key: BUTTON_GAME}


def button_table(**stakes: TomlValue) -> dict[str, TomlValue]:
    """A valid table of the button game; ``stakes`` replace its blinds and bets."""
    data = valid()
    data["table"] = {"id": "T7", "game": "button-test", "seats": [1, 2, 4], "button": 4}
    data["stakes"] = {"small_blind": 1, "big_blind": 2, "small_bet": 2, "big_bet": 4, **stakes}
    return data


def _problems(data: dict[str, TomlValue]) -> dict[str, str]:
    try:
        parse_config(to_toml(data), games=BUTTON_GAMES)
    except SettingsError as exc:
        return {p.key: str(p) for p in exc.problems}
    return {}


def test_14_12a_c_a_button_game_takes_the_buttons_seat() -> None:
    """14.12A(c), 14.10(c): a button game's dealer position is the button, on an occupied seat."""
    settings = parse_config(to_toml(button_table()), games=BUTTON_GAMES)
    assert settings.dealer == 4
    assert settings.table_setup().dealer == 4
    assert (settings.stakes.small_blind, settings.stakes.big_blind) == (1, 2)


def test_14_12a_c_the_button_must_be_on_an_occupied_seat() -> None:
    """14.12A(c): the button on an empty seat, or a 'dealer' key, is refused."""
    data = button_table()
    section(data, "table")["button"] = 3
    assert _problems(data) == {
        "table.button": "table.button = 3: expected one of the occupied seats [1, 2, 4]"
    }
    data = button_table()
    del section(data, "table")["button"]
    section(data, "table")["dealer"] = 0
    assert sorted(_problems(data)) == ["table.button", "table.dealer"]


def test_14_10_d_a_button_game_posts_blinds_not_a_bring_in() -> None:
    """14.10(c),(d) via 14.12A(c): blinds are required, small <= big <= small bet; no bring-in."""
    assert _problems(button_table(bring_in=1)) == {
        "stakes.bring_in": "stakes.bring_in = 1: expected 0 or no key: a button game opens "
        "with blinds, not a bring-in"
    }
    assert set(_problems(button_table(small_blind=0, big_blind=0))) == {
        "stakes.small_blind",
        "stakes.big_blind",
    }
    assert (
        "at most the big blind"
        in _problems(button_table(small_blind=3, big_blind=2))["stakes.small_blind"]
    )
    assert "at most the small bet" in _problems(button_table(big_blind=4))["stakes.big_blind"]


def test_a_stud_table_refuses_a_button_key_even_among_other_errors() -> None:
    """14.13A(c): stud has a dealer position; several table errors are listed together."""
    data = valid()
    section(data, "table").update(button=2, seats=[1])
    assert [p.key for p in problems(data)] == ["table.seats", "table.button"]


# --- Robustness ---------------------------------------------------------------------------

_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.text(max_size=12),
    st.lists(st.integers(min_value=-3, max_value=15), max_size=5),
)


def _section_of(keys: tuple[str, ...]) -> st.SearchStrategy[dict[str, TomlValue]]:
    names = st.sampled_from((*keys, "typo", "1", "x-y"))
    return st.dictionaries(names, _SCALARS, max_size=6)


@settings(max_examples=40)  # a soak of this is a slow run: see the test below
@given(
    table=_section_of(SECTION_KEYS["table"]),
    stakes=_section_of(SECTION_KEYS["stakes"]),
    shoe=_section_of(SECTION_KEYS["devices.shoe"]),
    decks=_section_of(SECTION_KEYS["decks"]),
    journal=_section_of(SECTION_KEYS["journal"]),
    log=_section_of(SECTION_KEYS["log"]),
    stacks=_section_of(("1", "2", "3")),
)
def test_any_file_is_either_settings_or_a_settings_error(**sections: dict[str, TomlValue]) -> None:
    """Whatever a file holds, the loader answers with settings or a SettingsError naming keys;
    it never fails with another exception (a traceback instead of an answer).
    """
    _either_settings_or_problems(sections)


@pytest.mark.slow
@settings(max_examples=3000)
@given(
    table=_section_of(SECTION_KEYS["table"]),
    stakes=_section_of(SECTION_KEYS["stakes"]),
    shoe=_section_of(SECTION_KEYS["devices.shoe"]),
    decks=_section_of(SECTION_KEYS["decks"]),
    journal=_section_of(SECTION_KEYS["journal"]),
    log=_section_of(SECTION_KEYS["log"]),
    stacks=_section_of(("1", "2", "3")),
)
def test_soak_any_file_is_either_settings_or_a_settings_error(
    **sections: dict[str, TomlValue],
) -> None:
    """The same as above over 3000 files (slow run)."""
    _either_settings_or_problems(sections)


def _either_settings_or_problems(sections: dict[str, dict[str, TomlValue]]) -> None:
    data = valid()
    for name, keys in sections.items():
        target = section(data, "devices.shoe" if name == "shoe" else name)
        target.update(keys)
    found: tuple[Problem, ...] = ()
    try:
        parse_config(to_toml(data))
    except SettingsError as exc:
        found = exc.problems
        assert found, "a SettingsError names at least one problem"
    assert all(problem.key and problem.expected for problem in found)
