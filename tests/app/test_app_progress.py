"""Long work shows a progress bar at a terminal and stays quiet in a pipe."""

from __future__ import annotations

import io
import os
import pty

from controller.logs.progress import Progress


def read_all(master: int) -> str:
    """Everything written to the pty: one read returns only what had arrived by then."""
    chunks = []
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: the terminal's side is closed and all of it was read
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks).decode()


def test_the_bar_is_drawn_at_a_terminal_and_ends_its_line() -> None:
    """At a terminal (a real pty) the bar redraws one line and ends it when done."""
    master, slave = pty.openpty()
    try:
        with os.fdopen(slave, "w", closefd=True) as stream:
            bar = Progress(4, stream, label="hands")
            assert bar.enabled
            for done in range(1, 5):
                bar.update(done)
        out = read_all(master)
    finally:
        os.close(master)
    assert "\r[#######" in out
    assert "4/4 hands" in out
    assert out.rstrip("\r\n").count("\r") >= 4


def test_the_bar_writes_nothing_in_a_pipe() -> None:
    """In a pipe (not a terminal) nothing is written at all."""
    stream = io.StringIO()
    bar = Progress(3, stream)
    for done in range(1, 4):
        bar.update(done)
    assert not bar.enabled
    assert stream.getvalue() == ""
