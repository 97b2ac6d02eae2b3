"""The dealer's display built from live views: hand scripts played through the controller's
core and its ``ViewBuilder`` (controller/table/viewbuilder.py), as ``tablectl run`` builds them
after every input, not hand-made ``TableView``s.

Each script marks the moments it looks at with a ``# view: NAME`` line: the view is the
one the display is given after the input just above the mark.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

import pytest
from display_harness import WIDE, run_display
from test_display_snapshots import looks_as_committed
from textual.geometry import Region
from textual.pilot import Pilot

from controller.display import render
from controller.display.app import DealerDisplay
from controller.display.demo import SCENES
from controller.display.view import PotView, SeatStatus, TableView
from controller.display.widgets import LOG_LINES, LogPanel, NextCardPanel, SeatBox
from controller.history.script import HandScript, parse_script
from controller.journal import tablerecords as rec
from controller.poker.engine import events as ev
from controller.poker.games import GAMES
from controller.poker.inputs import CardRead
from controller.table.core import TableCore
from controller.table.viewbuilder import ViewBuilder
from drivers.seam.events import ROLES

TABLE_ID: Final = "T-7"
_MARK: Final = re.compile(r"#\s*view:\s*(\S+)")

#: Five-card stud (14.13): seat 2's 4♦ brings in, seat 3 completes, seat 4 faces the
#: completion; a card due face up on third street; seat 3's jacks beat seat 4's eights.
FIVE_CARD_STUD: Final = """\
game five-card-stud
seats 1 2 3 4
stakes ante=1 bring-in=2 small-bet=5 big-bet=10
stacks 1=200 2=200 3=200 4=200
new_hand
Ah
9c
Kd
3s
Qs
4d
Jh
8c
check_call    # seat 2 brings in 2 (14.13(d))
bet_raise     # seat 3 completes to 5
# view: bet
check_call
check_call
check_call
2c            # the burn (14.13(f))
Ts
7h
# view: card
Jc
8d
bet_raise     # seat 3, a pair of jacks showing, must bet (14.13(f))
check_call
check_call
fold
5c
6s
2d
5h
bet_raise
check_call
fold
5d
3h
Kc
bet_raise
check_call
# view: showdown
"""

#: Mambo stud (14.13A): seat 3's 3♦ brings in; the third card face down is due to seat 3;
#: seat 2's king of spades opens the second round and seat 3 faces its bet; at the showdown
#: seat 2's kings take the high half, seat 1's six-five-four-ace the low half (14.13A(j)).
MAMBO: Final = """\
game mambo
seats 1 2 3 4
stakes ante=1 bring-in=2 small-bet=5 big-bet=10
stacks 1=200 2=200 3=200 4=200
new_hand
As
Kh
9d
Qc
5c
Ks
3d
Jd
check_call    # seat 3 brings in 2 (14.13A(d))
check_call
check_call
check_call
7s            # the burn (14.13A(f))
4h
Kc
# view: card
2s
8c
bet_raise     # seat 2, the highest up-card, bets (14.13A(f))
# view: bet
check_call
fold
check_call
7d            # the burn (14.13A(h))
6d            # the community card
check_call
check_call
check_call
# view: showdown
"""

#: Triple draw 2-7 (14.12A): the button at seat 1, blinds 5 and 10 from seats 2 and 3; the
#: small blind faces the big blind's bet; in the first draw seat 2 throws its two kings and
#: its first replacement is due; seat 2's seven-five low wins the showdown.
TRIPLE_DRAW: Final = """\
game triple-draw
seats 1 2 3 4
dealer 1
stakes small-blind=5 big-blind=10 small-bet=10 big-bet=20
stacks 1=200 2=200 3=200 4=200
new_hand
2c
8d
Ah
Ac
3d
6h
Qh
Qc
4h
4c
Jd
Js
Kc
3s
Td
Ts
Kd
2h
9s
9h
check_call    # seat 4, left of the big blind, calls 10
check_call
# view: bet
check_call
check_call    # the big blind checks
Kc discard
Kd discard
draw_done
5h            # the burn before the draw's first new card (14.12A(f))
# view: draw
5s
7c
draw_done
draw_done
draw_done
bet_raise
check_call
fold
fold
draw_done
draw_done
check_call
check_call
draw_done
draw_done
check_call
check_call
# view: showdown
"""

SCRIPTS: Final = {"five-card-stud": FIVE_CARD_STUD, "mambo": MAMBO, "triple-draw": TRIPLE_DRAW}


def ready_core(script: HandScript) -> TableCore:
    """The controller's core for a hand script's game and table, both devices' hellos taken
    and deck A in play: as a table stands before its first hand."""
    assert script.game is not None
    core = TableCore(GAMES[script.game], script.config)
    for name in ROLES:
        core.take(rec.DEVICE, {"device": name, "event": "ready", "boot": f"{name}-boot"})
    core.take(rec.DECK, {"hand": 1, "deck": "A"})
    return core


def live_views(text: str) -> dict[str, TableView]:
    """Play a hand script as the controller takes it (the devices' hellos, the deck in play,
    each input as its journal record) and keep the view built after each ``# view:`` mark."""
    marks = {
        number: match[1]
        for number, line in enumerate(text.splitlines(), start=1)
        if (match := _MARK.fullmatch(line.strip()))
    }
    script = parse_script(text, "live")
    assert not script.errors
    core = ready_core(script)
    builder = ViewBuilder(TABLE_ID)
    views: dict[str, TableView] = {}
    waiting = sorted(marks)
    for seq, line in enumerate(script.lines, start=1):
        while waiting and waiting[0] < line.line:
            views[marks[waiting.pop(0)]] = builder.build(core)
        device = "shoe" if isinstance(line.input, CardRead) else "panel"
        events = core.take(*rec.input_data(line.input, rec.Origin(device, f"{device}-boot", seq)))
        stopped = [e for e in events if isinstance(e, ev.Refused | ev.Alarm)]
        assert not stopped, f"line {line.line}: {stopped}"
        builder.observe(events)
    views.update((marks[number], builder.build(core)) for number in waiting)
    return views


