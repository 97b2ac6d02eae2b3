"""tablectl: the controller of a live casino poker table."""

from __future__ import annotations

from functools import cache


@cache
def version() -> str:
    """The installed tablectl's version, looked up at the first call: importlib.metadata and its
    look-up cost some 0.05 s of CPU, which every tablectl process paid at its start when this
    was done at import (docs/performance.md, Process start)."""
    from importlib import metadata  # noqa: PLC0415 -- as said above

    try:
        return metadata.version("tablectl")
    except metadata.PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


def __getattr__(name: str) -> str:
    """``controller.__version__``: ``version()``."""
    if name == "__version__":
        return version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
