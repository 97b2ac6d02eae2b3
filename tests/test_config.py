"""table.toml: what loads, its defaults, and every refusal naming key, value and what is allowed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from confighelp import TomlValue, load, problem_at, problems, section, to_toml, valid

from controller.config.tabletoml import (
    DEFAULT_JOURNAL_DIR,
    LogFormat,
    LogLevel,
    SettingsError,
    load_config,
    parse_config,
)
from controller.poker.engine import ConfigError, Stakes, Table, TableSetup
from controller.poker.games import GAMES
from drivers.seam.settings import DeviceIdentity
from simulator.decks import make_decks, write_deck_file

pytestmark = pytest.mark.fast

Data = dict[str, TomlValue]


# --- What loads ---------------------------------------------------------------------------


def test_a_valid_file_loads_into_the_engines_table_config() -> None:
    """The settings give the engine's TableSetup, and the engine deals with it."""
    settings = load(valid())
    assert settings.table_id == "T1"
    assert settings.game is GAMES["mambo"]
    assert settings.table_setup() == TableSetup(
        seats=(1, 2, 3), stakes=Stakes(ante=1, bring_in=2, small_bet=5, big_bet=10), dealer=0
    )
    Table(settings.game, settings.table_setup())


def test_defaults_are_the_documented_ones() -> None:
    """Keys left out take the defaults docs/deploy.md documents."""
    settings = load(valid())
    assert settings.dealer == 0  # 14.13A(c): seat 1 is dealt first
    # rules-interpretation.md, Betting structure: one bet and three raises.
    assert settings.stakes.cap == 4
    assert settings.stakes.chip == 1
    assert settings.stakes.rake_percent == 0
    assert settings.stakes.rake_cap is None
    assert settings.stakes.rake_without_showdown is False
    assert dict(settings.stacks) == {}
    for device in (settings.shoe, settings.panel):
        assert device.baudrate == 115200
        assert device.heartbeat_timeout == 3.0
        assert device.serial is None
        assert device.match is None
    assert settings.decks.active == "a"
    assert settings.journal.dir == DEFAULT_JOURNAL_DIR == Path("/var/lib/tablectl/journal")
    assert settings.journal.fsync is True
    assert settings.journal.hands_per_file == 100
    assert settings.journal.max_bytes == 16 * 1024 * 1024
    assert settings.log.level is LogLevel.INFO
    assert settings.log.format is LogFormat.AUTO
    assert settings.log.file is None


def test_every_key_is_read() -> None:
    """Each key given is the value in the settings."""
    data = valid()
    section(data, "table")["dealer"] = 3
    section(data, "stakes").update(
        chip=2, ante=2, bring_in=2, small_bet=6, big_bet=12, cap=5, rake_percent=10
    )
    section(data, "stakes").update(rake_cap=4, rake_without_showdown=True)
    data["stacks"] = {"1": 100, "3": 0}
    section(data, "devices.shoe").update(
        path="/dev/ttyACM0", serial="SHOE01", baudrate=57600, heartbeat_timeout=2.5
    )
    section(data, "devices")["panel"] = {
        "vendor_id": "04D8",
        "product_id": "00dd",
        "serial": "PN-2",
    }
    section(data, "decks")["active"] = "b"
    data["journal"] = {"dir": "/srv/j", "fsync": False, "hands_per_file": 7, "max_bytes": 4096}
    data["log"] = {"level": "debug", "format": "json", "file": "/var/log/t.log"}
    settings = load(data)
    assert settings.dealer == 3
    assert settings.stakes == Stakes(
        small_bet=6,
        big_bet=12,
        ante=2,
        bring_in=2,
        cap=5,
        chip=2,
        rake_percent=10,
        rake_cap=4,
        rake_without_showdown=True,
    )
    assert dict(settings.stacks) == {1: 100, 3: 0}
    assert settings.shoe.url == "/dev/ttyACM0"
    assert settings.shoe.serial == "SHOE01"
    assert (settings.shoe.baudrate, settings.shoe.heartbeat_timeout) == (57600, 2.5)
    # udev shows USB ids in lowercase (ID_VENDOR_ID): the match is normalised to it.
    assert settings.panel.match == DeviceIdentity("panel", "04d8", "00dd", "PN-2")
    assert settings.panel.serial == "PN-2"
    assert settings.panel.url is None
    assert settings.decks.active_file == Path("/etc/tablectl/decks/b.txt")
    assert settings.journal.dir == Path("/srv/j")
    assert (settings.journal.fsync, settings.journal.hands_per_file) == (False, 7)
    assert settings.journal.max_bytes == 4096
    assert settings.log.level is LogLevel.DEBUG
    assert settings.log.format is LogFormat.JSON
    assert settings.log.file == Path("/var/log/t.log")