@pytest.fixture(scope="module")
def views() -> dict[str, dict[str, TableView]]:
    """Every game's marked views."""
    return {game: live_views(text) for game, text in SCRIPTS.items()}


@pytest.mark.fast
@pytest.mark.parametrize("game", SCRIPTS)
def test_a_seat_facing_a_bet_is_told_the_amount_to_call_once(
    game: str, views: dict[str, dict[str, TableView]]
) -> None:
    """The engine's reason for a seat that only owes chips is "to call 5"; the screen says
    the amount once: "Faces a bet · to call 5", not "to call 5 · to call 5"."""
    prompt = views[game]["bet"].to_act
    assert prompt is not None
    assert prompt.to_call == 5
    first = render.prompt_text(prompt).plain.split("\n")[0]
    assert first == "Faces a bet · to call 5"


#: What the game line says of the stakes in each game's script, as the scenes say it.
POSTED: Final = {
    "five-card-stud": "Limit 5/10 · ante 1 · bring-in 2",
    "mambo": "Limit 5/10 · ante 1 · bring-in 2",
    "triple-draw": "Limit 10/20 · blinds 5/10",
}


@pytest.mark.fast
@pytest.mark.parametrize("game", SCRIPTS)
def test_the_game_line_posts_the_stakes_as_the_scenes_do(
    game: str, views: dict[str, dict[str, TableView]]
) -> None:
    """N.J.A.C. 13:69F-8.3: the game line posts the limit and the forced bets (the ante and
    the bring-in in stud, the blinds in triple draw), in the words of the demonstration
    scenes (bring-in: Mambo, draw: triple draw), not a bare "5/10"; then the house rules
    posted beside them (rules-interpretation.md, House rules: the defaults, the half-bet rule)."""
    scene = {"triple-draw": SCENES["draw"]()}.get(game, SCENES["bring-in"]())
    view = views[game]["bet"]
    assert view.stakes == scene.stakes == POSTED[game]
    assert view.rules == scene.rules == "half-bet all-in"
    heading = render.Heading.of(view)
    assert render.header_text(heading).plain.endswith(f"   {POSTED[game]} · half-bet all-in")
    assert render.header_text(heading, rules=False).plain.endswith(f"   {POSTED[game]}")


