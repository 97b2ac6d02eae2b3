"""``tablectl sim`` stopped by a signal removes the links it made: nothing left behind.

A link left behind points at a freed pty, which the next process's pty may take: a controller
would open that process's terminal as the shoe. Each test runs the real command in a
subprocess and sends it a real signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from devtime import WAIT

ROOT = Path(__file__).resolve().parents[2]


def start_sim(directory: Path) -> subprocess.Popen[str]:
    """``tablectl sim --dir DIR``, its input a pipe kept open, once it has printed its last
    line before the console reads that input (the links made, the console waiting). SIGINT is
    given the child as a terminal gives it: Python keeps it ignored if it starts ignored (a
    shell's background job)."""
    child = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        f"sys.argv = ['tablectl', 'sim', '--dir', {str(directory)!r}]; "
        "runpy.run_module('controller', run_name='__main__')"
    )
    sim = subprocess.Popen(
        [sys.executable, "-c", child],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert sim.stdout is not None
    for line in sim.stdout:
        if line.startswith("seed 0: deck A in play"):
            return sim
    sim.kill()
    sim.communicate()
    raise AssertionError(f"tablectl sim ended ({sim.returncode}) before it made its links")


def stop(sim: subprocess.Popen[str], signum: int) -> tuple[str, str]:
    sim.send_signal(signum)
    try:
        return sim.communicate(timeout=WAIT)
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.communicate()


@pytest.mark.parametrize(
    ("signum", "said"),
    [
        (signal.SIGTERM, "stopped by SIGTERM"),
        (signal.SIGHUP, "stopped by SIGHUP"),
        (signal.SIGINT, "stopped (Ctrl-C)"),
    ],
)
def test_a_signal_stops_the_simulator_and_removes_its_links(
    tmp_path: Path, signum: int, said: str
) -> None:
    """SIGTERM, SIGHUP (the terminal closed) and SIGINT: the links go with the devices, the
    simulator says why it stopped and exits 128 + the signal, without a traceback."""
    sim = start_sim(tmp_path)
    links = [tmp_path / "shoe", tmp_path / "panel"]
    assert all(link.is_symlink() for link in links)
    _out, err = stop(sim, signum)
    assert [link for link in links if os.path.lexists(link)] == []
    assert "Traceback" not in err
    assert err.strip() == f"tablectl sim: {said}; the links are removed"
    assert sim.returncode == 128 + signum


def test_a_link_pointed_elsewhere_meanwhile_is_left_alone(tmp_path: Path) -> None:
    """The shoe's link pointed at another device after the simulator made it (by hand, at a
    real shoe): it is not the simulator's any more, and SIGTERM leaves it; the panel's goes."""
    sim = start_sim(tmp_path)
    elsewhere = tmp_path / "real-shoe"
    elsewhere.write_text("", encoding="utf-8")
    shoe = tmp_path / "shoe"
    shoe.unlink()
    shoe.symlink_to(elsewhere)
    stop(sim, signal.SIGTERM)
    assert sim.returncode == 128 + signal.SIGTERM
    assert os.readlink(shoe) == str(elsewhere)
    assert not os.path.lexists(tmp_path / "panel")
