"""The controller's concurrency in one place (controller/table/dispatch.py; docs/app.md, The
loop): an input is handled on the thread of the driver that read it while the run runs,
queued for the loop otherwise, one at a time; a driver thread's error is raised by ``run``."""

from __future__ import annotations

import threading

from apphelp import PATIENCE

from controller.table.dispatch import Dispatch, DriverEvents
from controller.table.loop import wait_until


def test_before_the_run_events_wait_and_during_it_each_is_handled_on_its_drivers_thread() -> None:
    inbox = DriverEvents()
    handled: list[tuple[object, str]] = []
    dispatch = Dispatch(
        inbox, lambda event: handled.append((event, threading.current_thread().name))
    )
    inbox.put("hello")  # no run yet: queued
    assert handled == []
    stop = threading.Event()
    loop = threading.Thread(target=dispatch.run, args=(stop,), name="loop")
    loop.start()
    try:
        # The run hands events to the drivers' threads once it has drained what came before
        # (Dispatch.run): a put before that, the loop's thread not yet in its run, is queued.
        assert wait_until(lambda: handled == [("hello", "loop")], PATIENCE)
        driver = threading.Thread(target=inbox.put, args=("card",), name="shoe-reader")
        driver.start()
        driver.join(PATIENCE)
        assert not driver.is_alive()
    finally:
        stop.set()
        loop.join(PATIENCE)
    assert handled == [("hello", "loop"), ("card", "shoe-reader")]


def test_an_error_on_a_drivers_thread_is_raised_by_the_run_and_later_events_wait() -> None:
    inbox = DriverEvents()
    handled: list[object] = []

    def handle(event: object) -> None:
        if event == "bad":
            raise OSError("the journal refused the append")
        handled.append(event)

    dispatch = Dispatch(inbox, handle)
    raised: list[BaseException] = []

    def run() -> None:
        try:
            dispatch.run(threading.Event())
        except OSError as error:
            raised.append(error)

    loop = threading.Thread(target=run, name="loop")
    loop.start()
    # The run takes inputs on the drivers' threads once it has drained what came before.
    assert wait_until(lambda: dispatch.on_drivers_thread("first"), PATIENCE)
    inbox.put("bad")  # on this (the driver's) thread: kept, and the loop woken
    loop.join(PATIENCE)
    assert not loop.is_alive()
    assert [str(error) for error in raised] == ["the journal refused the append"]
    inbox.put("after")  # the run has ended: queued, not handled
    assert handled == ["first"]
    dispatch.drain()
    assert handled == ["first", "after"]


def test_one_input_at_a_time_whatever_the_thread() -> None:
    inbox = DriverEvents()
    inside = threading.Semaphore(1)
    overlaps: list[int] = []

    def handle(_event: object) -> None:
        if not inside.acquire(blocking=False):
            overlaps.append(1)
            return
        try:
            threading.Event().wait(0.0005)
        finally:
            inside.release()

    dispatch = Dispatch(inbox, handle)
    stop = threading.Event()
    loop = threading.Thread(target=dispatch.run, args=(stop,), name="loop")
    loop.start()
    try:
        drivers = [
            threading.Thread(target=lambda: [inbox.put(i) for i in range(200)], name=name)
            for name in ("shoe-reader", "panel-reader")
        ]
        for driver in drivers:
            driver.start()
        for driver in drivers:
            driver.join(PATIENCE)
    finally:
        stop.set()
        loop.join(PATIENCE)
    assert overlaps == []