#: Facing a bet: the chips gathered in the pot, and the chips in front of each seat.
IN_FRONT: Final = {
    # Antes 4 in the pot; seat 2's bring-in 2 and seat 3's completion to 5 in front.
    "five-card-stud": (4, {2: 2, 3: 5}),
    # 4 antes and four bring-in calls of 2 gathered; seat 2's bet of 5 in front.
    "mambo": (12, {2: 5}),
    # Nothing gathered yet: the blinds 5 and 10 (14.10(c),(d)) and two calls of 10 in front.
    "triple-draw": (0, {1: 10, 2: 5, 3: 10, 4: 10}),
}


@pytest.mark.fast
@pytest.mark.parametrize("game", SCRIPTS)
def test_the_pot_and_the_chips_in_front_add_up_to_what_was_put_in(
    game: str, views: dict[str, dict[str, TableView]]
) -> None:
    """The pot shows the chips gathered and each seat the chips in front of it this round,
    the blinds included: a chip is counted once (the engine's pot holds them all)."""
    view = views[game]["bet"]
    pot, bets = IN_FRONT[game]
    assert view.pot_total == pot
    assert {seat.number: seat.bet for seat in view.seats if seat.bet} == bets
    assert render.pots_text(render.Pots.of(view)).plain.startswith(
        f"POT {pot}   + {sum(bets.values())} in front"
    )


@pytest.mark.fast
def test_the_live_showdown_names_each_hand_once_and_each_pot_as_divided(
    views: dict[str, dict[str, TableView]],
) -> None:
    """After the showdown the felt keeps the pots as they were divided (14.13A(j): a high-low
    split with the odd chip to the high hand); a low-only game (triple draw, 14.12A) names a
    hand once, not "seven-five low · seven-five low"."""
    shown = {}
    for game in SCRIPTS:
        view = views[game]["showdown"]
        assert view.showdown is not None
        shown[game] = view
    draw = shown["triple-draw"].showdown
    assert draw is not None
    assert [(h.seat, h.high, h.low) for h in draw.hands] == [
        (2, "seven-five low", None),
        (3, "eight-six low", None),
    ]
    assert render.hand_description(draw.hands[0]).plain == "seven-five low"
    mambo = shown["mambo"]
    assert mambo.pots == (PotView("Main pot", 27, (1, 2, 3)),)
    assert mambo.showdown is not None
    assert render.awards_text(mambo.showdown).plain.split("\n") == [
        "Main pot 27: seat 2 14 high · seat 1 13 low",
        "Odd chip: 1 of the main pot to seat 2, 14.13A(j)1",
    ]
    assert render.pots_text(render.Pots.of(shown["five-card-stud"])).plain == "POT 79"


def test_the_newest_announcement_stays_on_screen_when_lines_are_long() -> None:
    """The log keeps one line per announcement, cut with an ellipsis: the settlement of a
    four-seat hand is longer than the screen, and wrapped it pushed the newest announcement
    (press new hand) out of the log's four lines."""
    view = live_views(TRIPLE_DRAW)["showdown"]
    assert max(len(line) for line in view.log) > WIDE[0]

    async def script(app: DealerDisplay, pilot: Pilot[None]) -> list[str]:
        log = app.query_one(LogPanel)
        size = log.outer_size
        return [strip.text.strip() for strip in log.render_lines(Region(0, 0, *size))]

    shown = run_display(view, script, WIDE)
    assert len(shown) == LOG_LINES
    assert shown[-1] == f"▸ {view.log[-1]}"
    assert shown[-2].endswith("…")


#: The moments each game's script marks, as the snapshots name them.
MOMENTS: Final = [
    (game, moment)
    for game, moments in (
        ("five-card-stud", ("bet", "card", "showdown")),
        ("mambo", ("bet", "card", "showdown")),
        ("triple-draw", ("bet", "draw", "showdown")),
    )
    for moment in moments
]


