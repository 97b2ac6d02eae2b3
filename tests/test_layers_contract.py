"""The layers contract (pyproject.toml, ``[tool.importlinter]``) holds every module, and the
diagram of docs/app.md (Layers) is the contract drawn: ``make lint`` checks the imports, these
check that no module escapes the contract by being in no layer, and that the picture a reader
sees is the contract in force (as tests/test_machine.py holds docs/engine-machine.md against
the machine)."""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "docs" / "app.md"
#: The root package's own ``__init__`` holds the version only; every other module is in a layer.
ROOT_PACKAGE = "controller"


def _contract() -> list[list[str]]:
    """The layers contract's layers, top first, each a list of the packages beside each other."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["id"] == "layers"]
    return [[name.strip() for name in layer.split("|")] for layer in layers]


def _modules() -> list[str]:
    """Every module of the product, dotted, as the contract names them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found = []
    for top in config["tool"]["importlinter"]["root_packages"]:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return found


def _layer_of(module: str, layers: list[list[str]]) -> str | None:
    for layer in layers:
        for name in layer:
            if module == name or module.startswith(f"{name}."):
                return name
    return None


def test_every_module_is_inside_one_layer() -> None:
    """A module in no layer is checked by no contract: its imports could run up unseen."""
    layers = _contract()
    outside = [m for m in _modules() if m != ROOT_PACKAGE and _layer_of(m, layers) is None]
    assert outside == [], f"in no layer of pyproject.toml's contract: {outside}"


def test_every_layer_is_a_package_or_module_of_the_tree() -> None:
    """A layer named after a package that is gone would hold nothing and check nothing."""
    modules = set(_modules())
    missing = [name for layer in _contract() for name in layer if name not in modules]
    assert missing == []


def diagram(layers: list[list[str]]) -> str:
    """The contract as a mermaid flowchart: an arrow from a layer to the one below it, which it
    may import; packages beside each other share a row and import neither."""
    node = {name: name.replace(".", "_") for layer in layers for name in layer}
    lines = ["flowchart TD"]
    lines += [f'  {node[name]}["{name}"]' for layer in layers for name in layer]
    for upper, lower in itertools.pairwise(layers):
        lines.append(
            f"  {' & '.join(node[n] for n in upper)} --> {' & '.join(node[n] for n in lower)}"
        )
    return "\n".join(lines) + "\n"


def _committed_diagram() -> str:
    text = APP.read_text(encoding="utf-8")
    layers = text[text.index("\n## Layers\n") :]
    found = re.search(r"```mermaid\n(.*?)```", layers, re.S)
    assert found is not None, "docs/app.md, Layers: no mermaid diagram"
    return found.group(1)


def test_the_diagram_in_docs_app_md_is_the_contract() -> None:
    """docs/app.md's Layers diagram is the contract drawn afresh: a layer added, removed,
    renamed or reordered in pyproject.toml fails here until the diagram says the same."""
    expected = diagram(_contract())
    assert _committed_diagram() == expected, f"docs/app.md, Layers, should draw:\n{expected}"


def test_the_diagram_is_drawn_from_what_is_read() -> None:
    """The drawing follows the contract it is given: one row a layer, siblings on one row."""
    drawn = diagram([["a.x"], ["b", "c"], ["d"]])
    assert drawn == (
        'flowchart TD\n  a_x["a.x"]\n  b["b"]\n  c["c"]\n  d["d"]\n  a_x --> b & c\n  b & c --> d\n'
    )
