"""The table's two decks alternate hand by hand (rules-interpretation.md, Shuffle, cut and decks),
the deck in play is journaled and survives a restart, and a card of the deck not in play is an
integrity alarm (rules-interpretation.md, Integrity)."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from apphelp import PATIENCE, SHUFFLE_SECONDS, dealer, journal_records, json_log, sim_table
from confighelp import load, problem_at, section, to_toml, valid

from controller.journal import tablerecords as rec
from controller.journal import verify
from controller.poker.engine.events import Alarm, Event, HandStarted
from controller.poker.inputs import Button
from controller.table.loop import Controller, wait_until
from simulator.acts import Shuffle
from simulator.botcli import make_bot
from simulator.random_bot import RandomBot


def decks_journaled(directory: Path) -> list[tuple[int, str]]:
    """(hand, deck) of every ``deck`` record, in journal order."""
    return [
        (int(data["hand"]), str(data["deck"]))
        for kind, data in journal_records(directory)
        if kind == rec.DECK
    ]


def test_the_decks_alternate_hand_by_hand_and_each_hand_journals_its_deck(
    tmp_path: Path,
) -> None:
    """rules-interpretation.md, Shuffle, cut and decks: with a shuffler the two decks alternate, one
    in play while the other is shuffled: hand 1 deck A (the configured one), hand 2 deck B, hand 3
    A, shown on the display from the hand's start; the dealer who alternates too deals every
    hand without an alarm."""
    with sim_table(tmp_path) as table:
        assert table.controller.alternate_decks
        shown: list[str] = []

        def deck_shown_at_hand_start(controller: Controller, events: list[Event]) -> None:
            if any(isinstance(e, HandStarted) for e in events):
                shown.append(controller.view.build(controller.core).deck)

        table.controller.listeners.append(deck_shown_at_hand_start)
        bot = dealer(table, hands=3)
        bot.run()
        assert shown == ["A", "B", "A"]  # the display's top line, from each hand's start
        assert table.controller.decks.active.name == "A"
        assert table.controller.core.finished == 3
    assert decks_journaled(tmp_path / "journal") == [(1, "A"), (2, "B"), (3, "A")]
    results = zip(bot.bot.records, table.controller.core.results, strict=True)
    assert [record.differences(result) for record, result in results] == [[]] * 3
    assert verify(tmp_path / "journal").intact


def test_with_alternation_off_every_hand_is_dealt_from_the_one_deck(tmp_path: Path) -> None:
    """rules-interpretation.md, Shuffle, cut and decks: `[decks] alternate = false` keeps the deck
    in play (shuffled again for every hand, 13:69F-14.5); it is journaled all the same."""
    with sim_table(tmp_path, alternate_decks=False) as table:
        dealer(table, hands=3).run()
        assert table.controller.core.finished == 3
    assert decks_journaled(tmp_path / "journal") == [(1, "A"), (2, "A"), (3, "A")]


def test_a_restart_mid_hand_keeps_the_deck_in_play(tmp_path: Path) -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the deck in play comes back from the
    journal, not from the hand's parity: stopped mid-hand 2 (deck B), the restarted controller reads
    deck B's cards, and hand 3 goes back to deck A."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=3)
        started: list[int] = []
        halted = threading.Event()

        def halt_in_hand_two(controller: Controller, events: list[Event]) -> None:
            if any(isinstance(e, HandStarted) and e.hand == 2 for e in events):
                started.append(controller.inputs)
            if started and controller.inputs == started[0] + 4:  # the burn and three cards
                bot.stop()
                halted.set()

        table.controller.listeners.append(halt_in_hand_two)
        bot.run()
        assert halted.is_set()
        table.stop_controller()
        controller = table.start_controller()
        assert controller.decks.active.name == "B"
        assert controller.core.table.hand_number == 2
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        bot.follow(controller)
        bot.resume()
        bot.run()
        assert controller.core.finished == 3
        # The restart began at hand 1's checkpoint: the core has seen hands 2 and 3 end.
        results = list(controller.core.results)
        assert len(results) == 2
        pairs = zip(bot.bot.records[1:], results, strict=True)
        assert [record.differences(result) for record, result in pairs] == [[]] * 2
    assert decks_journaled(tmp_path / "journal") == [(1, "A"), (2, "B"), (3, "A")]
    assert verify(tmp_path / "journal").intact


def test_a_card_of_the_deck_not_in_play_is_an_integrity_alarm(tmp_path: Path) -> None:
    """rules-interpretation.md, Integrity: in hand 2 (deck B in play) a card of deck A passes the
    slot: the hand holds on an alarm naming the other deck's card."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
        controller = table.controller
        table.sim.use_deck("B", seed=7)
        # The shuffle takes the dealer a while: the twin read below is hand 2's, not a repeat
        # of its last read in hand 1 (docs/protocol.md 7), however fast hand 1 was dealt.
        table.clock.advance(SHUFFLE_SECONDS)
        table.sim.press(Button.NEW_HAND)
        # The deck goes in play once the core has begun the hand (Controller._deck_for): its
        # record in the core, not the hand's number, says the switch is made.
        assert wait_until(lambda: controller.core.deck == rec.DeckInPlay(2, "B"), PATIENCE)
        assert controller.decks.active.name == "B"
        card = table.sim.other_deck()
        assert wait_until(lambda: isinstance(controller.core.table.pending, Alarm), PATIENCE)
    tags = [data for kind, data in journal_records(tmp_path / "journal") if kind == rec.TAG]
    assert [t["reason"] for t in tags] == [f"a card of the other deck (A), {card}"]


