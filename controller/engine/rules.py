"""The house rules: the choices card rooms post differently, as one typed value.

NOTES.md, House rules (13:69F-8.3: posted at the table): each choice has the
default NOTES.md writes, and ``Table(spec, config, rules=HouseRules(...))`` deals
under another. The raise cap and the rake on a pot won without a showdown are
posted with the stakes already (``Stakes.cap``, ``Stakes.rake_without_showdown``)
and stay there, so each choice has one setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.engine.config import ConfigError


class ShortAllIn(StrEnum):
    """What an all-in for less than a full bet or raise does to the betting."""

    #: NOTES.md, Betting structure (Robert's Rules of Poker, Betting and raising, rule 6):
    #: half a bet or more counts as a full bet and reopens; less reopens nothing for a
    #: player who already acted, and a player yet to act may complete it.
    HALF_BET = "half-bet"
    #: Only a full bet or raise reopens the betting.
    FULL_BET = "full-bet"


@dataclass(frozen=True, slots=True)
class HouseRules:
    """The table's house rules (NOTES.md, House rules); the defaults are NOTES.md's."""

    #: Five-card stud's later rounds: the opener "shall be required to bet" (14.13(f) read
    #: literally); False lets it check (bet or check). Mambo's openers may check by its
    #: text (14.13A(f),(h)), so this changes nothing there.
    opener_must_bet: bool = True
    #: NOTES.md, Betting structure: the half-bet rule, or the full-bet rule.
    short_all_in: ShortAllIn = ShortAllIn.HALF_BET
    #: Whether the raise cap (``Stakes.cap``) is lifted while only two players are in the
    #: pot (NOTES.md, House rules). Off: the cap holds heads-up too.
    cap_lifts_heads_up: bool = False
    #: Whether the bring-in may act again (check or complete) when every other player only
    #: called it (docs/rules-interpretation.md, Bring-in). Off: posting it was its action.
    bring_in_has_option: bool = False
    #: Triple draw: burn before each of the three draws (NOTES.md, Burns and draws), or only
    #: before the first, as 14.12A(f) says for the first draw.
    burn_before_each_draw: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.short_all_in, ShortAllIn):
            raise ConfigError(
                f"rules: short_all_in={self.short_all_in!r}; expected one of "
                + ", ".join(repr(rule.value) for rule in ShortAllIn)
            )
        for name in (
            "opener_must_bet",
            "cap_lifts_heads_up",
            "bring_in_has_option",
            "burn_before_each_draw",
        ):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ConfigError(f"rules: {name}={value!r}; expected true or false")
