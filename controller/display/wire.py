"""The display feed's messages: a ``TableView`` as one line of JSON, and back. Pure.

The controller publishes its dealer's display on a unix socket (``controller.table.displayfeed``);
``tablectl display`` reads it (``controller.display.attach``). One JSON object a line,
UTF-8, each with a ``type``:

- ``{"type": "hello", "version": 1, "table_id": "T-7"}``: first, once;
- ``{"type": "view", "view": {...}}``: the whole view on attach, then each new one.

A view carries exactly what the in-process display is given: a face-down card is
``"back"`` (``FACE_DOWN``), never a code, because the view itself never holds one
(controller/poker/announce.py ``hidden_cards``; docs/display.md, What the table sees).
Decoding checks every field and raises :class:`FeedError` naming it, so a display
never draws half a message.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, TypeVar

from controller.display.view import (
    FACE_DOWN,
    ActionOption,
    ActionPrompt,
    AlarmView,
    Award,
    Destination,
    DeviceState,
    DeviceView,
    NextCard,
    OddChip,
    PotView,
    SeatStatus,
    SeatView,
    Severity,
    ShowdownView,
    ShownCard,
    ShownHand,
    TableView,
    ViewError,
)
from controller.poker.cards import Card, CardError
from controller.poker.inputs import Button

#: The feed's version: a display refuses a feed of another (the two tablectl differ).
VERSION: Final = 1
#: A face-down card on the wire.
BACK: Final = "back"
#: The longest line a display reads: an 11-seat showdown view is a few kilobytes.
MAX_LINE: Final = 256 * 1024

Json = dict[str, object]
E = TypeVar("E", bound=StrEnum)
T = TypeVar("T")


class FeedError(ValueError):
    """A feed line that is not a message of this version; the message names the field."""


@dataclass(frozen=True, slots=True)
class Hello:
    """The feed's first message: its version and the table it comes from."""

    version: int
    table_id: str


# --- encoding ------------------------------------------------------------------------------


def hello_line(table_id: str) -> bytes:
    """The hello a display reads first."""
    return _line({"type": "hello", "version": VERSION, "table_id": table_id})


def view_line(view: TableView) -> bytes:
    """One view as a feed line."""
    return _line({"type": "view", "view": encode_view(view)})


def _line(message: Json) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _card(card: ShownCard) -> str:
    return card.code if isinstance(card, Card) else BACK


def encode_view(view: TableView) -> Json:
    """The view as plain JSON values."""
    return {
        "game": view.game,
        "table_id": view.table_id,
        "seats": [_seat(seat) for seat in view.seats],
        "hand_number": view.hand_number,
        "street": view.street,
        "stakes": view.stakes,
        "rules": view.rules,
        "pots": [
            {"name": pot.name, "amount": pot.amount, "eligible": list(pot.eligible)}
            for pot in view.pots
        ],
        "community": [card.code for card in view.community],
        "next_card": {
            "destination": view.next_card.destination.value,
            "seat": view.next_card.seat,
            "note": view.next_card.note,
        },
        "to_act": None if view.to_act is None else _prompt(view.to_act),
        "alarms": [
            {"severity": a.severity.value, "what": a.what, "todo": a.todo, "rule": a.rule}
            for a in view.alarms
        ],
        "devices": [
            {"name": d.name, "state": d.state.value, "message": d.message} for d in view.devices
        ],
        "showdown": None if view.showdown is None else _showdown(view.showdown),
        "dealer_prompt": view.dealer_prompt,
        "log": list(view.log),
        "hand_in_progress": view.hand_in_progress,
        "deck": view.deck,
    }


def _seat(seat: SeatView) -> Json:
    return {
        "number": seat.number,
        "player": seat.player,
        "stack": seat.stack,
        "bet": seat.bet,
        "cards": [_card(card) for card in seat.cards],
        "status": seat.status.value,
        "button": seat.button,
    }


