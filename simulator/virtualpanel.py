"""The virtual panel: the dealer's buttons, a light per seat and a line of text.

A device core (``simulator.devices.DeviceCore``) that reports presses and obeys the
host's lights and text (docs/protocol.md 3.4). Pure: time is passed in.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.poker.inputs import Button
from drivers.tablectl import panel as panel_protocol
from drivers.tablectl.panel import Light, Press, Text
from drivers.tablectl.sentences import Sentence
from simulator.devices import PANEL_IDENTITY, DeviceCore, DeviceError, Identity, Timing


class VirtualPanel(DeviceCore):
    """The dealer's panel: one button per ``Button``, a light per seat, a line of text."""

    name = "panel"

    def __init__(
        self,
        boot: str,
        now: float,
        *,
        identity: Identity = PANEL_IDENTITY,
        timing: Timing | None = None,
        on_display: Callable[[int, str], None] | None = None,
        first_seq: int = 0,
    ) -> None:
        self.light = 0
        self.text = ""
        self.lights_received = 0
        self.texts_received = 0
        self._on_display = on_display
        codec = panel_protocol.device_codec()
        super().__init__(identity, codec, boot, now, timing or Timing(), first_seq=first_seq)

    def _power_up(self, boot: str, now: float) -> None:
        super()._power_up(boot, now)
        self.light, self.text = 0, ""  # a panel powers up dark; the host repaints it

    def press(self, button: Button) -> None:
        """The dealer presses a button (docs/protocol.md 3.2 ``BTN``)."""
        if self.room < 1:
            raise DeviceError("the panel's store is full: wait for the host to acknowledge")
        self.submit(Press(0, button))

    def _obey_device(self, sentence: Sentence) -> None:
        # Section 3.4: both set state and may be repeated any number of times.
        if isinstance(sentence, Light):
            self.lights_received += 1
            changed = sentence.seat != self.light
            self.light = sentence.seat
        elif isinstance(sentence, Text):
            self.texts_received += 1
            changed = sentence.text != self.text
            self.text = sentence.text
        else:
            return
        if changed and self._on_display is not None:
            self._on_display(self.light, self.text)
