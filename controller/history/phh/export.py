"""Hand histories in the PHH format (the poker hand history standard PokerKit reads and writes).

Each finished hand of the journal becomes one PHH file (TOML). Five-card stud
and Mambo are not among PHH's standard variants, so they carry documented
custom codes (docs/app.md, Hand histories): ``F5S`` (fixed-limit five-card
stud, 14.13) and ``FMB/6`` (fixed-limit Mambo stud high-low, six or better,
14.13A), which the import (controller/history/phh/parse.py) reads back. Triple Draw 2-7 carries
PHH's standard ``F2L3D``: blinds, each player's five cards in one deal action,
each draw as ``pN sd CARDS`` (``pN sd`` to stand pat) for every player before
the new cards, as PHH orders a draw. Burns are comments (``# burn 4h``); a
card's face is a comment too (``d dh p2 Kh # up``); so is a reshuffle of the
discards (``# reshuffle ...``, 14.12A(f)), which PHH cannot state; void hands
are not exported. A seat whose stack the table does not know (no ``[stacks]`` entry and no
seat change gave it chips: it may bet but not go all-in) has the stack ``inf``, as PokerKit
writes an unknown stack. Each hand is written at the stakes its start journaled (docs/journal.md,
A hand's terms), its players in PHH's ``seats`` of the game's ``seat_count``, and a shown hand
(``pN sm``) is the player's own cards.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, Final

from controller.history.phh.parse import DRAW_VARIANTS, FIELD_PREFIX, RAKE_FIELD, STAKES_NAMES
from controller.history.phh.parse import VARIANTS as IMPORTED_VARIANTS
from controller.history.recall import HandRecord
from controller.journal.tablerecords import RULES_BEFORE_JOURNALED
from controller.poker.engine import Stakes
from controller.poker.engine.events import (
    ActionTaken,
    CardDealt,
    CardDiscarded,
    DiscardsReshuffled,
    DrawDeclared,
    HandSettled,
    HandStarted,
    Showdown,
    StreetStarted,
)
from controller.poker.games import GAMES

#: The PHH variant code of each game (custom codes F5S and FMB/6 for the games PHH does not
#: define), one table for the export and the import (controller/history/phh/parse.py).
VARIANTS: Final = {game: code for code, game in IMPORTED_VARIANTS.items()}
#: The games dealt with blinds and draws (PHH: blinds_or_straddles, "sd"), not antes and upcards.
_DRAW_GAMES: Final = frozenset(IMPORTED_VARIANTS[code] for code in DRAW_VARIANTS)

#: The engine's action words (controller.poker.engine.gametable) and their PHH action codes.
_ACTIONS: Final = {
    "brings in": "pb",
    "brings in for a full bet": "cbr",
    "completes": "cbr",
    "bets": "cbr",
    "raises": "cbr",
    "raises all-in (short)": "cbr",
    "calls": "cc",
    "checks": "cc",
    "folds": "f",
}


class ExportError(ValueError):
    """A hand that cannot be written as PHH."""


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if value == math.inf:
        return "inf"  # TOML's infinity: a stack the table does not know
    return str(value)


def _bet(hand: HandRecord, player: str, event: ActionTaken) -> str:
    """A betting action in PHH: ``cbr`` carries the round total bet or raised to."""
    code = _ACTIONS.get(event.action)
    if code is None:
        raise ExportError(f"hand {hand.number}: action {event.action!r} has no PHH")
    return f"{player} cbr {event.round_total}" if code == "cbr" else f"{player} {code}"


def _players(hand: HandRecord) -> dict[int, str]:
    """PHH's p1..pN: the seats in the order the hand deals them, from the button's left, the
    button last (14.12A(d)); so p1 is the small blind, or heads-up the big blind."""
    return {seat: f"p{i + 1}" for i, seat in enumerate(_started(hand).seats)}


def _started(hand: HandRecord) -> HandStarted:
    """The hand's first event, its start; ExportError when the journal does not hold it."""
    first = hand.events[0] if hand.events else None
    if not isinstance(first, HandStarted):
        raise ExportError(f"hand {hand.number}: the journal does not hold its start")
    return first


