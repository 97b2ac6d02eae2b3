"""floor serve's fetch: a wait with no message, whichever TimeoutError nats-py raises for it, is
a turn of the loop, not the end of the floor (found on the 3-node cluster: nats-py 2.16 raises
asyncio's plain TimeoutError when its no-wait probe uses the whole wait, and the floor exited)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from nats.errors import TimeoutError as NatsTimeout

from controller.floor.floortoml import parse
from controller.floor.serve import Floor

pytestmark = pytest.mark.fast


class NoMessage:
    """A pull subscription whose every fetch times out with ``error`` (asyncio.TimeoutError is
    the builtin TimeoutError)."""

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.fetches = 0

    async def fetch(self, batch: int, timeout: float) -> list[object]:
        self.fetches += 1
        raise self.error


def floor() -> Floor:
    data: dict[str, object] = {
        "nats": {"servers": ["nats://127.0.0.1:4222"], "user": "floor", "password_file": "n"},
        "postgres": {"dbname": "tablectl", "password_file": "p"},
    }
    return Floor(parse(data, Path("/etc/tablectl/floor"), "floor.toml"))


@pytest.mark.parametrize("wait", [True, False])
@pytest.mark.parametrize("error", [TimeoutError(), NatsTimeout()])
def test_a_fetch_that_times_out_is_no_message_and_nothing_stored(
    error: BaseException, wait: bool
) -> None:
    """Both takes: the loop's wait for a batch, and the look for the next while one commits."""
    serving = floor()
    sub = NoMessage(error)
    # No database is reached: none is configured to.
    assert asyncio.run(serving._take(sub, wait)) is None
    assert sub.fetches >= 1  # the quick look for a batch, then (waiting) the wait for one
    assert serving.totals.batches == 0
