"""Fixtures of the driver contract suite: one run per backend in backends.BACKENDS."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import BACKENDS, Backend


@pytest.fixture(params=sorted(BACKENDS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    """A line between a test-side device and the host, over each backend in turn."""
    made = BACKENDS[request.param](tmp_path)
    yield made
    made.close()
