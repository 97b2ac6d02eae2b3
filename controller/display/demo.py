"""Demonstration views: the main situations a dealer meets, without the engine.

Each scene is a consistent moment of a real hand (chips add up, cards are
unique, the seat to act is the one the procedure names), so the look can be
reviewed and the snapshot tests have honest subjects:

- ``bring-in``: Mambo Stud, eleven seats, the lowest up-card brings in (14.13A(d)).
- ``draw``: Triple Draw 2-7, first draw, a replacement due (14.12A(f)).
- ``showdown``: Mambo Stud, a high-low split of a main and a side pot with an
  odd chip to the best high hand (14.13A(j)1).
- ``alarm``: Five-Card Stud, a card seen twice this hand (rules-interpretation.md, Integrity).
- ``device-lost``: Mambo Stud, the shoe stops answering mid-hand.
- ``between-hands``: Triple Draw 2-7, the dealer is to start the next hand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from controller.display.view import (
    FACE_DOWN,
    ActionOption,
    ActionPrompt,
    AlarmView,
    Award,
    Destination,
    DeviceView,
    NextCard,
    OddChip,
    PotView,
    SeatStatus,
    SeatView,
    Severity,
    ShowdownView,
    ShownHand,
    TableView,
    device_lost,
    posted_rules,
    posted_stakes,
)
from controller.poker.cards import Card
from controller.poker.engine.tablesetup import HouseRules, Stakes
from controller.poker.games.five_card_stud import FIVE_CARD_STUD
from controller.poker.games.mambo import MAMBO
from controller.poker.games.spec import ForcedBet
from controller.poker.games.triple_draw import TRIPLE_DRAW
from controller.poker.inputs import Button

_D = FACE_DOWN
_NAMES: Final = (
    "Alice",
    "Bruno",
    "Chen",
    "Dana",
    "Emeka",
    "Farah",
    "Gus",
    "Hiro",
    "Ines",
    "Jon",
    "Kasia",
)
#: The scenes' stakes, posted as a live table posts them (the stud games, triple draw).
_STUD_STAKES: Final = posted_stakes(Stakes(5, 10, ante=1, bring_in=2), ForcedBet.BRING_IN)
_DRAW_STAKES: Final = posted_stakes(Stakes(10, 20, small_blind=5, big_blind=10), ForcedBet.BLINDS)
#: The house rules the scenes post: the defaults (rules-interpretation.md, House rules) (the same
#: words in every game).
_RULES: Final = posted_rules(HouseRules(), MAMBO)


def _c(code: str) -> Card:
    return Card.parse(code)


def bring_in() -> TableView:
    """Mambo, 11 seats, one down and one up dealt: seat 6's 2♣ brings in (14.13A(d))."""
    ups = ("Kd", "9s", "Qh", "7c", "Ah", "2c", "Td", "5s", "Jc", "2h", "8d")
    seats = tuple(
        SeatView(n, _NAMES[n - 1], 199, 0, (_D, _c(up))) for n, up in enumerate(ups, start=1)
    )
    return TableView(
        game=MAMBO.name,
        table_id="MB-3",
        hand_number=1042,
        street="1st round",
        stakes=_STUD_STAKES,
        rules=_RULES,
        seats=seats,
        pots=(PotView("Main pot", 11, tuple(range(1, 12))),),
        to_act=ActionPrompt(
            seat=6,
            reason="Brings in: lowest up-card, 2 of clubs (14.13A(d))",
            options=(
                ActionOption(Button.CHECK_CALL, "bring in", 2),
                ActionOption(Button.BET_RAISE, "complete to", 5),
            ),
        ),
        next_card=NextCard(note="After this round: burn, then a third card face down to each seat"),
        log=(
            "Antes in: 11 seats, 1 each.",
            "One down and one up to each seat, from seat 1.",
            "Seat 6 brings in: lowest up-card 2 of clubs.",
        ),
        hand_in_progress=True,
    )


