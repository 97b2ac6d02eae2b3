"""Hand scripts (docs/hand-script.md) and ``tablectl replay``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tablehelp import STAKES

from controller.cli.main import main
from controller.history.script import ScriptError, parse_script, write_script
from controller.poker.cards import Card
from controller.poker.engine import TableSetup
from controller.poker.inputs import Button, ButtonPress, CardRead, ForeignTag, ReadPoint

pytestmark = pytest.mark.fast

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "scripts" / "mambo-split.hand"

SETUP = """\
game five-card-stud
seats 1 2 3
stakes ante=1 bring-in=2 small-bet=5 big-bet=10
"""


def test_a_script_gives_the_setup_and_one_input_per_line() -> None:
    """Cards with their read point, foreign tags and buttons; comments and blank lines skipped."""
    script = parse_script(
        SETUP
        + "stacks 1=50 3=70\n\n# a comment\nnew_hand\nAh   # down\n10d slot\nKc discard\n"
        + "tag 04A1B2C3 discard a card of the other deck\nfold\n",
        "t.hand",
    )
    assert script.game == "five-card-stud"
    assert script.config.seats == (1, 2, 3)
    assert script.config.stacks == {1: 50, 3: 70}
    assert script.config.stakes.bring_in == 2
    assert [(line.line, line.input) for line in script.lines] == [
        (7, ButtonPress(Button.NEW_HAND)),
        (8, CardRead(Card.parse("Ah"))),
        (9, CardRead(Card.parse("Td"))),
        (10, CardRead(Card.parse("Kc"), ReadPoint.DISCARD_READER)),
        (11, ForeignTag("04A1B2C3", "a card of the other deck", ReadPoint.DISCARD_READER)),
        (12, ButtonPress(Button.FOLD)),
    ]
    assert script.errors == ()


def test_a_bad_input_line_is_reported_with_file_line_and_what_was_expected() -> None:
    """A line that is neither a card nor a button names the file, the line and the forms."""
    script = parse_script(SETUP + "new_hand\nXx\nAh sideways\n", "t.hand")
    assert str(script.errors[0]).startswith("t.hand:5: 'Xx': not a card")
    assert "button (new_hand, fold" in str(script.errors[0])
    assert str(script.errors[1]) == (
        "t.hand:6: 'Ah sideways': after a card, expected a read point: slot or discard"
    )
    assert [line.line for line in script.lines] == [4]


def test_a_bad_setup_line_stops_the_script() -> None:
    """Stakes a table cannot use raise ScriptError naming the line."""
    with pytest.raises(ScriptError, match=r"t.hand:3: stakes: unknown 'ante-up'"):
        parse_script("game mambo\nseats 1 2\nstakes ante-up=1 small-bet=5 big-bet=10\n", "t.hand")
    with pytest.raises(ScriptError, match=r"t.hand:1: the setup needs 'stakes"):
        parse_script("seats 1 2\nnew_hand\n", "t.hand")


def test_notes_betting_structure_a_stakes_line_with_a_rake_cap_off_the_chip_is_refused() -> None:
    """rules-interpretation.md, Betting structure: a script's rake cap, like every amount, is a
    multiple of the smallest chip; ``rake-cap=3`` with ``chip=2`` stops the script at its stakes
    line.
    """
    stakes = "stakes ante=2 bring-in=2 small-bet=4 big-bet=8 chip=2 rake-percent=10 rake-cap=3"
    with pytest.raises(ScriptError, match=r"t.hand:3: stakes: rake_cap=3; .*smallest chip 2"):
        parse_script(f"game five-card-stud\nseats 1 2\n{stakes}\n", "t.hand")


def test_write_script_and_parse_script_round_trip() -> None:
    """A written script reads back as the same setup and inputs."""
    config = TableSetup(seats=(2, 4, 5), stakes=STAKES, dealer=4, stacks={2: 10, 5: 30})
    inputs = [
        ButtonPress(Button.NEW_HAND),
        CardRead(Card.parse("As")),
        CardRead(Card.parse("2c"), ReadPoint.DISCARD_READER),
        ForeignTag("DEADBEEF", "not enrolled in either deck"),
        ButtonPress(Button.ALL_IN),
    ]
    script = parse_script(write_script("mambo", config, inputs))
    assert (script.game, script.config) == ("mambo", config)
    assert [line.input for line in script.lines] == inputs


def test_replay_prints_one_json_object_per_event(capsys: pytest.CaptureFixture[str]) -> None:
    """``tablectl replay`` of the documented example ends with the 14.13A(j)1 settlement."""
    assert main(["replay", "--game", "mambo", str(EXAMPLE)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["kind"] == "hand_started"
    settled = next(e for e in events if e["kind"] == "hand_settled")
    assert settled["pots"][0]["odd_chips"] == [{"seat": 1, "chips": 1, "rule": "14.13A(j)1"}]


def test_replay_stops_at_a_bad_line_or_keeps_going(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad line is reported as file:line on stderr; the replay stops there unless told to
    keep going, and exits 1 either way.
    """
    script = tmp_path / "bad.hand"
    script.write_text(SETUP + "new_hand\nAh\nZz\nKd\n", encoding="utf-8")
    assert main(["replay", str(script)]) == 1
    captured = capsys.readouterr()
    assert f"{script}:6: 'Zz': not a card" in captured.err
    assert '"card":"Kd"' not in captured.out
    assert main(["replay", "--keep-going", str(script)]) == 1
    assert '"card":"Kd"' in capsys.readouterr().out


def test_replay_refuses_a_game_that_contradicts_the_script(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--game mambo with a five-card stud script: exit 2 with both names."""
    assert main(["replay", "--game", "five-card-stud", str(EXAMPLE)]) == 2
    assert "the script is for 'mambo' but --game is 'five-card-stud'" in capsys.readouterr().err