@pytest.mark.parametrize(("game", "moment"), MOMENTS, ids=[f"{g}-{m}" for g, m in MOMENTS])
def test_the_live_display_looks_as_committed(
    game: str,
    moment: str,
    views: dict[str, dict[str, TableView]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the dealer sees at a seat facing a bet, a card or a draw due, and the showdown,
    in each game, drawn from the controller's own views at 120x40: the committed
    ``live-GAME-MOMENT-120x40.svg`` (tests/test_display_snapshots.py says how to record).
    The game line's stakes start their own run of text, after the street."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    view = views[game][moment]
    svg = looks_as_committed(f"live-{game}-{moment}-120x40", view, WIDE, tmp_path)
    assert ">" + POSTED[game].replace(" ", "&#160;") + "</text>" in svg
    if view.showdown is not None:
        # The division of the pots, odd chips included, is on the screen, not cut off.
        for line in render.awards_text(view.showdown).plain.split("\n"):
            assert line[:12].replace(" ", "&#160;") in svg


def test_no_card_expected_gives_way_to_the_dealers_own_task() -> None:
    """After the showdown the dealer is told to shuffle and press NEW HAND; "No card
    expected" beside it says nothing more and takes the felt's lines from the showdown.
    While a seat acts, it stays: no card is to be dealt."""
    views = live_views(MAMBO)

    async def shown(app: DealerDisplay, pilot: Pilot[None]) -> bool:
        return app.query_one(NextCardPanel).display

    assert views["showdown"].dealer_prompt
    assert run_display(views["showdown"], shown, WIDE) is False
    assert run_display(views["bet"], shown, WIDE) is True


#: Each game's hand at its first card, at five seats: seat 3 has no chips, so the hand deals
#: seats 1, 2, 4 and 5 in (their antes or blinds are in) and passes seat 3 by. One card is
#: out, to the first seat dealt; three seats dealt in hold no card yet.
FIRST_CARD: Final = {
    game: f"""\
game {game}
seats 1 2 3 4 5
{setup}
stacks 1=200 2=200 3=0 4=200 5=200
new_hand
Ah
# view: first-card
"""
    for game, setup in (
        ("five-card-stud", "stakes ante=1 bring-in=2 small-bet=5 big-bet=10"),
        ("mambo", "stakes ante=1 bring-in=2 small-bet=5 big-bet=10"),
        ("triple-draw", "dealer 1\nstakes small-blind=5 big-blind=10 small-bet=10 big-bet=20"),
    )
}
#: The seat that sits the hand out, and the seat the first card went to (left of the
#: dealer: 14.13(c), 14.13A(c); the small blind, 14.12A(c)).
SITTING_OUT: Final = 3
FIRST_DEALT: Final = {"five-card-stud": 1, "mambo": 1, "triple-draw": 2}


@pytest.mark.fast
@pytest.mark.parametrize("game", FIRST_CARD)
def test_a_seat_dealt_in_is_in_the_hand_before_its_first_card(game: str) -> None:
    """A seat's status comes from whether the hand dealt it in (the engine's
    ``SeatState.dealt_in``), not from whether a card has reached it yet: at the first card
    every seat dealt in is active and eligible for the pot its ante or blind is in; only the
    seat with no chips sits out."""
    view = live_views(FIRST_CARD[game])["first-card"]
    holding = [seat.number for seat in view.seats if seat.cards]
    assert holding == [FIRST_DEALT[game]]
    statuses = {seat.number: seat.status for seat in view.seats}
    assert statuses == {
        n: SeatStatus.SITTING_OUT if n == SITTING_OUT else SeatStatus.ACTIVE for n in range(1, 6)
    }
    assert [pot.eligible for pot in view.pots] == [(1, 2, 4, 5)]


@pytest.mark.parametrize("game", FIRST_CARD)
def test_at_the_first_card_only_the_seat_sitting_out_says_so(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The screen faces the players and the cameras: at a hand's first card, the seats dealt
    in and still waiting for a card are not tagged SITTING OUT; the seat the hand passed by
    is. Drawn at 120x40 as the committed ``live-GAME-first-card-120x40.svg``; each seat box's
    tag read from the screen."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    view = live_views(FIRST_CARD[game])["first-card"]

    async def tags(app: DealerDisplay, pilot: Pilot[None]) -> dict[int, str]:
        return {
            seat.number: str(app.query_one(f"#seat-{seat.number}", SeatBox).border_subtitle)
            for seat in view.seats
        }

    shown = run_display(view, tags, WIDE)
    assert {seat: tag for seat, tag in shown.items() if tag == "SITTING OUT"} == {
        SITTING_OUT: "SITTING OUT"
    }
    svg = looks_as_committed(f"live-{game}-first-card-120x40", view, WIDE, tmp_path)
    assert svg.count("SITTING&#160;OUT") == 1
