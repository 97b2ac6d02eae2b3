"""The feeds' card policy (docs/floor-web.md, Feeds): each feed's event built from the
real fixtures' hands (tests/fixtures) at chosen moments, the broadcast's delay on a clock the test
sets, the published schema and ``[web.feeds]``. Pure: no server."""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from floorhelp import fixture_lines
from webhelp import cards_in, schema_problems

from controller.floor.floortoml import FloorConfigError, parse
from controller.floor.web import feedjsonschema, policy
from controller.floor.web.feedhand import Built, HandFacts, Timed, build, from_start, unix
from controller.floor.web.webtoml import FeedSettings
from controller.journal import schema
from controller.journal import tablerecords as rec
from controller.journal.record import parse_line
from controller.poker.announce import hidden_cards
from controller.poker.engine import events as ev

#: Mambo's hand 1 once its second round is dealt (records 51 to 57; seat 3 folded in the first,
#: record 35): a burn, then each live seat's third card face down (14.13A(f)), a record each.
SECOND_ROUND = 57
DELAY = 600.0
SETTINGS = FeedSettings(broadcast_delay=DELAY)


def timed(lines: list[bytes]) -> list[Timed]:
    out = []
    for line in lines:
        record = parse_line(line)
        if record.kind in rec.DECISIONS:
            out.append(Timed(unix(record.ts), record.ts, tuple(schema.decode_events(record))))
    return out


def hand_of(lines: list[bytes], hand: int) -> list[Timed]:
    records = from_start(timed(lines), hand)
    for n, record in enumerate(records):  # up to its end: the next hand is not this one's
        if any(isinstance(e, ev.HandSettled | ev.HandVoided) for e in record.events):
            return records[: n + 1]
    return records


def feed_of(
    records: list[Timed], feed: str, now: float, settings: FeedSettings = SETTINGS
) -> Built:
    done = any(isinstance(e, ev.HandSettled) for r in records for e in r.events)
    facts = HandFacts("T1", "j", 1, "Mambo", "settled" if done else "in progress")
    return build(facts, records, feed, settings, now)


def events(records: list[Timed]) -> list[ev.Event]:
    return [event for record in records for event in record.events]


def holes_by_seat(records: list[Timed]) -> dict[int, list[tuple[str, float]]]:
    """Each seat's hole cards (dealt face down, 14.13(c)) and the moment of their record."""
    out: dict[int, list[tuple[str, float]]] = {}
    for record in records:
        for e in record.events:
            if isinstance(e, ev.CardDealt) and e.destination == ev.SEAT and hidden_cards(e):
                assert e.seat is not None
                out.setdefault(e.seat, []).append((e.card, record.at))
    return out


def sent(built: Built) -> set[str]:
    return cards_in(json.dumps(built.hand.as_json()).encode())


def hidden(records: list[Timed]) -> set[str]:
    return {card for event in events(records) for card in hidden_cards(event)}


def secret(records: list[Timed]) -> set[str]:
    """The cards no player has seen: hidden and not dealt face up (an up card to the muck)."""
    return hidden(records) - face_up(records)


def shown_at_showdown(records: list[Timed]) -> set[str]:
    return {
        c for e in events(records) if isinstance(e, ev.Showdown) for h in e.hands for c in h.cards
    }


@pytest.mark.fast
def test_who_may_open_each_feed_follows_the_roles_policy() -> None:
    assert set(policy.FEEDS) == {"surveillance", "broadcast", "public"}
    # A face-down card of a hand in progress is surveillance's alone (policy.POLICY): the
    # surveillance feed and the broadcast (its released hole cards) are theirs; the broadcast
    # is the broadcaster's too, and nothing else is; the public feed carries what a supervisor
    # sees.
    assert policy.FEEDS["surveillance"].roles() == {"surveillance"}
    assert policy.FEEDS["broadcast"].roles() == {"surveillance", "broadcaster"}
    assert policy.FEEDS["public"].roles() == {"surveillance", "supervisor"}


@pytest.mark.fast
def test_the_public_feed_carries_no_face_down_card_before_the_showdown() -> None:
    # 14.13(c), 14.13A(c),(f): the hole cards; 14.12A(f): a draw's discards; burns.
    for game in ("mambo", "five-card-stud", "triple-draw"):
        lines = fixture_lines(game)
        for hand in (1, 2, 5):
            records = hand_of(lines, hand)
            for upto in range(1, len(records) + 1):
                prefix = records[:upto]
                built = feed_of(prefix, "public", math.inf)
                public = shown_at_showdown(prefix)
                assert not sent(built) & (hidden(prefix) - public - face_up(prefix)), (game, hand)
                assert not built.face_down
                assert built.release_at is None


def face_up(records: list[Timed]) -> set[str]:
    return {e.card for e in events(records) if isinstance(e, ev.CardDealt) and not hidden_cards(e)}


@pytest.mark.fast
def test_the_public_feed_shows_the_showdown_and_never_a_folded_hand() -> None:
    records = hand_of(fixture_lines(), 5)  # seat 1 folds (record 261); 2, 3 and 6 show down
    built = feed_of(records, "public", math.inf)
    showdown = shown_at_showdown(records)
    assert showdown <= sent(built)
    folded = {card for card, _ in holes_by_seat(records)[1]}
    assert not folded & sent(built)
    seat1 = next(seat for seat in built.hand.seats if seat.seat == 1)
    assert seat1.status == "folded"
    assert built.hand.state == "settled"
    assert built.hand.settlement is not None
    assert all(card is None for card in built.hand.burns)


