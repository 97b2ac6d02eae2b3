"""PHH import (controller/history/phh/parse.py) and the external check of the triple draw rules:
real hands from a public source, converted to hand scripts and replayed through the engine,
must give every seat the net result the source gives it (14.12A; docs/rules-interpretation.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pokerkit import HandHistory
from tablehelp import of_kind

from controller.cli.main import main
from controller.history.phh.convert import to_hand_script
from controller.history.phh.parse import PhhError, PhhUnsupported, read_phh
from controller.history.script import parse_script
from controller.poker.engine import Table
from controller.poker.engine.events import Alarm, CardDealt, Event, HandSettled, Refused
from controller.poker.games import GAMES

pytestmark = pytest.mark.fast

HANDS = sorted((Path(__file__).resolve().parent / "data" / "phh").glob("*.phh"))
#: Hands of the source skipped because its rules differ from docs/rules-interpretation.md (a
#: reshuffle of its own, another raise cap, a hidden showdown hand): none of the seven WSOP hands
#: is.
EXPECTED_SKIPPED = 0


def _source_net(text: str) -> dict[int, int]:
    """Each player's net result as the source's own engine (PokerKit) settles the hand."""
    final = list(HandHistory.loads(text))[-1]
    return {
        seat: final.stacks[seat - 1] - start
        for seat, start in enumerate(final.starting_stacks, start=1)
    }


def _replay(text: str, source: str) -> list[Event]:
    converted = to_hand_script(read_phh(text, source))
    # Through the hand script, as a technician would replay it (docs/hand-script.md).
    script = parse_script(converted.script(), source)
    table = Table(GAMES[converted.game], script.config)
    return [event for line in script.lines for event in table.apply(line.input)]


def test_14_12a_every_wsop_triple_draw_hand_settles_as_the_source_does() -> None:
    """14.12A(c)-(l): each of the seven 2023 WSOP Event #43 triple draw hands, converted and
    replayed, is taken without a refusal or alarm, and every seat's net result and the
    winners match the source; hands whose rules differ from docs/rules-interpretation.md are
    skipped, counted.
    """
    played, skipped = 0, []
    for path in HANDS:
        text = path.read_text(encoding="utf-8")
        try:
            events = _replay(text, path.name)
        except PhhUnsupported as why:
            skipped.append(f"{path.name}: {why}")
            continue
        assert not of_kind(events, Refused), path.name
        assert not of_kind(events, Alarm), path.name
        settled = of_kind(events, HandSettled)
        assert len(settled) == 1, path.name
        net = {entry.seat: entry.amount for entry in settled[0].net}
        source = _source_net(text)
        assert net == source, path.name
        assert {s for s, n in net.items() if n > 0} == {s for s, n in source.items() if n > 0}
        played += 1
    assert len(skipped) == EXPECTED_SKIPPED, skipped
    assert played == len(HANDS) - EXPECTED_SKIPPED == 7


def test_the_draw_is_dealt_one_player_at_a_time_with_the_burn_first() -> None:
    """14.12A(f): PHH lists every discard of a draw before the new cards; the conversion
    deals each player's new cards right after its draw done, the burn before the first."""
    text = HANDS[-1].read_text(encoding="utf-8")  # 61: p2 throws 9d6c, p5 throws Th
    events = _replay(text, HANDS[-1].name)
    dealt = [(e.card, e.destination, e.seat) for e in of_kind(events, CardDealt)][25:29]
    assert [d[1:] for d in dealt] == [("burn", None), ("seat", 2), ("seat", 2), ("seat", 5)]
    assert [d[0] for d in dealt[1:]] == ["8s", "5s", "Qh"]


def test_a_card_the_source_deals_twice_is_its_own_reshuffle_and_is_not_converted() -> None:
    """14.12A(f), rules-interpretation.md, Burns and draws: a hand whose source re-deals a card
    reshuffled under its own rules is refused with the reason, to be counted as skipped."""
    text = HANDS[-1].read_text(encoding="utf-8").replace("'d dh p5 Qh'", "'d dh p5 5c'")
    with pytest.raises(PhhUnsupported, match="5c is dealt twice"):
        to_hand_script(read_phh(text))


def test_a_hidden_card_becomes_a_card_no_one_holds_and_can_be_discarded() -> None:
    """A card the history hides (??) is dealt as a card absent from the hand, and a ?? discard
    passes that same card over the discard reader (hand 60: p2 throws Kh??)."""
    path = next(p for p in HANDS if "60_02_42_44" in p.name)
    events = _replay(path.read_text(encoding="utf-8"), path.name)
    assert not of_kind(events, Alarm)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("variant = 1", "variant = 1; expected a variant code"),
        ("variant = 'F2L3D'\nactions = 3", "actions = 3; expected a list"),
        ("not toml ===", "not TOML"),
    ],
)
def test_a_malformed_phh_file_is_refused_naming_the_field(text: str, message: str) -> None:
    """read_phh names the field that is missing or malformed and what was expected."""
    with pytest.raises(PhhError, match=message):
        read_phh(text, "bad.phh")


def test_another_variant_is_refused_naming_the_variants_converted() -> None:
    """F2L3D and tablectl's own stud codes convert; a no-limit hold'em hand says so."""
    text = HANDS[0].read_text(encoding="utf-8").replace("'F2L3D'", "'NT'")
    converted = r"variant 'NT'; tablectl converts \['F2L3D', 'F5S', 'FMB/6'\]"
    with pytest.raises(PhhUnsupported, match=converted):
        to_hand_script(read_phh(text))


def test_import_phh_prints_a_hand_script_that_replay_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablectl import-phh FILE`` prints the hand as a hand script; ``tablectl replay`` plays
    it through the engine to the source's settlement without a refusal or alarm."""
    assert main(["import-phh", str(HANDS[-1])]) == 0
    script = tmp_path / "hand.hand"
    script.write_text(capsys.readouterr().out, encoding="utf-8")
    assert main(["replay", str(script)]) == 0
    kinds = [json.loads(line)["kind"] for line in capsys.readouterr().out.splitlines()]
    assert "hand_settled" in kinds
    assert "refused" not in kinds
    assert "alarm" not in kinds


def test_import_phh_says_why_a_hand_is_not_converted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Another variant exits 1 with the reason; a file that cannot be read exits 2."""
    other = tmp_path / "nt.phh"
    other.write_text(HANDS[0].read_text(encoding="utf-8").replace("'F2L3D'", "'NT'"))
    assert main(["import-phh", str(other)]) == 1
    assert "not converted: variant 'NT'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as missing:
        main(["import-phh", str(tmp_path / "missing.phh")])
    assert missing.value.code == 2
    assert "missing.phh: expected a readable file: it does not exist" in capsys.readouterr().err


def test_a_discard_the_player_does_not_hold_is_refused_naming_it() -> None:
    """14.12A(f): a PHH draw whose discard is not in the player's hand is a malformed history."""
    text = HANDS[-1].read_text(encoding="utf-8").replace("'p5 sd Th'", "'p5 sd As'")
    with pytest.raises(PhhError, match="p5 discards As, a card it does not hold"):
        to_hand_script(read_phh(text))
