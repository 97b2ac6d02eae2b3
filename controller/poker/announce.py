"""Every engine event as the sentence a dealer hears.

For example: "Seat 4 brings in: lowest up-card 2 of clubs".

An announcement is heard by everyone at the table and read by everyone who reads the
log: the dealer's display and the panel face the players and the cameras, and the
log travels to journald and log shippers. So it never names a card no player may see
(``hidden_cards``): a hole card, a burn, a card to the muck, a discard, the card that
raised an integrity alarm, any card an alarm's, a refusal's or an undo's words name. Those stay
in the journal, which keeps every card (docs/display.md, What the table sees).

A card the table may see is named as the screen draws it (``10♦``), a bet or a raise in the
table's convention (``raises to 20``), a game by its display name (``Mambo Stud``):
docs/display.md, The table's words.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import Any, Final

from controller.poker.cards import DECK
from controller.poker.engine import events as ev
from controller.poker.games import GAMES
from controller.poker.inputs import ReadPoint

#: The codes of the cards in play: an alarm whose read is one of them names a card.
_CARD_CODES = frozenset(card.code for card in DECK)

#: A card's code standing alone as a word, as the engine's and the drivers' own words write one:
#: a read (``Ah slot``, controller/poker/engine/gametable.py ``describe_input``), the alarm a
#: refusal quotes (``(Ah: the card was already seen ...)``), the other deck's card (``..., Kd``).
_CARD_WORD: Final = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")
#: A card read as ``describe_input`` writes it: the code, then where it was read.
_CARD_READ: Final = re.compile(
    r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs]) (" + "|".join(p.value for p in ReadPoint) + r")\b"
)


def _amounts(entries: tuple[ev.SeatAmount, ...]) -> str:
    return ", ".join(f"seat {e.seat} {e.amount}" for e in entries) or "nothing"


def _signed(amount: int) -> str:
    return f"+{amount}" if amount > 0 else str(amount)


def game_name(key: str) -> str:
    """The display name of the game a hand journals by its key (``mambo``: ``Mambo Stud``);
    a key of no game this software deals, as journaled."""
    spec = GAMES.get(key)
    return key if spec is None else spec.name


def _hand_started(e: ev.HandStarted) -> str:
    antes = f"; antes in: {_amounts(e.antes)}" if e.antes else ""
    seats = ", ".join(map(str, e.seats))
    return f"Hand {e.hand}, {game_name(e.game)}: seats {seats} dealt in{antes}."


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


#: The fields of an event's own words that may name a card (``hidden_cards``, ``told``).
_WORDS: Final[dict[type[ev.Event], tuple[str, ...]]] = {
    ev.Alarm: ("reason", "expected"),
    ev.Refused: ("input", "reason"),
    ev.Undone: ("input", "description"),
}


def named_cards(*texts: str) -> tuple[str, ...]:
    """The cards ``texts`` name by their codes (``Ah``), in order, each once."""
    return tuple(dict.fromkeys(m[1] for text in texts for m in _CARD_WORD.finditer(text)))


def hidden_cards(event: ev.Event) -> tuple[str, ...]:
    """The cards ``event`` carries that no player may see: the one rule of what the table and
    the log are not told. A card dealt face down (a hole card) and a burn are seen by
    nobody; a card to the muck, over the discard reader, or among a draw's discards leaves
    the hand unseen (14.12A(f): the discards go face down). Face-up cards, community cards
    and the cards turned over at the showdown are the table's to see.

    An event's words (an alarm's reason, a refusal, an undo) can name a card too: every card
    they name is hidden (``told`` says it as "a card"). A refused read is a card the dealer
    just took from the shoe, unseen; a refusal while an alarm holds the hand quotes the alarm's
    card; an undone read may have been a hole card, a burn, a replacement or a discard, and
    the event does not say which (a face-up one is on the screen already); the other deck's
    card an alarm names is the card that raised it (rules-interpretation.md, Integrity)."""
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
    fields = _WORDS.get(type(event))
    if fields is None:
        return ()
    read: tuple[str, ...] = ()
    if isinstance(event, ev.Alarm) and event.read in _CARD_CODES:
        # rules-interpretation.md, Integrity: the card that raised an alarm may be the twin of a
        # hole card ("already seen this hand (seat 2)") or a live hand's card at the discard reader;
        # the dealer holds it, the journal and the floor name it. A tag or a button is not a card
        # (a tag of the other deck is one, which the alarm's reason names: _WORDS).
        read = (event.read,)
    words = (getattr(event, name) for name in fields)
    return tuple(dict.fromkeys(read + named_cards(*words)))


def _masked(text: str, hidden: Collection[str]) -> str:
    """``text`` with each card of ``hidden`` it names said as "a card": a read (``Ah slot``) as
    "a card at the slot"."""
    if not hidden:
        return text
    text = _CARD_READ.sub(lambda m: f"a card at the {m[2]}" if m[1] in hidden else m[0], text)
    return _CARD_WORD.sub(lambda m: "a card" if m[1] in hidden else m[0], text)


def told(event: ev.Event, text: str) -> str:
    """``text``, words of ``event``'s own (an alarm's reason, a refused or undone input), as
    the table may be told them: each card ``hidden_cards`` names said as "a card"
    (``Refused a card at the slot: the hand is held by an alarm (a card: ...)``)."""
    return _masked(text, hidden_cards(event))


def alarm_read(alarm: ev.Alarm) -> str:
    """What raised ``alarm``, as the table may be told: "a card" for a card of the deck in
    play (``hidden_cards``), else the tag or the button as read."""
    return "a card" if alarm.read in hidden_cards(alarm) else alarm.read


def facts(event: ev.Event) -> dict[str, Any]:
    """The event's facts as a log line's fields (seat, amount, pot, nets...), less what no
    player may see: a hidden card is left out, a list of discards is given as its count, words
    that name one say "a card" (``told``). ``hand`` is left out: the log line names the hand
    it belongs to already."""
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
            elif isinstance(value, str):
                data[name] = _masked(value, hidden)
    return data


#: Each card's code and its face as the screen draws it (``Td``: ``10♦``).
_FACES: Final = {card.code: card.face for card in DECK}


def face(code: str) -> str:
    """A card the table may see, named as the screen draws it: ``10♦`` for ``Td``."""
    return _FACES[code]


def _card_dealt(e: ev.CardDealt) -> str:
    card = "a card" if hidden_cards(e) else face(e.card)
    if e.destination == ev.BURN:
        return f"Burned {card}."
    if e.destination == ev.COMMUNITY:
        return f"Community card {card}."
    return f"Seat {e.seat} gets {card} face {e.face}."


# ----------------------------------------------------------------- the betting words
# docs/display.md, The table's words: an amount after "to" is the level the seat's bet comes
# to this round (what the others must match); any other amount is the chips the action puts
# in. Every surface words an option or an action here: the announcements (the display's log
# strip and the log lines), the seat-to-act panel, the dealer panel's line, recall and the
# floor's web view. The journal keeps the engine's own fields (its option meanings, its action
# words, the amounts): only their wording is made here.


def option_words(option: ev.Option) -> tuple[str, int | None]:
    """An option's words and the number said after them: ``("raise to", 20)``, ``("call", 5)``,
    ``("fold", None)``. The engine words its options in the table's convention already
    (controller/poker/engine/betting.py: ``raise to`` and ``complete to`` the level, ``call``,
    ``bet``, ``bring in`` and ``all-in for`` the chips), and the journal keeps them so."""
    words, _, number = option.meaning.rpartition(" ")
    if words and number.isdigit():
        return words, int(number)
    return option.meaning, None


def option_text(option: ev.Option) -> str:
    """An option as every surface says it: ``raise to 20``, ``call 5``, ``all-in for 7``."""
    words, number = option_words(option)
    return words if number is None else f"{words} {number}"


#: Each action word the engine journals, as the table says it: ``{total}`` is the level the
#: seat's bet comes to this round (``round_total``), ``{chips}`` what the action put in.
_ACTION_WORDS: Final[dict[str, str]] = {
    "folds": "folds",
    "checks": "checks",
    "calls": "calls {chips}",
    "brings in": "brings in {chips}",
    "brings in for a full bet": "brings in for {total}",
    "bets": "bets {total}",
    "completes": "completes to {total}",
    "raises": "raises to {total}",
    # An all-in short of a full bet or raise: it reopens no betting for those who acted
    # (rules-interpretation.md, Betting structure).
    "raises all-in (short)": "goes all-in to {total}, short of a full bet",
}


def action_words(action: ev.ActionTaken) -> str:
    """What a seat did, without the seat: ``raises to 20``, ``calls 5, all-in``, ``folds``."""
    said = _ACTION_WORDS.get(action.action)
    if said is None:  # a word this table does not know: as journaled, with the chips
        said = f"{action.action} {{chips}}" if action.amount else action.action
    text = said.format(chips=action.amount, total=action.round_total)
    return f"{text}, all-in" if action.all_in and "all-in" not in text else text


def _action_required(e: ev.ActionRequired) -> str:
    options = ", ".join(option_text(o) for o in e.options)
    if any(o.meaning.startswith("bring in") for o in e.options):
        return f"Seat {e.seat} brings in: {e.reason}"
    return f"Seat {e.seat} to act ({e.reason}): {options}."


def _action_taken(e: ev.ActionTaken) -> str:
    return f"Seat {e.seat} {action_words(e)}."


def _showdown(e: ev.Showdown) -> str:
    parts = [
        f"seat {h.seat} {h.share}: {h.description}"
        + (f" ({' '.join(map(face, h.cards))})" if h.cards else "")
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
    ev.Alarm: lambda e: (
        f"Alarm: {alarm_read(e)} at the {e.point}: {told(e, e.reason)}; {told(e, e.expected)}."
    ),
    ev.Refused: lambda e: f"Refused {told(e, e.input)}: {told(e, e.reason)}.",
    ev.Undone: lambda e: f"Undone: {told(e, e.input)}.",
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
