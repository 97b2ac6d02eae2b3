"""PHH export (docs/app.md, Hand histories): each settled hand as a PHH file with the documented
custom variant codes for five-card stud and Mambo, burns as comments."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from apphelp import dealer, sim_table
from confighelp import export_config
from pokerkit import HandHistory

from controller.cli.main import main
from controller.history.phh.export import VARIANTS, export_hands
from controller.history.recall import hands
from controller.journal import JournalReader
from controller.journal.tablerecords import events_json


@pytest.mark.parametrize("game", ["five-card-stud", "mambo"])
def test_every_settled_hand_exports_as_phh_with_every_card_and_action(
    tmp_path: Path, game: str
) -> None:
    """Each exported hand reads as TOML; its variant is the documented code; every card dealt is
    a deal action (burns as comments); every betting action is there; the stacks add up."""
    with sim_table(tmp_path, game) as table:
        dealer(table, hands=5).run()
        stakes = table.config.stakes
        final_stacks = table.controller.core.table.stacks
    told = hands(JournalReader(tmp_path / "journal"))
    exported = export_hands(told, stakes, "SIM-1")
    assert [n for n, _text in exported] == [1, 2, 3, 4, 5]
    for (number, text), hand in zip(exported, told, strict=True):
        phh = tomllib.loads(text)
        assert phh["variant"] == VARIANTS[game]
        assert phh["hand"] == number
        events = events_json(hand.events)  # as the journal keeps them
        dealt = [e for e in events if e["kind"] == "card_dealt"]
        burns = [e["card"] for e in dealt if e["destination"] == "burn"]
        assert burns, "the texts burn before every round (14.13(c), 14.13A(c))"
        assert [a for a in phh["actions"] if a.startswith("# burn ")] == [
            f"# burn {c}" for c in burns
        ]
        deals = [a for a in phh["actions"] if a.startswith("d ")]
        assert len(deals) == len(dealt) - len(burns)
        bets = [a for a in phh["actions"] if a.split()[0].startswith("p") and " sm " not in a]
        assert len(bets) == sum(1 for e in events if e["kind"] == "action_taken")
        settled = next(e for e in events if e["kind"] == "hand_settled")
        net = [n["amount"] for n in settled["net"]]
        assert [start + n for start, n in zip(phh["starting_stacks"], net, strict=True)] == phh[
            "finishing_stacks"
        ]
    last = tomllib.loads(exported[-1][1])
    assert last["finishing_stacks"] == [final_stacks[s] for s in last["seats"]]


def _words(action: str) -> list[str]:
    return action.split("#", 1)[0].split()


@pytest.mark.parametrize("game", ["five-card-stud", "mambo"])
def test_a_shown_hand_is_the_players_own_cards_and_the_file_loads_in_pokerkit(
    tmp_path: Path, game: str
) -> None:
    """PHH's ``pN sm CARDS`` shows the player's hole cards (PokerKit takes them for its hole
    cards): every card dealt to the seat, down and up, in the order dealt; never the
    community card, which the hand rated for a Mambo share takes (14.13A(h),(j)). PokerKit
    loads every file, its seats and seat count with it (14.13(b), 14.13A(b))."""
    with sim_table(tmp_path, game) as table:
        dealer(table, hands=8).run()
    told = hands(JournalReader(tmp_path / "journal"))
    shows = 0
    for _number, text in export_hands(told, table.config.stakes, "SIM-1"):
        history = HandHistory.loads(text)
        assert history.seats == tomllib.loads(text)["seats"]
        assert history.seat_count == (11 if game == "mambo" else 8)
        dealt: dict[str, str] = {}
        board = []
        for words in map(_words, history.actions):
            if words[:2] == ["d", "dh"]:
                dealt[words[2]] = dealt.get(words[2], "") + words[3]
            elif words[:2] == ["d", "db"]:
                board.append(words[2])
            elif words[1:2] == ["sm"]:
                assert words[2] == dealt[words[0]], text
                assert not any(card in words[2] for card in board), text
                shows += 1
    assert shows, "the hands dealt reach a showdown"


def test_tablectl_export_writes_one_phh_file_per_settled_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """tablectl export: hand-N.phh for every settled hand, stakes from the configuration."""
    with sim_table(tmp_path, "five-card-stud") as table:
        dealer(table, hands=2).run()
    config = export_config(
        tmp_path,
        """id = "EXPORT-1"
game = "five-card-stud"
seats = [1, 2, 3, 4, 5, 6]""",
        """ante = 1
bring_in = 2
small_bet = 5
big_bet = 10""",
    )
    out = tmp_path / "phh"
    assert main(["export", "--config", str(config), "--out", str(out)]) == 0
    assert "2 hands written" in capsys.readouterr().out
    files = sorted(p.name for p in out.iterdir())
    assert files == ["hand-1.phh", "hand-2.phh"]
    phh = tomllib.loads((out / "hand-2.phh").read_text(encoding="utf-8"))
    assert phh["variant"] == "F5S"
    assert phh["table"] == "EXPORT-1"
    assert (phh["small_bet"], phh["big_bet"], phh["bring_in"]) == (5, 10, 2)
