"""PHH hand histories in: read a Poker Hand History file and turn its hand into a hand script.

PHH (the uoftcprg "poker hand history" format, TOML) records a hand as its
variant, stakes, starting stacks and an ``actions`` list: ``d dh p1 7h6c4c3d2c``
(cards dealt to a player), ``p3 f`` / ``p3 cc`` / ``p3 cbr 500000`` (fold,
check or call, bet or raise to), ``p2 sd 9d6c`` (stand pat or discard),
``p2 sm 7h6d2c8s5s`` (show or muck). ``read_phh`` reads one file into a
``PhhHand``; ``to_hand_script`` (``controller.history.phh.convert``; the walks are
``controller.history.phh.convert_draw`` and ``controller.history.phh.convert_stud``) turns a
fixed-limit 2-7 triple draw hand (``F2L3D``) into the inputs a table would have seen
(``controller.history.script``): the cards at the dealing slot in the order the procedure deals
them, the discards at the discard reader, the dealer's buttons. It turns the stud games
tablectl's export writes under custom codes (``F5S`` five-card stud, 14.13;
``FMB/6`` Mambo, 14.13A) back into their inputs too, by playing them through
the engine: each card where the table expects it, each action the option the
table offers for it. This is the import half of tablectl's PHH support;
export lives with the application.

What the conversion supplies: PHH records no burns, so the burn before each
draw (14.12A(f); rules-interpretation.md, Burns and draws) is the card of a ``# burn Xx``
comment where the history has one (tablectl's export writes them), otherwise a
card no one in the hand holds; a card the history hides (``??``) is likewise
such a card. Comments (``# ...``) are otherwise ignored. The posted stakes PHH has no
field for, the smallest chip, the raise cap and the rake (docs/deploy.md, ``[stakes]``),
and the chips the table raked from the hand, are user-defined fields of tablectl's export
(``_tablectl_chip``, ``_tablectl_cap``, ``_tablectl_rake_percent``, ``_tablectl_rake_cap``,
``_tablectl_rake_without_showdown``; ``_tablectl_rake``): a file without them is dealt
with a chip of 1, a cap of four bets and no rake. The converted hand, played through the
engine, must settle as the file records it, its rake and every known ``finishing_stacks``
entry (``controller.history.phh.convert``): 14.19(c) takes the rake before a pot is divided, so a
rake the file leaves out pays the winners chips the table kept. Players
``p1..pN`` sit in the seats of PHH's ``seats`` (tablectl's export writes it), in
that order, else in seats 1..N: dealt from p1, the button (triple draw) on the
last, so p1 is the small blind (heads-up the button, p2, posts it), as PHH
orders them; a seat past the game's (14.12A(b), 14.13(b), 14.13A(b)) is refused. A starting
stack of ``inf`` (PokerKit's unknown stack; tablectl's export writes it for a seat
whose stack the table does not know) is an unknown stack: it bets, it is never all-in.
What it refuses, with ``PhhUnsupported`` naming why: other variants,
straddles, unequal antes, a card dealt twice (the source reshuffled under its
own rules), a showdown hand the history hides, and in stud an action the table
would not offer (another seat to act, a bet the fixed limit does not make).
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

from controller.history.script import write_script
from controller.poker.engine.tablesetup import (
    RULE_NAMES,
    ConfigError,
    HouseRules,
    Stakes,
    TableSetup,
)
from controller.poker.games import GAMES
from controller.poker.games.spec import GameSpec
from controller.poker.inputs import TableInput

#: PHH variant codes tablectl can convert, and the game each becomes: PHH's standard triple
#: draw, and the custom codes tablectl's export writes for the stud games (docs/app.md).
VARIANTS: Final = {"F2L3D": "triple-draw", "F5S": "five-card-stud", "FMB/6": "mambo"}
#: The variants dealt with blinds and draws; the others with antes, a bring-in and up-cards.
DRAW_VARIANTS: Final = frozenset({"F2L3D"})
#: What each code of VARIANTS is, for the refusal of another variant: the game's display name
#: (docs/display.md, The table's words) and its procedure.
_VARIANT_NAMES: Final = {
    code: f"fixed-limit {GAMES[key].name}, {GAMES[key].rule.rpartition('-')[2]}"
    for code, key in VARIANTS.items()
}
UNKNOWN: Final = "??"
#: rules-interpretation.md, Betting structure: one bet and three raises a round, the big blind the
#: first bet.
CAP: Final = 4


class PhhError(ValueError):
    """A PHH file that cannot be read: the message names the field and what was expected."""


class PhhUnsupported(PhhError):
    """A well-formed hand tablectl does not convert: another variant, or rules that differ."""


def other_variant(variant: str) -> PhhUnsupported:
    """The refusal of a variant tablectl does not convert, naming those it does."""
    codes = sorted(VARIANTS)
    names = "; ".join(_VARIANT_NAMES[code] for code in codes)
    return PhhUnsupported(f"variant {variant!r}; tablectl converts {codes} ({names}) only")


#: The prefix of tablectl's user-defined fields (PHH: a leading underscore; PokerKit keeps them
#: as ``user_defined_fields``): the house rules, the posted stakes PHH has no field for, the rake.
FIELD_PREFIX: Final = "_tablectl_"
#: The posted stakes PHH has no field for (table.toml's ``[stakes]`` keys, docs/deploy.md),
#: each written ``_tablectl_<key>``; ``_tablectl_rake_cap`` is left out when there is no cap.
#: PHH's own ``rake`` is no field of the file: PokerKit takes it as a function of the pot.
STAKES_NAMES: Final = ("chip", "cap", "rake_percent", "rake_cap", "rake_without_showdown")
#: The chips the table raked from the hand (the settlement's ``rake``), as the export writes it.
RAKE_FIELD: Final = f"{FIELD_PREFIX}rake"
#: The PHH field of a stakes amount the engine names otherwise, for an error.
_STAKES_FIELDS: Final = {
    "ante": "antes",
    "small_blind": "blinds_or_straddles",
    "big_blind": "blinds_or_straddles",
}


@dataclass(frozen=True, slots=True)
class PostedStakes:
    """The posted stakes a PHH file gives only in tablectl's fields (``STAKES_NAMES``): the
    smallest chip, the raise cap and the rake; a field the file does not give: its default, as
    in a table.toml (docs/deploy.md, ``[stakes]``), so a file from elsewhere has no rake."""

    chip: int = 1
    cap: int = CAP
    rake_percent: int = 0
    rake_cap: int | None = None
    rake_without_showdown: bool = False

    def rake_rule(self) -> str:
        """The rake in words, for a refusal: ``rake 5% up to 6, none without a showdown``."""
        if not self.rake_percent:
            return "no rake"
        cap = "" if self.rake_cap is None else f" up to {self.rake_cap}"
        without = "" if self.rake_without_showdown else ", none without a showdown"
        return f"rake {self.rake_percent}%{cap}{without}"


@dataclass(frozen=True, slots=True)
class PhhHand:
    """The fields of one PHH hand that a conversion uses (others are kept in ``extra``)."""

    variant: str
    antes: tuple[int, ...]
    blinds_or_straddles: tuple[int, ...]
    small_bet: int
    big_bet: int
    #: None: a stack the history does not know (PHH's ``inf``, as tablectl's export writes it).
    starting_stacks: tuple[int | None, ...]
    actions: tuple[str, ...]
    extra: dict[str, object] = field(default_factory=dict)
    #: What the lowest up-card brings in for (stud; 0 in a blinds game).
    bring_in: int = 0
    #: PHH's ``seats``: the seat of p1, p2, ... (None: the file gives none).
    seats: tuple[int, ...] | None = None
    #: PHH's ``seat_count``: how many seats the source's table has (None: not given).
    seat_count: int | None = None
    #: The house rules tablectl's export writes (``_tablectl_short_all_in`` ...); the
    #: defaults (rules-interpretation.md, House rules) for a rule the file does not give.
    rules: HouseRules = field(default_factory=HouseRules)
    #: The smallest chip, the raise cap and the rake (``_tablectl_chip`` ...).
    posted: PostedStakes = field(default_factory=PostedStakes)
    #: The chips the source raked from the hand (``_tablectl_rake``; None: the file does not say).
    raked: int | None = None
    #: PHH's ``finishing_stacks``, None for a stack not known (``inf``); None: not given.
    finishing_stacks: tuple[int | None, ...] | None = None

    @property
    def players(self) -> int:
        """How many players the hand seats."""
        return len(self.starting_stacks)

    def stakes(self, *, bring_in: int = 0, small_blind: int = 0, big_blind: int = 0) -> Stakes:
        """The stakes the hand was dealt at: its bets and ante (one for every player), the
        game's forced bets as given, the posted chip, cap and rake; PhhError naming the field
        when no table can be dealt at them."""
        posted = self.posted
        try:
            return Stakes(
                small_bet=self.small_bet,
                big_bet=self.big_bet,
                ante=self.antes[0],
                bring_in=bring_in,
                small_blind=small_blind,
                big_blind=big_blind,
                cap=posted.cap,
                chip=posted.chip,
                rake_percent=posted.rake_percent,
                rake_cap=posted.rake_cap,
                rake_without_showdown=posted.rake_without_showdown,
            )
        except ConfigError as error:
            name = error.field.removeprefix("stakes.")
            key = (
                f"{FIELD_PREFIX}{name}" if name in STAKES_NAMES else _STAKES_FIELDS.get(name, name)
            )
            raise PhhError(f"the stakes ({key}): {str(error).removeprefix('stakes: ')}") from None


def _ints(data: dict[str, object], key: str, source: str) -> tuple[int, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        raise PhhError(f"{source}: {_given(data, key)}; expected a list of whole chip amounts")
    return tuple(value)


def _given(data: dict[str, object], key: str) -> str:
    """The field as the file gives it, for an error: ``key = value``, or that it is missing."""
    return f"{key} = {data[key]!r}" if key in data else f"{key} is missing"


def _stacks(data: dict[str, object], key: str, source: str) -> tuple[int | None, ...]:
    """``starting_stacks`` or ``finishing_stacks``: whole chip amounts, ``inf`` (None here) for
    a stack not known."""
    value = data.get(key)
    if isinstance(value, list) and all(v == math.inf for v in value if isinstance(v, float)):
        known = [v for v in value if not isinstance(v, float)]
        if all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in known):
            return tuple(None if isinstance(v, float) else v for v in value)
    raise PhhError(
        f"{source}: {_given(data, key)}; expected a list of whole chip amounts "
        "(inf for a stack not known)"
    )


def _int(data: dict[str, object], key: str, source: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise PhhError(f"{source}: {_given(data, key)}; expected a positive whole amount")
    return value


def _seats(data: dict[str, object], players: int, source: str) -> tuple[int, ...] | None:
    """PHH's ``seats``: one distinct seat number from 1 a player, within ``seat_count``."""
    if "seats" not in data:
        return None
    value = data["seats"]
    count = data.get("seat_count")
    if count is not None and (not isinstance(count, int) or isinstance(count, bool) or count < 1):
        raise PhhError(f"{source}: {_given(data, 'seat_count')}; expected a number of seats")
    if (
        isinstance(value, list)
        and len(value) == players
        and all(isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in value)
        and len(set(value)) == players
        and (count is None or max(value) <= count)
    ):
        return tuple(value)
    within = f" up to seat_count {count}" if count is not None else ""
    raise PhhError(
        f"{source}: {_given(data, 'seats')}; expected one distinct seat number from 1{within} "
        f"for each of the {players} players"
    )


