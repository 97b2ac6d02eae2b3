"""Hand scripts: a table's setup and its inputs as plain text (docs/hand-script.md).

A script is how a technician reproduces an incident and how the tests state a
hand: the setup lines (``game``, ``seats``, ``dealer``, ``stakes``, ``stacks``,
``rules``),
then one input per line, a card as the shoe read it (``Kd`` or ``Kd slot`` at
the dealing slot, ``Kd discard`` at the discard reader), a foreign tag
(``tag 04A1B2C3 a card of the other deck``) or a button name (``fold``).
``#`` starts a comment. ``parse_script`` reads one; ``write_script`` writes one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from controller.poker.cards import Card, CardError
from controller.poker.engine.tablesetup import (
    RULE_NAMES,
    ConfigError,
    HouseRules,
    ShortAllIn,
    Stakes,
    TableSetup,
)
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint, TableInput

SETUP_KEYS: Final = ("game", "seats", "dealer", "stakes", "stacks", "rules")
#: The house rules as a script writes them (rules-interpretation.md, House rules): each rule's name
#: with dashes, ``yes`` or ``no`` (``short-all-in``: half-bet or full-bet).
_RULE_KEYS: Final = {name.replace("_", "-"): name for name in RULE_NAMES}
_STAKES_KEYS: Final = {
    "ante": "ante",
    "bring-in": "bring_in",
    "small-bet": "small_bet",
    "big-bet": "big_bet",
    "small-blind": "small_blind",
    "big-blind": "big_blind",
    "cap": "cap",
    "chip": "chip",
    "rake-percent": "rake_percent",
    "rake-cap": "rake_cap",
    "rake-without-showdown": "rake_without_showdown",
}
_BUTTONS: Final = ", ".join(b.value for b in Button)
_EXPECTED_EVENT: Final = (
    "a card code with an optional read point (slot, discard), 'tag UID REASON', "
    f"or a button ({_BUTTONS})"
)


class ScriptError(ValueError):
    """A line of a hand script that cannot be read: where it is and what was expected."""

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        super().__init__(f"{source}:{line}: {message}")


@dataclass(frozen=True, slots=True)
class ScriptLine:
    """One input of a script and the line it is on."""

    line: int
    input: TableInput


@dataclass(frozen=True, slots=True)
class HandScript:
    """A parsed script: the setup, the inputs in order, and the lines that could not be read."""

    game: str | None
    config: TableSetup
    lines: tuple[ScriptLine, ...]
    errors: tuple[ScriptError, ...]


def parse_input(text: str) -> TableInput:
    """One input line (comment removed) as a TableInput; ValueError says what was expected."""
    words = text.split()
    if not words:
        raise ValueError(f"an empty line; expected {_EXPECTED_EVENT}")
    head = words[0]
    if head == "tag":
        if len(words) < 3:
            raise ValueError(
                f"{text!r}: expected 'tag UID REASON', e.g. 'tag 04A1B2C3 not enrolled'"
            )
        point = ReadPoint.DEALING_SLOT
        reason_words = words[2:]
        if reason_words[0] in {p.value for p in ReadPoint}:
            point, reason_words = ReadPoint(reason_words[0]), reason_words[1:]
        return ForeignTag(words[1], " ".join(reason_words), point)
    if head in {b.value for b in Button}:
        if len(words) > 1:
            raise ValueError(f"{text!r}: a button takes nothing after its name")
        return ButtonPress(Button(head))
    try:
        card = Card.parse(head)
    except CardError as error:
        raise ValueError(f"{text!r}: {error}; or {_EXPECTED_EVENT}") from None
    if len(words) == 1:
        return CardRead(card)
    if len(words) == 2 and words[1] in {p.value for p in ReadPoint}:
        return CardRead(card, ReadPoint(words[1]))
    raise ValueError(f"{text!r}: after a card, expected a read point: slot or discard")


def parse_inputs(text: str) -> list[TableInput]:
    """Inputs written on one line, separated by spaces (``"new_hand As Kd fold"``); for tests.

    A card at the discard reader is written ``Kd@discard``.
    """
    inputs: list[TableInput] = []
    for word in text.split():
        inputs.append(parse_input(word.replace("@", " ")))
    return inputs


def _pairs(source: str, line: int, words: Sequence[str]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for word in words:
        key, sep, value = word.partition("=")
        if not sep or not value:
            raise ScriptError(source, line, f"{word!r}: expected key=value")
        pairs[key] = value
    return pairs


def _int(source: str, line: int, key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ScriptError(source, line, f"{key}={value!r}: expected a whole number") from None


def _stakes(source: str, line: int, words: Sequence[str]) -> Stakes:
    values: dict[str, int | bool | None] = {}
    for key, value in _pairs(source, line, words).items():
        name = _STAKES_KEYS.get(key)
        if name is None:
            known = ", ".join(_STAKES_KEYS)
            raise ScriptError(source, line, f"stakes: unknown {key!r}; expected one of {known}")
        if name == "rake_without_showdown":
            if value not in {"yes", "no"}:
                raise ScriptError(source, line, f"{key}={value!r}: expected yes or no")
            values[name] = value == "yes"
        elif name == "rake_cap" and value == "none":
            values[name] = None
        else:
            values[name] = _int(source, line, key, value)
    for needed in ("small_bet", "big_bet"):
        if needed not in values:
            raise ScriptError(source, line, f"stakes: {needed.replace('_', '-')}=N is required")
    try:
        return Stakes(**values)  # type: ignore[arg-type]  # keys and types checked above
    except ConfigError as error:
        raise ScriptError(source, line, str(error)) from None


def _rules(source: str, line: int, words: Sequence[str]) -> HouseRules:
    values: dict[str, bool | ShortAllIn] = {}
    for key, value in _pairs(source, line, words).items():
        name = _RULE_KEYS.get(key)
        if name is None:
            known = ", ".join(_RULE_KEYS)
            raise ScriptError(source, line, f"rules: unknown {key!r}; expected one of {known}")
        if name == "short_all_in":
            if value not in set(ShortAllIn):
                allowed = " or ".join(rule.value for rule in ShortAllIn)
                raise ScriptError(source, line, f"{key}={value!r}: expected {allowed}")
            values[name] = ShortAllIn(value)
        elif value in {"yes", "no"}:
            values[name] = value == "yes"
        else:
            raise ScriptError(source, line, f"{key}={value!r}: expected yes or no")
    return HouseRules(**values)  # type: ignore[arg-type]  # keys and types checked above


def parse_script(text: str, source: str = "<script>") -> HandScript:
    """Read a hand script. A bad setup line raises ScriptError (nothing can run without the
    setup); a bad input line is collected in ``errors`` and left out of ``lines``.
    """
    setup: dict[str, tuple[int, list[str]]] = {}
    lines: list[ScriptLine] = []
    errors: list[ScriptError] = []
    in_setup = True
    for number, raw in enumerate(text.splitlines(), start=1):
        content = raw.split("#", 1)[0].strip()
        if not content:
            continue
        words = content.split()
        if in_setup and words[0] in SETUP_KEYS:
            if words[0] in setup:
                raise ScriptError(source, number, f"{words[0]!r} given twice")
            setup[words[0]] = (number, words[1:])
            continue
        in_setup = False
        try:
            lines.append(ScriptLine(number, parse_input(content)))
        except ValueError as error:
            errors.append(ScriptError(source, number, str(error)))
    game, config = _setup(source, setup)
    return HandScript(game, config, tuple(lines), tuple(errors))


def _setup(source: str, setup: dict[str, tuple[int, list[str]]]) -> tuple[str | None, TableSetup]:
    game = None
    if "game" in setup:
        line, words = setup["game"]
        if len(words) != 1:
            raise ScriptError(source, line, "game: expected one game key, e.g. 'game mambo'")
        game = words[0]
    if "seats" not in setup:
        raise ScriptError(source, 1, "the setup needs 'seats N N ...' before the first input")
    if "stakes" not in setup:
        raise ScriptError(source, 1, "the setup needs 'stakes small-bet=N big-bet=N ...'")
    line, words = setup["seats"]
    seats = tuple(_int(source, line, "seats", word) for word in words)
    dealer = 0
    if "dealer" in setup:
        line, words = setup["dealer"]
        if len(words) != 1:
            raise ScriptError(source, line, "dealer: expected one seat number (0: before seat 1)")
        dealer = _int(source, line, "dealer", words[0])
    stakes = _stakes(source, *setup["stakes"])
    stacks: dict[int, int] = {}
    if "stacks" in setup:
        line, words = setup["stacks"]
        for key, value in _pairs(source, line, words).items():
            stacks[_int(source, line, "stacks seat", key)] = _int(
                source, line, f"stack {key}", value
            )
    rules = _rules(source, *setup["rules"]) if "rules" in setup else HouseRules()
    return game, TableSetup(seats=seats, stakes=stakes, dealer=dealer, stacks=stacks, rules=rules)


def format_input(inp: TableInput) -> str:
    """One input as a script line."""
    if isinstance(inp, CardRead):
        return (
            inp.card.code if inp.point is ReadPoint.DEALING_SLOT else f"{inp.card.code} {inp.point}"
        )
    if isinstance(inp, ForeignTag):
        return f"tag {inp.tag} {inp.point} {inp.reason}"
    return inp.button.value


def _rule_word(rules: HouseRules, name: str) -> str:
    value = getattr(rules, name)
    if isinstance(value, ShortAllIn):
        return value.value
    return "yes" if value else "no"


def write_script(game: str, config: TableSetup, inputs: Iterable[TableInput]) -> str:
    """A script that replays ``inputs`` at a table set up as ``config``."""
    stakes = config.stakes
    fields = [
        ("ante", stakes.ante),
        ("bring-in", stakes.bring_in),
        ("small-bet", stakes.small_bet),
        ("big-bet", stakes.big_bet),
        ("small-blind", stakes.small_blind),
        ("big-blind", stakes.big_blind),
        ("cap", stakes.cap),
        ("chip", stakes.chip),
        ("rake-percent", stakes.rake_percent),
        ("rake-cap", "none" if stakes.rake_cap is None else stakes.rake_cap),
        ("rake-without-showdown", "yes" if stakes.rake_without_showdown else "no"),
    ]
    out = [
        f"game {game}",
        "seats " + " ".join(str(seat) for seat in config.seats),
        f"dealer {config.dealer}",
        "stakes " + " ".join(f"{key}={value}" for key, value in fields),
    ]
    if config.stacks:
        out.append("stacks " + " ".join(f"{s}={n}" for s, n in sorted(config.stacks.items())))
    out.append(
        "rules "
        + " ".join(f"{key}={_rule_word(config.rules, name)}" for key, name in _RULE_KEYS.items())
    )
    out.extend(format_input(inp) for inp in inputs)
    return "\n".join(out) + "\n"