def test_a_pyserial_url_names_a_device() -> None:
    """`url` takes any pyserial URL (the simulator's, a socket, a loop)."""
    data = valid()
    data["devices"] = {"shoe": {"url": "sim://shoe"}, "panel": {"url": "socket://127.0.0.1:7"}}
    settings = load(data)
    assert (settings.shoe.url, settings.panel.url) == ("sim://shoe", "socket://127.0.0.1:7")


def test_relative_paths_are_taken_from_the_files_folder(tmp_path: Path) -> None:
    """Deck files, the journal and the log file may be written relative to table.toml."""
    data = valid()
    data["decks"] = {"a": "decks/a.txt", "b": "decks/b.txt"}
    data["journal"] = {"dir": "journal"}
    data["log"] = {"file": "log/tablectl.log"}
    path = tmp_path / "table.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    settings = load_config(path)
    assert settings.decks.a == tmp_path / "decks/a.txt"
    assert settings.journal.dir == tmp_path / "journal"
    assert settings.log.file == tmp_path / "log/tablectl.log"
    assert settings.source == str(path)


# --- Refusals: each names the key, the value and what is allowed --------------------------

Edit = Callable[[Data], None]


def _set(name: str, key: str, value: TomlValue) -> Edit:
    def edit(data: Data) -> None:
        section(data, name)[key] = value

    return edit


def _drop(name: str, key: str) -> Edit:
    def edit(data: Data) -> None:
        del section(data, name)[key]

    return edit


def _drop_then_set(name: str, old: str, key: str, value: TomlValue) -> Edit:
    def edit(data: Data) -> None:
        del section(data, name)[old]
        section(data, name)[key] = value

    return edit


