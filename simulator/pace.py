"""The pace of a dealer bot's acts: the pause before each kind of act.

As fast as the devices take them for tests (``Pace.fast``), or with a dealer's pauses for
a demo (``Pace.human``); a shuffle always outlasts the host's RFID repeat window.
"""

from __future__ import annotations

from dataclasses import dataclass

from simulator.acts import Act, Deal, Discard, Press, Restock, Shuffle, Tag

#: The host's RFID repeat window by default (drivers.tablectl.shoe.ShoeDriver): a card read at
#: the same point again within it is taken for the same read, so a new shuffle (whose
#: first cards may have been read moments ago) must take longer than this.
DEFAULT_REPEAT_WINDOW = 0.5


@dataclass(frozen=True, slots=True)
class Pace:
    """Seconds before each kind of act.

    ``shuffle`` is how long a shuffle and cut (or reshuffling the discards)
    takes: it must exceed the host's RFID repeat window, or a card dealt again
    after the shuffle would be dropped as a repeat of its last read.
    ``repeat`` is the gap before a card already read at the slot is read there
    again (a script's card dealt twice), for the same reason.
    ``stall`` is how long the runner waits for a jammed feed (a full store: the
    host is not acknowledging) to clear before it gives up.
    """

    card: float = 0.0
    button: float = 0.0
    shuffle: float = DEFAULT_REPEAT_WINDOW + 0.1
    repeat: float = DEFAULT_REPEAT_WINDOW + 0.1
    stall: float = 10.0

    def __post_init__(self) -> None:
        for name in ("card", "button", "shuffle", "repeat", "stall"):
            if getattr(self, name) < 0:
                raise ValueError(f"pace: {name}={getattr(self, name)}; expected 0 or more seconds")

    @classmethod
    def fast(cls, repeat_window: float = DEFAULT_REPEAT_WINDOW) -> Pace:
        """As fast as the devices take it; shuffles just outlast the repeat window."""
        outlast = repeat_window * 1.2 + 0.01
        return cls(shuffle=outlast, repeat=outlast)

    @classmethod
    def human(cls) -> Pace:
        """A dealer's pace, to watch: a card in half a second, a decision in a second."""
        return cls(card=0.5, button=1.0, shuffle=3.0)

    def before(self, act: Act) -> float:
        """The pause before ``act``."""
        if isinstance(act, Shuffle | Restock):
            return self.shuffle
        if isinstance(act, Deal | Discard | Tag):
            return self.card
        if isinstance(act, Press):
            return self.button
        return 0.0
