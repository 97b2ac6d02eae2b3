"""Search the floor's hands (docs/floor-web.md, Search): by table, hand number, time, seat or
card, as one role may see them.

The store narrows the hands (``hands``: its columns, its ``seats`` and ``cards`` arrays); the
policy decides what of them the role may find: a role that may not open a hand in its state
never finds it (an auditor finds finished hands only), and a card search finds a hand only by a
card the role may see there (policy.shown: a supervisor finds a hand in progress by its up cards
only, never by a hole card, a burn or a discard).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final

import psycopg

from controller.display.view import MAX_SEATS
from controller.floor.web import policy
from controller.floor.web.handpages import RESULTS, HandKey, HandLine, state_of
from controller.floor.web.moments import shown_if
from controller.journal import schema
from controller.poker.announce import hidden_cards
from controller.poker.cards import EXPECTED_CARD_FORM, Card, CardError
from controller.poker.engine import events as ev
from controller.poker.games import GAMES

AsyncConn = psycopg.AsyncConnection[tuple[object, ...]]

#: The hands the store gives before the policy's cut (a card search may drop some).
SCAN: Final = 1000
FIELDS: Final = ("table", "hand", "from", "to", "seat", "card")


@dataclass(slots=True)
class Query:
    table: str | None = None
    hand: int | None = None
    since: datetime | None = None
    until: datetime | None = None
    seat: int | None = None
    card: str | None = None
    #: What was typed, as typed (the form shows it again).
    typed: dict[str, str] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return all(value in (None, "") for value in self.typed.values())


class QueryError(ValueError):
    """Every field of a search that cannot be read, each named with what was expected."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def parse(params: Mapping[str, str]) -> Query:
    """The search's fields from the query string; QueryError names each bad one."""
    typed = {name: params.get(name, "").strip() for name in FIELDS}
    query, problems = Query(typed=typed), []
    query.table = typed["table"] or None
    for name, low, high in (("hand", 1, 2**31 - 1), ("seat", 1, MAX_SEATS)):
        text = typed[name]
        if not text:
            continue
        if not text.isdigit() or not low <= int(text) <= high:
            problems.append(f"{name} {text!r}: expected a whole number from {low} to {high}")
        else:
            setattr(query, name, int(text))
    for name, attr in (("from", "since"), ("to", "until")):
        text = typed[name]
        if not text:
            continue
        try:
            moment = datetime.fromisoformat(text)
        except ValueError:
            problems.append(f"{name} {text!r}: expected a date and time, 2026-12-01T20:30 (UTC)")
            continue
        setattr(query, attr, moment if moment.tzinfo else moment.replace(tzinfo=UTC))
    if typed["card"]:
        try:
            query.card = Card.parse(typed["card"]).code
        except CardError:
            problems.append(f"card {typed['card']!r}: expected {EXPECTED_CARD_FORM}")
    if query.since and query.until and query.since > query.until:
        problems.append(f"from {typed['from']!r} is after to {typed['to']!r}: expected from first")
    if problems:
        raise QueryError(problems)
    return query


@dataclass(frozen=True, slots=True)
class Found:
    line: HandLine
    #: The result shows a face-down card's value (the search was for it): the access log's.
    face_down: bool


async def search(conn: AsyncConn, query: Query, role: str) -> list[Found]:
    """The hands ``query`` finds that ``role`` may open, newest first, at most RESULTS."""
    where, params = ["started_seq IS NOT NULL"], []
    for clause, value in (
        ("table_id = %s", query.table),
        ("hand = %s", query.hand),
        ("started_at >= %s", query.since),
        ("started_at <= %s", query.until),
        ("seats @> %s::jsonb", None if query.seat is None else json.dumps([query.seat])),
        ("cards @> %s::jsonb", None if query.card is None else json.dumps([{"card": query.card}])),
    ):
        if value is not None:
            where.append(clause)
            params.append(value)
    cur = await conn.execute(
        "SELECT table_id, journal_id, hand, game, started_at, finished, voided, cards FROM hands "
        f"WHERE {' AND '.join(where)} ORDER BY started_at DESC, table_id, hand DESC LIMIT %s",
        (*params, SCAN),
    )
    found: list[Found] = []
    for (
        table_id,
        journal_id,
        hand,
        game,
        started_at,
        finished,
        voided,
        cards,
    ) in await cur.fetchall():
        state = state_of(finished, voided)
        in_progress = state == "in progress"
        if not policy.may_open(role, in_progress=in_progress):
            continue
        matched, face_down = "", False
        if query.card is not None:
            seen = _seen(cards, query.card, role, in_progress)
            if seen is None:
                continue  # only by a card this role may not see here
            matched, face_down = seen
        spec = GAMES.get(str(game))
        key = HandKey(str(table_id), str(journal_id), int(str(hand)))
        at = shown_if(started_at)  # the one way a page says a moment
        name = spec.name if spec is not None else str(game)
        line = HandLine(key.table_id, key.journal_id, key.hand, name, at, state, matched)
        found.append(Found(line, face_down))
        if len(found) == RESULTS:
            break
    return found


def _seen(cards: object, card: str, role: str, in_progress: bool) -> tuple[str, bool] | None:
    """Where the hand had ``card`` as ``role`` may see it, and whether that place is face down;
    None if the role may see it nowhere in this hand."""
    if not isinstance(cards, list):
        return None
    places = []
    face_down = False
    for value in cards:
        event = schema.decode_event(value, "hands.cards")
        if getattr(event, "card", None) != card:
            continue
        if policy.shown(card, event, role, in_progress=in_progress) is None:
            continue
        places.append(_place(event))
        face_down = face_down or bool(hidden_cards(event))
    if not places:
        return None
    return f"{card}: {', '.join(places)}", face_down


def _place(event: ev.Event) -> str:
    if isinstance(event, ev.CardDealt):
        if event.destination == ev.SEAT:
            return f"seat {event.seat} face {event.face}"
        return event.destination
    if isinstance(event, ev.CardMucked):
        return "to the muck"
    if isinstance(event, ev.CardDiscarded):
        return f"seat {event.seat}'s discard"
    return event.kind
