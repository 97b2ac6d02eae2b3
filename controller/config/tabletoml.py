"""The table's configuration file, ``table.toml``: read, checked whole, and made into settings.

``load_config(path)`` reads the file with the standard library's ``tomllib`` and
returns a frozen ``TableSettings``; ``TableSettings.table_setup()`` is the
engine's ``TableSetup``. Every problem in the file is collected and reported
together in one ``SettingsError``, each naming the key (a dotted path such as
``stakes.small_bet``), the value found and what is allowed. A key the loader does
not know is an error, with a "did you mean" where one is close: a typo in a
casino's configuration must never be ignored and replaced by a default.

The sections, their keys and their defaults are documented in docs/deploy.md
(Configuration reference) and shown in docs/examples/table.toml.

``parse_config(text, ...)`` is the pure core (no I/O): it runs the readers of the game's
sections (``controller.config.game``, which also holds every section's keys) and of the
equipment's (``controller.config.equipment``) over the file; ``load_config`` reads the
file, and with ``files=True`` the deck files it names too (``deck_file_problems``), as
start-up does, their problems reported with the file's others.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from types import MappingProxyType

from controller.config.equipment import (
    read_control,
    read_decks,
    read_devices,
    read_display,
    read_journal,
    read_keys,
    read_log,
)
from controller.config.floorlink import floor_file_problems, read_floor
from controller.config.game import (
    SECTION_KEYS,
    engine_problem,
    read_rules,
    read_stacks,
    read_stakes,
    read_table,
    stacks_chip,
)
from controller.config.settings import (
    DECK_NAMES,
    DEFAULT_CONFIG,
    DEFAULT_HANDS_PER_FILE,
    DEFAULT_JOURNAL_DIR,
    DEFAULT_MAX_BYTES,
    DeckSettings,
    FloorLinkSettings,
    JournalSettings,
    LogFormat,
    LogLevel,
    LogSettings,
    TableSettings,
)
from controller.poker.engine.tablesetup import (
    ConfigError,
    HouseRules,
    TableSetup,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.tomlcheck import MISSING, Problem, Section, SettingsError
from drivers.deck import Deck, DeckError, DeckFileError, DeckSet

__all__ = [
    "DEFAULT_HANDS_PER_FILE",
    "DEFAULT_JOURNAL_DIR",
    "DEFAULT_MAX_BYTES",
    "MISSING",
    "DeckSettings",
    "JournalSettings",
    "LogFormat",
    "LogLevel",
    "LogSettings",
    "Problem",
    "SettingsError",
    "TableSettings",
    "deck_file_problems",
    "load_config",
    "parse_config",
]


def parse_config(
    text: str,
    *,
    source: str = "table.toml",
    base: Path = Path(),
    games: Mapping[str, GameSpec] = GAMES,
    check_decks: Callable[[DeckSettings], list[Problem]] | None = None,
    check_floor: Callable[[FloorLinkSettings], list[Problem]] | None = None,
) -> TableSettings:
    """Check a configuration's text; relative paths in it are taken from ``base``.

    ``check_decks``, if given, is asked about a well-formed ``[decks]`` section (the deck
    files it names), even when other sections have problems: every problem is reported at once.
    ``check_floor`` likewise, about a well-formed ``[floor]`` (its password and TLS files).
    Raises SettingsError listing every problem found.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(source, [Problem("(file)", MISSING, f"expected TOML: {exc}")]) from None
    problems: list[Problem] = []
    top = Section(problems, "", data, SECTION_KEYS[""], SECTION_KEYS)

    table_section = top.section("table", SECTION_KEYS["table"], required=True)
    table = read_table(table_section, games) if table_section else None
    spec = table.game if table else None
    stakes_section = top.section("stakes", SECTION_KEYS["stakes"], required=True)
    stakes = read_stakes(stakes_section, spec) if stakes_section else None
    stacks_section = top.section("stacks", None, required=False)
    stacks = read_stacks(
        stacks_section, table.seats if table else None, stacks_chip(stakes_section)
    )
    devices = read_devices(top)
    decks_section = top.section("decks", SECTION_KEYS["decks"], required=True)
    decks = read_decks(decks_section, base) if decks_section else None
    if decks is not None and check_decks is not None:
        problems.extend(check_decks(decks))
    journal = read_journal(top.section("journal", SECTION_KEYS["journal"], required=False), base)
    log = read_log(top.section("log", SECTION_KEYS["log"], required=False), base)
    control = read_control(top.section("control", SECTION_KEYS["control"], required=False), base)
    display = read_display(top.section("display", SECTION_KEYS["display"], required=False), base)
    rules = read_rules(top.section("rules", SECTION_KEYS["rules"], required=False), spec)
    floor = read_floor(top.section("floor", SECTION_KEYS["floor"], required=False), base)
    if floor is not None and check_floor is not None:
        problems.extend(check_floor(floor))
    keys = read_keys(top.section("keys", SECTION_KEYS["keys"], required=False), base)

    if table and spec and stakes and table.seats is not None and table.dealer is not None:
        try:
            TableSetup(table.seats, stakes, table.dealer, stacks, rules or HouseRules()).validate(
                spec
            )
        except ConfigError as exc:
            problems.append(engine_problem("table", {}, exc))

    if problems:
        raise SettingsError(source, problems)
    # Every reader that returns None has recorded a problem, so none is None here.
    assert table is not None
    assert table.table_id is not None
    assert table.seats is not None
    assert table.dealer is not None
    assert spec is not None
    assert stakes is not None
    assert devices is not None
    assert decks is not None
    assert journal is not None
    assert log is not None
    assert rules is not None
    assert keys is not None
    return TableSettings(
        source=source,
        table_id=table.table_id,
        game=spec,
        seats=table.seats,
        dealer=table.dealer,
        stakes=stakes,
        stacks=MappingProxyType(stacks),
        shoe=devices[0],
        panel=devices[1],
        decks=decks,
        journal=journal,
        log=log,
        control=control,
        display=display,
        rules=rules,
        floor=floor,
        keys=keys,
    )


