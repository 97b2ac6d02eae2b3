"""A table's configuration: the game's seats, the dealer's place, the posted stakes and the
posted house rules.

rules-interpretation.md, House rules (13:69F-8.3: posted at the table): each choice card rooms post
differently has the default written there (``HouseRules()``); a table deals under
others with ``TableSetup(..., rules=HouseRules(...))``. The raise cap and the rake on
a pot won without a showdown are posted with the stakes already (``Stakes.cap``,
``Stakes.rake_without_showdown``) and stay there, so each choice has one setting.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from controller.poker.games.spec import BetSize, ForcedBet, GameSpec, OpenerDuty


class ConfigError(ValueError):
    """A table configuration the game cannot be dealt with; the message names the setting,
    and ``field`` is it as data: ``stakes.bring_in``, ``seats``, ``dealer``, ``stacks.3``,
    ``rules.short_all_in`` (empty: the configuration as a whole), so a reader of a file
    places the problem at its key without reading the message."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True, slots=True)
class Stakes:
    """The stakes posted at the table (13:69F-8.3; rules-interpretation.md, Betting structure).

    Amounts are in chips of the table's unit. ``cap`` counts the bets of a round:
    the opening bet (or the completion of a bring-in) and the raises after it.
    The rake is ``rake_percent`` of the pots, rounded down to the smallest chip and
    at most ``rake_cap`` (no cap when None), taken before a pot is divided (14.19(c)).
    Every amount, the rake cap included, is a multiple of ``chip``: what is left of a
    pot after the rake is then always whole chips to divide.
    """

    small_bet: int
    big_bet: int
    ante: int = 0
    bring_in: int = 0
    small_blind: int = 0
    big_blind: int = 0
    cap: int = 4  # rules-interpretation.md, Betting structure: one bet and three raises
    chip: int = 1
    rake_percent: int = 0
    rake_cap: int | None = None
    #: A pot won without a showdown is not divided, so by default it is not raked
    #: (docs/rules-interpretation.md, Rake).
    rake_without_showdown: bool = False

    @property
    def forced_bring_in(self) -> int:
        """What the lowest up-card brings in for (14.13(d), 14.13A(d)): the posted bring-in,
        or the small bet where none is posted."""
        return self.bring_in or self.small_bet

    def __post_init__(self) -> None:
        amounts = {
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "ante": self.ante,
            "bring_in": self.bring_in,
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
        }
        if self.chip <= 0:
            raise ConfigError(
                f"stakes: chip={self.chip}; expected a positive smallest chip", "stakes.chip"
            )
        for name, amount in amounts.items():
            if amount < 0 or amount % self.chip:
                raise ConfigError(
                    f"stakes: {name}={amount}; expected a non-negative multiple of the "
                    f"smallest chip {self.chip}",
                    f"stakes.{name}",
                )
        if self.small_bet <= 0 or self.big_bet < self.small_bet:
            raise ConfigError(
                f"stakes: small_bet={self.small_bet}, big_bet={self.big_bet}; expected "
                "0 < small bet <= big bet",
                "stakes.small_bet" if self.small_bet <= 0 else "stakes.big_bet",
            )
        if self.bring_in > self.small_bet:
            raise ConfigError(
                f"stakes: bring_in={self.bring_in}; expected at most the small bet "
                f"{self.small_bet}",
                "stakes.bring_in",
            )
        if self.cap < 1:
            raise ConfigError(
                f"stakes: cap={self.cap}; expected at least one bet per round", "stakes.cap"
            )
        if not 0 <= self.rake_percent <= 100:
            raise ConfigError(
                f"stakes: rake_percent={self.rake_percent}; expected 0 to 100",
                "stakes.rake_percent",
            )
        # rules-interpretation.md, Betting structure: a pot is divided in smallest chips, so a cap
        # between two multiples of the chip would take a part of a chip the pot cannot pay out.
        if self.rake_cap is not None and (self.rake_cap < 0 or self.rake_cap % self.chip):
            raise ConfigError(
                f"stakes: rake_cap={self.rake_cap}; expected no cap or a non-negative multiple "
                f"of the smallest chip {self.chip}",
                "stakes.rake_cap",
            )

    def bet(self, size: BetSize) -> int:
        """The fixed-limit bet of a round of the given size."""
        return self.small_bet if size is BetSize.SMALL else self.big_bet


