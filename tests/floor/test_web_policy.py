"""Who sees which card on the floor's web view (docs/floor-web.md, Who sees which
card): the policy, the hand's steps and frames as each role gets them, the search's fields.
Pure: real journals' hands (tests/fixtures) decoded through the schema, no server."""

from __future__ import annotations

import json

import pytest
from floorhelp import fixture_lines

from controller.floor import derive
from controller.floor.web import dbschema as web_schema
from controller.floor.web import policy
from controller.floor.web.replay import Replay, pot_words, replay, scrub
from controller.floor.web.search import QueryError, parse
from controller.journal import JsonObject, schema
from controller.journal import tablerecords as rec
from controller.journal.record import Record, parse_line
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev

#: Hand 1 of the Mambo fixture after its first round's bets: seat 3 to act, 34 in the pot.
MID_HAND = 33


def events_of(lines: list[bytes]) -> list[ev.Event]:
    found: list[ev.Event] = []
    for line in lines:
        record = parse_line(line)
        if record.kind in rec.DECISIONS:
            found.extend(schema.decode_events(record))
    return found


def first_hand(events: list[ev.Event]) -> list[ev.Event]:
    for n, event in enumerate(events):
        if isinstance(event, ev.HandSettled | ev.HandVoided):
            return events[: n + 1]
    raise AssertionError("no finished hand")


def sent(shown: Replay) -> str:
    """Everything of the replay a page or feed would carry."""
    return json.dumps([shown.frames_json(), [[s.text, s.cards] for s in shown.steps]])


def hidden(events: list[ev.Event]) -> set[str]:
    """The cards of ``events`` never shown to the table: hidden (a hole card, a burn, a
    discard) and not also dealt face up (an up card folded to the muck was seen by all)."""
    face_up = {e.card for e in events if isinstance(e, ev.CardDealt) and not hidden_cards(e)}
    return {card for event in events for card in hidden_cards(event)} - face_up


@pytest.mark.fast
def test_the_policy_names_every_role_and_only_surveillance_sees_face_down_cards_live() -> None:
    assert set(policy.POLICY) == set(web_schema.ROLES)
    live = {role: policy.sees_face_down(role, in_progress=True) for role in policy.POLICY}
    assert live == {
        "surveillance": True,
        "supervisor": False,
        "auditor": False,
        "admin": False,
        "broadcaster": False,  # a hole card only once the broadcast's delay has run out
    }
    # Finished hands: as recall shows them, to every role that may open a hand.
    assert [r for r in policy.POLICY if policy.sees_face_down(r, in_progress=False)] == [
        "surveillance",
        "supervisor",
        "auditor",
    ]
    assert not policy.may_open("auditor", in_progress=True)  # finished hands only
    assert policy.may_open("auditor", in_progress=False)
    assert not policy.may_open("admin", in_progress=False)  # users only
    assert not policy.may_open("broadcaster", in_progress=True)  # the broadcast feed only
    assert not policy.may_open("broadcaster", in_progress=False)
    delayed = [r for r in policy.POLICY if policy.access(r).delayed_hole_cards]
    assert delayed == ["surveillance", "broadcaster"]
    assert not policy.may_open("croupier", in_progress=False)  # a role it does not know


@pytest.mark.fast
def test_a_supervisor_gets_a_hand_in_progress_with_its_hole_cards_as_backs_and_no_value() -> None:
    # 14.13A(c): one card face down and one face up to each player; the up cards are the
    # table's, the down ones nobody's but surveillance's while the hand is played.
    events = events_of(fixture_lines()[:MID_HAND])
    holes = hidden(events)
    assert len(holes) == 4
    supervisor = replay(events, "supervisor", in_progress=True)
    assert not any(card in sent(supervisor) for card in holes)
    assert not supervisor.face_down_shown
    last = supervisor.frames[-1]
    assert (last.street, last.pot, last.to_act) == ("first round", 34, 3)
    for seat in last.seats:
        down, up = seat.cards
        assert down is None  # the back: no value at all
        assert up is not None
        assert up not in holes
    dealt = [s for s in supervisor.steps if s.text.endswith("face down")]
    assert [s.cards for s in dealt] == [(None,)] * 4
    surveillance = replay(events, "surveillance", in_progress=True)
    assert surveillance.face_down_shown
    assert all(card in sent(surveillance) for card in holes)
    assert {s.cards[0] for s in surveillance.steps if s.text.endswith("face down")} == holes


@pytest.mark.fast
def test_an_auditor_and_a_supervisor_see_a_settled_hand_as_recall_shows_it() -> None:
    events = first_hand(events_of(fixture_lines()))
    holes = hidden(events)
    for role in ("supervisor", "auditor"):
        shown = replay(events, role, in_progress=False)
        assert shown.face_down_shown, role  # the access log records it
        assert all(card in sent(shown) for card in holes), role
    # The masking follows the state, not the role's name: the same hand mid-deal is masked.
    assert not any(c in sent(replay(events, "supervisor", in_progress=True)) for c in holes)


