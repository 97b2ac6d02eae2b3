"""The table's configuration file, ``table.toml``: read, checked whole, and made into settings.

``load_config(path)`` reads the file with the standard library's ``tomllib`` and
returns a frozen ``TableSettings``; ``TableSettings.table_config()`` is the
engine's ``TableConfig``. Every problem in the file is collected and reported
together in one ``SettingsError``, each naming the key (a dotted path such as
``stakes.small_bet``), the value found and what is allowed. A key the loader does
not know is an error, with a "did you mean" where one is close: a typo in a
casino's configuration must never be ignored and replaced by a default.

The sections, their keys and their defaults are documented in docs/deploy.md
(Configuration reference) and shown in docs/examples/table.toml.

``parse_config(text, ...)`` is the pure core (no I/O); ``load_config`` reads the
file, and with ``files=True`` the deck files it names too (``deck_file_problems``), as
start-up does, their problems reported with the file's others.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Final

from controller.engine.config import (
    RULE_NAMES,
    ConfigError,
    HouseRules,
    ShortAllIn,
    Stakes,
    TableConfig,
)
from controller.games import GAMES
from controller.games.spec import ForcedBet, GameSpec
from controller.settings import (
    BAUDRATES,
    DECK_NAMES,
    DEFAULT_BAUDRATE,
    DEFAULT_HANDS_PER_FILE,
    DEFAULT_HEARTBEAT_TIMEOUT,
    DEFAULT_JOURNAL_DIR,
    DEFAULT_MAX_BYTES,
    DEVICE_NAMES,
    HEARTBEAT_INTERVAL,
    MAX_HEARTBEAT_TIMEOUT,
    MAX_SOCKET_PATH,
    ControlSettings,
    DeckSettings,
    DeviceSettings,
    DisplaySettings,
    JournalSettings,
    LogFormat,
    LogLevel,
    LogSettings,
    TableSettings,
    UdevMatch,
)
from controller.tomlcheck import MISSING, Problem, Section, SettingsError
from drivers.deck import Deck, DeckError, DeckFileError, DeckSet

__all__ = [
    "BAUDRATES",
    "DEFAULT_BAUDRATE",
    "DEFAULT_HANDS_PER_FILE",
    "DEFAULT_HEARTBEAT_TIMEOUT",
    "DEFAULT_JOURNAL_DIR",
    "DEFAULT_MAX_BYTES",
    "MISSING",
    "SECTION_KEYS",
    "DeckSettings",
    "DeviceSettings",
    "JournalSettings",
    "LogFormat",
    "LogLevel",
    "LogSettings",
    "Problem",
    "SettingsError",
    "TableSettings",
    "UdevMatch",
    "deck_file_problems",
    "engine_problem",
    "load_config",
    "parse_config",
]

# --- Reading one section ------------------------------------------------------------------

#: A table id appears in every log line and journal record: short and shell-safe.
_TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
#: docs/protocol.md, Common field types: ``token``, the form of a device's serial number.
_SERIAL: Final = re.compile(r"[A-Za-z0-9._-]{1,16}")
#: A USB vendor or product id as lsusb and udev (ID_VENDOR_ID) show it.
_USB_ID: Final = re.compile(r"[0-9A-Fa-f]{4}")
#: A pyserial URL: ``scheme://rest`` (socket://, rfc2217://, loop://, the simulator's sim://).
_URL: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S*")

_DEVICE_KEYS: Final = (
    "path",
    "url",
    "vendor_id",
    "product_id",
    "serial",
    "baudrate",
    "heartbeat_timeout",
)

#: Every section's keys, for unknown-key errors and "did you mean".
SECTION_KEYS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {
        "": (
            "table",
            "stakes",
            "stacks",
            "devices",
            "decks",
            "journal",
            "log",
            "control",
            "display",
            "rules",
        ),
        "table": ("id", "game", "seats", "dealer", "button"),
        "stakes": (
            "ante",
            "bring_in",
            "small_bet",
            "big_bet",
            "small_blind",
            "big_blind",
            "cap",
            "chip",
            "rake_percent",
            "rake_cap",
            "rake_without_showdown",
        ),
        "devices": DEVICE_NAMES,
        "devices.shoe": _DEVICE_KEYS,
        "devices.panel": _DEVICE_KEYS,
        "decks": ("a", "b", "active", "alternate"),
        "journal": ("dir", "fsync", "hands_per_file", "max_bytes"),
        "log": ("level", "format", "file"),
        "control": ("socket",),
        "display": ("socket",),
        "rules": RULE_NAMES,
    }
)


# --- The sections -------------------------------------------------------------------------


@dataclass(slots=True)
class _Table:
    table_id: str | None
    game: GameSpec | None
    seats: tuple[int, ...] | None
    dealer: int | None


def _read_table(section: Section, games: Mapping[str, GameSpec]) -> _Table:
    table_id = section.string(
        "id",
        pattern=_TABLE_ID,
        what="a table id of 1 to 32 letters, digits, '.', '_' or '-', starting with a "
        "letter or digit",
        required=True,
    )
    key = section.choice("game", sorted(games), None)
    spec = games[key] if key is not None else None
    seats = _read_seats(section, spec)
    dealer = _read_dealer(section, spec, seats)
    return _Table(table_id, spec, seats, dealer)


def _read_seats(section: Section, spec: GameSpec | None) -> tuple[int, ...] | None:
    value = section.data.get("seats", MISSING)
    most = spec.max_seats if spec is not None else None
    allowed = f"1 to {most}" if most is not None else "numbered from 1"
    expected = f"expected a list of at least two different occupied seats, {allowed}"
    if spec is not None:
        # 14.13(b), 14.13A(b), 14.12A(b): each game seats at most so many players.
        expected += f" ({spec.name} seats at most {spec.max_seats}, {spec.rule})"
    if value is MISSING:
        section.fail("seats", expected + "; this key is required")
        return None
    if (
        not isinstance(value, list)
        or len(value) < 2
        or not all(isinstance(s, int) and not isinstance(s, bool) for s in value)
        or len(set(value)) != len(value)
        or any(s < 1 or (most is not None and s > most) for s in value)
    ):
        section.fail("seats", expected)
        return None
    return tuple(sorted(value))


def _read_dealer(
    section: Section, spec: GameSpec | None, seats: tuple[int, ...] | None
) -> int | None:
    if spec is None:
        return None
    most = spec.max_seats
    if spec.button_moves:
        # 14.12A(c), 14.10(c): a button game's dealer position is the button, on a player.
        if section.has("dealer"):
            section.fail("dealer", f"no 'dealer' in {spec.name}: it has a button; set 'button'")
        allowed = "one of the occupied seats" + (f" {list(seats)}" if seats else "")
        button = section.integer("button", minimum=1, maximum=most, what=allowed)
        if button is not None and seats is not None and button not in seats:
            section.fail("button", f"expected {allowed}")
            return None
        return button
    if section.has("button"):
        section.fail(
            "button",
            f"no button in {spec.name} ({spec.rule}): set 'dealer', the seat number just "
            "before the first seat dealt (0 to deal seat 1 first)",
        )
    # 14.13(c), 14.13A(c): cards are dealt from the first player left of the dealer.
    return section.integer(
        "dealer",
        0,
        maximum=most,
        what="the seat number just before the first seat dealt (0 deals seat 1 first)",
    )


def _read_stakes(section: Section, spec: GameSpec | None) -> Stakes | None:
    """The stakes, each key checked alone and against the others (NOTES.md, Betting structure),
    then by the engine's Stakes itself.
    """
    before = len(section.problems)
    chip = section.integer("chip", 1, minimum=1, what="the smallest chip")
    amounts = {
        name: section.integer(name, None if name in ("small_bet", "big_bet") else 0)
        for name in ("ante", "bring_in", "small_bet", "big_bet", "small_blind", "big_blind")
    }
    cap = section.integer("cap", 4, minimum=1, what="bets per round (one bet and its raises)")
    rake_percent = section.integer("rake_percent", 0, maximum=100, what="a percentage")
    rake_cap = section.integer("rake_cap", -1)  # -1: no cap (TOML has no null)
    without = section.boolean("rake_without_showdown", False)
    if chip is not None:
        # NOTES.md, Betting structure: a pot is divided in smallest chips; a rake cap that is
        # not a multiple of the chip would leave a part of a chip no one can be paid.
        for name, amount in {**amounts, "rake_cap": rake_cap}.items():
            if amount is not None and amount > 0 and amount % chip:
                section.fail(
                    name, f"expected a multiple of the smallest chip, stakes.chip = {chip}"
                )
    small, big = amounts["small_bet"], amounts["big_bet"]
    if small == 0:
        section.fail("small_bet", "expected more than 0")
    if small is not None and big is not None and big < small:
        section.fail("big_bet", f"expected at least the small bet, stakes.small_bet = {small}")
    bring_in = amounts["bring_in"]
    if bring_in is not None and small and bring_in > small:
        # NOTES.md, Betting structure: the bring-in may be completed to the small bet.
        section.fail("bring_in", f"expected at most the small bet, stakes.small_bet = {small}")
    if spec is not None:
        _check_forced_bets(section, spec, amounts)
    if len(section.problems) > before:
        return None
    try:
        return Stakes(
            small_bet=small or 0,
            big_bet=big or 0,
            ante=amounts["ante"] or 0,
            bring_in=bring_in or 0,
            small_blind=amounts["small_blind"] or 0,
            big_blind=amounts["big_blind"] or 0,
            cap=cap or 0,
            chip=chip or 0,
            rake_percent=rake_percent or 0,
            rake_cap=None if rake_cap is None or rake_cap < 0 else rake_cap,
            rake_without_showdown=bool(without),
        )
    except ConfigError as exc:  # the engine's own checks, should the loader's miss one
        section.problems.append(engine_problem("stakes", section.data, exc))
        return None


def _check_forced_bets(section: Section, spec: GameSpec, amounts: Mapping[str, int | None]) -> None:
    if spec.forced_bet is ForcedBet.BRING_IN:
        # 14.13(d), 14.13A(d): the stud games open with the low card's bring-in, not blinds.
        for name in ("small_blind", "big_blind"):
            if amounts[name]:
                section.fail(
                    name,
                    f"expected 0 or no key: {spec.name} has no blinds; its forced bet is the "
                    f"bring-in ({spec.rule}(d))",
                )
        return
    # 14.10(c),(d) via 14.12A(c): a button game posts a small and a big blind.
    if amounts["bring_in"]:
        section.fail(
            "bring_in", f"expected 0 or no key: {spec.name} opens with blinds, not a bring-in"
        )
    small_blind, big_blind, small_bet = (
        amounts["small_blind"],
        amounts["big_blind"],
        amounts["small_bet"],
    )
    if small_blind is not None and small_blind <= 0:
        section.fail("small_blind", f"expected more than 0: {spec.name} posts blinds")
    if big_blind is not None and big_blind <= 0:
        section.fail("big_blind", f"expected more than 0: {spec.name} posts blinds")
    if small_blind and big_blind and small_blind > big_blind:
        section.fail(
            "small_blind", f"expected at most the big blind, stakes.big_blind = {big_blind}"
        )
    if big_blind and small_bet and big_blind > small_bet:
        section.fail("big_blind", f"expected at most the small bet, stakes.small_bet = {small_bet}")


def _chip(stakes: Section | None) -> int:
    """The smallest chip the stacks are counted in (its own errors are the stakes' to report)."""
    chip = stakes.data.get("chip", 1) if stakes else 1
    return chip if isinstance(chip, int) and not isinstance(chip, bool) and chip >= 1 else 1


def _read_stacks(
    section: Section | None, seats: tuple[int, ...] | None, chip: int
) -> dict[int, int]:
    stacks: dict[int, int] = {}
    if section is None:
        return stacks
    for key in section.data:
        seat = int(key) if key.isdigit() else None
        if seat is None or (seats is not None and seat not in seats):
            occupied = f" {list(seats)}" if seats is not None else ""
            section.problems.append(
                Problem(
                    section.key(key),
                    section.data[key],
                    f"no such seat; expected the number of an occupied seat{occupied}",
                )
            )
            continue
        amount = section.integer(key, None, what="chips in front of the seat")
        if amount is not None and amount % chip:
            section.fail(key, f"expected a multiple of the smallest chip, stakes.chip = {chip}")
        elif amount is not None:
            stacks[seat] = amount
    return stacks


def _read_device(section: Section) -> DeviceSettings | None:
    before = len(section.problems)
    ways = [name for name in ("path", "url") if section.has(name)]
    matched = [name for name in ("vendor_id", "product_id") if section.has(name)]
    ways_text = (
        "either 'path' (a device, e.g. /dev/tablectl/shoe), or 'url' (a pyserial URL, e.g. "
        "sim://shoe), or a udev match: 'vendor_id', 'product_id' and 'serial'"
    )
    url: str | None = None
    match: UdevMatch | None = None
    serial = section.string(
        "serial",
        pattern=_SERIAL,
        what="the device's serial number: 1 to 16 letters, digits, '.', '_' or '-'",
        required=bool(matched) and not ways,
    )
    if len(ways) + bool(matched) != 1:
        given = {name: section.data[name] for name in (*ways, *matched)}
        section.problems.append(Problem(section.prefix, given or MISSING, f"expected {ways_text}"))
    elif ways == ["path"]:
        url = section.string(
            "path",
            what="an absolute device path, e.g. /dev/tablectl/shoe",
            pattern=re.compile(r"/\S+"),
            required=True,
        )
    elif ways == ["url"]:
        url = section.string(
            "url",
            pattern=_URL,
            what="a pyserial URL 'scheme://...', e.g. sim://shoe",
            required=True,
        )
    else:
        ids = {
            name: section.string(
                name,
                pattern=_USB_ID,
                what='four hex digits as lsusb shows them, e.g. "1209"',
                required=True,
            )
            for name in ("vendor_id", "product_id")
        }
        vendor, product = ids["vendor_id"], ids["product_id"]
        if vendor and product and serial:
            match = UdevMatch(vendor.lower(), product.lower(), serial)
    baudrate = section.integer("baudrate", DEFAULT_BAUDRATE)
    if baudrate is not None and baudrate not in BAUDRATES:
        section.fail(
            "baudrate", f"expected one of {', '.join(map(str, BAUDRATES))} (docs/protocol.md, 1)"
        )
    timeout = section.seconds(
        "heartbeat_timeout",
        DEFAULT_HEARTBEAT_TIMEOUT,
        above=HEARTBEAT_INTERVAL,
        maximum=MAX_HEARTBEAT_TIMEOUT,
    )
    if len(section.problems) > before or baudrate is None or timeout is None:
        return None
    name = section.prefix.rsplit(".", 1)[-1]
    return DeviceSettings(name, url, match, serial, baudrate, timeout)


def _read_decks(section: Section, base: Path) -> DeckSettings | None:
    before = len(section.problems)
    what = "the path of a deck's enrollment file (one card a line: code and tag UID)"
    a = section.path("a", base, what=what, required=True)
    b = section.path("b", base, what=what, required=True)
    active = section.choice("active", DECK_NAMES, "a")
    # NOTES.md, Shuffle, cut and decks: with a shuffler the two decks alternate.
    alternate = section.boolean("alternate", True)
    if a is not None and b is not None and a == b:
        # NOTES.md, Integrity: a table keeps two decks; one file cannot enroll both.
        section.fail("b", "expected a different file from decks.a: the table keeps two decks")
    if (
        len(section.problems) > before
        or a is None
        or b is None
        or active is None
        or alternate is None
    ):
        return None
    return DeckSettings(a, b, active, alternate)


def _read_journal(section: Section | None, base: Path) -> JournalSettings | None:
    if section is None:
        return JournalSettings()
    before = len(section.problems)
    directory = section.path(
        "dir", base, what="the journal's folder", required=False, default=DEFAULT_JOURNAL_DIR
    )
    fsync = section.boolean("fsync", True)
    hands = section.integer("hands_per_file", DEFAULT_HANDS_PER_FILE, minimum=1)
    size = section.integer("max_bytes", DEFAULT_MAX_BYTES, minimum=1)
    if len(section.problems) > before:
        return None
    if directory is None or fsync is None or hands is None or size is None:
        return None
    return JournalSettings(directory, fsync, hands, size)


def _read_rules(section: Section | None, spec: GameSpec | None) -> HouseRules | None:
    """``[rules]``: the house rules the table posts (NOTES.md, House rules), each NOTES.md's
    default when left out; a rule the game gives no occasion to apply is refused (it could not
    take effect). None if a problem was recorded."""
    if section is None:
        return HouseRules()
    before = len(section.problems)
    defaults = HouseRules()
    flags = {
        name: section.boolean(name, getattr(defaults, name))
        for name in (
            "opener_must_bet",
            "cap_lifts_heads_up",
            "bring_in_has_option",
            "burn_before_each_draw",
        )
    }
    short = section.choice(
        "short_all_in", [rule.value for rule in ShortAllIn], defaults.short_all_in.value
    )
    if len(section.problems) > before or short is None or None in flags.values():
        return None
    rules = HouseRules(short_all_in=ShortAllIn(short), **flags)  # type: ignore[arg-type]
    for name, why in rules.inert_in(spec) if spec is not None else ():
        section.fail(name, f"expected the key left out: it cannot take effect ({why})")
    return None if len(section.problems) > before else rules


def _read_control(section: Section | None, base: Path) -> ControlSettings | None:
    socket = _socket(section, base, "the path of the control socket (tablectl seat)")
    return None if socket is None else ControlSettings(socket)


def _read_display(section: Section | None, base: Path) -> DisplaySettings | None:
    socket = _socket(section, base, "the path of the display feed's socket (tablectl display)")
    return None if socket is None else DisplaySettings(socket)


def _socket(section: Section | None, base: Path, what: str) -> Path | None:
    """A section's ``socket`` key: a path a unix socket can take, or None (not given, or a
    problem recorded)."""
    if section is None:
        return None
    socket = section.path("socket", base, what=what, required=False)
    if socket is None:
        return None
    if len(os.fsencode(socket)) > MAX_SOCKET_PATH:
        section.fail(
            "socket", f"expected a path of at most {MAX_SOCKET_PATH} bytes (a unix socket's limit)"
        )
        return None
    return socket


def _read_log(section: Section | None, base: Path) -> LogSettings | None:
    if section is None:
        return LogSettings()
    before = len(section.problems)
    level = section.choice("level", [level.value for level in LogLevel], LogLevel.INFO.value)
    form = section.choice("format", [form.value for form in LogFormat], LogFormat.AUTO.value)
    file = section.path(
        "file", base, what="the path of a log file (no key: standard error)", required=False
    )
    if len(section.problems) > before or level is None or form is None:
        return None
    return LogSettings(LogLevel(level), LogFormat(form), file)


# --- The engine's own checks --------------------------------------------------------------

_ENGINE_FIELD: Final = re.compile(r"\b([a-z_]+)[=: ]")


def engine_problem(section: str, data: Mapping[str, object], error: ConfigError) -> Problem:
    """The engine's refusal as a problem at the key its message names (the first field named)."""
    message = str(error)
    if section == "stakes":
        keys: Sequence[str] = SECTION_KEYS["stakes"]
        body = message.removeprefix("stakes: ")
    else:
        keys = ("seats", "dealer", "stacks")
        body = message
    for name in _ENGINE_FIELD.findall(body):
        if name in keys:
            key = f"{section}.{name}" if section == "stakes" else _table_key(name, body)
            value = data.get(name, MISSING) if section == "stakes" else MISSING
            return Problem(key, value, f"refused by the engine: {message}")
    return Problem(section, MISSING, f"refused by the engine: {message}")


def _table_key(name: str, message: str) -> str:
    if name == "stacks":
        seat = re.search(r"seat (\d+)", message)
        return f"stacks.{seat.group(1)}" if seat else "stacks"
    return f"table.{name}"


# --- The whole file -----------------------------------------------------------------------


def parse_config(
    text: str,
    *,
    source: str = "table.toml",
    base: Path = Path(),
    games: Mapping[str, GameSpec] = GAMES,
    check_decks: Callable[[DeckSettings], list[Problem]] | None = None,
) -> TableSettings:
    """Check a configuration's text; relative paths in it are taken from ``base``.

    ``check_decks``, if given, is asked about a well-formed ``[decks]`` section (the deck
    files it names), even when other sections have problems: every problem is reported at once.
    Raises SettingsError listing every problem found.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(source, [Problem("(file)", MISSING, f"expected TOML: {exc}")]) from None
    problems: list[Problem] = []
    top = Section(problems, "", data, SECTION_KEYS[""], SECTION_KEYS)

    table_section = top.section("table", SECTION_KEYS["table"], required=True)
    table = _read_table(table_section, games) if table_section else None
    spec = table.game if table else None
    stakes_section = top.section("stakes", SECTION_KEYS["stakes"], required=True)
    stakes = _read_stakes(stakes_section, spec) if stakes_section else None
    stacks_section = top.section("stacks", None, required=False)
    stacks = _read_stacks(stacks_section, table.seats if table else None, _chip(stakes_section))
    devices = _read_devices(top)
    decks_section = top.section("decks", SECTION_KEYS["decks"], required=True)
    decks = _read_decks(decks_section, base) if decks_section else None
    if decks is not None and check_decks is not None:
        problems.extend(check_decks(decks))
    journal = _read_journal(top.section("journal", SECTION_KEYS["journal"], required=False), base)
    log = _read_log(top.section("log", SECTION_KEYS["log"], required=False), base)
    control = _read_control(top.section("control", SECTION_KEYS["control"], required=False), base)
    display = _read_display(top.section("display", SECTION_KEYS["display"], required=False), base)
    rules = _read_rules(top.section("rules", SECTION_KEYS["rules"], required=False), spec)

    if table and spec and stakes and table.seats is not None and table.dealer is not None:
        try:
            TableConfig(table.seats, stakes, table.dealer, stacks, rules or HouseRules()).validate(
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
    )


def _read_devices(top: Section) -> tuple[DeviceSettings, DeviceSettings] | None:
    devices_section = top.section("devices", SECTION_KEYS["devices"], required=True)
    if devices_section is None:
        return None
    found = []
    for name in DEVICE_NAMES:
        section = devices_section.section(name, SECTION_KEYS[f"devices.{name}"], required=True)
        found.append(_read_device(section) if section else None)
    shoe, panel = found
    if shoe is None or panel is None:
        return None
    if shoe.url is not None and shoe.url == panel.url:
        devices_section.problems.append(
            Problem("devices.panel.url", panel.url, "expected a different port from the shoe's")
        )
        return None
    if shoe.serial is not None and shoe.serial == panel.serial:
        devices_section.problems.append(
            Problem(
                "devices.panel.serial",
                panel.serial,
                "expected a different serial number "
                "from the shoe's: the host tells the two devices apart by it",
            )
        )
        return None
    return shoe, panel


def load_config(
    path: Path | str, *, games: Mapping[str, GameSpec] = GAMES, files: bool = False
) -> TableSettings:
    """Read and check ``table.toml``; relative paths in it are taken from its folder. With
    ``files``, read and check the deck files it names too, as the table loads them at start-up.

    Raises SettingsError (a ConfigError) listing every problem, or naming the file
    when it cannot be read.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SettingsError(
            str(path), [Problem("(file)", str(path), f"expected a readable file: {reason}")]
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SettingsError(
            str(path), [Problem("(file)", str(path), f"expected UTF-8 text: {exc}")]
        ) from None
    check_decks = deck_file_problems if files else None
    return parse_config(
        text, source=str(path), base=path.parent, games=games, check_decks=check_decks
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