#: (edit, key, value as shown, a piece of what is allowed)
REFUSALS: list[tuple[str, Edit, str, str, str]] = [
    ("id missing", _drop("table", "id"), "table.id", "(missing)", "this key is required"),
    ("id with a space", _set("table", "id", "T 1"), "table.id", '"T 1"', "1 to 32 letters"),
    ("id not a string", _set("table", "id", 7), "table.id", "7", "a table id"),
    ("game unknown", _set("table", "game", "holdem"), "table.game", '"holdem"', '"mambo"'),
    ("game missing", _drop("table", "game"), "table.game", "(missing)", '"mambo" or "triple-draw"'),
    ("seats missing", _drop("table", "seats"), "table.seats", "(missing)", "1 to 11"),
    ("one seat", _set("table", "seats", [1]), "table.seats", "[1]", "at least two"),
    ("a seat twice", _set("table", "seats", [2, 2]), "table.seats", "[2, 2]", "different"),
    ("seat 0", _set("table", "seats", [0, 1]), "table.seats", "[0, 1]", "1 to 11"),
    ("seats not a list", _set("table", "seats", 3), "table.seats", "3", "a list"),
    ("dealer negative", _set("table", "dealer", -1), "table.dealer", "-1", "0 to 11"),
    ("dealer too far", _set("table", "dealer", 12), "table.dealer", "12", "0 to 11"),
    ("dealer a bool", _set("table", "dealer", True), "table.dealer", "true", "whole number"),
    (
        "small bet missing",
        _drop("stakes", "small_bet"),
        "stakes.small_bet",
        "(missing)",
        "required",
    ),
    ("small bet 0", _set("stakes", "small_bet", 0), "stakes.small_bet", "0", "more than 0"),
    ("big bet short", _set("stakes", "big_bet", 4), "stakes.big_bet", "4", "stakes.small_bet = 5"),
    ("ante negative", _set("stakes", "ante", -1), "stakes.ante", "-1", "at least 0"),
    ("ante a float", _set("stakes", "ante", 1.5), "stakes.ante", "1.5", "whole number"),
    ("bring-in over", _set("stakes", "bring_in", 6), "stakes.bring_in", "6", "at most the small"),
    ("chip 0", _set("stakes", "chip", 0), "stakes.chip", "0", "at least 1"),
    ("cap 0", _set("stakes", "cap", 0), "stakes.cap", "0", "at least 1"),
    ("rake 101", _set("stakes", "rake_percent", 101), "stakes.rake_percent", "101", "0 to 100"),
    ("rake cap -2", _set("stakes", "rake_cap", -2), "stakes.rake_cap", "-2", "at least 0"),
    (
        "rake flag",
        _set("stakes", "rake_without_showdown", "no"),
        "stakes.rake_without_showdown",
        '"no"',
        "true or false",
    ),
    ("stack negative", _set("stacks", "2", -5), "stacks.2", "-5", "at least 0"),
    ("stack of a seat not played", _set("stacks", "9", 5), "stacks.9", "5", "[1, 2, 3]"),
    ("stack of a name", _set("stacks", "two", 5), "stacks.two", "5", "occupied seat"),
    (
        "shoe path relative",
        _set("devices.shoe", "path", "ttyACM0"),
        "devices.shoe.path",
        '"ttyACM0"',
        "absolute",
    ),
    (
        "shoe url no scheme",
        _drop_then_set("devices.shoe", "path", "url", "shoe"),
        "devices.shoe.url",
        '"shoe"',
        "pyserial URL",
    ),
    (
        "baud 1200",
        _set("devices.shoe", "baudrate", 1200),
        "devices.shoe.baudrate",
        "1200",
        "115200",
    ),
    (
        "heartbeat 1 s",
        _set("devices.panel", "heartbeat_timeout", 1),
        "devices.panel.heartbeat_timeout",
        "1",
        "more than 1",
    ),
    (
        "heartbeat 61 s",
        _set("devices.panel", "heartbeat_timeout", 61.0),
        "devices.panel.heartbeat_timeout",
        "61.0",
        "at most 60",
    ),
    (
        "serial with a comma",
        _set("devices.shoe", "serial", "A,B"),
        "devices.shoe.serial",
        '"A,B"',
        "1 to 16",
    ),
    ("decks.a missing", _drop("decks", "a"), "decks.a", "(missing)", "enrollment file"),
    ("decks.b a number", _set("decks", "b", 2), "decks.b", "2", "enrollment file"),
    (
        "decks the same",
        _set("decks", "b", "/etc/tablectl/decks/a.txt"),
        "decks.b",
        '"/etc/tablectl/decks/a.txt"',
        "two decks",
    ),
    ("deck C", _set("decks", "active", "c"), "decks.active", '"c"', '"a" or "b"'),
    ("fsync yes", _set("journal", "fsync", "yes"), "journal.fsync", '"yes"', "true or false"),
    ("no hands", _set("journal", "hands_per_file", 0), "journal.hands_per_file", "0", "at least 1"),
    ("no bytes", _set("journal", "max_bytes", 0), "journal.max_bytes", "0", "at least 1"),
    ("journal dir empty", _set("journal", "dir", " "), "journal.dir", '" "', "folder"),
    ("level verbose", _set("log", "level", "verbose"), "log.level", '"verbose"', '"debug"'),
    ("format jsn", _set("log", "format", "jsn"), "log.format", '"jsn"', "did you mean 'json'"),
    ("log file a number", _set("log", "file", 2), "log.file", "2", "path of a log file"),
    ("stakes a value", _set("", "stakes", 5), "stakes", "5", "[stakes] section"),
    ("decks missing", _drop("", "decks"), "decks", "(missing)", "[decks] section"),
]


@pytest.mark.parametrize(
    ("edit", "key", "shown", "allowed"),
    [pytest.param(*case[1:], id=case[0]) for case in REFUSALS],
)
def test_each_refusal_names_the_key_the_value_and_what_is_allowed(
    edit: Edit, key: str, shown: str, allowed: str
) -> None:
    """One mistake gives one problem: at its dotted key, showing the value and what is allowed."""
    data = valid()
    edit(data)
    problem = problem_at(data, key)
    text = str(problem)
    assert text.startswith(f"{key} = {shown}: "), text
    assert allowed in text, text


