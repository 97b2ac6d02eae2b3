"""Rendering the view's parts as text: cards, seats, options, the showdown, the header."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.style import Style
from rich.text import Text

from controller.display import render
from controller.display.demo import SCENES, showdown
from controller.display.view import (
    FACE_DOWN,
    ActionOption,
    ActionPrompt,
    AlarmView,
    DeviceState,
    DeviceView,
    SeatStatus,
    SeatView,
    Severity,
    ShownCard,
    TableView,
    device_lost,
)
from controller.poker.cards import DECK, Card, parse_cards
from controller.poker.inputs import Button

pytestmark = pytest.mark.fast


def test_a_face_up_card_reads_rank_and_suit_hearts_and_diamonds_in_red() -> None:
    """``A♠`` in black, ``7♥`` in red, as on the felt."""
    ace, seven = parse_cards("As 7h")
    assert render.card_text(ace).plain == "A♠"
    assert render.card_text(seven).plain == "7♥"
    assert "#c8102e" in str(render.card_text(seven).style)
    assert "#c8102e" not in str(render.card_text(ace).style)


def test_a_face_down_card_shows_only_its_back() -> None:
    """The screen shows what the table shows (docs/display.md, What the table sees): a hole
    card is a back, nothing more."""
    back = render.card_text(FACE_DOWN).plain
    assert not set(back) & set("AKQJT98765432♠♥♦♣")
    tall = render.tall_cards_text((FACE_DOWN, Card.parse("Td"))).plain.split("\n")
    assert tall[0].endswith("10 ")
    assert tall[1].endswith(" ♦ ")
    assert not set(tall[0][:3] + tall[1][:3]) & set("AKQJT98765432♠♥♦♣")


def test_a_seat_shows_its_cards_stack_and_bet() -> None:
    """The chips in front of a seat this round are shown beside its stack."""
    seat = SeatView(3, "Chen", 1250, 10, (FACE_DOWN, Card.parse("9c")))
    lines = render.seat_body(seat).plain.split("\n")
    assert lines[0].endswith("9♣")
    assert lines[1] == "stack 1,250  bet 10"
    assert render.seat_body(SeatView(3)).plain.endswith("stack ?")


def test_the_button_seat_carries_the_dealer_button_and_a_short_title_fits_small_boxes() -> None:
    """14.12A(c): the button marks the dealer position; it leads the seat's title."""
    seat = SeatView(1, "Alice", button=True)
    assert render.seat_title(seat).endswith("Seat 1 · Alice")
    assert render.BUTTON_PUCK in render.seat_title(seat)
    assert render.seat_title(SeatView(10, "Jon"), room=14) == "Seat 10 · Jon"
    assert render.seat_title(SeatView(10, "Jon"), room=12) == "10 · Jon"
    assert render.seat_title(seat, room=17).endswith("] 1 · Alice")


def test_the_seat_tag_puts_a_win_before_the_turn_before_the_next_card_before_status() -> None:
    """The border tag shows what the dealer must notice first about the seat."""
    folded = SeatView(2, status=SeatStatus.FOLDED)
    assert render.seat_tag(folded, to_act=False, next_card=False) == "FOLDED"
    assert render.seat_tag(folded, to_act=False, next_card=True) == "NEXT CARD"
    assert render.seat_tag(folded, to_act=True, next_card=True) == "TO ACT"
    assert render.seat_tag(folded, to_act=True, next_card=True, won=48) == "WINS 48"


def test_each_option_names_the_panel_button_and_what_it_does_now() -> None:
    """The dealer presses the button printed on the panel; the screen says what it means."""
    prompt = ActionPrompt(
        4,
        "Faces a bet",
        (ActionOption(Button.FOLD, "fold"), ActionOption(Button.CHECK_CALL, "call", 5)),
        to_call=5,
    )
    assert render.prompt_text(prompt).plain.split("\n") == [
        "Faces a bet · to call 5",
        " FOLD  fold",
        " CHECK/CALL  call 5",
    ]


