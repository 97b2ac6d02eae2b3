"""One hand as a feed for other systems may carry it (docs/floor-web.md, Feeds). Pure: the
hand's events with the moment of the record that carried each, the feed's rule
(controller/floor/web/policy.py ``FEEDS``), its settings and the time in; a ``FeedHand`` out.

The masking is done here, before anything is encoded: a card the feed may not carry is ``None``
(its back), never a value in the JSON. What may be carried is the policy's alone: a card dealt
face up (14.13(c)), a community card and a card turned over at the showdown are the table's to
see; a hole card, a burn, a card to the muck and a draw's discard (14.12A(f)) are what
controller/poker/announce.py ``hidden_cards`` names, and ``policy.feed_carries`` says when a feed
may carry a hole card. The dataclasses are the published schema (docs/schema/feed-v1.json,
controller/floor/web/feedjsonschema.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Final

from controller.floor.web import policy
from controller.floor.web.betting import FOLDED, Betting
from controller.floor.web.replay import pot_words
from controller.floor.web.webtoml import FeedSettings
from controller.history.recall import describe
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev

#: The feed's schema version: every event carries it; a change to the dataclasses below that
#: a reader would notice is version 2 (docs/schema/feed-v2.json), never an edit of version 1.
VERSION: Final = 1


@dataclass(frozen=True, slots=True)
class FeedSeat:
    """A seat dealt in: its cards in the order dealt (a card the feed may not carry is null,
    its back), whether it is in, folded or all-in, and its bet this betting round."""

    seat: int
    cards: tuple[str | None, ...]
    status: str
    bet: int


@dataclass(frozen=True, slots=True)
class FeedShown:
    """A hand turned over at the showdown, for one share (its cards are the table's to see)."""

    seat: int
    share: str
    cards: tuple[str, ...]
    description: str


@dataclass(frozen=True, slots=True)
class FeedAmount:
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class FeedSettlement:
    """The settlement: each pot's division in the table's words, each odd chip with the rule
    that decided it (rules-interpretation.md, Odd chips), the rake and each seat's net result."""

    pots: tuple[str, ...]
    rake: int
    net: tuple[FeedAmount, ...]


@dataclass(frozen=True, slots=True)
class FeedHand:
    """One event of a feed: a table's hand as the feed may show it, whole, as it stands."""

    version: int
    #: surveillance, broadcast or public.
    feed: str
    table_id: str
    #: The journal the hand is in: a table's journals follow one another.
    journal_id: str
    hand: int
    game: str
    #: in progress, settled or voided.
    state: str
    #: The moment (UTC, ISO 8601) of the hand's last record the feed has read.
    at: str
    street: str | None
    pot: int
    to_act: int | None
    seats: tuple[FeedSeat, ...]
    community: tuple[str | None, ...]
    #: The burns, null unless the feed may carry them.
    burns: tuple[str | None, ...]
    #: The cards that left a hand face down: a draw's discards, a card to the muck that is not
    #: a seat's dealt card; null unless the feed may carry them.
    discards: tuple[str | None, ...]
    #: Antes, blinds, bets and folds, each round's end, in the table's words.
    actions: tuple[str, ...]
    showdown: tuple[FeedShown, ...]
    settlement: FeedSettlement | None
    #: A voided hand's returns (every bet and ante handed back).
    returned: tuple[FeedAmount, ...]

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class FeedAlarm:
    """A floor alarm on the hand's journal: its id on the alarms page, its kind, the record it
    names, its message, and when it was raised (the floor's clock, and the table's where it
    differs), as the pages say a moment."""

    id: int
    kind: str
    seq: int
    message: str
    raised_at: str
    table_at: str | None


@dataclass(frozen=True, slots=True)
class FeedBroken:
    """A hand whose stored records do not all pass their check (a line changed in the store
    after the floor's witness stored it): sent just before the hand's ``hand`` event, which is
    told from the records before the one named here and carries nothing after it."""

    version: int
    feed: str
    table_id: str
    journal_id: str
    hand: int
    #: The hand's first record that is not intact.
    seq: int
    #: Why, in the floor's words (the hand page's).
    why: str
    #: The last record the hand's event is told from; null: none before the break.
    told_to: int | None
    #: The floor's chain_broken alarms on the journal; empty until its walk raises one
    #: (docs/floor.md, The chain walk).
    alarms: tuple[FeedAlarm, ...]

    def as_json(self) -> dict[str, object]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class HandFacts:
    """What the store says of the hand besides its events."""

    table_id: str
    journal_id: str
    hand: int
    game: str
    state: str


@dataclass(frozen=True, slots=True)
class Timed:
    """One record's events and the moment the broadcast's delay counts from (Unix seconds)."""

    #: The later of the record's ``ts`` (the table's clock) and its ``received_at`` (the
    #: floor's): a hole card is sent only once both clocks say the delay has passed, so a table
    #: clock set wrong cannot bring a broadcast forward (docs/floor-web.md, The delay's clock).
    at: float
    ts: str
    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class Built:
    hand: FeedHand
    #: Whether ``hand`` carries a face-down card's value (the access log's test).
    face_down: bool
    #: The next moment (Unix seconds) a card withheld now may be carried: the broadcast's
    #: delay running out; None if no card waits for time alone.
    release_at: float | None


@dataclass(slots=True)
class _Card:
    code: str
    #: Dealt face down to a seat: a hole card (14.13(c)).
    hole: bool
    #: Any other card hidden_cards names: a burn, a muck, a discard.
    other: bool
    dealt_at: float
    #: Turned over at the showdown.
    shown: bool = False


@dataclass(slots=True)
class _State(Betting):
    seats: dict[int, list[_Card]] = field(default_factory=dict)
    community: list[_Card] = field(default_factory=list)
    burns: list[_Card] = field(default_factory=list)
    discards: list[_Card] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    showdown: list[FeedShown] = field(default_factory=list)
    settlement: FeedSettlement | None = None
    returned: list[FeedAmount] = field(default_factory=list)
    ts: str = ""


def unix(ts: str) -> float:
    """A record's ``ts`` (``2026-12-01T16:25:33.950942Z``) as Unix seconds."""
    return datetime.fromisoformat(ts.removesuffix("Z")).replace(tzinfo=UTC).timestamp()


def delay_from(ts: str, received_at: float) -> float:
    """The moment a record's delay counts from: the later of its ``ts`` and the floor's
    ``received_at`` (Unix seconds): Timed.at."""
    return max(unix(ts), received_at)


def from_start(timed: list[Timed], hand: int) -> list[Timed]:
    """The records from the hand's ``hand_started`` event on (its record may carry the end of
    the hand before, in the same decision)."""
    for n, record in enumerate(timed):
        for m, event in enumerate(record.events):
            if isinstance(event, ev.HandStarted) and event.hand == hand:
                return [Timed(record.at, record.ts, record.events[m:]), *timed[n + 1 :]]
    return []


def build(
    facts: HandFacts, records: Sequence[Timed], feed: str, settings: FeedSettings, now: float
) -> Built:
    """The hand as ``feed`` may carry it at ``now`` (Unix seconds)."""
    rule = policy.FEEDS[feed]
    state = _State()
    for record in records:
        state.ts = record.ts
        for event in record.events:
            _apply(state, event, record.at)
    carried = False
    waits: list[float] = []

    def show(card: _Card, seat: int | None) -> str | None:
        nonlocal carried
        if not (card.hole or card.other):
            return card.code
        if card.other:
            may = rule.other_face_down
        else:
            facts_ = policy.HoleCard(
                card.dealt_at, seat is not None and state.status.get(seat) == FOLDED, card.shown
            )
            may = policy.feed_carries(
                rule,
                facts_,
                now=now,
                delay=settings.broadcast_delay,
                folded_too=settings.broadcast_folded,
            )
            if not may and rule.hole_cards == policy.AFTER_DELAY:
                later = policy.feed_carries(
                    rule,
                    facts_,
                    now=card.dealt_at + settings.broadcast_delay,
                    delay=settings.broadcast_delay,
                    folded_too=settings.broadcast_folded,
                )
                if later:
                    waits.append(card.dealt_at + settings.broadcast_delay)
        if may and not card.shown:
            carried = True
        return card.code if may else None

    seats = tuple(
        FeedSeat(
            seat,
            tuple(show(card, seat) for card in cards),
            state.status.get(seat, "in"),
            state.bets.get(seat, 0),
        )
        for seat, cards in sorted(state.seats.items())
    )
    hand = FeedHand(
        VERSION,
        feed,
        facts.table_id,
        facts.journal_id,
        facts.hand,
        facts.game,
        facts.state,
        state.ts,
        state.street,
        state.pot,
        state.to_act,
        seats,
        tuple(show(card, None) for card in state.community),
        tuple(show(card, None) for card in state.burns),
        tuple(show(card, None) for card in state.discards),
        tuple(state.actions),
        tuple(state.showdown),
        state.settlement,
        tuple(state.returned),
    )
    return Built(hand, carried, min(waits) if waits else None)


def _apply(state: _State, event: ev.Event, at: float) -> None:
    state.follow(event)
    hidden = frozenset(hidden_cards(event))
    if isinstance(event, ev.HandStarted):
        state.seats = {seat: [] for seat in event.seats}
        state.actions.append(describe(event).strip())
    elif isinstance(event, ev.CardDealt):
        _dealt(state, event, event.card in hidden, at)
    elif isinstance(event, ev.CardMucked):
        _mucked(state, event, at)
    elif isinstance(event, ev.CardDiscarded):
        # A draw's discard leaves the hand face down (14.12A(f)): no longer the seat's.
        held = state.seats.get(event.seat, [])
        state.seats[event.seat] = [card for card in held if card.code != event.card]
        state.discards.append(_Card(event.card, False, True, at))
    elif isinstance(event, ev.BlindPosted | ev.ActionTaken):
        state.actions.append(describe(event).strip())
    elif isinstance(event, ev.RoundCompleted) and not event.skipped:
        state.actions.append(f"{event.street} complete: pot {event.pot}")
    elif isinstance(event, ev.Showdown):
        _showdown(state, event)
    elif isinstance(event, ev.HandSettled):
        state.settlement = FeedSettlement(
            tuple(pot_words(pot) for pot in event.pots),
            event.rake,
            tuple(FeedAmount(n.seat, n.amount) for n in event.net),
        )
    elif isinstance(event, ev.HandVoided):
        state.returned = [FeedAmount(r.seat, r.amount) for r in event.returned]


def _dealt(state: _State, event: ev.CardDealt, hidden: bool, at: float) -> None:
    if event.destination == ev.COMMUNITY:
        state.community.append(_Card(event.card, False, False, at))
    elif event.destination == ev.BURN:
        state.burns.append(_Card(event.card, False, True, at))
    elif event.seat is not None:
        state.seats.setdefault(event.seat, []).append(_Card(event.card, hidden, False, at))


def _mucked(state: _State, event: ev.CardMucked, at: float) -> None:
    # A seat's own card to the muck (a fold) stays the seat's, under the seat's rule (a folded
    # seat's hole cards: policy.FeedRule.folded); any other card to the muck is a discard.
    held = state.seats.get(event.seat, []) if event.seat is not None else []
    if not any(card.code == event.card for card in held):
        state.discards.append(_Card(event.card, False, True, at))


def _showdown(state: _State, event: ev.Showdown) -> None:
    # The cards turned over at the showdown are the table's to see (announce.hidden_cards).
    for shown in event.hands:
        state.showdown.append(FeedShown(shown.seat, shown.share, shown.cards, shown.description))
        for card in state.seats.get(shown.seat, []):
            if card.code in shown.cards:
                card.shown = True
