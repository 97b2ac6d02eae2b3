"""pyproject.toml's package metadata in the form today's setuptools builds without a warning
(``make demo``'s first install, ``make wheelhouse``): the licence an SPDX expression."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

pytestmark = pytest.mark.fast

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"

#: One SPDX licence identifier or a project's own ``LicenseRef-`` (SPDX 2.3, annex D); the
#: project has one licence, so no ``AND``/``OR`` expression.
SPDX_ID = re.compile(r"(LicenseRef-)?[A-Za-z0-9.-]+")


def test_the_licence_is_an_spdx_expression_and_the_build_reads_it() -> None:
    """``project.license`` as a table (``{ text = ... }``) is deprecated by setuptools 77, which
    reads an SPDX expression (PEP 639); so the build requires 77 or later, and no
    ``License ::`` classifier repeats it (PEP 639 forbids both)."""
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    project = data["project"]
    assert isinstance(project["license"], str), project["license"]
    assert SPDX_ID.fullmatch(project["license"])
    assert not [c for c in project.get("classifiers", []) if c.startswith("License ::")]
    (setuptools,) = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    minimum = re.fullmatch(r"setuptools>=(\d+)(\.\d+)*", setuptools)
    assert minimum is not None, setuptools
    assert int(minimum.group(1)) >= 77