def _rules(data: dict[str, object], source: str) -> HouseRules:
    """The house rules the file's ``_tablectl_<rule>`` fields give (tablectl's export)."""
    fields_ = {f"{FIELD_PREFIX}{name}": name for name in RULE_NAMES}
    words = {fields_[key]: value for key, value in data.items() if key in fields_}
    try:
        return HouseRules.from_words(words, where=f"{source}: {FIELD_PREFIX}<rule>")
    except ConfigError as error:
        raise PhhError(str(error)) from None


#: What each ``_tablectl_<key>`` of a whole number takes: the least and most, and in words.
_POSTED_NUMBERS: Final = {
    "chip": (1, None, "the smallest chip, a whole number of 1 or more"),
    "cap": (1, None, "the bets of a round, a whole number of 1 or more"),
    "rake_percent": (0, 100, "a whole percentage, 0 to 100"),
    "rake_cap": (0, None, "the most chips raked from a hand, 0 or more (no field: no cap)"),
    "rake": (0, None, "the chips the table raked from the hand, 0 or more"),
}


def _whole(data: dict[str, object], name: str, source: str) -> int | None:
    """The ``_tablectl_<name>`` whole number, None when the file does not give it."""
    key = f"{FIELD_PREFIX}{name}"
    if key not in data:
        return None
    least, most, what = _POSTED_NUMBERS[name]
    value = data[key]
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < least
        or (most is not None and value > most)
    ):
        raise PhhError(f"{source}: {_given(data, key)}; expected {what}")
    return value


