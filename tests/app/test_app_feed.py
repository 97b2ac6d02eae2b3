"""The display feed (controller/table/displayfeed.py): a real controller publishes its dealer's
display on a unix socket, and real clients attach over it (docs/display.md, The display feed).

The controller never waits on a display: a client that never reads is dropped while the
table deals on; a client that sends anything is refused; the socket is 0660 and the only
socket the feed opens is a unix one. The bytes actually sent name no card a player may not
see, in every game (as tests/app/test_app_secrets.py checks the log and the screen)."""

from __future__ import annotations

import contextlib
import grp
import os
import socket
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from apphelp import PATIENCE, dealer, json_log, sim_table
from test_app_secrets import GAMES, Secrets, named

from controller.display import wire
from controller.display.demo import SCENES
from controller.display.view import TableView
from controller.table.displayfeed import DisplayFeed
from controller.table.loop import wait_until
from simulator.lockstep import LockstepDealer
from simulator.simtable import SimTable

#: A queue no display that reads can fill, however the machine schedules its thread: the
#: tests of what a reading display gets are not tests of when one is dropped.
READING = 100_000


class Client:
    """A display attached over the real socket, on a thread: every byte it was sent."""

    def __init__(self, path: Path, *, reads: bool = True) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(str(path))
        self.received = bytearray()
        self.ended = threading.Event()
        self.thread: threading.Thread | None = None
        if reads:
            self.thread = threading.Thread(target=self._read, name="test-display", daemon=True)
            self.thread.start()

    def _read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.received.extend(chunk)
        except OSError:
            pass
        self.ended.set()

    def messages(self) -> list[wire.Hello | TableView]:
        """The whole lines received so far: a recv may end anywhere in a line (a backlog
        larger than its buffer), and the line's rest comes with the next one."""
        received = bytes(self.received)
        whole = received[: received.rfind(b"\n") + 1]
        return [wire.decode_line(line + b"\n") for line in whole.splitlines()]

    def views(self) -> list[TableView]:
        return [m for m in self.messages() if isinstance(m, TableView)]

    def close(self) -> None:
        with contextlib.suppress(OSError):  # the feed may have closed it already
            self.sock.shutdown(socket.SHUT_RDWR)  # wakes the reading thread's recv
        self.sock.close()
        if self.thread is not None:
            self.thread.join(PATIENCE)


@contextmanager
def feed_at(tmp_path: Path, **kwargs: object) -> Iterator[DisplayFeed]:
    with DisplayFeed(tmp_path / "d.sock", "SIM-1", **kwargs) as feed:  # type: ignore[arg-type]
        yield feed


def welcomed_dealer(table: SimTable, hands: int) -> LockstepDealer:
    """The random bot dealing ``hands`` hands, once the controller has welcomed the shoe and
    the panel: a paused table refuses NEW HAND (the controller's rule since 2e12189), and a
    bot that pressed it first would deal a hand the table never began."""
    assert wait_until(lambda: not table.controller.core.pauses, PATIENCE), "devices welcomed"
    return dealer(table, hands=hands)


class Tee:
    """The controller's display: every view it built, then the feed."""

    def __init__(self, feed: DisplayFeed) -> None:
        self.feed = feed
        self.built: list[TableView] = []

    def __call__(self, view: TableView) -> None:
        self.built.append(view)
        self.feed(view)

    def sent_from(self, views: list[TableView]) -> bool:
        """Whether ``views`` are the views built from one on, every one, in order: the view a
        display found at its attach and every view after it."""
        return bool(views) and views == self.built[len(self.built) - len(views) :]


def test_a_display_gets_the_hello_the_table_as_it_stands_then_every_view(tmp_path: Path) -> None:
    """Attach, and the feed says hello with its version and table, gives the view
    as it stands, then each new view as the controller builds it, in order, equal to it."""
    with feed_at(tmp_path, queue_views=READING) as feed:
        tee = Tee(feed)
        with sim_table(tmp_path, "mambo", seats=3, display=tee) as table:
            client = Client(feed.path)
            assert wait_until(lambda: feed.attached == 1, PATIENCE)
            attached_at = len(tee.built)
            welcomed_dealer(table, 1).run()
            assert table.controller.core.finished == 1
        feed.close()
        assert client.ended.wait(PATIENCE), "the feed's close ends the display's connection"
        client.close()
    messages = client.messages()
    assert messages[0] == wire.Hello(wire.VERSION, "SIM-1")
    assert isinstance(messages[1], TableView)  # the table as it stood at the attach
    assert messages[1] in tee.built[: attached_at + 1]
    assert tee.sent_from(client.views()), "then every view built, in order"
    assert len(client.views()) > 20


