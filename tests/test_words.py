"""Counted nouns: what the commands print says ``1 hand`` and ``2 hands``, never ``1 hands``."""

from __future__ import annotations

import pytest

from controller.poker.words import counted

pytestmark = pytest.mark.fast


@pytest.mark.parametrize(
    ("count", "noun", "text"),
    [(1, "hand", "1 hand"), (2, "hand", "2 hands"), (0, "card", "0 cards"), (1, "file", "1 file")],
)
def test_one_is_singular_and_every_other_count_plural(count: int, noun: str, text: str) -> None:
    """Exactly one takes the singular; none and more than one the plural."""
    assert counted(count, noun) == text