def test_alternate_is_on_by_default_and_must_be_true_or_false() -> None:
    """rules-interpretation.md, Shuffle, cut and decks: `[decks] alternate` defaults to true; any
    other value than a boolean is refused naming the key, the value and what is allowed."""
    assert load(valid()).decks.alternate is True
    data = valid()
    section(data, "decks")["alternate"] = False
    assert load(data).decks.alternate is False
    section(data, "decks")["alternate"] = "yes"
    problem = problem_at(data, "decks.alternate")
    assert (problem.value, problem.expected) == ("yes", "expected true or false")


def test_a_hand_whose_deck_record_the_power_cut_took_gets_its_deck_at_the_restart(
    tmp_path: Path,
) -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the power went after hand 2's start was
    journaled but before its deck record: the restarted controller puts the hand's deck (B) in play
    by the same rule and journals it, so the hand's cards are read from the right deck."""
    with sim_table(tmp_path) as table:
        dealer(table, hands=1).run()
        table.sim.use_deck("B", seed=7)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: table.controller.core.deck == rec.DeckInPlay(2, "B"), PATIENCE)
        table.stop_controller()
        (last_file,) = sorted((tmp_path / "journal").glob("*.jsonl"))[-1:]
        lines = last_file.read_text(encoding="utf-8").splitlines(keepends=True)
        assert '"kind":"deck"' in lines[-1].replace(" ", "")
        last_file.write_text("".join(lines[:-1]), encoding="utf-8")  # the cut before it
        controller = table.start_controller()
        assert controller.decks.active.name == "B"
        card = table.sim.deal()  # the burn, of deck B
        assert wait_until(lambda: controller.inputs == 1, PATIENCE)
        assert not isinstance(controller.core.table.pending, Alarm), card
    assert decks_journaled(tmp_path / "journal") == [(1, "A"), (2, "B")]
    assert verify(tmp_path / "journal").intact


def test_the_first_hand_whose_deck_record_the_power_cut_took_gets_the_configured_deck(
    tmp_path: Path,
) -> None:
    """rules-interpretation.md, Shuffle, cut and decks: the power went after the journal's first
    hand's start was journaled but before its deck record. The restarted controller journals the
    configured deck (A) for hand 1, so hand 2 is dealt from the other deck (B), as the dealer
    who alternates deals it (found by the reliability tier's crash run: hand 2 was taken as
    deck A again and every card of it was an alarm)."""
    with sim_table(tmp_path) as table:
        # The table opens paused until both devices are heard, and refuses a press meanwhile
        # (docs/app.md, Devices lost and found): the panel may be heard before the shoe.
        assert wait_until(lambda: not table.controller.core.paused_by, PATIENCE)
        table.sim.press(Button.NEW_HAND)
        assert wait_until(lambda: table.controller.core.deck == rec.DeckInPlay(1, "A"), PATIENCE)
        table.stop_controller()
        (last_file,) = sorted((tmp_path / "journal").glob("*.jsonl"))[-1:]
        lines = last_file.read_text(encoding="utf-8").splitlines(keepends=True)
        (cut,) = [n for n, line in enumerate(lines) if '"kind":"deck"' in line.replace(" ", "")]
        last_file.write_text("".join(lines[:cut]), encoding="utf-8")  # the cut before it
        controller = table.start_controller()
        assert controller.core.deck == rec.DeckInPlay(1, "A")
        assert controller.next_hand_deck == "B"
    assert decks_journaled(tmp_path / "journal") == [(1, "A")]
    assert verify(tmp_path / "journal").intact