def test_the_socket_is_group_read_write_only_and_no_network_socket_is_opened(
    tmp_path: Path,
) -> None:
    """docs/display.md, The socket: mode 0660 (group tablectl where the group exists); the
    feed listens on no network: every socket it adds to the process is a unix one."""

    def inet_inodes() -> set[str]:
        found = set()
        for name in ("tcp", "tcp6", "udp", "udp6"):
            with open(f"/proc/net/{name}", encoding="ascii") as table:
                found |= {line.split()[9] for line in list(table)[1:]}
        return found

    def my_sockets() -> set[str]:
        found = set()
        for fd in os.listdir("/proc/self/fd"):
            with contextlib.suppress(FileNotFoundError):  # the listing's own descriptor
                link = os.readlink(f"/proc/self/fd/{fd}")
                if link.startswith("socket:["):
                    found.add(link[8:-1])
        return found

    before = my_sockets()
    with feed_at(tmp_path) as feed:
        client = Client(feed.path)
        assert wait_until(lambda: feed.attached == 1, PATIENCE)
        mode = os.stat(feed.path).st_mode
        assert stat.S_ISSOCK(mode)
        assert stat.S_IMODE(mode) == 0o660
        try:
            group = grp.getgrnam("tablectl").gr_gid
        except KeyError:
            group = None
        if group is not None:
            assert os.stat(feed.path).st_gid == group
        added = my_sockets() - before
        assert len(added) == 3  # the listener, the display's end here and the client's
        assert not added & inet_inodes()
        client.close()
    assert not feed.path.exists(), "the close removes the socket"


def test_a_display_that_never_reads_is_dropped_while_the_table_deals_on(tmp_path: Path) -> None:
    """A stuck display (it never reads) delays nothing: the table deals a whole hand
    while it is stuck, and it is dropped once its bounded queue is full, with
    display_detached and the reason. (A display that reads gets every view meanwhile: the
    first test; one whose queue has room stays, unread, and holds nothing: below.)"""
    with (
        json_log(tmp_path, table_id="SIM-1") as lines,
        feed_at(tmp_path, queue_views=4, send_buffer=4096) as feed,
    ):
        tee = Tee(feed)
        with sim_table(tmp_path, "mambo", seats=3, display=tee) as table:
            # Attached once the devices are welcomed: the welcome's own views could fill the
            # queue and drop the display before the test saw it attached.
            assert wait_until(lambda: not table.controller.core.pauses, PATIENCE), "welcomed"
            stuck = Client(feed.path, reads=False)
            assert wait_until(lambda: feed.attached == 1, PATIENCE)
            attached_at = len(tee.built)
            welcomed_dealer(table, 1).run()  # waits on the controller's every input
            assert table.controller.core.finished == 1
            assert len(tee.built) - attached_at > 20
            assert wait_until(lambda: feed.attached == 0, PATIENCE), "the stuck one is gone"
        stuck.close()
    detached = [line for line in lines if line["event"] == "display_detached"]
    assert [(line["display"], line["reason"], line["level"]) for line in detached] == [
        (1, "fell 4 views behind the table", "warning")
    ]


def test_a_display_that_sends_anything_is_refused_with_a_log_line(tmp_path: Path) -> None:
    """A display only reads: garbage on the socket closes that connection and is logged
    (display_refused, what it sent); the table and the other displays go on."""
    with (
        json_log(tmp_path, table_id="SIM-1") as lines,
        feed_at(tmp_path, queue_views=READING) as feed,
    ):
        tee = Tee(feed)
        with sim_table(tmp_path, "mambo", seats=3, display=tee) as table:
            good = Client(feed.path)
            bad = Client(feed.path)
            assert wait_until(lambda: feed.attached == 2, PATIENCE)
            bad.sock.sendall(b'{"change": "sit", "seat": 3}\n\x00\xff')
            assert bad.ended.wait(PATIENCE), "the feed closed the talking display's connection"
            assert wait_until(lambda: feed.attached == 1, PATIENCE)
            welcomed_dealer(table, 1).run()
            assert table.controller.core.finished == 1
            assert wait_until(lambda: good.views()[-1:] == tee.built[-1:], PATIENCE)
        good.close()
        bad.close()
    refused = [line for line in lines if line["event"] == "display_refused"]
    assert len(refused) == 1
    assert refused[0]["level"] == "warning"
    assert "change" in refused[0]["heard"]
    assert "only reads" in refused[0]["reason"]


def test_a_second_controller_on_the_same_socket_is_refused_and_a_dead_ones_is_replaced(
    tmp_path: Path,
) -> None:
    """One feed per socket: a second one is told another controller answers there; a socket
    left by a killed controller (nothing listens) is taken over."""
    from controller.table.displayfeed import FeedError  # noqa: PLC0415

    with feed_at(tmp_path), pytest.raises(FeedError, match="another controller answers"):
        DisplayFeed(tmp_path / "d.sock", "SIM-1").start()
    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(tmp_path / "d.sock"))  # bound, never listening: as a killed process leaves it
    left.close()
    with feed_at(tmp_path) as feed:
        client = Client(feed.path)
        assert wait_until(lambda: feed.attached == 1, PATIENCE)
        client.close()