@pytest.mark.fast
def test_a_draws_discards_are_face_down_to_a_supervisor_while_the_hand_is_played() -> None:
    # 14.12A(f): the discards go face down; a card to the muck and a burn neither is seen.
    events = first_hand(events_of(fixture_lines("triple-draw")))
    draws = [s for s in replay(events, "supervisor", in_progress=True).steps if s.kind == "draw"]
    assert any(s.cards for s in draws)
    assert all(card is None for s in draws for card in s.cards)
    burns = [s for s in replay(events, "supervisor", in_progress=True).steps if s.text == "burn"]
    assert burns
    assert all(s.cards == (None,) for s in burns)
    watched = replay(events, "surveillance", in_progress=True).steps
    assert all(card is not None for s in watched if s.kind == "draw" for card in s.cards)


@pytest.mark.fast
def test_each_odd_chip_is_shown_with_the_rule_that_decided_it() -> None:
    # 14.13A(j)1: the excess between the halves goes to the best high hand.
    pot = ev.PotResult(
        "main pot",
        25,
        0,
        (1, 2),
        (
            ev.ShareResult("high", 13, (1,), "pair of kings"),
            ev.ShareResult("low", 12, (2,), "6-4-2 low"),
        ),
        (ev.SeatAmount(1, 13), ev.SeatAmount(2, 12)),
        (ev.OddChipAward(1, 1, "14.13A(j)1"),),
    )
    words = pot_words(pot)
    assert "high 13 to seat 1 (pair of kings)" in words
    assert words.endswith("odd chip 1 to seat 1 (14.13A(j)1)")


@pytest.mark.fast
def test_a_hidden_card_in_free_text_is_said_as_a_card() -> None:
    assert scrub("7c already seen this hand (seat 2), As up", {"7c"}) == (
        "a card already seen this hand (seat 2), As up"
    )
    assert scrub("T7c 7cs", {"7c"}) == "T7c 7cs"  # only a card standing alone


@pytest.mark.fast
def test_the_other_decks_card_an_alarm_names_is_a_card_to_a_supervisor_live() -> None:
    """rules-interpretation.md, Integrity: a tag of the other deck raises an alarm whose reason
    names that deck's card, unseen (its twin in the deck in play, Kd, is still in the stub, or
    a hole card): the floor's alarm row and a supervisor's steps of the hand in progress say "a
    card" (announce.told); surveillance, and an auditor once the hand is over, read it as the
    journal has it."""
    started = ev.HandStarted(1, "five-card-stud", (1, 2), 0, ())
    hole = ev.CardDealt("Ah", ev.SEAT, 1, "down")
    alarm = ev.Alarm(
        read="tag 04A1B2C3",
        point="slot",
        expected="expected a card face down to seat 2",
        reason="not a card of the active deck: a card of the other deck (B), Kd",
    )
    undone = ev.Undone(
        "tag 04A1B2C3 slot (a card of the other deck (B), Kd)", "undid the tag; as before"
    )
    data: JsonObject = {"input": 0, "events": rec.events_json([alarm])}
    record = Record(1, "2026-01-01T00:00:00Z", rec.DECISION, data, "", "")
    (row,) = derive.derive([record], None).alarms
    assert row.message == (
        "tag 04A1B2C3: not a card of the active deck: a card of the other deck (B), a card"
    )
    events = [started, hole, alarm, undone]
    supervisor = [step.text for step in replay(events, "supervisor", in_progress=True).steps]
    assert "Kd" not in json.dumps(supervisor)
    assert len([text for text in supervisor if "(B), a card" in text]) == 2
    for role, in_progress in (("surveillance", True), ("auditor", False)):
        steps = replay(events, role, in_progress=in_progress).steps
        assert [step.kind for step in steps if "(B), Kd" in step.text] == ["alarm", "note"]


@pytest.mark.fast
def test_a_search_names_each_field_it_cannot_read_with_what_it_expected() -> None:
    query = parse({"table": " T1 ", "hand": "12", "seat": "3", "card": "10d", "from": ""})
    assert (query.table, query.hand, query.seat, query.card) == ("T1", 12, 3, "Td")
    assert query.since is None
    assert not query.empty
    assert parse({}).empty
    with pytest.raises(QueryError) as caught:
        parse({"hand": "x", "seat": "12", "card": "Zz", "from": "yesterday"})
    problems = caught.value.problems
    assert "hand 'x': expected a whole number from 1 to 2147483647" in problems
    assert "seat '12': expected a whole number from 1 to 11" in problems  # 14.13A(b): 11
    assert any(p.startswith("card 'Zz': expected") for p in problems)
    assert any(p.startswith("from 'yesterday': expected a date and time") for p in problems)
    with pytest.raises(QueryError, match="is after to"):
        parse({"from": "2026-12-02T00:00", "to": "2026-12-01T00:00"})
