"""A one-line progress bar for long work at a terminal; nothing at all in a pipe."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO


@dataclass
class Progress:
    """A one-line progress bar on a terminal; nothing in a pipe."""

    total: int
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    label: str = "hands"
    done: int = 0

    def __post_init__(self) -> None:
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())

    def update(self, done: int) -> None:
        if not self.enabled or done == self.done:
            return
        self.done = done
        width = 30
        filled = width * done // max(1, self.total)
        bar = "#" * filled + "." * (width - filled)
        self.stream.write(f"\r[{bar}] {done}/{self.total} {self.label}")
        if done >= self.total:
            self.stream.write("\n")
        self.stream.flush()
