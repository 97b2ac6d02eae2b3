"""The dealer's panel: its sentences, its codec (both directions) and its host-side driver.

The panel has one button per ``controller.poker.inputs.Button`` (the wire token is
the Button's value), a light per seat and one line of text. docs/protocol.md
is the contract.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Final, Self

from controller.poker.inputs import Button
from drivers.seam.device import LINE_WIDTH, PanelFeatures
from drivers.seam.events import ButtonPressed, EventSink, LinkEvent
from drivers.tablectl.link import LinkSettings
from drivers.tablectl.nmea import EncodeError, Talker
from drivers.tablectl.sentences import (
    Ack,
    Codec,
    FieldError,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
    check_seq,
    expect_count,
    parse_choice,
    parse_int,
    parse_seq,
)
from drivers.tablectl.transport import DeviceDriver

#: Seats a panel can light, one light a seat of the largest table: Mambo seats eleven
#: (13:69F-14.13A(b)); 0 puts every light out.
MAX_SEAT: Final = 11
#: Characters the panel's display shows on its one line: the controller's whole line.
TEXT_WIDTH: Final = LINE_WIDTH


@dataclass(frozen=True, slots=True)
class Press:
    """The dealer pressed a button."""

    KIND: ClassVar[str] = "BTN"
    seq: int
    button: Button

    def to_fields(self) -> tuple[str, ...]:
        check_seq(self.seq)
        return (str(self.seq), self.button.value)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seq", "button"))
        return cls(
            parse_seq(cls.KIND, fields[0]), parse_choice(cls.KIND, "button", fields[1], Button)
        )


@dataclass(frozen=True, slots=True)
class Light:
    """Light the seat to act (1..10) and put the others out; 0 puts all out."""

    KIND: ClassVar[str] = "LIT"
    seat: int

    def to_fields(self) -> tuple[str, ...]:
        if not 0 <= self.seat <= MAX_SEAT:
            raise EncodeError(f"LIT seat {self.seat}: expected 0 (none) to {MAX_SEAT}")
        return (str(self.seat),)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("seat",))
        return cls(parse_int(cls.KIND, "seat", fields[0], 0, MAX_SEAT))


@dataclass(frozen=True, slots=True)
class Text:
    """Show one line of text (printable ASCII, at most 40 characters; empty clears)."""

    KIND: ClassVar[str] = "TXT"
    text: str

    def to_fields(self) -> tuple[str, ...]:
        text = self.text
        # ASCII's printable characters are exactly " " to "~".
        if len(text) > TEXT_WIDTH or not (text.isascii() and text.isprintable()):
            raise EncodeError(
                f"TXT text {self.text!r}: expected at most {TEXT_WIDTH} printable ASCII characters"
            )
        return (self.text,)

    @classmethod
    def from_fields(cls, fields: tuple[str, ...]) -> Self:
        expect_count(cls.KIND, fields, ("text",))
        text = fields[0]
        if len(text) > TEXT_WIDTH:
            raise FieldError(cls.KIND, "text", text, f"at most {TEXT_WIDTH} characters")
        return cls(text)


#: What the panel says.
PANEL_SENTENCES: Final[dict[str, type[Sentence]]] = {s.KIND: s for s in (Hello, Heartbeat, Press)}
#: What the host says to the panel.
HOST_TO_PANEL: Final[dict[str, type[Sentence]]] = {
    s.KIND: s for s in (Query, Welcome, Reject, Ack, Light, Text)
}


def host_codec() -> Codec:
    """The host's end of the panel link: decodes panel sentences, encodes host ones."""
    return Codec(Talker.PANEL, Talker.HOST, PANEL_SENTENCES)


def device_codec() -> Codec:
    """The panel's end (for the simulator and tests): decodes host sentences, encodes panel ones."""
    return Codec(Talker.HOST, Talker.PANEL, HOST_TO_PANEL)


# --- The host's driver --------------------------------------------------------------------


class PanelDriver(DeviceDriver[ButtonPressed]):
    """The host's driver for the panel: yields ButtonPressed; lights a seat and shows text.

    ``light`` and ``show`` may be called from any thread and never block. The
    panel's display is state: the reading thread writes it on every change,
    after every welcome, and again every ``refresh`` seconds, so a lost frame
    is repaired (docs/protocol.md, 3.4).
    """

    device = "panel"

    def __init__(
        self,
        settings: LinkSettings,
        events: EventSink[ButtonPressed | LinkEvent],
        refresh: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        ack_after_commit: bool = False,
    ) -> None:
        self.refresh = refresh
        self._state_lock = threading.Lock()
        self._light = Light(0)
        self._text = Text("")
        self._changed = False
        self._last_refresh: float | None = None
        super().__init__(settings, events, clock, ack_after_commit=ack_after_commit)

    @property
    def features(self) -> PanelFeatures:
        """A light per seat and one line of ``TEXT_WIDTH`` characters (docs/protocol.md 3.4)."""
        return PanelFeatures(lights=True, text_width=TEXT_WIDTH)

    def make_codec(self) -> Codec:
        return host_codec()

    def light(self, seat: int) -> None:
        """Light the seat to act (0: none); raises EncodeError for a seat the panel has not.

        Never blocks: the reading thread writes it within one read slice.
        """
        sentence = Light(seat)
        sentence.to_fields()
        with self._state_lock:
            self._light = sentence
            self._changed = True

    def show(self, text: str) -> None:
        """Show a line of text; raises EncodeError if it is not 40 printable ASCII or fewer.

        Never blocks: the reading thread writes it within one read slice.
        """
        sentence = Text(text)
        sentence.to_fields()
        with self._state_lock:
            self._text = sentence
            self._changed = True

    def light_and_show(self, seat: int, text: str) -> None:
        """Light ``seat`` and show ``text`` as one change (raising as ``light`` and ``show``
        do), so that the reading thread never sends one without the other.

        Never blocks: the reading thread writes it within one read slice.
        """
        light, line = Light(seat), Text(text)
        light.to_fields()
        line.to_fields()
        with self._state_lock:
            self._light, self._text = light, line
            self._changed = True

    def on_accepted(self, sentence: Sentence, now: float) -> None:
        if isinstance(sentence, Press):
            self._log.info("button", button=sentence.button.value, seq=sentence.seq)
            self.events.put(ButtonPressed(sentence.button, sentence.seq))

    def on_welcomed(self) -> None:
        self._last_refresh = None

    def on_tick(self, now: float) -> None:
        due = self._last_refresh is None or now - self._last_refresh >= self.refresh
        with self._state_lock:
            if not (due or self._changed):
                return
            # The line first: it names the seat, so between the two frames the new line stands
            # under the old light, never a new seat lit under the old seat's options.
            state = (self._text, self._light)
            self._changed = False
        self._last_refresh = now
        for sentence in state:
            self.send(sentence)