def _posted(data: dict[str, object], source: str) -> PostedStakes:
    """The posted stakes the file's ``_tablectl_<key>`` fields give (tablectl's export)."""
    default = PostedStakes()
    key = f"{FIELD_PREFIX}rake_without_showdown"
    without = data.get(key, default.rake_without_showdown)
    if not isinstance(without, bool):
        raise PhhError(f"{source}: {_given(data, key)}; expected true or false")
    chip, cap, percent = (_whole(data, name, source) for name in ("chip", "cap", "rake_percent"))
    return PostedStakes(
        chip=default.chip if chip is None else chip,
        cap=default.cap if cap is None else cap,
        rake_percent=default.rake_percent if percent is None else percent,
        rake_cap=_whole(data, "rake_cap", source),
        rake_without_showdown=without,
    )


def read_phh(text: str, source: str = "<phh>") -> PhhHand:
    """Read one PHH hand (TOML); PhhError names the field that is missing or malformed."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PhhError(f"{source}: not TOML: {error}") from None
    variant = data.get("variant")
    if not isinstance(variant, str):
        raise PhhError(f"{source}: {_given(data, 'variant')}; expected a variant code like 'F2L3D'")
    if variant not in VARIANTS:  # before its fields: another variant has other ones
        raise other_variant(variant)
    actions = data.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError(f"{source}: {_given(data, 'actions')}; expected a list of action strings")
    stacks = _stacks(data, "starting_stacks", source)
    finishing = _stacks(data, "finishing_stacks", source) if "finishing_stacks" in data else None
    draw = variant in DRAW_VARIANTS
    count = data.get("seat_count")
    hand = PhhHand(
        variant=variant,
        antes=_ints(data, "antes", source) if "antes" in data else (0,) * len(stacks),
        blinds_or_straddles=(
            _ints(data, "blinds_or_straddles", source) if draw else (0,) * len(stacks)
        ),
        small_bet=_int(data, "small_bet", source),
        big_bet=_int(data, "big_bet", source),
        starting_stacks=stacks,
        actions=tuple(actions),
        extra={k: v for k, v in data.items() if k not in _FIELDS},
        bring_in=0 if draw else _int(data, "bring_in", source),
        seats=_seats(data, len(stacks), source),
        seat_count=count if isinstance(count, int) else None,
        rules=_rules(data, source),
        posted=_posted(data, source),
        raked=_whole(data, "rake", source),
        finishing_stacks=finishing,
    )
    for key in ("antes", "blinds_or_straddles", "finishing_stacks"):
        entries = getattr(hand, key)
        if entries is not None and len(entries) != hand.players:
            raise PhhError(
                f"{source}: {key} has {len(entries)} entries; expected one per "
                f"player ({hand.players}, as starting_stacks)"
            )
    return hand


_FIELDS: Final = frozenset(
    {"variant", "antes", "blinds_or_straddles", "small_bet", "big_bet", "starting_stacks"}
    | {"actions", "bring_in", "seats", "seat_count", "finishing_stacks"}
)


@dataclass(frozen=True, slots=True)
class ConvertedHand:
    """A PHH hand as a table's setup and inputs; ``script()`` writes it as a hand script."""

    game: str
    config: TableSetup
    inputs: tuple[TableInput, ...]

    def script(self) -> str:
        """The hand as a hand script (docs/hand-script.md)."""
        return write_script(self.game, self.config, list(self.inputs))


