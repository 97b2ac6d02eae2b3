"""The game's sections of ``table.toml``: [table], [stakes], [stacks] and [rules], and the keys
of every section.

Each reader takes its ``Section`` (controller.tomlcheck), records every problem it finds there
and returns None when it found one; ``engine_problem`` places the engine's own refusal at the
key it names. ``controller.config.tabletoml`` runs them over the whole file. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from controller.poker.engine.tablesetup import (
    RULE_NAMES,
    ConfigError,
    HouseRules,
    ShortAllIn,
    Stakes,
)
from controller.poker.games.spec import ForcedBet, GameSpec
from controller.tomlcheck import MISSING, Problem, Section
from drivers.seam.events import ROLES

#: A table id appears in every log line and journal record: short and shell-safe.
_TABLE_ID: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")


#: A device section's keys: ``kind`` (drivers/seam/registry.py), then those of the default
#: kind, tablectl (drivers/tablectl/backend.py ``KEYS``: its backend checks them, as every
#: backend checks its own); listed here for "did you mean" and the docs' reference.
DEVICE_KEYS: Final = (
    "kind",
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
            "floor",
            "keys",
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
        "devices": ROLES,
        "devices.shoe": DEVICE_KEYS,
        "devices.panel": DEVICE_KEYS,
        "decks": ("a", "b", "active", "alternate"),
        "journal": ("dir", "fsync", "hands_per_file", "max_bytes", "keep_days"),
        "log": ("level", "format", "file"),
        "control": ("socket",),
        "display": ("socket",),
        "rules": RULE_NAMES,
        "floor": (
            "servers",
            "user",
            "password_file",
            "tls_ca",
            "tls_cert",
            "tls_key",
            "ack_timeout",
        ),
        "keys": ("private_key",),
    }
)


@dataclass(slots=True)
class _Table:
    table_id: str | None
    game: GameSpec | None
    seats: tuple[int, ...] | None
    dealer: int | None


def read_table(section: Section, games: Mapping[str, GameSpec]) -> _Table:
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


def read_stakes(section: Section, spec: GameSpec | None) -> Stakes | None:
    """The stakes, each key checked alone and against the others (rules-interpretation.md, Betting
    structure), then by the engine's Stakes itself.
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
        # rules-interpretation.md, Betting structure: a pot is divided in smallest chips; a rake cap
        # that is not a multiple of the chip would leave a part of a chip no one can be paid.
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
        # rules-interpretation.md, Betting structure: the bring-in may be completed to the small
        # bet.
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


def stacks_chip(stakes: Section | None) -> int:
    """The smallest chip the stacks are counted in (its own errors are the stakes' to report)."""
    chip = stakes.data.get("chip", 1) if stakes else 1
    return chip if isinstance(chip, int) and not isinstance(chip, bool) and chip >= 1 else 1


def read_stacks(
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


def read_rules(section: Section | None, spec: GameSpec | None) -> HouseRules | None:
    """``[rules]``: the house rules the table posts (rules-interpretation.md, House rules),
    each at its default when left out; a rule the game gives no occasion to apply is refused (it
    could not take effect). None if a problem was recorded."""
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


def engine_problem(section: str, data: Mapping[str, object], error: ConfigError) -> Problem:
    """The engine's refusal as a problem at the key of the setting it names (``field``): its
    stakes and rules keep their section, a table's seats and dealer are ``[table]``'s, a
    stack ``[stacks]``' own; the value, where the section's data holds it."""
    message = f"refused by the engine: {error}"
    field = error.field
    if not field:
        return Problem(section, MISSING, message)
    head, _, name = field.partition(".")
    if head in ("stakes", "rules", "stacks"):
        value = data.get(name, MISSING) if head == section else MISSING
        return Problem(field, value, message)
    return Problem(f"table.{field}", MISSING, message)
