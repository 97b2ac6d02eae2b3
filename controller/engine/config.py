"""A table's configuration: the game's seats, the dealer's place and the posted stakes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.games.spec import BetSize, GameSpec


class ConfigError(ValueError):
    """A table configuration the game cannot be dealt with; the message names the setting."""


@dataclass(frozen=True, slots=True)
class Stakes:
    """The stakes posted at the table (13:69F-8.3; NOTES.md, Betting structure).

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
    cap: int = 4  # NOTES.md, Betting structure: one bet and three raises
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
            raise ConfigError(f"stakes: chip={self.chip}; expected a positive smallest chip")
        for name, amount in amounts.items():
            if amount < 0 or amount % self.chip:
                raise ConfigError(
                    f"stakes: {name}={amount}; expected a non-negative multiple of the "
                    f"smallest chip {self.chip}"
                )
        if self.small_bet <= 0 or self.big_bet < self.small_bet:
            raise ConfigError(
                f"stakes: small_bet={self.small_bet}, big_bet={self.big_bet}; expected "
                "0 < small bet <= big bet"
            )
        if self.bring_in > self.small_bet:
            raise ConfigError(
                f"stakes: bring_in={self.bring_in}; expected at most the small bet {self.small_bet}"
            )
        if self.cap < 1:
            raise ConfigError(f"stakes: cap={self.cap}; expected at least one bet per round")
        if not 0 <= self.rake_percent <= 100:
            raise ConfigError(f"stakes: rake_percent={self.rake_percent}; expected 0 to 100")
        # NOTES.md, Betting structure: a pot is divided in smallest chips, so a cap between
        # two multiples of the chip would take a part of a chip the pot cannot pay out.
        if self.rake_cap is not None and (self.rake_cap < 0 or self.rake_cap % self.chip):
            raise ConfigError(
                f"stakes: rake_cap={self.rake_cap}; expected no cap or a non-negative multiple "
                f"of the smallest chip {self.chip}"
            )

    def bet(self, size: BetSize) -> int:
        """The fixed-limit bet of a round of the given size."""
        return self.small_bet if size is BetSize.SMALL else self.big_bet


@dataclass(frozen=True, slots=True)
class TableConfig:
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

    def validate(self, spec: GameSpec) -> None:
        """Raise ConfigError naming the setting if the game cannot be dealt at this table."""
        if len(self.seats) < 2:
            raise ConfigError(f"seats {self.seats}: expected at least two occupied seats")
        if len(set(self.seats)) != len(self.seats):
            raise ConfigError(f"seats {self.seats}: a seat is listed twice")
        bad = [seat for seat in self.seats if not 1 <= seat <= spec.max_seats]
        if bad:
            raise ConfigError(
                f"seats {bad}: {spec.name} seats at most {spec.max_seats} players; expected seats "
                f"1 to {spec.max_seats} ({spec.rule})"
            )
        if not 0 <= self.dealer <= spec.max_seats:
            raise ConfigError(f"dealer {self.dealer}: expected 0 to {spec.max_seats}")
        for seat, stack in self.stacks.items():
            if seat not in self.seats:
                raise ConfigError(f"stacks: seat {seat} is not an occupied seat {self.seats}")
            if stack < 0 or stack % self.stakes.chip:
                raise ConfigError(
                    f"stacks: seat {seat} has {stack}; expected a non-negative multiple of "
                    f"the smallest chip {self.stakes.chip}"
                )