def test_an_alarm_says_what_happened_then_what_to_do_with_its_rule() -> None:
    """rules-interpretation.md, Integrity: the alarm holds the hand and tells the dealer the way
    out."""
    alarm = AlarmView(
        Severity.ALARM, "Card 7♥ seen twice.", "Press UNDO.", "rules-interpretation.md, Integrity"
    )
    assert render.alarm_text(alarm).plain.split("\n") == [
        " ALARM  Card 7♥ seen twice.",
        " ➜ Press UNDO.   (rules-interpretation.md, Integrity)",
    ]


def test_the_device_lights_mark_a_lost_device() -> None:
    """The top line shows each device; a lost one reads LOST."""
    view = TableView("g", "t", (SeatView(1), SeatView(2)), devices=(device_lost("shoe"),))
    assert render.devices_text(view.devices).plain == " SHOE ✖ LOST "


@pytest.mark.parametrize("state", [DeviceState.REFUSED, DeviceState.FAULT])
def test_a_refused_or_faulty_device_reads_so_in_its_light_and_its_banner(
    state: DeviceState,
) -> None:
    """docs/display.md: a refused device (only a restart after the fix brings it back) or a
    shoe in a fault (docs/protocol.md 3.1 STA) pauses the table as a lost one does, named for
    what it is."""
    shoe = DeviceView("shoe", state, "Table paused.")
    word = state.value.upper()
    assert render.devices_text((shoe, DeviceView("panel"))).plain == f" SHOE ✖ {word}  PANEL ● "
    assert render.device_banner_text((shoe,)).plain == f" DEVICE {word}  Table paused."


def test_the_top_line_names_the_deck_in_play_once_a_hand_has_one() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the decks alternate; the top line says which
    is in play (after the hand number), and nothing before the first hand."""
    seats = (SeatView(1), SeatView(2))
    view = TableView("Mambo Stud", "T1", seats, hand_number=7, deck="B")
    assert "Hand #7   Deck B" in render.header_text(render.Heading.of(view)).plain
    before = TableView("Mambo Stud", "T1", seats)
    assert "Deck" not in render.header_text(render.Heading.of(before)).plain


def test_the_showdown_divides_each_pot_and_names_the_odd_chip_rule() -> None:
    """14.13A(j)1: the odd chip of a split pot goes to the best high hand, and says so."""
    result = showdown().showdown
    assert result is not None
    assert render.awards_text(result).plain.split("\n") == [
        "Main pot 75: seat 5 38 high, with the odd chip · seat 2 37 low",
        "Side pot 1 20: seat 5 10 high · seat 2 10 low",
        "Odd chip: 1 of the main pot to seat 5, the excess goes to the best high hand, 14.13A(j)1",
    ]


def test_the_log_shows_the_newest_announcement_last_and_bold() -> None:
    """The dealer's eye finds the last thing said at the bottom."""
    text = render.log_text(["Seat 5 checks.", "Seat 1 bets 5."])
    assert text.plain == "▸ Seat 5 checks.\n▸ Seat 1 bets 5."
    assert any("bold" in str(span.style) for span in text.spans)


def test_a_bet_that_does_not_fit_beside_the_stack_goes_below_it() -> None:
    """In a narrow seat box the chips in front of the seat get their own line."""
    seat = SeatView(3, "Chen", 1003, 10, (FACE_DOWN,))
    assert render.seat_body(seat, width=12).plain.split("\n")[1:] == ["stack 1,003", "bet 10"]
    assert render.seat_body(seat, width=20).plain.split("\n")[1:] == ["stack 1,003  bet 10"]


def test_cards_take_the_largest_form_that_fits_the_seat_box() -> None:
    """Two lines tall when there is room, then one line, then edge to edge."""
    cards = (FACE_DOWN, *parse_cards("Qs Qh Qd Qc"))
    assert render.fitted_cards_text(cards, 19, tall=True).plain.count("\n") == 1
    assert render.fitted_cards_text(cards, 18, tall=True).plain == "▚▞ Q♠ Q♥ Q♦ Q♣"
    assert render.fitted_cards_text(cards, 13, tall=False).plain == "▚Q♠Q♥Q♦Q♣"


