"""The engine benchmark script still runs (a few hands, not a measurement)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "engine.py"


def test_the_benchmark_plays_both_games_and_pokerkit_and_prints_the_ratio(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``python benchmarks/engine.py --hands 10`` prints each game's rate, PokerKit's for stud
    and for triple draw, and both ratios.
    """
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--hands", "10"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(SCRIPT), run_name="__main__")
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for needle in ("five-card-stud", "mambo", "triple-draw", "PokerKit", "ratio (triple draw"):
        assert needle in out
