"""A hand step by step, as one role may see it (docs/floor-web.md, The hand page). Pure: the
hand's events (decoded by the journal's schema) and the role in, steps and frames out.

A ``Step`` is one line of the hand's record: what happened in the table's words, with the cards
it carries beside the words (never inside them), each masked by the policy
(controller/floor/web/policy.py): a masked card is ``None``. A ``Frame`` is the table after a
step, as the dealer's display shows it (controller/display/view.py): each seat's cards (a
face-down card as its back unless the role may see it), its bet this round and whether it is
still in, the board, the street, the seat to act and the pot. The hand page's replay walks the
frames; the table page shows the last one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Final

from controller.floor.web import policy
from controller.floor.web.betting import Betting
from controller.history.recall import describe
from controller.poker.announce import alarm_read, hidden_cards
from controller.poker.engine import events as ev

#: A card code standing alone as a word (as the journal writes it: rank then suit).
_CARD_WORD: Final = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")


@dataclass(frozen=True, slots=True)
class Step:
    #: "hand", "street", "card", "action", "draw", "showdown", "pot", "result", "alarm", "note".
    kind: str
    text: str
    #: The cards the step carries: a code, or None for a card the role may not see.
    cards: tuple[str | None, ...] = ()
    #: ``down[i]``: ``cards[i]`` goes face down (announce.hidden_cards), seen or not: marked as
    #: the seat boxes mark it (SeatFrame.down). Empty: none does.
    down: tuple[bool, ...] = ()


@dataclass(slots=True)
class SeatFrame:
    seat: int
    cards: list[str | None] = field(default_factory=list)
    #: "in", "folded" or "all-in".
    status: str = "in"
    #: Chips in front of the seat this betting round.
    bet: int = 0
    #: ``down[i]``: ``cards[i]`` lies face down (a hole card not turned over), whether or not
    #: the role sees its value: the page marks it so a hole card shown to surveillance never
    #: looks like an up card (docs/floor-web.md, The hand page).
    down: list[bool] = field(default_factory=list)


@dataclass(slots=True)
class Frame:
    street: str | None
    pot: int
    to_act: int | None
    seats: list[SeatFrame]
    community: list[str | None]


@dataclass(slots=True)
class Replay:
    steps: list[Step]
    #: ``frames[i]``: the table after ``steps[i]``.
    frames: list[Frame]
    #: Whether any step or frame shows the value of a face-down card (the access log's test).
    face_down_shown: bool

    def frames_json(self) -> list[dict[str, object]]:
        return [asdict(frame) for frame in self.frames]


@dataclass(slots=True)
class _Card:
    code: str
    hidden: bool


@dataclass(slots=True)
class _State(Betting):
    """The table as the events left it, with every card's true value (never sent as is)."""

    seats: dict[int, list[_Card]] = field(default_factory=dict)
    community: list[_Card] = field(default_factory=list)


def replay(events: Sequence[ev.Event], role: str, *, in_progress: bool) -> Replay:
    """The hand's steps and frames as ``role`` may see them (``in_progress``: not yet settled
    or voided)."""
    sees = policy.sees_face_down(role, in_progress=in_progress)
    secret: set[str] = set()
    for event in events:
        secret |= policy.masked(event, role, in_progress=in_progress)
    state = _State()
    steps: list[Step] = []
    frames: list[Frame] = []
    for event in events:
        told = _steps(event, role, in_progress, secret)
        if told:
            # The steps before are framed with what followed them up to this one (the seat
            # asked to act after a bet, say).
            frames.extend(_frame(state, sees) for _ in range(len(steps) - len(frames)))
        _apply(state, event)
        steps.extend(told)
    frames.extend(_frame(state, sees) for _ in range(len(steps) - len(frames)))
    shown = policy.carries_face_down(list(events), role, in_progress=in_progress)
    return Replay(steps, frames, shown)


def _frame(state: _State, sees: bool) -> Frame:
    def card(c: _Card) -> str | None:
        return c.code if sees or not c.hidden else None

    seats = [
        SeatFrame(
            seat,
            [card(c) for c in cards],
            state.status.get(seat, "in"),
            state.bets.get(seat, 0),
            [c.hidden for c in cards],
        )
        for seat, cards in sorted(state.seats.items())
    ]
    return Frame(state.street, state.pot, state.to_act, seats, [card(c) for c in state.community])


def _apply(state: _State, event: ev.Event) -> None:
    state.follow(event)
    hidden = frozenset(hidden_cards(event))
    if isinstance(event, ev.HandStarted):
        state.seats = {seat: [] for seat in event.seats}
    elif isinstance(event, ev.CardDealt):
        card = _Card(event.card, event.card in hidden)
        if event.destination == ev.COMMUNITY:
            state.community.append(card)
        elif event.destination == ev.SEAT and event.seat is not None:
            state.seats.setdefault(event.seat, []).append(card)
    elif isinstance(event, ev.CardMucked | ev.CardDiscarded) and event.seat is not None:
        held = state.seats.get(event.seat, [])
        state.seats[event.seat] = [c for c in held if c.code != event.card]
    elif isinstance(event, ev.Showdown):
        # The cards turned over at the showdown are the table's to see (announce.hidden_cards).
        for hand in event.hands:
            for card in state.seats.get(hand.seat, []):
                if card.code in hand.cards:
                    card.hidden = False


