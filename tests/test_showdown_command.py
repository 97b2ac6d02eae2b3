"""``tablectl showdown``: each seat's call and the winners agree with the evaluators."""

from __future__ import annotations

import re

import pytest

from controller.cli.main import main
from controller.poker.cards import parse_cards
from controller.poker.games.five_card_stud import FIVE_CARD_STUD
from controller.poker.games.mambo import MAMBO
from controller.poker.games.triple_draw import TRIPLE_DRAW
from controller.poker.hands import (
    NO_QUALIFYING_LOW,
    deuce_to_seven_low,
    five_card_high,
    mambo_high,
    mambo_low,
)

pytestmark = pytest.mark.fast

_SEAT = re.compile(r"^  seat +(\d+)  (.+?)  (.+)$")
_AWARD = re.compile(r"^  (Winner|High|Low): (?:seat (\d+)|split: seats ([\d, and]+)) with (.+) \(")


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> list[str]:
    assert main(["showdown", *argv]) == 0
    return capsys.readouterr().out.splitlines()


def _awarded(lines: list[str], label: str) -> tuple[set[int], str]:
    """The seats and the hand named on the ``label`` line."""
    for line in lines:
        match = _AWARD.match(line)
        if match and match.group(1) == label:
            single, split, hand = match.group(2), match.group(3), match.group(4)
            seats = {int(single)} if single else set(map(int, re.findall(r"\d+", split)))
            return seats, hand
    raise AssertionError(f"no {label} line in {lines}")


def _best(strengths: dict[int, int]) -> set[int]:
    top = max(strengths.values())
    return {seat for seat, strength in strengths.items() if strength == top}


@pytest.mark.parametrize("seed", [1, 2, 3, 2026])
def test_five_card_stud_showdown_names_the_best_high_hand_14_13_h(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    """14.13(h): every seat's call is five_card_high's, and the winner holds the greatest."""
    lines = _run(capsys, "--game", "five-card-stud", "--seed", str(seed), "--seats", "8")
    strengths, calls = {}, {}
    for line in lines:
        if match := _SEAT.match(line):
            value = five_card_high(parse_cards(match.group(2)))
            assert value.description == match.group(3)
            strengths[int(match.group(1))] = value.strength
            calls[int(match.group(1))] = value.description
    assert len(strengths) == 8
    seats, hand = _awarded(lines, "Winner")
    assert seats == _best(strengths)
    assert hand == calls[min(seats)]


@pytest.mark.parametrize("seed", [1, 2, 3, 2026])
def test_triple_draw_showdown_names_the_lowest_deuce_to_seven_hand_14_12A_l(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    """14.12A(l): each seat's call is deuce_to_seven_low's and the winner is the lowest."""
    lines = _run(capsys, "--game", "triple-draw", "--seed", str(seed), "--seats", "7")
    strengths = {}
    for line in lines:
        if match := _SEAT.match(line):
            value = deuce_to_seven_low(parse_cards(match.group(2)))
            assert value.description == match.group(3)
            strengths[int(match.group(1))] = value.strength
    assert len(strengths) == 7
    assert _awarded(lines, "Winner")[0] == _best(strengths)


@pytest.mark.parametrize("seed", range(1, 9))
def test_mambo_showdown_names_high_and_low_or_no_qualifying_low_14_13A_j_k(
    capsys: pytest.CaptureFixture[str], seed: int
) -> None:
    """14.13A(j)-(l): high and low are each the best three of four; with no six-or-better
    low the output says so and the high takes the pot (14.13A(k))."""
    lines = _run(capsys, "--game", "mambo", "--seed", str(seed), "--seats", "11")
    community = parse_cards(lines[1].removeprefix("  community card "))
    highs, lows = {}, {}
    for line in lines:
        if match := _SEAT.match(line):
            four = [*parse_cards(match.group(2)), *community]
            high, low = mambo_high(four), mambo_low(four)
            low_call = low.description if low else NO_QUALIFYING_LOW
            assert match.group(3) == f"high: {high.description}; low: {low_call}"
            highs[int(match.group(1))] = high.strength
            if low:
                lows[int(match.group(1))] = low.strength
    assert len(highs) == 11
    assert _awarded(lines, "High")[0] == _best(highs)
    if lows:
        assert _awarded(lines, "Low")[0] == _best(lows)
    else:
        assert lines[-1] == f"  Low: {NO_QUALIFYING_LOW}; the high hand takes the whole pot"


def test_mambo_without_a_qualifying_low_says_so_14_13A_k(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """14.13A(k): some seed deals no six-or-better low; the output says so (found by search
    over seeds, so the test cannot pass vacuously)."""
    for seed in range(200):
        lines = _run(capsys, "--game", "mambo", "--seed", str(seed), "--seats", "2")
        if lines[-1].startswith("  Low: no qualifying low"):
            assert not any(line.startswith("  Low: seat") for line in lines)
            return
    raise AssertionError("no seed in 0..199 dealt a showdown without a qualifying low")


def test_default_showdown_plays_all_three_games_reproducibly(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without options: all three games in turn, each by its display name (the spec's, as
    docs/display.md, The table's words, has it), five seats, the same hands every run."""
    first = _run(capsys)
    assert first == _run(capsys)
    titles = [line for line in first if line and not line.startswith(" ")]
    assert [title.split(":")[0] for title in titles] == [
        f"{FIVE_CARD_STUD.name} (14.13)",
        f"{MAMBO.name} (14.13A)",
        f"{TRIPLE_DRAW.name} (14.12A)",
    ]
    assert all("5 seats, seed 2026" in title for title in titles)
    assert first != _run(capsys, "--seed", "7")


def test_too_many_seats_for_a_game_is_refused_naming_its_limit(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """14.13(b), 14.12A(b), 14.13A(b): the seat limits, 8 for five-card stud, 7 for triple draw, 11
    for Mambo."""
    assert main(["showdown", "--game", "triple-draw", "--seats", "8"]) == 2
    assert capsys.readouterr().err == (
        "tablectl showdown: --seats 8: Triple Draw 2-7 seats at most 7 (14.12A(b))\n"
    )
    assert main(["showdown", "--seats", "9"]) == 2
    assert "Five-Card Stud seats at most 8 (14.13(b))" in capsys.readouterr().err


@pytest.mark.parametrize("seats", ["1", "two"])
def test_bad_seat_count_is_an_argument_error(
    capsys: pytest.CaptureFixture[str], seats: str
) -> None:
    """--seats must be a whole number of at least 2; argparse exits 2 naming the value."""
    with pytest.raises(SystemExit) as excinfo:
        main(["showdown", "--seats", seats])
    assert excinfo.value.code == 2
    assert f"--seats {seats if seats == '1' else repr(seats)}" in capsys.readouterr().err


def test_equal_hands_split_and_the_output_names_every_tied_seat() -> None:
    """rules-interpretation.md, High hands: equal hands split; the award line names all the tied
    seats."""
    from controller.cli.commands.showdown import _award  # noqa: PLC0415 -- a private helper, here only

    values = [
        five_card_high(parse_cards("As Ks 9d 5c 3h")),
        five_card_high(parse_cards("Qh Qd 9c 5d 3s")),
        five_card_high(parse_cards("Qs Qc 9h 5h 3d")),
    ]
    assert _award("Winner", values) == (
        "  Winner: split: seats 2 and 3 with pair of queens (Qh Qd 9c 5d 3s)"
    )
