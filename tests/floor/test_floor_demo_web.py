"""``tablectl floor demo --web`` (docs/floor-web.md, The demo) as the real command line: the demo's
floor and ``floor web`` on loopback with a user of each role, up before the tables deal; the
floor's records seen growing over HTTP while the tables deal; a supervisor logs in with the
password printed and sees the floor page; SIGTERM ends it with exit 0 once the summary is out,
no process and no folder left behind."""

from __future__ import annotations

import queue
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

from floorhelp import PATIENCE
from webhelp import Client

TABLECTL = [sys.executable, "-m", "controller"]
#: The longest wait for a line of the demo's: its servers, floor setup, a table's hands.
STARTUP = 240.0


def _lines(stream: object, into: queue.Queue[str | None]) -> None:
    assert hasattr(stream, "readline")
    for line in iter(stream.readline, ""):
        into.put(line)
    into.put(None)


def _until(lines: queue.Queue[str | None], pattern: str, seen: list[str]) -> re.Match[str]:
    """The first line matching ``pattern`` (every line read kept in ``seen``)."""
    while True:
        line = lines.get(timeout=STARTUP)
        if line is None:
            raise AssertionError("the demo ended before " + pattern + ":\n" + "".join(seen))
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found


def _processes_naming(folder: str) -> list[str]:
    """The command lines of this machine's processes that name ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if folder in command:
            found.append(f"{proc.name}: {command}")
    return found


def test_demo_web_serves_the_floor_to_a_supervisor_and_stops_cleanly_on_sigterm() -> None:
    demo = subprocess.Popen(
        [*TABLECTL, "floor", "demo", "--tables", "2", "--hands", "2", "--web"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(demo.stdout, out), daemon=True).start()
    threading.Thread(target=_lines, args=(demo.stderr, err), daemon=True).start()
    said: list[str] = []
    printed: list[str] = []
    try:
        folder = _until(err, r"in (/\S+tablectl-floor-demo-\S+)$", said).group(1)
        url = _until(out, r"http://127\.0\.0\.1:(\d+)/", printed)
        supervisor = _until(out, r"^  supervisor +(\S+)$", printed).group(1)
        _until(err, r"serving the web view", said)
        _until(out, r"every chain: links intact", printed)  # the summary, once every hand is dealt
        _until(err, r"every hand dealt and every chain walked; the web view serves", said)
        client = Client(int(url.group(1)))
        assert client.login("supervisor", "not the password").status == 401
        assert client.login("supervisor", supervisor).status == 303
        page = client.get("/floor")
        assert page.status == 200
        for table in ("T1", "T2"):
            assert f'data-table="{table}"' in page.text
        assert client.get("/alarms").status == 200
        demo.send_signal(signal.SIGTERM)
        assert demo.wait(timeout=PATIENCE) == 0, "".join(said + printed)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        for stream in (demo.stdout, demo.stderr):
            assert stream is not None
            stream.close()
    assert not Path(folder).exists()
    assert _processes_naming(folder) == []


def _stored(client: Client) -> int:
    """The records the floor stored, as /verify shows them (every table's journals)."""
    page = client.get("/verify")
    assert page.status == 200, page.text
    return sum(int(n) for n in re.findall(r'<td class="records">(\d+)</td>', page.text))


def test_demo_web_serves_while_the_tables_deal_and_the_floor_grows() -> None:
    # The web view is up before the tables deal: a new user watches the hands being played
    # (docs/floor-web.md, The demo). Hands enough that the dealing outlasts the look.
    demo = subprocess.Popen(
        [*TABLECTL, "floor", "demo", "--tables", "1", "--hands", "2000", "--web"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out: queue.Queue[str | None] = queue.Queue()
    err: queue.Queue[str | None] = queue.Queue()
    threading.Thread(target=_lines, args=(demo.stdout, out), daemon=True).start()
    threading.Thread(target=_lines, args=(demo.stderr, err), daemon=True).start()
    said: list[str] = []
    printed: list[str] = []
    try:
        folder = _until(err, r"in (/\S+tablectl-floor-demo-\S+)$", said).group(1)
        url = _until(out, r"http://127\.0\.0\.1:(\d+)/", printed)
        surveillance = _until(out, r"^  surveillance +(\S+)$", printed).group(1)
        client = Client(int(url.group(1)))
        assert client.login("surveillance", surveillance).status == 303
        seen = [_stored(client)]
        while len(set(seen)) < 3:  # the floor's records grow, twice, while the web serves
            assert demo.poll() is None, "".join(said + printed)
            while not out.empty():  # still dealing: the summary, once every hand is dealt,
                line = out.get()  # is not out yet
                assert line is not None
                printed.append(line)
            assert "every chain:" not in "".join(printed), (seen, "".join(printed))
            seen.append(_stored(client))
            assert seen[-1] >= seen[-2]
        assert client.get("/floor").status == 200
        demo.send_signal(signal.SIGTERM)
        # Stopped before every hand was dealt: as any stop by SIGTERM, 128 + 15.
        assert demo.wait(timeout=PATIENCE) == 128 + signal.SIGTERM, "".join(said + printed)
    finally:
        if demo.poll() is None:
            demo.kill()
            demo.wait()
        for stream in (demo.stdout, demo.stderr):
            assert stream is not None
            stream.close()
    assert not Path(folder).exists()
    assert _processes_naming(folder) == []
