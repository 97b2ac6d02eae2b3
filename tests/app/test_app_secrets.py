"""No card a player may not see reaches the table's screen or the shared log (docs/display.md,
What the table sees): a hole card, a burn, a card to the muck or a discard is a back or "a card"
on the dealer's display and in every log line, and so is any card an alarm, a refusal or an undo
names while an alarm holds the hand; the journal keeps every card.

Checked on what is actually shown and written: whole hands of each game dealt by the random
bot to a real controller, every JSON log line, and the dealer's display rendered headless
(Textual's pilot) for every view the controller built, in every game."""

from __future__ import annotations

import asyncio
import io
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from apphelp import (
    PATIENCE,
    SHUFFLE_SECONDS,
    dealer,
    journal_records,
    json_log,
    panel_text,
    sim_table,
)
from rich.console import Console

from controller.display import wire
from controller.display.app import DealerDisplay
from controller.display.render import SUIT_SYMBOLS, card_face
from controller.display.view import TableView
from controller.journal import tablerecords as rec
from controller.poker.announce import hidden_cards
from controller.poker.cards import Card
from controller.poker.engine.events import (
    ActionRequired,
    Alarm,
    CardDealt,
    CardDiscarded,
    CardExpected,
    DrawExpected,
    Event,
    HandStarted,
    Refused,
    Showdown,
    Undone,
)
from controller.poker.inputs import Button
from controller.table.loop import Controller, wait_until
from controller.table.paneltext import panel_line
from simulator.clock import ManualClock
from simulator.simtable import SimTable

GAMES = ["mambo", "five-card-stud", "triple-draw"]


@dataclass
class Secrets:
    """Each hand's cards no player may see (``hidden_cards``), those dealt face up (a folded
    hand's up-cards go to the muck in sight of all) and those turned over at its showdown."""

    hidden: dict[int, set[str]] = field(default_factory=dict)
    face_up: dict[int, set[str]] = field(default_factory=dict)
    turned: dict[int, set[str]] = field(default_factory=dict)
    hand: int = 0
    shown: TableView | None = None
    #: Every view the display was given, with the hand's cards still secret then.
    views: list[tuple[TableView, frozenset[str]]] = field(default_factory=list)

    def follow(self, _controller: Controller, events: list[Event]) -> None:
        for event in events:
            if isinstance(event, HandStarted):
                self.hand = event.hand
            hidden = hidden_cards(event)
            self.hidden.setdefault(self.hand, set()).update(hidden)
            if not hidden and isinstance(event, CardDealt):
                self.face_up.setdefault(self.hand, set()).add(event.card)
            if isinstance(event, Showdown):
                turned = {card for hand in event.hands for card in hand.cards}
                self.turned.setdefault(self.hand, set()).update(turned)
        if self.shown is not None:  # the view the display was just given for these events
            showdown = self.hand in self.turned
            self.views.append((self.shown, self.secret(self.hand, showdown)))
            self.shown = None

    def show(self, view: TableView) -> None:
        """The display's sink: what the controller gives the dealer's display."""
        self.shown = view

    def secret(self, hand: int, after_showdown: bool) -> frozenset[str]:
        """The hand's cards no player has seen: before its showdown, or from it on."""
        seen = self.face_up.get(hand, set()) | (
            self.turned.get(hand, set()) if after_showdown else set()
        )
        return frozenset(self.hidden.get(hand, set()) - seen)


def named(cards: frozenset[str] | set[str], text: str) -> list[str]:
    """The cards of ``cards`` that ``text`` names, by code (Qd) or by face (Q♦)."""
    found = []
    for code in sorted(cards):
        face = card_face(Card.parse(code))
        pattern = rf"(?<![0-9A-Za-z])({re.escape(code)}|{re.escape(face)})(?![0-9A-Za-z])"
        if re.search(pattern, text):
            found.append(code)
    return found


def deal_hands(
    tmp_path: Path, game: str, hands: int, seats: int = 6
) -> tuple[Secrets, list[dict[str, object]]]:
    secrets = Secrets()
    with (
        json_log(tmp_path) as lines,
        sim_table(tmp_path, game, seats=seats, display=secrets.show) as table,
    ):
        table.controller.listeners.append(secrets.follow)
        dealer(table, hands=hands).run()
        assert table.controller.core.finished == hands
    return secrets, lines