def test_the_showdown_lists_each_hand_with_its_winnings_and_what_it_makes() -> None:
    """14.13A(j): each winner starred with the chips it won; every hand called high and low."""
    result = showdown().showdown
    assert result is not None
    assert render.shown_hands_text(result).plain.split("\n") == [
        "★ Seat 2  A♠ 2♣ 6♥  wins 47",
        "    ace-six high · four-two-ace low",
        "★ Seat 5  K♠ K♥ 8♣  wins 48",
        "    pair of kings · no qualifying low",
        "  Seat 7  Q♣ J♣ 9♦",
        "    queen-jack high · no qualifying low",
    ]


_FACES = frozenset("AKQJT98765432♠♥♦♣")
_shown_cards = st.lists(
    st.one_of(st.just(FACE_DOWN), st.sampled_from(DECK)), min_size=1, max_size=5
).map(tuple)


@given(cards=_shown_cards, width=st.integers(min_value=0, max_value=30), tall=st.booleans())
def test_cards_fit_their_box_whenever_any_form_can(
    cards: tuple[ShownCard, ...], width: int, tall: bool
) -> None:
    """Whatever the cards, the chosen form is no wider than the box if the narrowest form fits."""
    lines = render.fitted_cards_text(cards, width, tall=tall).plain.split("\n")
    narrowest = render.compact_cards_text(cards).cell_len
    if narrowest <= width:
        assert max(len(line) for line in lines) <= width


@given(cards=_shown_cards, width=st.integers(min_value=0, max_value=30), tall=st.booleans())
def test_a_face_down_card_never_shows_a_rank_or_suit_in_any_form(
    cards: tuple[ShownCard, ...], width: int, tall: bool
) -> None:
    """The screen shows what the table shows (docs/display.md, What the table sees): as many
    faces as face-up cards, no more."""
    text = render.fitted_cards_text(cards, width, tall=tall).plain
    up = [card for card in cards if isinstance(card, Card)]
    suits = sum(text.count(symbol) for symbol in render.SUIT_SYMBOLS.values())
    assert suits == len(up)
    backs_only = render.fitted_cards_text((FACE_DOWN,) * len(cards), width, tall=tall).plain
    assert not set(backs_only) & _FACES


def _runs_opening_with_a_space(text: Text) -> list[str]:
    """The styled runs of ``text`` that begin with a space the style does not show."""
    runs = []
    for span in text.spans:
        run = text.plain[span.start : span.end]
        style = Style.parse(span.style) if isinstance(span.style, str) else span.style
        shows = style.bgcolor is not None or style.reverse or style.underline or style.strike
        if run.startswith(" ") and not shows:
            runs.append(run)
    return runs


def _parts(view: TableView) -> list[Text]:
    parts = [
        render.header_text(render.Heading.of(view)),
        render.devices_text(view.devices),
        render.pots_text(render.Pots.of(view)),
        render.device_banner_text(view.pausing_devices),
        *(render.alarm_text(alarm) for alarm in view.alarms),
        *(render.seat_body(seat, width=30) for seat in view.seats),
        *(render.seat_body(seat, width=12) for seat in view.seats),
    ]
    if view.to_act is not None:
        parts.append(render.prompt_text(view.to_act))
    if view.showdown is not None:
        parts.append(render.shown_hands_text(view.showdown))
    return parts


@pytest.mark.parametrize("scene", SCENES)
def test_every_styled_run_starts_at_its_first_character(scene: str) -> None:
    """The spaces between the words of a line are unstyled where the style would not show on
    them, so each run of the screen's SVG export starts at its first character: a renderer
    that drops a run's leading spaces (rsvg-convert) drew ``first draw``, then ``   2/4``, as
    ``first draw2/4`` (docs/display.md, What the dealer sees). Key caps and the game's tab keep
    their padding."""
    view = SCENES[scene]()
    for part in _parts(view):
        assert _runs_opening_with_a_space(part) == [], part.plain
