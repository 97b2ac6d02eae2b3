"""The layers (docs/app.md, Layers): the product's path loads no test equipment, and
importing a package registers nothing. ``make lint`` checks the import contracts themselves
(pyproject.toml, ``[tool.importlinter]``); these check what a fresh process really loads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _loaded(code: str) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter; it prints a JSON object as its last line."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


REPORT = """
import json, sys, serial
print(json.dumps({
    "simulator": sorted(m for m in sys.modules if m.split(".")[0] == "simulator"),
    "textual": any(m.split(".")[0] == "textual" for m in sys.modules),
    "handlers": list(serial.protocol_handler_packages),
}))
"""


def test_the_command_line_loads_no_simulator_and_no_display() -> None:
    """``tablectl run`` goes through ``build_parser``: after it, no simulator module is
    loaded, ``sim://`` is not a pyserial scheme, and Textual is not loaded."""
    found = _loaded("import controller.cli.main as c\nc.build_parser()\n" + REPORT)
    assert found["simulator"] == []
    assert found["textual"] is False
    assert "simulator" not in found["handlers"]  # type: ignore[operator]


def test_importing_the_simulator_registers_nothing() -> None:
    """No import side effects: ``sim://`` is registered when a device that answers it is made
    (``simulator.transports.MemoryEndpoint``), not when the package is imported."""
    found = _loaded("import simulator, simulator.table\n" + REPORT)
    assert "simulator" not in found["handlers"]  # type: ignore[operator]
    made = _loaded(
        "from simulator.transports import MemoryEndpoint\n"
        "MemoryEndpoint('shoe', lambda data: None, table='layers')\n" + REPORT
    )
    assert "simulator" in made["handlers"]  # type: ignore[operator]