@pytest.mark.parametrize("game", GAMES)
def test_no_log_line_names_a_card_no_player_may_see(tmp_path: Path, game: str) -> None:
    """docs/display.md, What the table sees: the log (journald, a log shipper) never names a
    hole card, burn, mucked card or discard, before the hand settles or after; the cards
    turned over at the showdown are named from the showdown on. The journal has them all."""
    secrets, lines = deal_hands(tmp_path, game, hands=3)
    assert all(secrets.hidden.get(hand) for hand in (1, 2, 3)), "every hand has hole cards"
    showdowns: set[int] = set()
    for line in lines:
        hand = int(str(line.get("hand", 0)))
        if line.get("event") == "showdown":
            showdowns.add(hand)
        assert not named(secrets.secret(hand, hand in showdowns), str(line)), line

    # The matching reads cards where they are: the cards the table saw are named in the log.
    def seen(hand: int) -> set[str]:
        return secrets.face_up.get(hand, set()) | secrets.turned.get(hand, set())

    assert any(named(seen(int(str(line.get("hand", 0)))), str(line)) for line in lines)
    journaled = {
        str(data["card"])
        for kind, data in journal_records(tmp_path / "journal")
        if kind == rec.CARD
    }
    every_hidden = set().union(*secrets.hidden.values())
    assert every_hidden <= journaled


#: A card as the screen draws it: flat (``Q♠``, ``10♦``) or two lines tall, the rank above
#: the suit one column to its right (controller.display.render.tall_cards_text).
_SUITS = {symbol: suit.char for suit, symbol in SUIT_SYMBOLS.items()}
_FLAT = re.compile(r"(10|[2-9JQKA])([♠♥♦♣])")