def test_14_13_b_five_card_stud_seats_at_most_eight() -> None:
    """14.13(b): a ninth seat at five-card stud is refused, naming the limit and the rule."""
    data = valid()
    section(data, "table").update(game="five-card-stud", seats=[1, 9])
    text = str(problem_at(data, "table.seats"))
    assert "1 to 8" in text
    assert "N.J.A.C. 13:69F-14.13" in text


def test_14_13a_b_mambo_seats_eleven_not_twelve() -> None:
    """14.13A(b): eleven seats load for Mambo; a twelfth is refused."""
    data = valid()
    section(data, "table")["seats"] = list(range(1, 12))
    assert load(data).seats == tuple(range(1, 12))
    section(data, "table")["seats"] = list(range(1, 13))
    assert "at most 11" in str(problem_at(data, "table.seats"))


@pytest.mark.parametrize("blind", ["small_blind", "big_blind"])
def test_14_13a_d_a_stud_game_has_no_blinds(blind: str) -> None:
    """14.13(d), 14.13A(d): stud opens with the bring-in; a blind in its stakes is a mistake."""
    data = valid()
    section(data, "stakes")[blind] = 2
    text = str(problem_at(data, f"stakes.{blind}"))
    assert "no blinds" in text
    assert "14.13A(d)" in text


def test_14_13a_c_dealer_is_the_position_before_the_first_seat_dealt() -> None:
    """14.13A(c): a stud table takes a dealer position, not a button."""
    data = valid()
    section(data, "table")["button"] = 2
    text = str(problem_at(data, "table.button"))
    assert "set 'dealer'" in text


def test_amounts_must_be_multiples_of_the_smallest_chip() -> None:
    """rules-interpretation.md, Betting structure: every amount is in whole smallest chips."""
    data = valid()
    section(data, "stakes")["chip"] = 2
    data["stacks"] = {"1": 7}
    found = {p.key: str(p) for p in problems(data)}
    # ante 1, bring-in 2, small bet 5, big bet 10: the odd ones are refused.
    assert sorted(found) == ["stacks.1", "stakes.ante", "stakes.small_bet"]
    assert all("stakes.chip = 2" in text for text in found.values())


def test_notes_betting_structure_the_rake_cap_is_a_multiple_of_the_smallest_chip() -> None:
    """rules-interpretation.md, Betting structure: ``chip = 2, rake_cap = 3`` is refused at
    stakes.rake_cap, naming the value and the chip (the cap would take a part of a chip no pot can
    pay).
    """
    data = valid()
    section(data, "stakes").update(chip=2, ante=2, bring_in=2, small_bet=4, big_bet=8)
    section(data, "stakes")["rake_cap"] = 3
    found = problem_at(data, "stakes.rake_cap")
    assert (found.value, "stakes.chip = 2" in found.expected) == (3, True)
    section(data, "stakes")["rake_cap"] = 4
    assert load(data).stakes.rake_cap == 4


def test_the_panel_and_the_shoe_are_different_devices() -> None:
    """Two devices on one port, or with one serial number, are refused."""
    data = valid()
    section(data, "devices.panel")["path"] = "/dev/tablectl/shoe"
    assert "different port" in str(problem_at(data, "devices.panel.url"))
    data = valid()
    section(data, "devices.shoe")["serial"] = "S1"
    section(data, "devices.panel")["serial"] = "S1"
    assert "different serial" in str(problem_at(data, "devices.panel.serial"))


@pytest.mark.parametrize(
    ("device", "given"),
    [
        ({}, "(missing)"),
        ({"path": "/dev/a", "url": "loop://"}, '{path = "/dev/a", url = "loop://"}'),
        ({"path": "/dev/a", "vendor_id": "0483"}, '{path = "/dev/a", vendor_id = "0483"}'),
    ],
)
def test_a_device_is_named_exactly_one_way(device: dict[str, TomlValue], given: str) -> None:
    """A device has a path, a URL or a udev match: none or two of them is refused."""
    data = valid()
    section(data, "devices")["shoe"] = device
    shoe_problems = [p for p in problems(data) if p.key == "devices.shoe"]
    assert len(shoe_problems) == 1
    assert str(shoe_problems[0]).startswith(f"devices.shoe = {given}: expected either 'path'")