def held_cards(hand: HandRecord) -> dict[int, list[str]]:
    """The cards each seat holds at the hand's end, in the order it was dealt them: every card
    dealt to the seat (down and up), less its discards (14.12A(f)). Never the community card
    (14.13A(h)): it is the table's, not a player's."""
    held: dict[int, list[str]] = {}
    for event in hand.events:
        if isinstance(event, CardDealt) and event.seat is not None:  # a burn and the board: None
            held.setdefault(event.seat, []).append(event.card)
        elif isinstance(event, CardDiscarded):
            held[event.seat].remove(event.card)
    return held


def _shows(event: Showdown, players: dict[int, str], held: dict[int, list[str]]) -> list[str]:
    """``pN sm CARDS`` for each seat at the showdown, once: the player's own cards, as PHH
    shows a hand (PokerKit takes them for the player's hole cards). The showdown's own lists
    are the hands rated for each share, which in Mambo take the community card and leave one
    of the player's cards out (14.13A(j),(l)), and show a seat once a share."""
    seats = dict.fromkeys(shown.seat for shown in event.hands)
    return [f"{players[seat]} sm {''.join(held[seat])}" for seat in seats]


def draw_actions(hand: HandRecord) -> list[str]:
    """A triple draw hand's PHH actions: the deal (five cards a player), bets, draws, shows.

    The table deals the opening hands one card a player, round by round (14.12A(d)), and each
    drawer's new cards right after its discards (14.12A(f),(h),(j)); PHH writes a player's five
    cards as one action and every draw's ``sd`` before the draw's deals, so the deals wait until
    the betting or the next street begins. The burn stays where it fell among the new cards.
    """
    players = _players(hand)
    out: list[str] = []
    opening: dict[int, list[str]] = {}
    draws: list[str] = []
    deals: list[str] = []
    discarded: dict[int, list[str]] = {}
    held = held_cards(hand)

    def flush() -> None:
        for seat, cards in opening.items():
            out.append(f"d dh {players[seat]} {''.join(cards)}")
        opening.clear()
        out.extend(draws + deals)
        draws.clear()
        deals.clear()

    drawing = False
    for event in hand.events:
        match event:
            case StreetStarted():
                flush()
                drawing = event.number > 1  # street 1 is the deal; the rest are draws
            case CardDealt(destination="burn"):
                (deals if drawing else out).append(f"# burn {event.card}")
            case CardDealt(seat=int(seat)) if not drawing:
                opening.setdefault(seat, []).append(event.card)
            case CardDealt(seat=int(seat)):
                deals.append(f"d dh {players[seat]} {event.card}")
            case CardDiscarded():
                discarded.setdefault(event.seat, []).append(event.card)
            case DrawDeclared():
                thrown = "".join(discarded.pop(event.seat, []))
                draws.append(f"{players[event.seat]} sd {thrown}".rstrip())
            case DiscardsReshuffled():  # 14.12A(f): PHH has no action for it
                deals.append(f"# reshuffle {' '.join(event.cards)}")
            case ActionTaken():
                flush()
                out.append(_bet(hand, players[event.seat], event))
            case Showdown():
                flush()
                out.extend(_shows(event, players, held))
    flush()
    return out


def actions(hand: HandRecord) -> list[str]:
    """The hand's PHH actions, in order: deals, bring-in, bets, burns as comments, shows."""
    players = _players(hand)
    out: list[str] = []
    held = held_cards(hand)
    for event in hand.events:
        match event:
            case CardDealt(destination="burn"):
                out.append(f"# burn {event.card}")
            case CardDealt(destination="community"):
                out.append(f"d db {event.card}")
            case CardDealt(seat=int(seat)):
                out.append(f"d dh {players[seat]} {event.card} # {event.face}")
            case ActionTaken():
                player = players[event.seat]
                # PHH's pb posts the bring-in; a bring-in for a full bet is a completion, cbr
                # (14.13(d), 14.13A(d)).
                if event.action == "brings in":
                    out.append(f"{player} pb")
                else:
                    out.append(_bet(hand, player, event))
            case Showdown():
                out.extend(_shows(event, players, held))
    return out


