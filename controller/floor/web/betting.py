"""A hand's betting as its events leave it: the street, the seat to act, the pot, each seat's bet
in the round and who has folded or is all in. The one fold of the betting events that the floor
page's row (views.py), the hand's replay (replay.py) and the feeds (feed.py) share; each adds
its own cards, masked by its own rule.

Pure, and a fold: the events of a hand given in one go or in several reads come to the same
state (the live page reads a held hand's new records only)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.poker.engine import events as ev

FOLDED = "folded"
ALL_IN = "all-in"


@dataclass(slots=True)
class Betting:
    street: str | None = None
    to_act: int | None = None
    #: Antes, blinds and bets so far; at a round's end, the pot as the engine counted it.
    pot: int = 0
    #: Each seat's chips in the round so far (blinds included), cleared as a street starts.
    bets: dict[int, int] = field(default_factory=dict)
    #: ``FOLDED`` or ``ALL_IN``; a seat not named is in the hand.
    status: dict[int, str] = field(default_factory=dict)

    def follow(self, event: ev.Event) -> None:
        """The state after ``event`` (one not about the betting changes nothing)."""
        if isinstance(event, ev.HandStarted):
            self.pot = sum(ante.amount for ante in event.antes)
        elif isinstance(event, ev.StreetStarted):
            self.street, self.to_act, self.bets = event.street, None, {}
        elif isinstance(event, ev.ActionRequired):
            self.to_act = event.seat
        elif isinstance(event, ev.BlindPosted):
            self.pot += event.amount
            self.bets[event.seat] = self.bets.get(event.seat, 0) + event.amount
        elif isinstance(event, ev.ActionTaken):
            self._acted(event)
        elif isinstance(event, ev.RoundCompleted):
            self.pot, self.to_act, self.bets = event.pot, None, {}
        elif isinstance(event, ev.HandSettled | ev.HandVoided):
            self.to_act = None

    def _acted(self, event: ev.ActionTaken) -> None:
        self.pot += event.amount
        self.bets[event.seat] = event.round_total
        self.to_act = None
        if event.action == "folds":
            self.status[event.seat] = FOLDED
        elif event.all_in:
            self.status[event.seat] = ALL_IN
