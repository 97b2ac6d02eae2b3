"""Every engine event as the sentence a dealer hears.

For example: "Seat 4 brings in: lowest up-card 2 of clubs".

An announcement is heard by everyone at the table and read by everyone who reads the
log: the dealer's display and the panel face the players and the cameras, and the
log travels to journald and log shippers. So it never names a card no player may see
(``hidden_cards``): a hole card, a burn, a card to the muck, a discard, the card that
raised an integrity alarm. Those stay in
the journal, which keeps every card (docs/display.md, What the table sees).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.cards import DECK
from controller.engine import events as ev

#: The codes of the cards in play: an alarm whose read is one of them names a card.
_CARD_CODES = frozenset(card.code for card in DECK)


def _amounts(entries: tuple[ev.SeatAmount, ...]) -> str:
    return ", ".join(f"seat {e.seat} {e.amount}" for e in entries) or "nothing"


def _signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def _hand_started(e: ev.HandStarted) -> str:
    antes = f"; antes in: {_amounts(e.antes)}" if e.antes else ""
    return f"Hand {e.hand}, {e.game}: seats {', '.join(map(str, e.seats))} dealt in{antes}."


def _seats_changed(e: ev.SeatsChanged) -> str:
    did = {
        "sit": f"Seat {e.seat} sits down with {e.chips}",
        "leave": f"Seat {e.seat} leaves",
        "rebuy": f"Seat {e.seat} buys {e.chips} more",
    }.get(e.change, f"Seat {e.seat}: {e.change}")
    return f"{did}; seats {', '.join(map(str, e.seats))} play the next hand."


def _card_expected(e: ev.CardExpected) -> str:
    if e.destination == ev.BURN:
        return "Burn a card."
    if e.destination == ev.COMMUNITY:
        return "Community card, face up."
    return f"Seat {e.seat}, face {e.face}."


def hidden_cards(event: ev.Event) -> tuple[str, ...]:
    """The cards ``event`` carries that no player may see: the one rule of what the table and
    the log are not told. A card dealt face down (a hole card) and a burn are seen by
    nobody; a card to the muck, over the discard reader, or among a draw's discards leaves
    the hand unseen (14.12A(f): the discards go face down). Face-up cards, community cards
    and the cards turned over at the showdown are the table's to see."""
    if isinstance(event, ev.CardDealt):
        face_up = event.destination == ev.COMMUNITY or (
            event.destination != ev.BURN and event.face == "up"
        )
        return () if face_up else (event.card,)
    if isinstance(event, ev.CardMucked | ev.CardDiscarded):
        return (event.card,)
    if isinstance(event, ev.DrawExpected | ev.DrawDeclared):
        return event.discards
    if isinstance(event, ev.DiscardsReshuffled):
        return event.cards
    if isinstance(event, ev.Alarm) and event.read in _CARD_CODES:
        # rules-interpretation.md, Integrity: the card that raised an alarm may be the twin of a
        # hole card ("already seen this hand (seat 2)") or a live hand's card at the discard reader;
        # the dealer holds it, the journal and the floor name it. A tag or a button is not a card.
        return (event.read,)
    return ()


def alarm_read(alarm: ev.Alarm) -> str:
    """What raised ``alarm``, as the table may be told: "a card" for a card of the deck in
    play (``hidden_cards``), else the tag or the button as read."""
    return "a card" if hidden_cards(alarm) else alarm.read


def facts(event: ev.Event) -> dict[str, Any]:
    """The event's facts as a log line's fields (seat, amount, pot, nets...), less what no
    player may see: a hidden card is left out, a list of discards is given as its count.
    ``hand`` is left out: the log line names the hand it belongs to already."""
    data = ev.to_dict(event)
    del data["kind"]
    data.pop("hand", None)
    hidden = hidden_cards(event)
    if hidden:
        for name, value in list(data.items()):
            if value in hidden:
                del data[name]
            elif isinstance(value, list | tuple) and value and all(c in hidden for c in value):
                data[name] = len(value)
    return data


def _card_dealt(e: ev.CardDealt) -> str:
    card = "a card" if hidden_cards(e) else e.card
    if e.destination == ev.BURN:
        return f"Burned {card}."
    if e.destination == ev.COMMUNITY:
        return f"Community card {card}."
    return f"Seat {e.seat} gets {card} face {e.face}."