def export_hand(hand: HandRecord, configured: Stakes, table_id: str) -> str:
    """One settled hand as a PHH file's text, at the stakes it was dealt under: those its
    start journaled, or for a journal written before hands recorded them, ``configured``
    (the file's ``_tablectl_stakes`` says which)."""
    started = _started(hand)
    settled = next((e for e in hand.events if isinstance(e, HandSettled)), None)
    if settled is None:
        raise ExportError(f"hand {hand.number}: not settled (void or in progress)")
    stakes = configured if hand.terms is None else hand.terms.stakes
    seats: list[int] = list(started.seats)
    antes = {a.seat: a.amount for a in started.antes}
    # The settlement lists the stacks the table knows; a seat without one (no [stacks] entry,
    # no chips from a seat change) bets from an unknown stack: PHH's (PokerKit's) ``inf``.
    known = {s.seat: s.amount for s in settled.stacks}
    final: dict[int, float] = {seat: known.get(seat, math.inf) for seat in seats}
    net = {n.seat: n.amount for n in settled.net}
    variant = VARIANTS.get(started.game)
    if variant is None:
        raise ExportError(f"hand {hand.number}: game {started.game!r} has no PHH code")
    if started.game in _DRAW_GAMES:
        # PHH's blinds by position: small then big; PokerKit swaps them heads-up, where the
        # button (p2) posts the small blind (14.12A(c)). A short stack posts what it has.
        blinds = [stakes.small_blind, stakes.big_blind] + [0] * (len(seats) - 2)
        forced: list[tuple[str, Any]] = [("blinds_or_straddles", blinds)]
        told = draw_actions(hand)
    else:
        forced = [("bring_in", stakes.forced_bring_in)]  # 14.13(d), 14.13A(d)
        told = actions(hand)
    fields: list[tuple[str, Any]] = [
        ("variant", variant),
        ("antes", [antes.get(seat, 0) for seat in seats]),
        *forced,
        ("small_bet", stakes.small_bet),
        ("big_bet", stakes.big_bet),
        ("starting_stacks", [final[seat] - net.get(seat, 0) for seat in seats]),
        ("actions", told),
        ("finishing_stacks", [final[seat] for seat in seats]),
        # PHH: p1..pN sit in these seats of a table of seat_count (the game's seats:
        # 14.13(b), 14.13A(b), 14.12A(b)); the import puts them back there.
        ("seats", seats),
        ("seat_count", GAMES[started.game].max_seats),
        ("table", table_id),
        ("hand", hand.number),
        ("time_zone", "UTC"),
        ("_tablectl_started", hand.started),
        ("_tablectl_stakes", "configuration" if hand.terms is None else "journal"),
        # PHH has no field for the smallest chip, the raise cap or the rake (PokerKit's rake is
        # a function it is given, not a field of the file): the posted ones (docs/deploy.md,
        # [stakes]; no rake_cap field: no cap) and the chips the table raked (14.19(c)), which
        # the import reads back and checks the hand it replays against
        # (controller/history/phh/parse.py).
        *(
            (f"{FIELD_PREFIX}{name}", getattr(stakes, name))
            for name in STAKES_NAMES
            if getattr(stakes, name) is not None
        ),
        (RAKE_FIELD, settled.rake),
        # PHH has no field for the house rules (rules-interpretation.md, House rules): the hand's
        # own, one user-defined field each, which the import reads back
        # (controller/history/phh/parse.py).
        *(
            (f"{FIELD_PREFIX}{name}", value)
            for name, value in (RULES_BEFORE_JOURNALED if hand.terms is None else hand.terms.rules)
            .as_words()
            .items()
        ),
    ]
    lines = [f"{name} = {_toml_value(value)}" for name, value in fields]
    return "\n".join(lines) + "\n"


def export_hands(
    hands: Iterable[HandRecord], configured: Stakes, table_id: str
) -> list[tuple[int, str]]:
    """(hand number, PHH text) of every settled hand; void and unfinished hands left out.
    ``configured``: the stakes of a hand whose start did not journal its own."""
    out = []
    for hand in hands:
        if hand.finished and any(isinstance(e, HandSettled) for e in hand.events):
            out.append((hand.number, export_hand(hand, configured, table_id)))
    return out