def action_player(word: str, hand: PhhHand, action: str) -> int:
    if not (word.startswith("p") and word[1:].isdigit() and 1 <= int(word[1:]) <= hand.players):
        raise PhhError(f"action {action!r}: {word!r}; expected a player p1 to p{hand.players}")
    return int(word[1:])


def action_words(action: str) -> list[str]:
    """The action's words without its comment (``d dh p1 Kh # up``)."""
    return action.split("#", 1)[0].split()


def burn_comments(actions: Sequence[str]) -> list[str]:
    """The cards of the ``# burn Xx`` comments, in order (tablectl's export writes them)."""
    return [
        words[2]
        for words in (a.split() for a in actions)
        if len(words) == 3 and words[:2] == ["#", "burn"]
    ]


def card_codes(text: str, action: str) -> list[str]:
    if len(text) % 2:
        raise PhhError(f"action {action!r}: {text!r}; expected two-character card codes")
    return [text[i : i + 2] for i in range(0, len(text), 2)]


def table_seats(hand: PhhHand, spec: GameSpec) -> tuple[int, ...]:
    """The seat of each player, p1 first: PHH's ``seats``, else 1..N; within the game's."""
    seats = hand.seats or tuple(range(1, hand.players + 1))
    if max(seats) > spec.max_seats:
        raise PhhUnsupported(
            f"seats {list(seats)}: {spec.name} seats at most {spec.max_seats} players, in seats "
            f"1 to {spec.max_seats} ({spec.rule})"
        )
    return seats


def known_stacks(hand: PhhHand, seats: tuple[int, ...]) -> dict[int, int]:
    """The stacks the history knows, by seat (a seat left out has an unknown stack)."""
    return {
        seat: stack
        for seat, stack in zip(seats, hand.starting_stacks, strict=True)
        if stack is not None
    }
