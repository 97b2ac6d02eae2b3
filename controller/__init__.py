"""tablectl: the controller of a live casino poker table."""

from importlib import metadata

try:
    __version__ = metadata.version("tablectl")
except metadata.PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
