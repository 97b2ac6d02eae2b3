"""The registry imports a backend only when a table names it, and the application never
imports one: checked in fresh interpreters, where sys.modules shows what was imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.config.equipment import read_devices
from controller.config.game import DEVICE_KEYS
from controller.tomlcheck import Problem, Section
from drivers.seam import registry

ROOT = Path(__file__).resolve().parents[2]
#: Every backend package: what the seam and the application must not import.
BACKEND_PACKAGES = sorted(
    {
        target.partition(":")[0].rsplit(".", 1)[0]
        for kinds in registry.BACKENDS.values()
        for target in kinds.values()
    }
)


def imported_after(code: str) -> list[str]:
    """The modules of ``drivers`` a fresh interpreter has imported after running ``code``."""
    script = code + (
        "\nimport json, sys\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('drivers'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True
    )
    found = json.loads(done.stdout.splitlines()[-1])
    assert isinstance(found, list)
    return found


def backends_in(modules: list[str]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in BACKEND_PACKAGES)]


def test_the_backend_packages_are_known() -> None:
    assert "drivers.tablectl" in BACKEND_PACKAGES
    assert all(p.startswith("drivers.") and p != "drivers.seam" for p in BACKEND_PACKAGES)


def test_importing_the_seam_imports_no_backend() -> None:
    modules = imported_after(
        "import drivers.seam, drivers.seam.device, drivers.seam.events, drivers.seam.keys, "
        "drivers.seam.registry, drivers.seam.settings, drivers.seam.tags"
    )
    assert "drivers.seam.registry" in modules
    assert backends_in(modules) == []


@pytest.mark.parametrize(
    ("role", "kind"),
    sorted((role, kind) for role, kinds in registry.BACKENDS.items() for kind in kinds),
)
def test_a_backend_is_imported_when_asked_for_and_no_other(role: str, kind: str) -> None:
    target = registry.BACKENDS[role][kind]
    own = target.partition(":")[0].rsplit(".", 1)[0]
    modules = imported_after(
        f"from drivers.seam import registry\nregistry.backend({role!r}, {kind!r})"
    )
    assert target.partition(":")[0] in modules
    assert [m for m in backends_in(modules) if not m.startswith(own)] == []


def test_the_application_imports_no_backend() -> None:
    """The controller's loop, opening, service, configuration, status and enrollment reach
    the devices only through the seam."""
    modules = imported_after(
        "import controller.table.loop, controller.table.opening, controller.table.service, "
        "controller.table.core, controller.config.tabletoml, controller.cli.commands.status, "
        "controller.cli.commands.enroll, controller.cli.commands.run, "
        "controller.cli.commands.config"
    )
    assert backends_in(modules) == []


def test_a_table_toml_kind_not_registered_names_the_key() -> None:
    problems: list[Problem] = []
    data = {
        "devices": {
            "shoe": {"kind": "tablectll", "path": "/dev/tablectl/shoe"},
            "panel": {"path": "/dev/tablectl/panel"},
        }
    }
    top = Section(problems, "", data, ("devices",), {})
    assert read_devices(top) is None
    assert [p.key for p in problems] == ["devices.shoe.kind"]
    assert "did you mean 'tablectl'?" in problems[0].expected


def test_the_configurations_device_keys_are_the_default_kinds() -> None:
    """config_sections lists the default kind's keys for "did you mean" and the docs'
    reference; the backend is what checks them, and the two lists must not drift."""
    default = registry.backend("shoe", registry.DEFAULT_KIND)
    assert ("kind", *default.keys) == DEVICE_KEYS
    assert registry.backend("panel", registry.DEFAULT_KIND).keys == default.keys