def _steps(event: ev.Event, role: str, in_progress: bool, secret: set[str]) -> list[Step]:
    def cards(*codes: str) -> tuple[str | None, ...]:
        return tuple(policy.shown(c, event, role, in_progress=in_progress) for c in codes)

    hidden = frozenset(hidden_cards(event))
    steps = _told(event, cards, secret, role, in_progress)
    return [
        Step(s.kind, s.text, s.cards, tuple(c is None or c in hidden for c in s.cards))
        if s.cards and s.kind != "showdown"
        else s
        for s in steps
    ]


def _told(  # noqa: PLR0911, PLR0912 one line per kind
    event: ev.Event,
    cards: Callable[..., tuple[str | None, ...]],
    secret: set[str],
    role: str,
    in_progress: bool,
) -> list[Step]:

    match event:
        case ev.HandStarted() | ev.BlindPosted() | ev.ActionTaken() | ev.SeatsChanged():
            kind = "hand" if isinstance(event, ev.HandStarted) else "action"
            return [Step(kind, describe(event).strip())]
        case ev.StreetStarted():
            return [Step("street", event.street)]
        case ev.CardDealt(destination=ev.BURN):
            return [Step("card", "burn", cards(event.card))]
        case ev.CardDealt(destination=ev.COMMUNITY):
            return [Step("card", "community", cards(event.card))]
        case ev.CardDealt():
            return [Step("card", f"seat {event.seat} face {event.face}", cards(event.card))]
        case ev.CardMucked():
            where = f"seat {event.seat}'s card" if event.seat is not None else "a card"
            return [Step("card", f"{where} to the muck", cards(event.card))]
        case ev.CardDiscarded():
            return [Step("draw", f"seat {event.seat} discards", cards(event.card))]
        case ev.DrawDeclared():
            count = len(event.discards)
            words = f"draws {count}" if count else "stands pat"
            return [Step("draw", f"seat {event.seat} {words}", cards(*event.discards))]
        case ev.DiscardsReshuffled():
            text = f"the discards reshuffled for seat {event.seat}'s draw (14.12A(f))"
            return [Step("draw", text, cards(*event.cards))]
        case ev.RoundCompleted(skipped=False):
            return [Step("action", f"{event.street} complete: pot {event.pot}")]
        case ev.Showdown():
            return [
                Step("showdown", f"seat {h.seat} {h.share}: {h.description}", tuple(h.cards))
                for h in event.hands
            ]
        case ev.HandSettled():
            return _settled(event)
        case ev.HandVoided():
            return [Step("result", describe(event))]
        case ev.Alarm():
            read = (
                alarm_read(event)
                if policy.masked(event, role, in_progress=in_progress)
                else (event.read)
            )
            reason = scrub(event.reason, secret)
            return [Step("alarm", f"ALARM {read} at the {event.point}: {reason}")]
        case ev.Undone():
            return [Step("note", f"undone: {scrub(event.input, secret)}")]
    return []


def _settled(event: ev.HandSettled) -> list[Step]:
    steps = [Step("pot", pot_words(pot)) for pot in event.pots]
    nets = ", ".join(f"seat {n.seat} {n.amount:+d}" for n in event.net)
    rake = f"rake {event.rake}; " if event.rake else ""
    steps.append(Step("result", f"settled: {rake}results {nets}"))
    return steps


def pot_words(pot: ev.PotResult) -> str:
    """A pot's division, each odd chip with the rule that decided it (rules-interpretation.md, Odd
    chips: 14.13A(j)1-3 in Mambo, the engine's rule names in the others)."""
    if pot.returned:
        return f"{pot.name} {pot.amount} returned to seat {pot.eligible[0]} (uncalled)"
    shares = "; ".join(
        f"{s.share} {s.amount} to seat {'/'.join(map(str, s.winners))}"
        + (f" ({s.description})" if s.description else "")
        for s in pot.shares
    )
    odd = "".join(f"; odd chip {o.chips} to seat {o.seat} ({o.rule})" for o in pot.odd_chips)
    rake = f", rake {pot.rake}" if pot.rake else ""
    return f"{pot.name} {pot.amount}{rake}: {shares}{odd}"


def scrub(text: str, secret: set[str]) -> str:
    """``text`` with each card of ``secret`` (the hand's cards the role may not see) said as
    "a card", as the table is told (announce.alarm_read)."""
    return _CARD_WORD.sub(lambda m: "a card" if m.group(1) in secret else m.group(1), text)