def _action_required(e: ev.ActionRequired) -> str:
    options = ", ".join(o.meaning for o in e.options)
    if any(o.meaning.startswith("bring in") for o in e.options):
        return f"Seat {e.seat} brings in: {e.reason}"
    return f"Seat {e.seat} to act ({e.reason}): {options}."


def _action_taken(e: ev.ActionTaken) -> str:
    amount = f" {e.amount}" if e.amount else ""
    all_in = ", all-in" if e.all_in else ""
    return f"Seat {e.seat} {e.action}{amount}{all_in}."


def _showdown(e: ev.Showdown) -> str:
    parts = [
        f"seat {h.seat} {h.share}: {h.description}" + (f" ({' '.join(h.cards)})" if h.cards else "")
        for h in e.hands
    ]
    return "Showdown: " + "; ".join(parts) + "."


def _pot(p: ev.PotResult) -> str:
    if p.returned:
        return f"{p.name} {p.amount} returned to seat {p.eligible[0]} (uncalled)"
    shares = "; ".join(
        f"{s.share} {s.amount} to seat{'s' if len(s.winners) > 1 else ''} "
        f"{', '.join(map(str, s.winners))}" + (f" with {s.description}" if s.description else "")
        for s in p.shares
    )
    rake = f", rake {p.rake}" if p.rake else ""
    odd = "".join(f"; odd chip {o.chips} to seat {o.seat} ({o.rule})" for o in p.odd_chips)
    return f"{p.name} {p.amount}{rake}: {shares}{odd}"


def _settled(e: ev.HandSettled) -> str:
    pots = ". ".join(_pot(p) for p in e.pots)
    nets = ", ".join(f"seat {n.seat} {_signed(n.amount)}" for n in e.net)
    return f"Hand {e.hand} settled. {pots}. Results: {nets}."


#: Each event class and the function that says it.
RENDERERS: dict[type[Any], Callable[[Any], str]] = {
    ev.HandStarted: _hand_started,
    ev.StreetStarted: lambda e: f"{e.street.capitalize()}.",
    ev.CardExpected: _card_expected,
    ev.CardDealt: _card_dealt,
    ev.CardMucked: lambda e: "A card to the muck.",
    ev.BlindPosted: lambda e: (
        f"Seat {e.seat} posts the {e.blind} blind {e.amount}{', all-in' if e.all_in else ''}."
    ),
    ev.DrawExpected: lambda e: (
        f"Seat {e.seat} draws"
        + (f" ({len(e.discards)} discarded so far)" if e.discards else "")
        + ": discards over the reader, then draw done."
    ),
    ev.CardDiscarded: lambda e: f"Seat {e.seat} discards a card.",
    ev.DrawDeclared: lambda e: (
        f"Seat {e.seat} draws {len(e.discards)}." if e.discards else f"Seat {e.seat} stands pat."
    ),
    ev.DiscardsReshuffled: lambda e: (
        f"The stub is short: {len(e.cards)} discards, not seat {e.seat}'s, are reshuffled."
    ),
    ev.RoundStarted: lambda e: f"Betting, {e.bet} a bet: seat {e.opener} opens, {e.reason}.",
    ev.ActionRequired: _action_required,
    ev.ActionTaken: _action_taken,
    ev.RoundCompleted: lambda e: (
        f"No betting on {e.street}; the pot is {e.pot}."
        if e.skipped
        else f"Betting on {e.street} complete; the pot is {e.pot}."
    ),
    ev.Showdown: _showdown,
    ev.HandSettled: _settled,
    ev.HandVoided: lambda e: f"Misdeal: hand {e.hand} is void; returned {_amounts(e.returned)}.",
    ev.Alarm: lambda e: f"Alarm: {alarm_read(e)} at the {e.point}: {e.reason}; {e.expected}.",
    ev.Refused: lambda e: f"Refused {e.input}: {e.reason}.",
    ev.Undone: lambda e: f"Undone: {e.input}.",
    ev.SeatsChanged: _seats_changed,
    ev.NewHandExpected: lambda e: f"Press new hand for hand {e.hand}.",
}


def announce(event: ev.Event) -> str:
    """The sentence a dealer hears for ``event``."""
    render = RENDERERS.get(type(event))
    if render is None:
        raise TypeError(
            f"no announcement for event {type(event).__name__}; expected an engine event"
        )
    return render(event)
