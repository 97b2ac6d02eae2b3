"""Game recall: the last hands of the journal, each with its cards, actions and settlement.

Reads the journal's decision records, decoded by the journal's schema into the engine's
own events (controller/journal/schema.py), so it needs neither the table's configuration nor
the engine's rules, and it reads without
the writer's lock: it works while the table runs, paused by an alarm included.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from controller.display.view import posted_rules
from controller.journal import JsonValue, Record, schema
from controller.journal import tablerecords as rec
from controller.poker.announce import action_words, game_name
from controller.poker.engine.events import (
    ActionTaken,
    Alarm,
    BlindPosted,
    CardDealt,
    DrawDeclared,
    Event,
    HandSettled,
    HandStarted,
    HandVoided,
    PotResult,
    SeatAmount,
    SeatsChanged,
    Showdown,
    StreetStarted,
    Undone,
)
from controller.poker.engine.tablesetup import Stakes
from controller.poker.games import GAMES


@dataclass
class HandRecord:
    """One hand as the journal tells it."""

    number: int
    game: str
    started: str
    lines: list[str] = field(default_factory=list)
    finished: bool = False
    #: The hand's events, as the engine's own dataclasses (the PHH export reads them).
    events: list[Event] = field(default_factory=list)
    #: What the hand was dealt under (its stakes); None: the journal was written before hands
    #: recorded them (docs/journal.md, A hand's terms).
    terms: rec.HandTerms | None = None
    #: The software the table ran when the hand began: the start's ``software`` record
    #: (docs/journal.md, The software record); None: none journaled before it in the records
    #: read (a journal written before the record, or a simulated table).
    software: schema.SoftwareData | None = None


@dataclass(frozen=True)
class RecalledHand:
    """One hand as ``recall --json`` gives it (``floor recall --json`` and the dispute bundle's
    recall.json too): what the text shows, line for line, and the journal's events behind those
    lines (no other: a recall tells no more than its text)."""

    number: int
    game: str
    #: The time of the hand's first journal record (UTC, ISO 8601).
    started: str
    #: False while the hand is in play (the text's "(in progress)").
    finished: bool
    #: The stakes it was dealt under (13:69F-8.3), as journaled with the hand; None for a
    #: hand journaled before hands recorded them.
    stakes: Stakes | None
    #: The house rules it was dealt under (rules-interpretation.md, House rules), by name; a hand
    #: journaled before hands recorded them was dealt under ``RULES_BEFORE_JOURNALED``.
    rules: dict[str, bool | str]
    lines: list[str]
    events: list[JsonValue]

    @classmethod
    def of(cls, hand: HandRecord) -> RecalledHand:
        """The hand's text lines and the events they tell."""
        # As the journal keeps them (controller/journal/schema.py): the JSON recall has always
        # given.
        told = [schema.encode(event) for event in hand.events if describe(event)]
        stakes = hand.terms.stakes if hand.terms is not None else None
        rules = hand.terms.rules if hand.terms is not None else rec.RULES_BEFORE_JOURNALED
        return cls(
            hand.number,
            hand.game,
            hand.started,
            hand.finished,
            stakes,
            rules.as_words(),
            hand.lines,
            told,
        )


def hands(records: Iterable[Record], last: int | None = None) -> list[HandRecord]:
    """The hands in ``records``, oldest first; only the ``last`` ones if given. A decision
    record the schema refuses (a newer version, a field it does not know) is a SchemaError
    naming the record (controller/journal/schema.py)."""
    kept: deque[HandRecord] = deque(maxlen=last)
    current: HandRecord | None = None
    asked = ""  # who asked for the seat change whose decision comes next
    running: schema.SoftwareData | None = None  # the last start's software record
    for record in records:
        if record.kind == rec.SEATING:
            asked = _asked_by(record)
        elif record.kind == SOFTWARE:
            running = _software(record)
        if record.kind not in rec.DECISIONS:
            continue
        for event in schema.decode_events(record):
            if isinstance(event, HandStarted):
                terms = rec.hand_terms_of(record.data)
                current = HandRecord(event.hand, event.game, record.ts, terms=terms)
                current.software = running
                kept.append(current)
            if current is None:
                continue  # the journal began mid-hand (a rotated-away start): nothing to tell
            current.events.append(event)
            line = describe(event)
            if line and isinstance(event, SeatsChanged):
                line += asked
            if line:
                current.lines.append(line)
            if isinstance(event, HandSettled | HandVoided):
                current.finished = True
    return list(kept)


#: The record of which software a start ran (controller/history/attest.py; 13:69E-1.28B(d)).
SOFTWARE: Final = "software"


