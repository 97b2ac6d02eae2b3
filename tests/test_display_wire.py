"""The display feed's messages (controller/display/wire.py): a view goes over the socket and
comes back equal; a face-down card goes as a back; a bad line is refused naming the field."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from controller.display import wire
from controller.display.demo import SCENES
from controller.display.view import FACE_DOWN

pytestmark = pytest.mark.fast


@pytest.mark.parametrize("name", sorted(SCENES))
def test_every_demonstration_view_comes_back_equal(name: str) -> None:
    """Every field of every scene (seats, pots, the seat to act, alarms, devices, the
    showdown with its odd chips) survives the line."""
    view = SCENES[name]()
    line = wire.view_line(view)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert wire.decode_line(line) == view


def test_the_hello_carries_the_version_and_the_table() -> None:
    assert wire.decode_line(wire.hello_line("MB-3")) == wire.Hello(wire.VERSION, "MB-3")


def test_a_face_down_card_goes_as_a_back_and_comes_back_face_down() -> None:
    """docs/display.md, What the table sees: the view has no face for a hole card, and the
    line has none either."""
    view = SCENES["bring-in"]()
    line = wire.view_line(view)
    seats = json.loads(line)["view"]["seats"]
    backs = sum(card == wire.BACK for seat in seats for card in seat["cards"])
    assert backs == sum(card is FACE_DOWN for seat in view.seats for card in seat.cards) > 0


def _broken(change: str, value: object) -> bytes:
    message = json.loads(wire.view_line(SCENES["showdown"]()))
    where: dict[str, object] = message["view"]
    *path, last = change.split(".")
    for step in path:
        where = where[int(step)] if step.isdigit() else where[step]  # type: ignore[assignment,index]
    if value is KeyError:
        del where[last]
    else:
        where[last] = value
    return json.dumps(message).encode()


@pytest.mark.parametrize(
    ("change", "value", "said"),
    [
        ("game", 3, "message.view.game 3: expected text"),
        ("seats.0.cards", ["Zz"], "message.view.seats[0].cards[0]: not a card: 'Zz'"),
        ("seats.1.status", "asleep", "message.view.seats[1].status 'asleep': expected one of"),
        ("seats.0.stack", "many", "message.view.seats[0].stack 'many': expected a whole number"),
        ("hand_in_progress", "yes", "message.view.hand_in_progress 'yes': expected true or false"),
        ("pots", {}, "message.view.pots '{}': expected a list"),
        ("next_card", KeyError, "message.view: expected the field 'next_card'"),
        ("seats.0.number", 12, "view: seat number 12: expected 1 to 11"),
        ("showdown.awards.0.amount", -1, "amount -1 < 0"),
    ],
)
def test_a_bad_view_is_refused_naming_the_field(change: str, value: object, said: str) -> None:
    with pytest.raises(wire.FeedError) as caught:
        wire.decode_line(_broken(change, value))
    assert said in str(caught.value)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b"not json\n", "feed line b'not json\\n': expected one JSON object"),
        (b"[1, 2]\n", "message '[1, 2]': expected a JSON object"),
        (b'{"type": "seat"}\n', "message type 'seat': expected 'hello' or 'view'"),
        (b'{"type": "hello", "version": "1", "table_id": "T"}\n', "expected a whole number"),
        (b"\xff\n", "expected one JSON object"),
    ],
)
def test_a_line_that_is_no_message_is_refused(line: bytes, said: str) -> None:
    with pytest.raises(wire.FeedError) as caught:
        wire.decode_line(line)
    assert said in str(caught.value)


def test_a_changed_view_is_not_decoded_as_the_old_one() -> None:
    """The round trip compares whole views: a one-chip change shows."""
    view = SCENES["showdown"]()
    other = replace(
        view, seats=(replace(view.seats[0], bet=view.seats[0].bet + 1), *view.seats[1:])
    )
    assert wire.decode_line(wire.view_line(other)) != view
