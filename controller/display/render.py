"""The parts of a TableView as styled text: cards, seats, pots, options, the showdown.

Pure functions from view parts to ``rich.text.Text``; the widgets in
:mod:`controller.display.app` only place them. Cards read as the dealer reads
them on the felt: rank and suit symbol, hearts and diamonds red, on a white
face; a face-down card is a blue back that carries no rank or suit.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from rich.console import Group, RenderableType
from rich.markup import escape
from rich.style import Style
from rich.text import Span, Text

from controller.display.view import (
    ActionOption,
    ActionPrompt,
    AlarmView,
    DeviceView,
    FaceDown,
    NextCard,
    PotView,
    SeatStatus,
    SeatView,
    Severity,
    ShowdownView,
    ShownCard,
    ShownHand,
    TableView,
)
from controller.poker.cards import Card, Suit
from controller.poker.inputs import Button

SUIT_SYMBOLS: Final[dict[Suit, str]] = {suit: suit.symbol for suit in Suit}
_RED_SUITS: Final = frozenset({Suit.HEARTS, Suit.DIAMONDS})
_FACE_RED: Final = "bold #c8102e on #f4f1e8"
_FACE_BLACK: Final = "bold #101010 on #f4f1e8"
_BACK: Final = "#f4f1e8 on #1f4e9e"

#: The dealer panel's buttons as they are printed on the panel.
PANEL_LABELS: Final[dict[Button, str]] = {
    Button.NEW_HAND: "NEW HAND",
    Button.FOLD: "FOLD",
    Button.CHECK_CALL: "CHECK/CALL",
    Button.BET_RAISE: "BET/RAISE",
    Button.ALL_IN: "ALL-IN",
    Button.DRAW_DONE: "DRAW DONE",
    Button.MISDEAL: "MISDEAL",
    Button.UNDO: "UNDO",
}


def _shows_on_a_space(style: str | Style) -> bool:
    """A style a space shows: a background, reversed, or a line through or under it."""
    style = Style.parse(style) if isinstance(style, str) else style
    return bool(
        style.bgcolor is not None
        or style.reverse
        or style.underline
        or style.underline2
        or style.overline
        or style.strike
    )


def open_gaps(text: Text) -> Text:
    """``text`` with the spaces that open a styled run left unstyled, where the style would
    not show on them (no background, no reverse, no line): the screen looks the same.

    The screen's SVG export (the snapshots, ``--screenshot``) then starts each run at its
    first character. A renderer that drops a run's leading spaces (librsvg's
    ``rsvg-convert``) drew the game line's ``first draw`` and ``   Limit 2/4`` as
    ``first drawLimit 2/4``, and ``stack 198  bet 2`` as ``stack 198bet 2``.
    """
    plain = text.plain
    spans = []
    for span in text.spans:
        start = span.start
        if not _shows_on_a_space(span.style):
            while start < span.end and plain[start] == " ":
                start += 1
        if start < span.end:
            spans.append(Span(start, span.end, span.style))
    opened = text.copy()
    opened.spans = spans
    return opened


def card_face(card: Card) -> str:
    """The card as printed on the screen: rank and suit symbol, ``A♠``, ``10♦``: a ten is
    ``10`` in every form, as on the card (``Card.face``; docs/display.md, The table's words)."""
    return card.face


def card_text(card: ShownCard) -> Text:
    """One card: its face in red or black on white, or a blue back for a face-down card."""
    if isinstance(card, FaceDown):
        return Text("▚▞", style=_BACK)
    return Text(card_face(card), style=_FACE_RED if card.suit in _RED_SUITS else _FACE_BLACK)


def cards_text(cards: Iterable[ShownCard]) -> Text:
    """Cards in the order dealt, one space apart."""
    return Text(" ").join(card_text(card) for card in cards)


def tall_cards_text(cards: Iterable[ShownCard]) -> Text:
    """Cards two lines tall, rank above suit, as they lie on the felt: easier across a table."""
    tops: list[Text] = []
    bottoms: list[Text] = []
    for card in cards:
        if isinstance(card, FaceDown):
            tops.append(Text("▚▞▚", style=_BACK))
            bottoms.append(Text("▞▚▞", style=_BACK))
            continue
        style = _FACE_RED if card.suit in _RED_SUITS else _FACE_BLACK
        tops.append(Text(f"{card.rank.printed:<3}", style=style))
        bottoms.append(Text(f" {card.suit.symbol} ", style=style))
    return Text.assemble(Text(" ").join(tops), "\n", Text(" ").join(bottoms))


def chips(amount: int) -> str:
    """A chip amount with thousands grouped: ``1,250``."""
    return f"{amount:,}"


#: The dealer button as a white puck in a border title (Textual markup).
BUTTON_PUCK: Final = "[b #101418 on #f4f1e8] D [/] "


def seat_title(seat: SeatView, *, room: int = 80) -> str:
    """The seat's border title (markup): ``Seat 3 · Alice``, or ``3 · Alice`` if ``room`` is short.

    The button seat carries the dealer button's puck before its name.
    """
    puck = BUTTON_PUCK if seat.button else ""
    puck_cells = 4 if seat.button else 0
    label = seat.label
    if puck_cells + len(label) > room:
        label = f"{seat.number} · {seat.player}" if seat.player else str(seat.number)
    return puck + escape(label)


_STATUS_TAGS: Final[dict[SeatStatus, str]] = {
    SeatStatus.ACTIVE: "",
    SeatStatus.FOLDED: "FOLDED",
    SeatStatus.ALL_IN: "ALL-IN",
    SeatStatus.SITTING_OUT: "SITTING OUT",
}


def seat_tag(seat: SeatView, *, to_act: bool, next_card: bool, won: int = 0) -> str:
    """The seat's border subtitle: what the dealer must notice about it first."""
    if won:
        return f"WINS {chips(won)}"
    if to_act:
        return "TO ACT"
    if next_card:
        return "NEXT CARD"
    return _STATUS_TAGS[seat.status]


def compact_cards_text(cards: Iterable[ShownCard]) -> Text:
    """Cards edge to edge, a back one cell wide: five hole cards fit a narrow seat box."""
    text = Text()
    for card in cards:
        text.append_text(Text("▚", style=_BACK) if isinstance(card, FaceDown) else card_text(card))
    return text


def fitted_cards_text(cards: tuple[ShownCard, ...], width: int, *, tall: bool) -> Text:
    """The seat's cards in the largest form that fits ``width`` cells (two lines if ``tall``).

    A flat ten (``10♦``) is a cell wider than the other cards, so each form is measured."""
    if tall and 4 * len(cards) - 1 <= width:
        return tall_cards_text(cards)
    flat = cards_text(cards)
    if flat.cell_len <= width:
        return flat
    return compact_cards_text(cards)


def seat_body(seat: SeatView, *, width: int = 80, tall: bool = False) -> Text:
    """The seat's cards as large as ``width`` and ``tall`` allow, then its stack and bet.

    The bet goes on a line of its own when it does not fit beside the stack.
    """
    body = Text()
    if seat.cards:
        body.append_text(fitted_cards_text(seat.cards, width, tall=tall))
    body.append("\n")
    stack = "stack ?" if seat.stack is None else f"stack {chips(seat.stack)}"
    body.append(stack, style="bold")
    if seat.bet:
        bet = f"bet {chips(seat.bet)}"
        fits = len(stack) + 2 + len(bet) <= width
        body.append("  bet " if fits else "\nbet ", style="dim")
        body.append(chips(seat.bet), style="bold #ffd75f")
    return open_gaps(body)


def hand_description(hand: ShownHand) -> Text:
    """What a shown hand makes: ``pair of kings``, or ``pair of kings · no qualifying low``."""
    text = Text(hand.high, style="bold")
    if hand.low is not None:
        text.append(" · ")
        # "no qualifying low" (14.13A(k)) is said, but quietly.
        text.append(hand.low, style="dim" if hand.low.startswith("no ") else "bold")
    return text


@dataclass(frozen=True, slots=True)
class Heading:
    """The part of a view the top line shows."""

    game: str
    table_id: str
    hand_number: int | None
    street: str
    stakes: str
    devices: tuple[DeviceView, ...]
    deck: str = ""
    rules: str = ""

    @classmethod
    def of(cls, view: TableView) -> Heading:
        """The heading of ``view``."""
        return cls(
            view.game,
            view.table_id,
            view.hand_number,
            view.street,
            view.stakes,
            view.devices,
            view.deck,
            view.rules,
        )


def header_text(heading: Heading, *, stakes: bool = True, rules: bool = True) -> Text:
    """The top line: game, table, hand number, street and (if ``stakes``) the stakes, then
    (if ``rules`` too) the house rules posted beside them (13:69F-8.3)."""
    text = Text()
    text.append(f" {heading.game.upper()} ", style="bold #101010 on #ffd75f")
    text.append(f"  Table {heading.table_id}", style="bold")
    if heading.hand_number is not None:
        text.append(f"   Hand #{heading.hand_number}", style="bold")
    if heading.deck:
        text.append(f"   Deck {heading.deck}", style="bold")
    if heading.street:
        text.append("   ")
        text.append(heading.street, style="bold #5fd7ff")
    if stakes and heading.stakes:
        text.append(f"   {heading.stakes}", style="dim")
        if rules and heading.rules:
            text.append(f" · {heading.rules}", style="dim")
    return open_gaps(text)


def devices_text(devices: Iterable[DeviceView]) -> Text:
    """The device lights of the top line: ``SHOE ●  PANEL ●``, a device that pauses the table
    in red with its state (``SHOE ✖ LOST``)."""
    text = Text()
    for device in devices:
        style = "bold #ff5f5f" if device.pauses else "#5fd75f"
        mark = f"✖ {device.state.value.upper()}" if device.pauses else "●"
        text.append(f" {device.name.upper()} {mark} ", style=style)
    return open_gaps(text)


def alarm_text(alarm: AlarmView) -> Text:
    """An alarm in two parts: what happened, then what to do (with the rule behind it)."""
    text = Text()
    label = " ALARM " if alarm.severity is Severity.ALARM else " WARNING "
    text.append(label, style="bold reverse")
    text.append(f" {alarm.what}", style="bold")
    text.append("\n")
    text.append(" ➜ ", style="bold")
    text.append(alarm.todo, style="bold")
    if alarm.rule:
        text.append(f"   ({alarm.rule})", style="italic")
    return open_gaps(text)


def device_banner_text(devices: Iterable[DeviceView]) -> Text:
    """One line per device that pauses the table: its state, the pause, and what brings the
    table back."""
    return open_gaps(
        Text("\n").join(
            Text.assemble(
                (f" DEVICE {device.state.value.upper()} ", "bold reverse"),
                (f" {device.message}", "bold"),
            )
            for device in devices
        )
    )


@dataclass(frozen=True, slots=True)
class Pots:
    """The part of a view the pot panel shows: the pots, the bets in front, the board."""

    pots: tuple[PotView, ...]
    bets: int
    community: tuple[Card, ...]

    @classmethod
    def of(cls, view: TableView) -> Pots:
        """The pots of ``view``."""
        return cls(view.pots, sum(seat.bet for seat in view.seats), view.community)


def pots_text(pots: Pots) -> Text:
    """The pots: total first, then each pot with the seats eligible for it, then the board."""
    text = Text()
    text.append("POT ", style="bold")
    text.append(chips(sum(pot.amount for pot in pots.pots)), style="bold #ffd75f")
    if pots.bets:
        text.append(f"   + {chips(pots.bets)} in front", style="dim")
    if len(pots.pots) > 1:
        for pot in pots.pots:
            text.append("\n")
            text.append_text(pot_line(pot))
    if pots.community:
        text.append("\nBOARD ", style="bold")
        text.append_text(cards_text(pots.community))
    return open_gaps(text)


def pot_line(pot: PotView) -> Text:
    """``Side pot 1  20  seats 2 5``."""
    seats = " ".join(str(seat) for seat in pot.eligible)
    return open_gaps(
        Text.assemble(
            (f"{pot.name} ", ""), (chips(pot.amount), "bold #ffd75f"), (f"  seats {seats}", "dim")
        )
    )


def next_card_text(next_card: NextCard, *, boxed: bool = False) -> Text:
    """``NEXT CARD  Seat 4, face up`` with the note beneath; ``boxed``: the box titles it."""
    text = Text()
    if not boxed:
        text.append("NEXT CARD ", style="bold")
    text.append(next_card.sentence, style="bold #5fd7ff")
    if next_card.note:
        text.append(f"\n{next_card.note}", style="dim")
    return text


def dealer_prompt_text(prompt: str) -> Text:
    """``DEALER  Shuffle and cut, then press NEW HAND``; empty when the dealer has nothing to do."""
    if not prompt:
        return Text()
    return Text.assemble(("DEALER ", "bold"), (prompt, "bold #5fd7ff"))


def option_text(option: ActionOption) -> Text:
    """A panel button as a key cap, then what pressing it does: ``[CHECK/CALL] call 5``."""
    return open_gaps(
        Text.assemble(
            (f" {PANEL_LABELS[option.button]} ", "bold #101010 on #d0d0d0"),
            (f" {option.text}", "bold"),
        )
    )


def prompt_text(prompt: ActionPrompt) -> Text:
    """Why the seat acts and what it owes, then its options, one per line."""
    text = Text(prompt.reason, style="bold #ffd75f")
    if prompt.to_call:
        text.append(f" · to call {chips(prompt.to_call)}", style="bold")
    for option in prompt.options:
        text.append("\n")
        text.append_text(option_text(option))
    return open_gaps(text)


def shown_hands_text(showdown: ShowdownView) -> Text:
    """Each hand turned up: seat, cards and winnings on one line, what it makes beneath.

    Winners are starred and their winnings green.
    """
    text = Text()
    winners = set(showdown.winners())
    for hand in showdown.hands:
        won = hand.seat in winners
        if text:
            text.append("\n")
        text.append("★ " if won else "  ", style="bold #5fd75f")
        text.append(f"Seat {hand.seat}  ", style="bold")
        text.append_text(cards_text(hand.cards))
        if won:
            text.append(f"  wins {chips(showdown.won_by(hand.seat))}", style="bold #5fd75f")
        text.append("\n    ")
        text.append_text(hand_description(hand))
    return open_gaps(text)


def awards_text(showdown: ShowdownView) -> Text:
    """How each pot was divided, then where each odd chip went and by which rule."""
    text = Text()
    pots = list(dict.fromkeys(award.pot for award in showdown.awards))
    for pot in pots:
        shares = [award for award in showdown.awards if award.pot == pot]
        total = sum(award.amount for award in shares)
        if text:
            text.append("\n")
        text.append(f"{pot} {chips(total)}: ", style="bold")
        text.append(" · ".join(f"seat {a.seat} {chips(a.amount)} {a.share}" for a in shares))
    for odd in showdown.odd_chips:
        text.append("\n")
        text.append(
            f"Odd chip: {chips(odd.amount)} of the {odd.pot.lower()} to seat {odd.seat}, "
            f"{odd.rule}",
            style="#ffd75f",
        )
    if showdown.rake:
        text.append(f"\nRake {chips(showdown.rake)}", style="dim")
    return text


def showdown_renderable(showdown: ShowdownView, *, hands: bool = True) -> Group:
    """The showdown panel: a title, the division of the pots, then the hands (if ``hands``).

    The division comes first: it is what the dealer pays out, and a felt too short for the
    whole panel cuts its end (the seat boxes say what each hand makes).
    """
    parts: list[RenderableType] = [Text("SHOWDOWN", style="bold #ffd75f"), awards_text(showdown)]
    if hands:
        parts += [Text(), shown_hands_text(showdown)]
    return Group(*parts)


def log_text(lines: Iterable[str]) -> Text:
    """Recent announcements, the newest in bold."""
    items = list(lines)
    text = Text()
    for index, line in enumerate(items):
        if index:
            text.append("\n")
        newest = index == len(items) - 1
        text.append(f"▸ {line}", style="bold" if newest else "dim")
    return text