@pytest.mark.parametrize("game", GAMES)
def test_the_bytes_sent_name_no_card_a_player_may_not_see(tmp_path: Path, game: str) -> None:
    """docs/display.md, What the table sees, over the socket: every line actually sent to a
    display, through whole hands of each game, names no hole card, burn, mucked card or
    discard of its hand (a card turned over at the showdown from the showdown on), while the
    face-up cards are read in the same bytes; every view built was sent."""
    secrets = Secrets()
    with feed_at(tmp_path, queue_views=READING) as feed:
        tee = Tee(feed)

        def display(view: TableView) -> None:
            secrets.show(view)
            tee(view)

        with sim_table(tmp_path, game, seats=6, display=display) as table:
            table.controller.listeners.append(secrets.follow)
            client = Client(feed.path)
            assert wait_until(lambda: feed.attached == 1, PATIENCE)
            attached_at = len(tee.built)
            welcomed_dealer(table, 1).run()
            assert table.controller.core.finished == 1
        feed.close()
        assert client.ended.wait(PATIENCE)
        client.close()
    lines = bytes(client.received).splitlines()[1:]  # after the hello
    assert tee.sent_from(client.views())
    assert len(lines) > len(tee.built) - attached_at
    leaks, seen = [], 0
    for line in lines:
        view = wire.decode_line(line + b"\n")
        assert isinstance(view, TableView)
        hand = view.hand_number or 0
        text = line.decode("utf-8")
        secret = secrets.secret(hand, view.showdown is not None)
        if named(secret, text):
            leaks.append((hand, named(secret, text)))
        shown = secrets.face_up.get(hand, set())
        if view.showdown is not None:
            shown = shown | secrets.turned.get(hand, set())
        seen += len(named(shown, text))
    assert leaks == []
    assert seen > 0, "the cards the table saw are read in the same bytes"
    assert secrets.hidden.get(1), "the hand had hole cards"


def test_a_display_whose_socket_stays_full_is_dropped_after_the_send_timeout(
    tmp_path: Path,
) -> None:
    """A display that stops reading while its queue still has room: the line waiting for its
    full socket is given ``send_timeout``, then the display is dropped (display_detached,
    "read nothing for ..."), whether or not more views come."""
    view = SCENES["showdown"]()
    with (
        json_log(tmp_path, table_id="SIM-1") as lines,
        feed_at(tmp_path, queue_views=1000, send_buffer=4096, send_timeout=0.2) as feed,
    ):
        stuck = Client(feed.path, reads=False)
        assert wait_until(lambda: feed.attached == 1, PATIENCE)
        for _ in range(40):  # far more than the socket's buffers hold, far fewer than the queue
            feed(view)
        assert wait_until(lambda: feed.attached == 0, PATIENCE)
        stuck.close()
    detached = [line for line in lines if line["event"] == "display_detached"]
    assert [line["reason"] for line in detached] == ["read nothing for 0.2 s"]


def test_a_display_that_never_reads_holds_nothing_while_it_is_still_attached(
    tmp_path: Path,
) -> None:
    """The table does not wait for a display's queue to drain: with room for a thousand
    views, a display that never reads stays attached and unread for a whole hand, and every
    input of the hand is taken meanwhile (the dealer waits on each)."""
    with feed_at(tmp_path, queue_views=1000, send_buffer=4096, send_timeout=600) as feed:
        tee = Tee(feed)
        with sim_table(tmp_path, "mambo", seats=3, display=tee) as table:
            stuck = Client(feed.path, reads=False)
            assert wait_until(lambda: feed.attached == 1, PATIENCE)
            attached_at = len(tee.built)
            welcomed_dealer(table, 1).run()
            assert table.controller.core.finished == 1
            assert len(tee.built) - attached_at > 20
            assert feed.attached == 1, "still attached, never read: and the hand is over"
        stuck.close()


def test_a_feed_with_no_display_builds_no_view_and_an_attaching_display_gets_the_table_now(
    tmp_path: Path,
) -> None:
    """The feed as ``tablectl run`` wires it (the controller's own display): while no display
    is attached no view is built (one costs more than the rest of a card's announcement); a
    display that attaches is given the table as it stands, built for it at the controller's
    next turn, then every view."""
    with feed_at(tmp_path, queue_views=READING) as feed:
        with sim_table(tmp_path, "mambo", seats=3, display=feed) as table:
            controller = table.controller
            built: list[TableView] = []
            build = controller.view.build

            def counted(core: object) -> TableView:
                view = build(core)  # type: ignore[arg-type]
                built.append(view)
                return view

            controller.view.build = counted  # type: ignore[method-assign]
            welcomed_dealer(table, 1).run()
            assert controller.core.finished == 1
            assert built == [], "no display attached: no view built"
            client = Client(feed.path)
            assert wait_until(lambda: len(client.views()) == 1, PATIENCE)
            assert client.views()[0] == build(controller.core), "the table as it stands"
            welcomed_dealer(table, 1).run()
            assert controller.core.finished == 2
            assert wait_until(lambda: len(client.views()) == len(built), PATIENCE)
        feed.close()
        assert client.ended.wait(PATIENCE)
        client.close()
    assert client.views() == built, "the view built at the attach, then every view, in order"
    assert len(built) > 20