class ShortAllIn(StrEnum):
    """What an all-in for less than a full bet or raise does to the betting."""

    #: rules-interpretation.md, Betting structure (Robert's Rules of Poker, Betting and raising,
    #: rule 6): half a bet or more counts as a full bet and reopens; less reopens nothing for a
    #: player who already acted, and a player yet to act may complete it.
    HALF_BET = "half-bet"
    #: Only a full bet or raise reopens the betting.
    FULL_BET = "full-bet"


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The table's house rules (rules-interpretation.md, House rules); the defaults are written
    there."""

    #: Five-card stud's later rounds: the opener "shall be required to bet" (14.13(f) read
    #: literally); False lets it check (bet or check). Mambo's openers may check by its
    #: text (14.13A(f),(h)), so this changes nothing there.
    opener_must_bet: bool = True
    #: rules-interpretation.md, Betting structure: the half-bet rule, or the full-bet rule.
    short_all_in: ShortAllIn = ShortAllIn.HALF_BET
    #: Whether the raise cap (``Stakes.cap``) is lifted while only two players are in the
    #: pot (rules-interpretation.md, House rules). Off: the cap holds heads-up too.
    cap_lifts_heads_up: bool = False
    #: Whether the bring-in may act again (check or complete) when every other player only
    #: called it (docs/rules-interpretation.md, Bring-in). Off: posting it was its action.
    bring_in_has_option: bool = False
    #: Triple draw: burn before each of the three draws (rules-interpretation.md, Burns and draws),
    #: or only before the first, as 14.12A(f) says for the first draw.
    burn_before_each_draw: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.short_all_in, ShortAllIn):
            raise ConfigError(
                f"rules: short_all_in={self.short_all_in!r}; expected one of "
                + ", ".join(repr(rule.value) for rule in ShortAllIn),
                "rules.short_all_in",
            )
        for name in (
            "opener_must_bet",
            "cap_lifts_heads_up",
            "bring_in_has_option",
            "burn_before_each_draw",
        ):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ConfigError(
                    f"rules: {name}={value!r}; expected true or false", f"rules.{name}"
                )

    def as_words(self) -> dict[str, bool | str]:
        """Every rule by its name: ``short_all_in`` as its word, the rest true or false (the
        journal's and the PHH export's form; ``from_words`` reads it back)."""
        return {
            name: value.value if isinstance(value, ShortAllIn) else bool(value)
            for name, value in ((name, getattr(self, name)) for name in RULE_NAMES)
        }

    @classmethod
    def from_words(cls, words: Mapping[str, object], where: str = "rules") -> HouseRules:
        """The rules ``as_words`` wrote (a rule left out: its default); ConfigError
        naming ``where``, the rule and what it takes."""
        unknown = sorted(set(words) - set(RULE_NAMES))
        if unknown:
            raise ConfigError(
                f"{where}: {', '.join(unknown)}: expected only {', '.join(RULE_NAMES)}", "rules"
            )
        values: dict[str, bool | ShortAllIn] = {}
        for name, value in words.items():
            if name == "short_all_in":
                if not isinstance(value, str) or value not in set(ShortAllIn):
                    allowed = " or ".join(repr(rule.value) for rule in ShortAllIn)
                    raise ConfigError(
                        f"{where}: {name}={value!r}; expected {allowed}", f"rules.{name}"
                    )
                values[name] = ShortAllIn(value)
            elif type(value) is bool:
                values[name] = value
            else:
                raise ConfigError(
                    f"{where}: {name}={value!r}; expected true or false", f"rules.{name}"
                )
        return cls(**values)  # type: ignore[arg-type]  # each value's type checked above

    def inert_in(self, spec: GameSpec) -> list[tuple[str, str]]:
        """The rules posted otherwise than their default that ``spec`` gives no occasion
        to apply, each with why: a setting that cannot take effect is refused, not kept."""
        inert = []
        duty = any(s.betting.opener_duty is OpenerDuty.BET for s in spec.streets)
        if not self.opener_must_bet and not duty:
            inert.append(("opener_must_bet", f"no opener of {spec.name} is required to bet"))
        if self.bring_in_has_option and spec.forced_bet is not ForcedBet.BRING_IN:
            inert.append(("bring_in_has_option", f"{spec.name} has no bring-in"))
        burned_draws = sum(1 for s in spec.streets if s.draw is not None and s.draw.burn)
        if not self.burn_before_each_draw and burned_draws < 2:
            inert.append(("burn_before_each_draw", f"{spec.name} has no second draw to burn"))
        return inert


#: The house rules' names, in their order (``HouseRules``' fields).
RULE_NAMES: Final = (
    "opener_must_bet",
    "short_all_in",
    "cap_lifts_heads_up",
    "bring_in_has_option",
    "burn_before_each_draw",
)


@dataclass(frozen=True, slots=True)
class TableSetup:
    """Which seats play, where the dealer (or the button) is, the stakes and the known stacks.

    Seats are numbered clockwise from 1. ``dealer`` is the dealer's position as the
    seat number just before the first seat dealt: 0 (the default) puts the dealer
    left of nobody, so seat 1, or the first occupied seat after it, is dealt first
    (14.13(c)). In a button game ``dealer`` is the button's seat. A seat missing
    from ``stacks`` has an unknown stack: it may bet without limit but cannot go all-in.
    """

    seats: tuple[int, ...]
    stakes: Stakes
    dealer: int = 0
    stacks: Mapping[int, int] = field(default_factory=dict)
    #: The house rules posted with the stakes (rules-interpretation.md, House rules).
    rules: HouseRules = HouseRules()

    def validate(self, spec: GameSpec) -> None:
        """Raise ConfigError naming the setting if the game cannot be dealt at this table."""
        if len(self.seats) < 2:
            raise ConfigError(f"seats {self.seats}: expected at least two occupied seats", "seats")
        if len(set(self.seats)) != len(self.seats):
            raise ConfigError(f"seats {self.seats}: a seat is listed twice", "seats")
        bad = [seat for seat in self.seats if not 1 <= seat <= spec.max_seats]
        if bad:
            raise ConfigError(
                f"seats {bad}: {spec.name} seats at most {spec.max_seats} players; expected seats "
                f"1 to {spec.max_seats} ({spec.rule})",
                "seats",
            )
        if not 0 <= self.dealer <= spec.max_seats:
            raise ConfigError(f"dealer {self.dealer}: expected 0 to {spec.max_seats}", "dealer")
        for seat, stack in self.stacks.items():
            if seat not in self.seats:
                raise ConfigError(
                    f"stacks: seat {seat} is not an occupied seat {self.seats}", f"stacks.{seat}"
                )
            if stack < 0 or stack % self.stakes.chip:
                raise ConfigError(
                    f"stacks: seat {seat} has {stack}; expected a non-negative multiple of "
                    f"the smallest chip {self.stakes.chip}",
                    f"stacks.{seat}",
                )
