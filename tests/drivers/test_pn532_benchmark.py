"""benchmarks/pn532.py still runs (a few cards, not a measurement: the figures are in
docs/performance.md)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "pn532.py"


def test_the_benchmark_deals_through_both_readers_and_prints_its_figures(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), "--cards", "6", "--dwell", "0.2"])
    with pytest.raises(SystemExit):
        runpy.run_path(str(SCRIPT), run_name="__main__")
    out = capsys.readouterr().out
    for needle in (
        "6 cards, 115200 baud",
        "missed ",
        "field to read: p50",
        "on the wire: 3.385 ms",
    ):
        assert needle in out