def _prompt(prompt: ActionPrompt) -> Json:
    return {
        "seat": prompt.seat,
        "reason": prompt.reason,
        "to_call": prompt.to_call,
        "options": [
            {"button": o.button.value, "action": o.action, "amount": o.amount}
            for o in prompt.options
        ],
    }


def _showdown(showdown: ShowdownView) -> Json:
    return {
        "hands": [
            {
                "seat": h.seat,
                "cards": [card.code for card in h.cards],
                "high": h.high,
                "low": h.low,
            }
            for h in showdown.hands
        ],
        "awards": [
            {"pot": a.pot, "seat": a.seat, "amount": a.amount, "share": a.share}
            for a in showdown.awards
        ],
        "odd_chips": [
            {"pot": c.pot, "seat": c.seat, "amount": c.amount, "rule": c.rule}
            for c in showdown.odd_chips
        ],
        "rake": showdown.rake,
    }


# --- decoding ------------------------------------------------------------------------------


def decode_line(line: bytes) -> Hello | TableView:
    """The message one feed line holds; FeedError naming what is wrong."""
    try:
        message = json.loads(line)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise FeedError(f"feed line {line[:60]!r}: expected one JSON object") from None
    fields = _Fields(message, "message")
    kind = fields.text("type")
    if kind == "hello":
        return Hello(fields.integer("version"), fields.text("table_id"))
    if kind == "view":
        return decode_view(fields.nested("view"))
    raise FeedError(f"message type {kind!r}: expected 'hello' or 'view'")


def decode_view(fields: _Fields) -> TableView:
    """A view from its JSON fields (``encode_view``'s form)."""
    try:
        next_card = fields.nested("next_card")
        return TableView(
            game=fields.text("game"),
            table_id=fields.text("table_id"),
            seats=fields.each("seats", _read_seat),
            hand_number=fields.optional_integer("hand_number"),
            street=fields.text("street"),
            stakes=fields.text("stakes"),
            rules=fields.text("rules"),
            pots=fields.each("pots", _read_pot),
            community=fields.each_text("community", _face_card),
            next_card=NextCard(
                next_card.choice("destination", Destination),
                next_card.optional_integer("seat"),
                next_card.text("note"),
            ),
            to_act=fields.maybe("to_act", _read_prompt),
            alarms=fields.each("alarms", _read_alarm),
            devices=fields.each("devices", _read_device),
            showdown=fields.maybe("showdown", _read_showdown),
            dealer_prompt=fields.text("dealer_prompt"),
            log=fields.each_text("log", str),
            hand_in_progress=fields.flag("hand_in_progress"),
            deck=fields.text("deck"),
        )
    except ViewError as error:
        raise FeedError(f"view: {error}") from None


def _read_seat(f: _Fields) -> SeatView:
    return SeatView(
        number=f.integer("number"),
        player=f.text("player"),
        stack=f.optional_integer("stack"),
        bet=f.integer("bet"),
        cards=f.each_text("cards", _shown_card),
        status=f.choice("status", SeatStatus),
        button=f.flag("button"),
    )


def _read_pot(f: _Fields) -> PotView:
    return PotView(f.text("name"), f.integer("amount"), f.integers("eligible"))


def _read_prompt(f: _Fields) -> ActionPrompt:
    return ActionPrompt(
        seat=f.integer("seat"),
        reason=f.text("reason"),
        options=f.each("options", _read_option),
        to_call=f.integer("to_call"),
    )


def _read_option(f: _Fields) -> ActionOption:
    return ActionOption(f.choice("button", Button), f.text("action"), f.optional_integer("amount"))


def _read_alarm(f: _Fields) -> AlarmView:
    return AlarmView(f.choice("severity", Severity), f.text("what"), f.text("todo"), f.text("rule"))


def _read_device(f: _Fields) -> DeviceView:
    return DeviceView(f.text("name"), f.choice("state", DeviceState), f.text("message"))


