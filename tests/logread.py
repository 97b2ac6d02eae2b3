"""Reading the JSON log of a process that is still writing it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def whole_lines(path: Path, *, json_only: bool = False) -> list[dict[str, Any]]:
    """The lines of the JSON log at ``path`` written whole so far ([] while there is no file).

    A line the running process is writing can be read in part: one write of a line is copied
    into the file a page at a time and the file's size moves with each page, so a reader can
    see the line's head without its end, and that head can even end with a nested object's
    ``}``. Only the lines ended by their newline are read; the one in writing is read at the
    next poll. ``json_only``: lines that are not JSON objects (a server's own words before its
    log is set up) are passed over; otherwise each line must be one.
    """
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return []
    lines = text[: text.rfind(b"\n") + 1].splitlines()
    return [json.loads(line) for line in lines if not json_only or line.startswith(b"{")]