def _software(record: Record) -> schema.SoftwareData:
    data = schema.decode(record)
    assert isinstance(data, schema.SoftwareData)
    return data


def _asked_by(record: Record) -> str:
    """`` (asked by NAME, uid N)`` for a seat change journaled with its asker; '' before they
    were journaled."""
    data = schema.decode(record)
    assert isinstance(data, schema.SeatingData)
    if data.uid is None:
        return ""
    return f" (asked by {data.user or 'a user without a name'}, uid {data.uid})"


def _amounts(entries: tuple[SeatAmount, ...]) -> str:
    return ", ".join(f"seat {e.seat} {e.amount}" for e in entries) or "nothing"


def _pot(pot: PotResult) -> str:
    shares = ", ".join(
        f"{s.share} {s.amount} to seat {'/'.join(map(str, s.winners))}" for s in pot.shares
    )
    odd = "".join(f", odd chip to seat {o.seat} ({o.rule})" for o in pot.odd_chips)
    return f"{pot.name} {pot.amount}: {shares}{odd}"


def describe(event: Event) -> str:  # noqa: PLR0911, PLR0912 one line per kind of event told
    """One line for an event a recall shows; '' for what it leaves out (what was expected)."""
    match event:
        case HandStarted():
            antes = f"; antes {_amounts(event.antes)}" if event.antes else ""
            seats = ", ".join(map(str, event.seats))
            return f"seats {seats} dealt in, dealer {event.dealer}{antes}"
        case CardDealt(destination="burn"):
            return f"  burn {event.card}"
        case CardDealt(destination="community"):
            return f"  community {event.card}"
        case CardDealt():
            return f"  seat {event.seat}: {event.card} face {event.face}"
        case BlindPosted():
            return f"  seat {event.seat} posts the {event.blind} blind {event.amount}"
        case ActionTaken():  # in the table's words (announce.action_words)
            return f"  seat {event.seat} {action_words(event)}"
        case DrawDeclared():
            return f"  seat {event.seat} draws: {' '.join(event.discards) or 'stands pat'}"
        case StreetStarted():
            return f"{event.street}:"
        case Showdown():
            return "showdown: " + "; ".join(
                f"seat {h.seat}{''.join(' ' + c for c in h.cards)} {h.share}: {h.description}"
                for h in event.hands
            )
        case HandSettled():
            pots = "; ".join(_pot(p) for p in event.pots)
            nets = ", ".join(f"seat {n.seat} {n.amount:+d}" for n in event.net)
            rake = f"; rake {event.rake}" if event.rake else ""
            return f"settled: {pots}{rake}. Results: {nets}"
        case HandVoided():
            return f"void (misdeal): returned {_amounts(event.returned)}"
        case Alarm():
            return f"  ALARM {event.read} at the {event.point}: {event.reason}"
        case Undone():
            return f"  undone: {event.input}"
        case SeatsChanged():  # between hands, after this hand (docs/app.md, Seat changes)
            chips = f" {event.chips}" if event.change != "leave" else ""
            return f"  seat change: {event.change} seat {event.seat}{chips}"
    return ""


def describe_stakes(stakes: Stakes) -> str:
    """The stakes as the table posts them (13:69F-8.3): what is posted, then the bets."""
    posted = [
        f"{name} {amount}"
        for name, amount in (
            ("ante", stakes.ante),
            ("bring-in", stakes.bring_in),
            ("small blind", stakes.small_blind),
            ("big blind", stakes.big_blind),
        )
        if amount
    ]
    rake = f", rake {stakes.rake_percent}%" if stakes.rake_percent else ""
    if stakes.rake_percent and stakes.rake_cap is not None:
        rake += f" up to {stakes.rake_cap}"
    return ", ".join([*posted, f"bets {stakes.small_bet}/{stakes.big_bet}"]) + rake


def format_hand(hand: HandRecord) -> str:
    """A hand as recall prints it."""
    state = "" if hand.finished else " (in progress)"
    head = f"Hand {hand.number}, {game_name(hand.game)}, {hand.started}{state}"
    if hand.terms is None:
        stakes = "stakes: not in the journal (written before hands recorded them)"
        rules = rec.RULES_BEFORE_JOURNALED
    else:
        stakes = f"stakes: {describe_stakes(hand.terms.stakes)}"
        rules = hand.terms.rules
    spec = GAMES.get(hand.game)
    posted = [] if spec is None else [f"  house rules: {posted_rules(rules, spec)}"]
    ran = hand.software
    if ran is not None:  # which software dealt it (docs/journal.md, The software record)
        posted.append(f"  software: {ran.digest} (tablectl {ran.version})")
    return "\n".join([head, f"  {stakes}", *posted, *(f"  {line}" for line in hand.lines)])