def test_a_udev_match_needs_vendor_product_and_serial() -> None:
    """docs/protocol.md, 1: the host finds a device by vendor id, product id and serial."""
    data = valid()
    section(data, "devices")["shoe"] = {"vendor_id": "483"}
    found = {p.key: str(p) for p in problems(data)}
    assert sorted(found) == [
        "devices.shoe.product_id",
        "devices.shoe.serial",
        "devices.shoe.vendor_id",
    ]
    assert found["devices.shoe.vendor_id"] == (
        'devices.shoe.vendor_id = "483": expected four hex digits as lsusb shows them, e.g. "1209"'
    )
    assert "required" in found["devices.shoe.serial"]


# --- Unknown keys -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("where", "typo", "meant"),
    [
        ("", "stake", "stakes"),
        ("table", "dealr", "dealer"),
        ("stakes", "smal_bet", "small_bet"),
        ("stakes", "rake_pct", "rake_percent"),
        ("devices", "shoes", "shoe"),
        ("devices.shoe", "baud_rate", "baudrate"),
        ("decks", "activ", "active"),
        ("journal", "fsynch", "fsync"),
        ("log", "levl", "level"),
    ],
)
def test_an_unknown_key_is_an_error_with_did_you_mean(where: str, typo: str, meant: str) -> None:
    """A typo is never ignored: it is an error at its key, with the nearest known key."""
    data = valid()
    section(data, where)[typo] = 1 if where != "devices" else {"path": "/dev/x"}
    key = f"{where}.{typo}" if where else typo
    found = [p for p in problems(data) if p.key == key]
    assert len(found) == 1
    assert "no such key" in str(found[0])
    assert f"did you mean {meant!r}?" in str(found[0])


@pytest.mark.parametrize(
    ("where", "key", "home"),
    [
        ("table", "big_bet", "stakes"),
        ("stakes", "baudrate", "devices.shoe"),
        ("log", "fsync", "journal"),
    ],
)
def test_an_unknown_key_that_belongs_elsewhere_says_where(where: str, key: str, home: str) -> None:
    """A key written in the wrong section names the section it belongs in."""
    data = valid()
    section(data, where)[key] = 10
    assert f"{key!r} belongs in [{home}]" in str(problem_at(data, f"{where}.{key}"))


def test_an_unknown_key_with_nothing_close_lists_the_keys_allowed() -> None:
    """With no close match the error lists every key of the section."""
    data = valid()
    section(data, "journal")["colour"] = "red"
    text = str(problem_at(data, "journal.colour"))
    assert text == (
        'journal.colour = "red": no such key; expected one of the keys of [journal]: '
        "dir, fsync, hands_per_file, max_bytes, keep_days"
    )


# --- Several errors at once ---------------------------------------------------------------


def test_several_errors_are_reported_together() -> None:
    """Every mistake in the file is in one error, one line each, in file order."""
    data = valid()
    section(data, "table")["game"] = "mambos"
    section(data, "stakes")["big_bet"] = 3
    section(data, "devices.shoe")["baudrate"] = 1200
    section(data, "journal")["fsynch"] = True
    section(data, "log")["format"] = "xml"
    with pytest.raises(SettingsError) as caught:
        parse_config(to_toml(data), source="/etc/tablectl/table.toml")
    keys = [p.key for p in caught.value.problems]
    assert keys == [
        "table.game",
        "stakes.big_bet",
        "devices.shoe.baudrate",
        "journal.fsynch",
        "log.format",
    ]
    lines = str(caught.value).splitlines()
    assert lines[0] == "/etc/tablectl/table.toml: 5 errors in the table's configuration"
    assert [line.split(" = ")[0].strip() for line in lines[1:]] == keys


def test_a_settings_error_is_an_engine_config_error() -> None:
    """Callers that catch the engine's ConfigError catch the loader's errors too."""
    data = valid()
    del data["table"]
    with pytest.raises(ConfigError, match=r"1 error in the table's configuration\n  table = "):
        load(data)


# --- The file itself ----------------------------------------------------------------------


def test_a_toml_syntax_error_names_the_line() -> None:
    """Text that is not TOML is refused with tomllib's line and column."""
    with pytest.raises(SettingsError, match=r"expected TOML: .*line 2") as caught:
        parse_config("[table]\nid = \n")
    assert caught.value.problems[0].key == "(file)"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    """A configuration file that cannot be read is named with the reason."""
    missing = tmp_path / "nope.toml"
    with pytest.raises(SettingsError, match="No such file or directory") as caught:
        load_config(missing)
    assert caught.value.problems[0].value == str(missing)