def draw() -> TableView:
    """Triple draw, first draw: seat 4 discarded two, the first replacement is due (14.12A(f))."""
    seats = (
        SeatView(1, "Alice", 480, status=SeatStatus.FOLDED, button=True),
        SeatView(2, "Bruno", 310, 0, (_D,) * 5),
        SeatView(3, "Chen", 655, 0, (_D,) * 5),
        SeatView(4, "Dana", 240, 0, (_D,) * 3),
        SeatView(5, "Emeka", 505, status=SeatStatus.FOLDED),
        SeatView(6, "Farah", 370, 0, (_D,) * 5),
    )
    return TableView(
        game=TRIPLE_DRAW.name,
        table_id="TD-1",
        hand_number=377,
        street="First draw",
        stakes=_DRAW_STAKES,
        rules=_RULES,
        seats=seats,
        pots=(PotView("Main pot", 80, (2, 3, 4, 6)),),
        next_card=NextCard(Destination.REPLACEMENT, 4, "1 of 2 replacements; then seat 6 draws"),
        log=(
            "Burn before the first draw.",
            "Seat 2 stands pat.",
            "Seat 3 draws 1.",
            "Seat 4 discards 2.",
        ),
        hand_in_progress=True,
    )


def showdown() -> TableView:
    """Mambo showdown: seat 5 high, seat 2 low, both pots split; odd chip to high (14.13A(j)1).

    Seat 7 went all-in for 21 on the last round, so the main pot (75) is
    contested by seats 2, 5 and 7 and the side pot (20) by seats 2 and 5.
    """
    board = _c("4d")
    hands = {
        2: ShownHand(2, (_c("As"), _c("2c"), _c("6h")), "ace-six high", "four-two-ace low"),
        5: ShownHand(5, (_c("Ks"), _c("Kh"), _c("8c")), "pair of kings", "no qualifying low"),
        7: ShownHand(7, (_c("Qc"), _c("Jc"), _c("9d")), "queen-jack high", "no qualifying low"),
    }
    seats = (
        SeatView(1, "Alice", 193, status=SeatStatus.FOLDED),
        SeatView(2, "Bruno", 216, 0, hands[2].cards),
        SeatView(4, "Dana", 143, status=SeatStatus.FOLDED),
        SeatView(5, "Emeka", 317, 0, hands[5].cards),
        SeatView(7, "Gus", 0, 0, hands[7].cards, SeatStatus.ALL_IN),
    )
    return TableView(
        game=MAMBO.name,
        table_id="MB-3",
        hand_number=1043,
        street="Showdown",
        stakes=_STUD_STAKES,
        rules=_RULES,
        seats=seats,
        community=(board,),
        pots=(PotView("Main pot", 75, (2, 5, 7)), PotView("Side pot 1", 20, (2, 5))),
        showdown=ShowdownView(
            hands=tuple(hands.values()),
            awards=(
                Award("Main pot", 5, 38, "high, with the odd chip"),
                Award("Main pot", 2, 37, "low"),
                Award("Side pot 1", 5, 10, "high"),
                Award("Side pot 1", 2, 10, "low"),
            ),
            odd_chips=(
                OddChip("Main pot", 5, 1, "the excess goes to the best high hand, 14.13A(j)1"),
            ),
        ),
        log=(
            "Seat 7 calls 21, all-in.",
            "Showdown: seat 5 pair of kings, seat 2 four-two-ace low.",
            "Main pot 75: seat 5 high 38 with the odd chip, seat 2 low 37.",
            "Side pot 20: seat 5 high 10, seat 2 low 10.",
        ),
    )