def screen_text(app: DealerDisplay) -> str:
    """What the display's screen shows now, as plain text, a line a row: the screen Textual
    composes, printed as ``export_screenshot`` prints it, without the SVG."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(app.screen._compositor.render_update(full=True))
    return console.export_text()


def cards_on_screen(text: str) -> set[str]:
    """Every card the screen shows, as codes (Qs): flat, two lines tall, or as a code in
    a line of text (the log strip)."""
    found = set(re.findall(r"(?<![0-9A-Za-z])[2-9TJQKA][cdhs](?![0-9A-Za-z])", text))
    rows = text.splitlines()
    for rank, symbol in _FLAT.findall(text):
        found.add(("T" if rank == "10" else rank) + _SUITS[symbol])
    for row, line in enumerate(rows[1:], start=1):
        above = rows[row - 1]
        for col, char in enumerate(line):
            if char in _SUITS and col >= 1:
                rank = above[col - 1 : col + 1]
                if rank == "10":
                    found.add("T" + _SUITS[char])
                elif rank[:1] in "23456789JQKA" and rank[:1] and rank[1:2] in (" ", ""):
                    found.add(rank[0] + _SUITS[char])
    return found


def face_up(view: TableView) -> set[str]:
    """The face-up cards in front of the seats and those turned over at the showdown: what
    the screen must show."""
    cards = {card.code for seat in view.seats for card in seat.cards if isinstance(card, Card)}
    if view.showdown is not None:
        cards |= {card.code for hand in view.showdown.hands for card in hand.cards}
    return cards


@pytest.mark.parametrize("game", GAMES)
def test_the_dealers_screen_shows_no_card_no_player_may_see(tmp_path: Path, game: str) -> None:
    """docs/display.md, What the table sees: no view the controller gives the display names a
    hole card, a burn, a mucked card or a discard (a hole card is a back), through a whole
    hand; and as rendered on the screen (Textual's pilot) at every street and every time such
    a card was just dealt, seats, felt and log strip alike, while every face-up card in front
    of a seat is read on the same screen. A card turned over at the showdown shows from then
    on."""
    secrets, _lines = deal_hands(tmp_path, game, hands=1, seats=3)
    views = secrets.views
    assert len(views) > 20
    given = [(index, named(secret, repr(view))) for index, (view, secret) in enumerate(views)]
    assert [leak for leak in given if leak[1]] == []
    rendered = [
        (view, secret)
        for index, (view, secret) in enumerate(views)
        if index == 0 or view.street != views[index - 1][0].street or secret != views[index - 1][1]
    ]

    async def session() -> tuple[list[tuple[int, set[str]]], list[tuple[int, set[str]]], int]:
        leaks: list[tuple[int, set[str]]] = []
        unseen: list[tuple[int, set[str]]] = []
        seen_up = 0
        app = DealerDisplay(rendered[0][0])
        async with app.run_test(size=(120, 40)) as pilot:
            for index, (view, secret) in enumerate(rendered):
                app.show(view)
                await pilot.pause()
                shown = cards_on_screen(screen_text(app))
                if shown & secret:
                    leaks.append((index, shown & secret))
                up = face_up(view)
                if up - shown:  # the reading sees what is there: else it proves nothing
                    unseen.append((index, up - shown))
                seen_up += len(up)
        return leaks, unseen, seen_up

    leaks, unseen, seen_up = asyncio.run(session())
    assert leaks == []
    assert unseen == []
    assert seen_up > 0, "face-up cards were on the screen to read"


class HeldHand:
    """A hand on a simulated table dealt by hand, read by read and press by press, each input
    waited for, with what the table was shown: every view given to the display (``views``),
    every line on the panel, and every card moved through the shoe (all face down or unseen:
    cards the table may not be told)."""

    def __init__(self, table: SimTable, views: list[TableView]) -> None:
        self.table = table
        assert isinstance(table.clock, ManualClock)  # sim_table's: the devices' time is the test's
        self.clock = table.clock
        self.controller = table.controller
        self.views = views
        self.panel: list[str] = []
        self.moved: set[str] = set()

    @property
    def pending(self) -> Event:
        return self.controller.core.table.pending

    def take(self, act: Callable[[], object]) -> Event:
        """Do ``act`` (a read at the shoe or a press) and wait for the controller to take it
        and for the panel to show the line that follows; returns the first event it caused."""
        count = self.controller.inputs
        act()
        assert wait_until(lambda: self.controller.inputs == count + 1, PATIENCE)
        taken = self.controller.core.last_events[0]
        line = panel_line(self.pending, self.controller.core.pauses)[1]
        assert wait_until(lambda: panel_text(self.table) == line, PATIENCE), line
        self.panel.append(panel_text(self.table))
        return taken

    def deal(self) -> tuple[Card, Event]:
        """The top card through the slot."""
        dealt: list[Card] = []
        taken = self.take(lambda: dealt.append(self.table.sim.deal()))
        self.moved.add(dealt[0].code)
        return dealt[0], taken

    def read_again(self, card: Card) -> Event:
        """``card``'s tag at the slot again, past the shoe's repeat window: a second read."""
        self.clock.advance(SHUFFLE_SECONDS)
        return self.take(lambda: self.table.sim.dealt_twice(card))

    def press(self, button: Button) -> Event:
        return self.take(lambda: self.table.sim.press(button))


def hold_on_a_hole_card(hand: HeldHand) -> Card:
    """rules-interpretation.md, Integrity: the first hole card read again holds the hand; a card
    read then (unseen: the dealer just took it from the shoe) and a press are refused, each
    quoting the alarm's card; undo dismisses the read, undo again takes the hole card back, and
    it is read again. Then the other deck's twin of the hole card holds the hand (its reason
    names the card), a press is refused quoting it, and undo dismisses it. The hole card."""
    hand.table.sim.shuffle(5)
    assert isinstance(hand.press(Button.NEW_HAND), HandStarted)
    expected = hand.pending
    assert isinstance(expected, CardExpected)
    assert (expected.destination, expected.face) == ("seat", "down")
    hole, dealt = hand.deal()
    assert dealt == CardDealt(hole.code, "seat", expected.seat, "down")
    alarm = hand.read_again(hole)
    assert isinstance(alarm, Alarm)
    assert alarm.read == hole.code
    assert hand.panel[-1] == "ALARM a card: UNDO or MISDEAL"
    _unseen, refused = hand.deal()
    assert isinstance(refused, Refused)
    assert isinstance(hand.press(Button.CHECK_CALL), Refused)
    assert hand.press(Button.UNDO) == Undone(
        f"{hole.code} slot", f"undid {hole.code} slot; the hand is as it was before it"
    )
    assert isinstance(hand.press(Button.UNDO), Undone)
    assert hand.pending == expected
    assert hand.read_again(hole) == dealt
    hand.clock.advance(SHUFFLE_SECONDS)
    foreign = hand.take(lambda: hand.table.sim.other_deck(hole))
    assert isinstance(foreign, Alarm)
    assert foreign.reason.endswith(f"(B), {hole.code}")
    assert isinstance(hand.press(Button.FOLD), Refused)
    assert isinstance(hand.press(Button.UNDO), Undone)
    return hole


def hold_on_a_replacement(hand: HeldHand) -> None:
    """Triple draw (14.12A(f)): the deal dealt out and called round, the first drawer passes a
    card over the discard reader and draws; the burn and the replacement follow, and the
    replacement read again holds the hand. Undo dismisses the read, then takes back the
    replacement, the burn, draw done and the discard, one by one."""
    while isinstance(hand.pending, CardExpected):
        hand.deal()
    while isinstance(hand.pending, ActionRequired):
        hand.press(Button.CHECK_CALL)
    drawing = hand.pending
    assert isinstance(drawing, DrawExpected)
    discard = hand.controller.core.table.cards_of(drawing.seat)[0]
    assert isinstance(hand.take(lambda: hand.table.sim.discard(discard)), CardDiscarded)
    hand.press(Button.DRAW_DONE)
    burn, burned = hand.deal()
    replacement, replaced = hand.deal()
    assert isinstance(burned, CardDealt)
    assert burned.destination == "burn"
    assert replaced == CardDealt(replacement.code, "seat", drawing.seat, "down")
    assert isinstance(hand.read_again(replacement), Alarm)
    undone = [hand.press(Button.UNDO) for _ in range(5)]
    assert [u.input if isinstance(u, Undone) else u for u in undone] == [
        f"{replacement.code} slot",
        f"{replacement.code} slot",
        f"{burn.code} slot",
        "draw_done",
        f"{discard.code} discard",
    ]
    assert hand.pending == drawing


@pytest.mark.parametrize("game", GAMES)
def test_a_hand_held_by_an_alarm_names_no_face_down_card_anywhere_the_table_sees(
    tmp_path: Path, game: str
) -> None:
    """rules-interpretation.md, Integrity, and docs/display.md, What the table sees: while an alarm
    holds the hand, what the alarm, a refusal and an undo say of a card (a hole card read
    again, a card of the other deck, the card read while the hand is held, the hole card or a
    triple draw's burn, replacement and discard undone) is "a card" in every log line, every
    view the display is given, the display's feed, the screen as rendered and the panel's line;
    the journal's records name each of them."""
    views: list[TableView] = []
    with (
        json_log(tmp_path) as lines,
        sim_table(tmp_path, game, seats=3, display=views.append) as table,
    ):
        hand = HeldHand(table, views)
        assert wait_until(lambda: not hand.controller.core.paused_by, PATIENCE)
        hole = hold_on_a_hole_card(hand)
        if game == "triple-draw":
            hold_on_a_replacement(hand)
    secret = frozenset(hand.moved)
    assert hole.code in secret
    said = Counter(str(line.get("event")) for line in lines)
    assert (said["alarm"], said["refused"], said["undone"]) >= (2, 3, 3)
    assert [line for line in lines if named(secret, str(line))] == []
    undone = [str(line["text"]) for line in lines if line.get("event") == "undone"]
    assert "Undone: a card at the slot." in undone
    assert [view for view in views if named(secret, repr(view))] == []
    feed = [wire.view_line(view).decode() for view in views]
    assert [line for line in feed if named(secret, line)] == []
    assert [line for line in hand.panel if named(secret, line)] == []
    # The journal names the cards: what was looked for was there to find.
    decisions = " ".join(repr(data) for kind, data in journal_records(tmp_path / "journal"))
    assert f"'read': '{hole.code}'" in decisions
    assert f"'input': '{hole.code} slot'" in decisions

    async def screens() -> tuple[list[tuple[int, set[str]]], str]:
        leaks: list[tuple[int, set[str]]] = []
        shown = ""
        app = DealerDisplay(views[0])
        async with app.run_test(size=(120, 40)) as pilot:
            for index, view in enumerate(views):
                app.show(view)
                await pilot.pause()
                text = screen_text(app)
                found = (cards_on_screen(text) | set(named(secret, text))) & secret
                if found:
                    leaks.append((index, found))
                shown += text
        return leaks, shown

    leaks, shown = asyncio.run(screens())
    assert leaks == []
    assert "Undone: a card at the slot." in shown
    assert "a card of the other deck (B), a card" in shown
