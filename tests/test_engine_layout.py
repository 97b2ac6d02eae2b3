"""The engine's shape: one module per phase, none importing another; a small
façade; no engine or game module over 500 lines."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent / "controller" / "poker"
PHASES = ("dealing", "drawing", "betting", "showdown")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


@pytest.mark.parametrize("phase", PHASES)
def test_a_phase_module_imports_no_other_phase_module(phase: str) -> None:
    imported = _imports(ROOT / "engine" / f"{phase}.py")
    others = {f"controller.poker.engine.{other}" for other in PHASES if other != phase}
    assert not imported & others
    # Nor the façade or the hand in play that route inputs to them.
    assert not imported & {"controller.poker.engine.gametable", "controller.poker.engine.play"}


def test_the_table_is_a_small_facade_and_no_engine_or_game_module_passes_500_lines() -> None:
    assert len((ROOT / "engine" / "gametable.py").read_text(encoding="utf-8").splitlines()) < 400
    for path in [*(ROOT / "engine").glob("*.py"), *(ROOT / "games").glob("*.py")]:
        assert len(path.read_text(encoding="utf-8").splitlines()) <= 500, path.name
