"""Counted nouns for what the commands print: ``1 hand``, ``2 hands`` (pure)."""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural (noun + s) unless the count is exactly 1:
    ``counted(1, "card")`` is ``1 card``, ``counted(0, "card")`` is ``0 cards``."""
    return f"{count} {noun if count == 1 else noun + 's'}"