def test_the_simulators_bot_deals_the_decks_of_the_tables_configuration(tmp_path: Path) -> None:
    """`tablectl sim --bot random --config table.toml` deals as the controller expects: the
    first hand from `[decks] active`, then alternating (rules-interpretation.md, Shuffle, cut and
    decks)."""
    data = valid()
    section(data, "decks")["active"] = "b"
    config = tmp_path / "table.toml"
    config.write_text(to_toml(data), encoding="utf-8")
    options = {"bot": ["random"], "seed": 1, "hands": 3, "buy_in": None, "game": None}
    bot = make_bot(argparse.Namespace(config=config, **options))
    assert isinstance(bot, RandomBot)
    decks = [act.deck for act in bot if isinstance(act, Shuffle)]
    assert decks == ["B", "A", "B"]
    section(data, "decks")["alternate"] = False
    config.write_text(to_toml(data), encoding="utf-8")
    bot = make_bot(argparse.Namespace(config=config, **options))
    assert isinstance(bot, RandomBot)
    assert not bot.alternate_decks


def test_a_restart_between_hands_begins_at_the_checkpoint_with_the_deck_in_play(
    tmp_path: Path,
) -> None:
    """rules-interpretation.md, Shuffle, cut and decks, with docs/journal.md, Checkpoints: stopped
    after hand 2 (deck B), the restart replays from hand 2's checkpoint only, which carries the deck
    in play and the shoe's last reads: hand 3 is dealt from deck A again, and the reads' repeat
    filter is restored (docs/protocol.md 7)."""
    with sim_table(tmp_path) as table:
        bot = dealer(table, hands=3)
        halted = threading.Event()

        def halt_after_hand_two(controller: Controller, events: list[Event]) -> None:
            if controller.core.finished == 2 and not halted.is_set():
                bot.stop()
                halted.set()

        table.controller.listeners.append(halt_after_hand_two)
        bot.run()
        assert halted.is_set()
        table.stop_controller()
        controller = table.start_controller()
        assert controller.core.finished == 2
        assert controller.core.deck is not None
        assert controller.core.deck.deck == "B"
        assert controller.core.shoe_reads  # from the checkpoint, for the repeat filter
        last = controller.core.shoe_reads[-1]
        assert controller.shoe.repeats.repeats(last.boot, last.uid, last.point, last.read_ms + 1)
        assert wait_until(lambda: not controller.core.paused_by, PATIENCE)
        bot.follow(controller)
        bot.resume()
        bot.run()
        assert controller.core.finished == 3
    assert decks_journaled(tmp_path / "journal") == [(1, "A"), (2, "B"), (3, "A")]
    assert verify(tmp_path / "journal").intact


def test_each_hands_deck_line_carries_that_hand_and_the_opening_line_none(
    tmp_path: Path,
) -> None:
    """docs/deploy.md, Reading the log: `hand` is the hand being dealt, absent before the first
    hand. The table's opening line (no hand yet) has none; each hand's `deck_in_play` line
    carries its own hand (the deck goes in play as the hand starts), not the one before."""
    with json_log(tmp_path, "TEST-7") as lines, sim_table(tmp_path) as table:
        dealer(table, hands=2).run()
    [opened] = [line for line in lines if line["event"] == "table_opened"]
    assert "hand" not in opened
    decks = [(line["hand"], line["deck"]) for line in lines if line["event"] == "deck_in_play"]
    assert decks == [(1, "A"), (2, "B")]
