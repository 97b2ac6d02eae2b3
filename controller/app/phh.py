"""Hand histories in the PHH format (the poker hand history standard PokerKit reads and writes).

Each finished hand of the journal becomes one PHH file (TOML). Five-card stud
and Mambo are not among PHH's standard variants, so they carry documented
custom codes (docs/app.md, Hand histories): ``F5S`` (fixed-limit five-card
stud, 14.13) and ``FMB/6`` (fixed-limit Mambo stud high-low, six or better,
14.13A). Triple Draw 2-7 would carry the standard ``F2L3D``; its export is not
written yet, and such a hand is refused. Burns are comments (``# burn 4h``); a
card's face is a comment too (``d dh p2 Kh # up``); void hands are not exported.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from controller.app.recall import HandRecord
from controller.engine import Stakes

#: The PHH variant code of each game (custom codes for games PHH does not define).
VARIANTS: Final = {
    "five-card-stud": "F5S",
    "mambo": "FMB/6",
    # Triple Draw 2-7 is PHH's standard F2L3D; its export (blinds, "sd" draws, replacement
    # deals) and the PokerKit round trip are not written yet, so it is refused, not guessed.
}

#: The engine's action words (controller.engine.table) and their PHH action codes.
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
    return str(value)


def actions(hand: HandRecord) -> list[str]:
    """The hand's PHH actions, in order: deals, bring-in, bets, burns as comments, shows."""
    started = hand.events[0]
    players = {seat: f"p{i + 1}" for i, seat in enumerate(started["seats"])}
    out: list[str] = []
    shown: set[int] = set()
    for event in hand.events:
        kind = event["kind"]
        if kind == "card_dealt":
            if event["destination"] == "burn":
                out.append(f"# burn {event['card']}")
            elif event["destination"] == "community":
                out.append(f"d db {event['card']}")
            else:
                out.append(f"d dh {players[event['seat']]} {event['card']} # {event['face']}")
        elif kind == "action_taken":
            player = players[event["seat"]]
            if event["action"].startswith("brings in"):
                out.append(f"{player} pb")
            else:
                code = _ACTIONS.get(event["action"])
                if code is None:
                    raise ExportError(f"hand {hand.number}: action {event['action']!r} has no PHH")
                out.append(
                    f"{player} cbr {event['round_total']}" if code == "cbr" else f"{player} {code}"
                )
        elif kind == "showdown":
            for shown_hand in event["hands"]:
                seat = shown_hand["seat"]
                if seat not in shown and shown_hand["cards"]:
                    shown.add(seat)
                    out.append(f"{players[seat]} sm {''.join(shown_hand['cards'])}")
    return out


def export_hand(hand: HandRecord, stakes: Stakes, table_id: str) -> str:
    """One settled hand as a PHH file's text."""
    if not hand.events or hand.events[0]["kind"] != "hand_started":
        raise ExportError(f"hand {hand.number}: the journal does not hold its start")
    settled = next((e for e in hand.events if e["kind"] == "hand_settled"), None)
    if settled is None:
        raise ExportError(f"hand {hand.number}: not settled (void or in progress)")
    started = hand.events[0]
    seats: list[int] = list(started["seats"])
    antes = {a["seat"]: a["amount"] for a in started["antes"]}
    final = {s["seat"]: s["amount"] for s in settled["stacks"]}
    net = {n["seat"]: n["amount"] for n in settled["net"]}
    variant = VARIANTS.get(started["game"])
    if variant is None:
        raise ExportError(f"hand {hand.number}: game {started['game']!r} has no PHH code")
    fields: list[tuple[str, Any]] = [
        ("variant", variant),
        ("antes", [antes.get(seat, 0) for seat in seats]),
        ("bring_in", stakes.bring_in or stakes.small_bet),
        ("small_bet", stakes.small_bet),
        ("big_bet", stakes.big_bet),
        ("starting_stacks", [final[seat] - net.get(seat, 0) for seat in seats]),
        ("actions", actions(hand)),
        ("finishing_stacks", [final[seat] for seat in seats]),
        ("seats", seats),
        ("table", table_id),
        ("hand", hand.number),
        ("time_zone", "UTC"),
        ("_tablectl_started", hand.started),
    ]
    lines = [f"{name} = {_toml_value(value)}" for name, value in fields]
    return "\n".join(lines) + "\n"


def export_hands(
    hands: Iterable[HandRecord], stakes: Stakes, table_id: str
) -> list[tuple[int, str]]:
    """(hand number, PHH text) of every settled hand; void and unfinished hands left out."""
    out = []
    for hand in hands:
        if hand.finished and any(e["kind"] == "hand_settled" for e in hand.events):
            out.append((hand.number, export_hand(hand, stakes, table_id)))
    return out
