"""benchmarks/keypad_latency.py runs (under umockdev-run, which it starts itself) and reports
the key-to-engine-input latency with fsync off and on, and the bare evdev read's, in one run."""

from __future__ import annotations

import re
import subprocess
import sys

from test_umockdev import ROOT, tools_or_skip


def test_the_keypad_benchmark_times_presses_and_the_floor_in_one_run() -> None:
    tools_or_skip("umockdev-run")
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "keypad_latency.py"), "--hands", "2",
         "--floor", "40", "--game", "five-card-stud"],
        capture_output=True, text=True, timeout=240, check=False, cwd=ROOT,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    figures = r"p50 (\d+\.\d+) ms, p99 (\d+\.\d+) ms, max (\d+\.\d+) ms"
    off = re.fullmatch(rf"key to engine input, fsync off: (\d+) presses, {figures}", lines[1])
    on = re.fullmatch(rf"key to engine input, fsync on: (\d+) presses, {figures}", lines[2])
    floor = re.fullmatch(
        rf"floor, bare evdev read every [\d.]+ ms: 40 presses, {figures}", lines[3]
    )
    assert off, result.stdout
    assert on, result.stdout
    assert floor, result.stdout
    # The same hands, so the same presses, in both runs; each a positive time under a second.
    assert off.group(1) == on.group(1)
    assert int(off.group(1)) > 10
    for p50 in (off.group(2), on.group(2), floor.group(1)):
        assert 0 < float(p50) < 1000
    assert lines[4].startswith("fsync off against the floor: p50 x")