def test_a_file_not_in_utf8_is_refused(tmp_path: Path) -> None:
    """TOML is UTF-8; other bytes are refused, not guessed."""
    path = tmp_path / "table.toml"
    path.write_bytes(b'[table]\nid = "\xe9"\n')
    with pytest.raises(SettingsError, match="expected UTF-8 text"):
        load_config(path)


def _deck_config(tmp_path: Path, **sections: object) -> Path:
    data = {**valid(), **sections}
    data["decks"] = {"a": "a.txt", "b": "b.txt"}
    path = tmp_path / "table.toml"
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def test_the_files_check_names_each_unreadable_deck_file(tmp_path: Path) -> None:
    """At start-up both deck files must be readable; each one that is not is named."""
    deck_a, deck_b = make_decks(seed=1)
    write_deck_file(tmp_path / "a.txt", deck_a)
    path = _deck_config(tmp_path)
    load_config(path)  # the file alone is sound
    with pytest.raises(SettingsError) as caught:
        load_config(path, files=True)
    [problem] = caught.value.problems
    assert problem.key == "decks.b"
    assert problem.value == str(tmp_path / "b.txt")
    assert "cannot read" in problem.expected
    assert "No such file or directory" in problem.expected
    write_deck_file(tmp_path / "b.txt", deck_b)
    load_config(path, files=True)


def test_the_files_check_reports_the_deck_files_with_the_configurations_other_problems(
    tmp_path: Path,
) -> None:
    """A technician sees every problem at once: a missing deck file is reported beside a
    problem elsewhere in table.toml, not only once that one is fixed."""
    deck_a, _ = make_decks(seed=1)
    write_deck_file(tmp_path / "a.txt", deck_a)
    path = _deck_config(tmp_path, journal={"fsync": "yes"})
    with pytest.raises(SettingsError) as caught:
        load_config(path, files=True)
    assert sorted(problem.key for problem in caught.value.problems) == ["decks.b", "journal.fsync"]


def test_the_files_check_parses_the_decks_as_start_up_does(tmp_path: Path) -> None:
    """A deck file that reads but is not a deck (here a card enrolled twice) is refused with
    its file and line, as the controller's start-up refuses it, not only at start-up."""
    deck_a, deck_b = make_decks(seed=1)
    write_deck_file(tmp_path / "a.txt", deck_a)
    write_deck_file(tmp_path / "b.txt", deck_b)
    lines = (tmp_path / "b.txt").read_text(encoding="ascii").splitlines()
    first_card = next(i for i, line in enumerate(lines) if line.startswith("2c "))
    lines[first_card + 1] = "2c " + lines[first_card + 1].split()[1]
    (tmp_path / "b.txt").write_text("\n".join(lines) + "\n", encoding="ascii")
    with pytest.raises(SettingsError) as caught:
        load_config(_deck_config(tmp_path), files=True)
    [problem] = caught.value.problems
    assert problem.key == "decks.b"
    assert problem.expected.startswith(f"line {first_card + 2}: ")
    assert "2c has a tag already" in problem.expected


def test_notes_integrity_the_files_check_refuses_two_decks_sharing_a_tag(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: a tag belongs to one card of one deck; two files
    enrolling the same tag are refused by the check, naming both files."""
    deck_a, _ = make_decks(seed=1)
    write_deck_file(tmp_path / "a.txt", deck_a)
    text = (tmp_path / "a.txt").read_text(encoding="ascii")
    (tmp_path / "b.txt").write_text(text.replace("deck A", "deck B"), encoding="ascii")
    with pytest.raises(SettingsError) as caught:
        load_config(_deck_config(tmp_path), files=True)
    [problem] = caught.value.problems
    assert problem.key == "decks"
    assert str(tmp_path / "a.txt") in str(problem.value)
    assert str(tmp_path / "b.txt") in str(problem.value)
    assert "share" in problem.expected


def test_notes_integrity_a_table_keeps_two_decks_in_two_files() -> None:
    """rules-interpretation.md, Integrity (14.5(d)): decks A and B are two decks; one file cannot
    enroll both."""
    data = valid()
    section(data, "decks")["b"] = "/etc/tablectl/decks/a.txt"
    assert "the table keeps two decks" in str(problem_at(data, "decks.b"))
