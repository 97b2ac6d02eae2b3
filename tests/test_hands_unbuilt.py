"""The hand tables are built at the first evaluation, not at import (controller/poker/hands.py,
``_Unbuilt``; docs/performance.md, Process start): whichever evaluator comes first, its first
lookup in a table not built yet answers as the built table does, a hand it cannot evaluate is
still refused, and the built tables are then in place, plain dicts. (That a process that
evaluates no hand builds none: tests/test_cli_registry.py.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from controller.poker import hands
from controller.poker.cards import Card, parse_cards

pytestmark = pytest.mark.fast

#: Each evaluator that reads a table, with a hand it values (a low that qualifies for the lows).
EVALUATORS: list[tuple[Callable[[Sequence[Card]], Any], str]] = [
    (hands.five_card_high_strength, "Ah Kh Qh Jh Th"),
    (hands.five_card_high, "As Ad Kc Kd 2h"),
    (hands.deuce_to_seven_strength, "7c 5d 4h 3s 2c"),
    (hands.deuce_to_seven_low, "7c 5d 4h 3s 2c"),
    (hands.partial_high_strength, "Qs Qd 9c"),
    (hands.partial_high, "Qs Qd 9c"),
    (hands.three_card_high_strength, "3h 2h Ah"),
    (hands.three_card_high, "3h 2h Ah"),
    (hands.six_or_better_low_strength, "6c 4d Ah"),
    (hands.six_or_better_low, "6c 4d Ah"),
    (hands.mambo_high_strength, "Kc Kd 9h 2s"),
    (hands.mambo_high, "Kc Kd 9h 2s"),
    (hands.mambo_low_strength, "Kc 5d 3h As"),
    (hands.mambo_low, "Kc 5d 3h As"),
]


@pytest.fixture
def unbuilt(monkeypatch: pytest.MonkeyPatch) -> None:
    """This module's tables as they are at import: each an ``_Unbuilt``."""
    for name in hands._TABLES:
        monkeypatch.setattr(hands, name, hands._Unbuilt(name))


def _values(evaluate: Callable[[Sequence[Card]], Any], text: str) -> Any:
    return evaluate(parse_cards(text))


@pytest.mark.parametrize(
    ("evaluate", "text"), EVALUATORS, ids=[evaluate.__name__ for evaluate, _text in EVALUATORS]
)
def test_the_first_evaluation_builds_the_tables_and_answers_as_they_do(
    evaluate: Callable[[Sequence[Card]], Any], text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _values(evaluate, text)
    assert expected  # a hand each evaluator values: not 0, not None
    for name in hands._TABLES:
        monkeypatch.setattr(hands, name, hands._Unbuilt(name))
    assert _values(evaluate, text) == expected
    assert {type(getattr(hands, name)) for name in hands._TABLES} == {dict}


@pytest.mark.usefixtures("unbuilt")
def test_a_hand_no_table_holds_is_refused_at_the_first_lookup() -> None:
    """Five cards of one rank twice over (a card given twice, which the fast path leaves to the
    public function): no table holds the key, so the HandError of a bad hand, not a KeyError."""
    with pytest.raises(hands.HandError, match="more than once"):
        hands.five_card_high_strength(parse_cards("Ah Ah Ah Ah Ah"))


@pytest.mark.usefixtures("unbuilt")
def test_a_low_that_does_not_qualify_is_none_at_the_first_lookup() -> None:
    """``get`` on a table not built yet looks in the built one: 0 (no low), not a key error."""
    assert hands.six_or_better_low_strength(parse_cards("Kc Qd Jh")) == 0
    assert hands.mambo_low(parse_cards("Kc Qd Jh 9s")) is None