@pytest.mark.fast
def test_the_surveillance_feed_carries_every_card_live_and_says_so() -> None:
    for game in ("mambo", "triple-draw"):
        records = hand_of(fixture_lines(game), 1)
        for upto in (len(records) // 2, len(records)):
            built = feed_of(records[:upto], "surveillance", 0.0)
            assert hidden(records[:upto]) <= sent(built), game
            assert built.face_down  # the access log records it
    # A draw's discards (14.12A(f)) are carried: the triple draw's hand 1 has them.
    draw = feed_of(hand_of(fixture_lines("triple-draw"), 1), "surveillance", 0.0)
    assert draw.hand.discards
    assert all(card is not None for card in draw.hand.discards)


@pytest.mark.fast
def test_the_broadcast_sends_a_hole_card_only_once_its_delay_has_run_out() -> None:
    records = hand_of(fixture_lines()[:SECOND_ROUND], 1)
    holes = holes_by_seat(records)
    assert {seat: len(cards) for seat, cards in holes.items()} == {1: 2, 2: 2, 3: 1, 4: 2}
    live = {card: at for seat, cards in holes.items() if seat != 3 for card, at in cards}
    first = min(live.values())
    before = feed_of(records, "broadcast", first + DELAY - 0.001)
    assert not sent(before) & secret(records)
    assert not before.face_down
    assert before.release_at == first + DELAY  # the feed wakes then, with no record to wait for
    at = feed_of(records, "broadcast", first + DELAY)
    released = {card for card, dealt in live.items() if dealt == first}
    assert released
    assert sent(at) & secret(records) == released
    assert at.face_down
    after = feed_of(records, "broadcast", max(live.values()) + DELAY)
    assert sent(after) & secret(records) == set(live)
    assert after.release_at is None
    # Never a burn (no hole card), and never seat 3's: it folded in the first round.
    assert all(card is None for card in after.hand.burns)
    assert not {card for card, _ in holes[3]} & sent(after)
    # Unless the room chooses: broadcast_folded = true sends the folded seat's after the delay.
    folded = feed_of(records, "broadcast", math.inf, replace(SETTINGS, broadcast_folded=True))
    assert {card for card, _ in holes[3]} <= sent(folded)
    assert all(card is None for card in folded.hand.burns)


@pytest.mark.fast
def test_the_feed_follows_the_table_as_its_display_does() -> None:
    # Hand 1 of the Mambo fixture after its first round's bets (record 33): seat 3 to act, 34
    # in the pot (as test_web_policy's frames and the floor page's row say).
    built = feed_of(hand_of(fixture_lines()[:33], 1), "public", math.inf)
    assert (built.hand.street, built.hand.pot, built.hand.to_act) == ("first round", 34, 3)
    assert [len(seat.cards) for seat in built.hand.seats] == [2, 2, 2, 2]
    assert all(seat.cards[0] is None and seat.cards[1] for seat in built.hand.seats)


@pytest.mark.fast
def test_each_feed_event_fits_the_published_schema() -> None:
    assert feedjsonschema.PUBLISHED.read_text(encoding="utf-8") == feedjsonschema.schema_text(), (
        "regenerate it: .venv/bin/python -m controller.floor.web.feedjsonschema"
    )
    assert feedjsonschema.PUBLISHED_BROKEN.read_text(encoding="utf-8") == (
        feedjsonschema.broken_schema_text()
    ), "regenerate it: .venv/bin/python -m controller.floor.web.feedjsonschema"
    published = json.loads(feedjsonschema.PUBLISHED.read_text(encoding="utf-8"))
    assert published["version"] == 1
    for game in ("mambo", "five-card-stud", "triple-draw"):
        lines = fixture_lines(game)
        for hand in (1, 3, 5):  # hand 3 is voided by a misdeal
            records = hand_of(lines, hand)
            for feed in policy.FEEDS:
                for upto in (1, len(records) // 2, len(records)):
                    data = json.loads(json.dumps(feed_of(records[:upto], feed, 0.0).hand.as_json()))
                    assert schema_problems(data, published, published, "event") == [], (game, feed)
    wrong = {**data, "version": 2, "cards": []}
    problems = schema_problems(wrong, published, published, "event")
    assert "event.version: 2 is not 1" in problems
    assert "event: cards is not allowed" in problems


@pytest.mark.fast
def test_web_feeds_settings_are_read_and_a_bad_value_is_named(tmp_path: Path) -> None:
    base = (
        '[nats]\nservers = ["nats://127.0.0.1:4222"]\nuser = "floor"\npassword_file = "n"\n'
        '[postgres]\ndbname = "tablectl"\n[web]\nsecret_file = "s"\n'
    )
    default = parse(tomllib.loads(base), tmp_path, "f").web.feeds
    assert default == FeedSettings(1800.0, False)
    set_ = parse(
        tomllib.loads(base + "[web.feeds]\nbroadcast_delay = 30\nbroadcast_folded = true\n"),
        tmp_path,
        "f",
    )
    assert set_.web.feeds == FeedSettings(30.0, True)
    with pytest.raises(FloorConfigError) as caught:
        parse(
            tomllib.loads(
                base + '[web.feeds]\nbroadcast_delay = -1\nbroadcast_folded = "no"\ndelay = 3\n'
            ),
            tmp_path,
            "f",
        )
    said = str(caught.value)
    assert "web.feeds.broadcast_delay = -1: expected a number of seconds, more than 0" in said
    assert "web.feeds.broadcast_folded" in said
    assert "expected true or false" in said
    assert "web.feeds.delay" in said
    for bad in ("0", "86401", "true", '"30"', "inf"):
        with pytest.raises(FloorConfigError, match="broadcast_delay"):
            parse(tomllib.loads(base + f"[web.feeds]\nbroadcast_delay = {bad}\n"), tmp_path, "f")
