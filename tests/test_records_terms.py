"""A hand's terms (its stakes, 13:69F-8.3) journaled with its start (docs/journal.md, A hand's
terms): the record's encoding and decoding, a journal written before it, and a replay under
changed stakes."""

from __future__ import annotations

from dataclasses import replace

import pytest

from controller.journal import JsonObject, Record
from controller.journal import tablerecords as rec
from controller.poker.engine import Stakes, TableSetup
from controller.poker.games import GAMES
from controller.poker.inputs import Button, ButtonPress
from controller.table.core import ReplayMismatch, StakesChanged, TableCore

STAKES = Stakes(small_bet=5, big_bet=10, ante=1, bring_in=2, rake_percent=5, rake_cap=3)
CONFIG = TableSetup(seats=(1, 2, 3), stakes=STAKES)


@pytest.mark.fast
def test_13_69f_8_3_the_terms_decode_to_the_stakes_they_encode() -> None:
    """Every field of the stakes survives the record (JSON): what the table posted is what
    an export reads back."""
    terms = rec.HandTerms(STAKES)
    assert rec.hand_terms_of({"terms": terms.fields()}) == terms
    assert terms.fields()["stakes"] == {
        "small_bet": 5,
        "big_bet": 10,
        "ante": 1,
        "bring_in": 2,
        "small_blind": 0,
        "big_blind": 0,
        "cap": 4,
        "chip": 1,
        "rake_percent": 5,
        "rake_cap": 3,
        "rake_without_showdown": False,
    }


@pytest.mark.fast
def test_a_record_without_terms_is_a_journal_written_before_them() -> None:
    assert rec.hand_terms_of({"input": 1, "events": []}) is None


@pytest.mark.fast
@pytest.mark.parametrize(
    ("stakes", "message"),
    [
        ([5, 10], "terms.stakes: expected an object, not"),
        ({"small_bet": 5}, "terms.stakes: field big_bet is missing"),
        (
            {"small_bet": 5, "big_bet": True},
            "terms.stakes.big_bet: expected a whole number, not true",
        ),
        ({"small_bet": 5, "big_bet": 10, "rake_without_showdown": 1}, "expected true or false"),
        (
            {"small_bet": 5, "big_bet": 10, "limit": 20},
            "field limit is not in the schema; expected small_bet",
        ),
        ({"small_bet": 10, "big_bet": 5}, "expected 0 < small bet <= big bet"),
    ],
)
def test_malformed_stakes_in_a_record_are_named(stakes: object, message: str) -> None:
    with pytest.raises(rec.RecordFormatError, match=message):
        rec.hand_terms_of({"terms": {"stakes": stakes}})  # type: ignore[dict-item]


@pytest.mark.fast
def test_only_a_hands_first_decision_carries_its_terms() -> None:
    core = TableCore(GAMES["mambo"], CONFIG)
    started = core.table.apply(ButtonPress(Button.NEW_HAND))
    kind, data = rec.decision_data(1, started, core.terms)
    assert kind == rec.HAND_STARTED
    assert rec.hand_terms_of(data) == rec.HandTerms(STAKES)
    kind, data = rec.decision_data(2, [], core.terms)
    assert kind == rec.DECISION
    assert "terms" not in data


def _started_records(stakes: Stakes) -> list[Record]:
    """The devices' welcome, then a new hand's input and decision records, journaled under
    ``stakes`` (a table paused by a lost device refuses a new hand)."""
    core = TableCore(GAMES["mambo"], replace(CONFIG, stakes=stakes))
    records = []
    for device in ("shoe", "panel"):
        ready: JsonObject = {
            "device": device,
            "event": "ready",
            "outcome": "new_session",
            "boot": "b1",
        }
        core.take(rec.DEVICE, ready)
        records.append(_record(len(records) + 1, rec.DEVICE, ready))
    kind, data = rec.input_data(ButtonPress(Button.NEW_HAND), rec.Origin("panel", "b1", 0))
    events = core.take(kind, data)
    decision_kind, decision = rec.decision_data(len(records) + 1, events, core.terms)
    assert decision_kind == rec.HAND_STARTED, events
    records.append(_record(len(records) + 1, kind, data))
    return [*records, _record(len(records) + 1, decision_kind, decision)]


def _record(seq: int, kind: str, data: JsonObject) -> Record:
    return Record(seq, "2026-12-01T15:00:00.000000Z", kind, data, "", "")


@pytest.mark.fast
def test_13_69f_8_3_a_hand_in_progress_does_not_resume_under_other_stakes() -> None:
    """A hand started under one stakes and resumed after a restart under another would be
    dealt under two: the start is refused, naming both, as a replay that decides otherwise is
    (the bet sizes differ though the hand's first events, its antes, are the same)."""
    journaled = _started_records(STAKES)
    same = TableCore(GAMES["mambo"], CONFIG)
    for record in journaled:
        same.replay(record)
    raised = TableCore(GAMES["mambo"], replace(CONFIG, stakes=replace(STAKES, big_bet=20)))
    for record in journaled[:-1]:  # the devices, the new hand's press: its antes the same
        raised.replay(record)
    with pytest.raises(StakesChanged, match=r"started under the stakes .*'big_bet': 10") as err:
        raised.replay(journaled[-1])
    assert "'big_bet': 20" in str(err.value)
    assert isinstance(err.value, ReplayMismatch), "tablectl run refuses it as a replay mismatch"