def _read_showdown(f: _Fields) -> ShowdownView:
    return ShowdownView(
        hands=f.each("hands", _read_hand),
        awards=f.each(
            "awards",
            lambda a: Award(a.text("pot"), a.integer("seat"), a.integer("amount"), a.text("share")),
        ),
        odd_chips=f.each(
            "odd_chips",
            lambda c: OddChip(
                c.text("pot"), c.integer("seat"), c.integer("amount"), c.text("rule")
            ),
        ),
        rake=f.integer("rake"),
    )


def _read_hand(f: _Fields) -> ShownHand:
    low = f.raw("low")
    if low is not None and not isinstance(low, str):
        raise FeedError(f"{f.where}.low {low!r}: expected text or null")
    return ShownHand(f.integer("seat"), f.each_text("cards", _face_card), f.text("high"), low)


def _face_card(text: str) -> Card:
    return Card.parse(text)


def _shown_card(text: str) -> ShownCard:
    return FACE_DOWN if text == BACK else Card.parse(text)


class _Fields:
    """One JSON object of a message, read field by field; each error names the field's path."""

    def __init__(self, data: object, where: str) -> None:
        if not isinstance(data, dict):
            raise FeedError(f"{where} {str(data)[:60]!r}: expected a JSON object")
        self.data: Mapping[str, object] = data
        self.where = where

    def raw(self, key: str) -> object:
        if key not in self.data:
            raise FeedError(f"{self.where}: expected the field {key!r}")
        return self.data[key]

    def text(self, key: str) -> str:
        value = self.raw(key)
        if not isinstance(value, str):
            raise FeedError(f"{self.where}.{key} {value!r}: expected text")
        return value

    def flag(self, key: str) -> bool:
        value = self.raw(key)
        if not isinstance(value, bool):
            raise FeedError(f"{self.where}.{key} {value!r}: expected true or false")
        return value

    def integer(self, key: str) -> int:
        value = self.raw(key)
        if isinstance(value, bool) or not isinstance(value, int):
            raise FeedError(f"{self.where}.{key} {value!r}: expected a whole number")
        return value

    def optional_integer(self, key: str) -> int | None:
        return None if self.raw(key) is None else self.integer(key)

    def integers(self, key: str) -> tuple[int, ...]:
        found: list[int] = []
        for index, value in enumerate(self._list(key)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise FeedError(f"{self.where}.{key}[{index}] {value!r}: expected a whole number")
            found.append(value)
        return tuple(found)

    def choice(self, key: str, kind: type[E]) -> E:
        value = self.text(key)
        try:
            return kind(value)
        except ValueError:
            known = ", ".join(repr(member.value) for member in kind)
            raise FeedError(f"{self.where}.{key} {value!r}: expected one of {known}") from None

    def nested(self, key: str) -> _Fields:
        return _Fields(self.raw(key), f"{self.where}.{key}")

    def maybe(self, key: str, read: Callable[[_Fields], T]) -> T | None:
        value = self.raw(key)
        return None if value is None else read(_Fields(value, f"{self.where}.{key}"))

    def each(self, key: str, read: Callable[[_Fields], T]) -> tuple[T, ...]:
        return tuple(
            read(_Fields(value, f"{self.where}.{key}[{i}]"))
            for i, value in enumerate(self._list(key))
        )

    def each_text(self, key: str, read: Callable[[str], T]) -> tuple[T, ...]:
        def one(value: object) -> T:
            if not isinstance(value, str):
                raise FeedError(f"{value!r}: expected text")
            return read(value)

        return tuple(self._item(key, i, value, one) for i, value in enumerate(self._list(key)))

    def _list(self, key: str) -> list[object]:
        value = self.raw(key)
        if not isinstance(value, list):
            raise FeedError(f"{self.where}.{key} {str(value)[:60]!r}: expected a list")
        return value

    def _item(self, key: str, index: int, value: object, read: Callable[[object], T]) -> T:
        try:
            return read(value)
        except (FeedError, CardError) as error:
            raise FeedError(f"{self.where}.{key}[{index}]: {error}") from None