def alarm() -> TableView:
    """Five-Card Stud, 3rd street: the 7♥ read for seat 5 was already dealt to seat 3."""
    seats = (
        SeatView(1, "Alice", 212, 0, (_D, _c("Kc"), _c("9d"))),
        SeatView(2, "Bruno", 188, 0, (_D, _c("Qs"), _c("3h"))),
        SeatView(3, "Chen", 240, 0, (_D, _c("Jd"), _c("7h"))),
        SeatView(4, "Dana", 230, status=SeatStatus.FOLDED),
        SeatView(5, "Emeka", 175, 0, (_D, _c("8s"))),
        SeatView(6, "Farah", 260, status=SeatStatus.FOLDED),
    )
    return TableView(
        game=FIVE_CARD_STUD.name,
        table_id="FS-2",
        hand_number=88,
        street="3rd street",
        stakes=_STUD_STAKES,
        rules=_RULES,
        seats=seats,
        pots=(PotView("Main pot", 28, (1, 2, 3, 5)),),
        next_card=NextCard(Destination.FACE_UP, 5, "3rd street: seat 5 is the last to receive"),
        alarms=(
            AlarmView(
                Severity.ALARM,
                "A card at the slot: the card was already seen this hand (seat 3).",
                "Put the card aside and press UNDO, or press MISDEAL.",
                "rules-interpretation.md, Integrity",
            ),
        ),
        log=(
            "Burn, then 3rd street face up from seat 1.",
            "Seat 3 receives the 7 of hearts.",
            "ALARM: 7 of hearts read again, for seat 5. The hand is held.",
        ),
        hand_in_progress=True,
    )


def device_lost_scene() -> TableView:
    """Mambo, second round: the shoe stopped answering; the table is paused."""
    seats = (
        SeatView(1, "Alice", 187, 5, (_D, _c("Jh"), _D)),
        SeatView(2, "Bruno", 205, status=SeatStatus.FOLDED),
        SeatView(3, "Chen", 160, 0, (_D, _c("9c"), _D)),
        SeatView(4, "Dana", 199, status=SeatStatus.SITTING_OUT),
        SeatView(5, "Emeka", 192, 0, (_D, _c("As"), _D)),
    )
    return TableView(
        game=MAMBO.name,
        table_id="MB-3",
        hand_number=1044,
        street="2nd round",
        stakes=_STUD_STAKES,
        rules=_RULES,
        seats=seats,
        pots=(PotView("Main pot", 19, (1, 3, 5)),),
        to_act=ActionPrompt(
            seat=3,
            # As the controller says it (controller/table/viewbuilder.py): the amount is said once.
            reason="Faces a bet",
            options=(
                ActionOption(Button.FOLD, "fold"),
                ActionOption(Button.CHECK_CALL, "call", 5),
                ActionOption(Button.BET_RAISE, "raise to", 10),
            ),
            to_call=5,
        ),
        devices=(device_lost("shoe"), DeviceView("panel")),
        log=(
            "Seat 5 opens: highest up-card, ace of spades.",
            "Seat 5 checks.",
            "Seat 1 bets 5.",
            "Shoe lost. Table paused.",
        ),
        hand_in_progress=True,
    )


def between_hands() -> TableView:
    """Triple draw after hand 377: the button moved one seat on (14.12A(c)); a new hand is due."""
    seats = (
        SeatView(1, "Alice", 480),
        SeatView(2, "Bruno", 390, button=True),
        SeatView(3, "Chen", 655),
        SeatView(4, "Dana", 160),
        SeatView(5, "Emeka", 505),
        SeatView(6, "Farah", 370, status=SeatStatus.SITTING_OUT),
    )
    return TableView(
        game=TRIPLE_DRAW.name,
        table_id="TD-1",
        hand_number=377,
        street="Between hands",
        stakes=_DRAW_STAKES,
        rules=_RULES,
        seats=seats,
        dealer_prompt="Shuffle and cut the other deck, then press NEW HAND",
        log=(
            "Seat 2 wins 160 with eight-six low.",
            "Hand 377 settled.",
            "Button to seat 2.",
        ),
    )


#: The demonstration scenes by name, in the order the demo shows them.
SCENES: Final[dict[str, Callable[[], TableView]]] = {
    "bring-in": bring_in,
    "draw": draw,
    "showdown": showdown,
    "alarm": alarm,
    "device-lost": device_lost_scene,
    "between-hands": between_hands,
}