def load_config(
    path: Path | str, *, games: Mapping[str, GameSpec] = GAMES, files: bool = False
) -> TableSettings:
    """Read and check ``table.toml``; relative paths in it are taken from its folder. With
    ``files``, read and check the deck files it names too, as the table loads them at start-up,
    and ``[floor]``'s password and TLS files, as ``tablectl forward`` reads them.

    Raises SettingsError (a ConfigError) listing every problem, or naming the file
    when it cannot be read.
    """
    # The commands' --config default is this very object: a table.toml the user did not name
    # is said to be the default, so a missing one is not taken for a typing mistake.
    defaulted = path is DEFAULT_CONFIG
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if defaulted:
            reason += " (--config was not given, and this is its default: give --config FILE)"
        raise SettingsError(
            str(path), [Problem("(file)", str(path), f"expected a readable file: {reason}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(
            str(path), [Problem("(file)", str(path), f"expected UTF-8 text: {exc}")]
        ) from None
    return parse_config(
        text,
        source=str(path),
        base=path.parent,
        games=games,
        check_decks=deck_file_problems if files else None,
        check_floor=floor_file_problems if files else None,
    )


def deck_file_problems(decks: DeckSettings) -> list[Problem]:
    """What stops the table loading its decks: a deck file that cannot be read or parsed, or
    a pair that is not two decks (two names, no tag in both), as the table loads them."""
    problems = []
    loaded: list[Deck] = []
    for name in DECK_NAMES:
        file: Path = getattr(decks, name)
        try:
            loaded.append(Deck.load(file))
        except DeckFileError as exc:
            where = f"line {exc.line}: " if exc.line is not None else ""
            problems.append(Problem(f"decks.{name}", str(file), f"{where}{exc.reason}"))
    if not problems:
        try:
            DeckSet(loaded[0], loaded[1])
        except DeckError as exc:
            problems.append(
                Problem("decks", f"{decks.a} and {decks.b}", f"expected two decks: {exc}")
            )
    return problems
