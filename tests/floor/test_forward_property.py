"""Exactly once, as a property (Hypothesis): random interleavings of forwarder restarts, lost
acknowledgements, a second forwarder of the same table, broker restarts that lose the tail of
what they acknowledged and forget their duplicate window, and a journal that grows meanwhile;
after them, one forwarder left alone brings the stream to exactly the journal, in order.

The broker is an in-process model of what JetStream does with the two headers
(``Nats-Msg-Id``: a duplicate is acknowledged and not stored, checked first;
``Nats-Expected-Last-Subject-Sequence``: refused unless the subject's last stream sequence is
that one). The forwarder is the real protocol: the real follower over a real journal, the real
``resume_point`` and ``publish_headers`` of controller/forwarder/forward.py, one record at a time,
a new session after any failure. test_forward.py proves the same against a real nats-server.
"""

from __future__ import annotations

import tempfile
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from journal_support import StepClock, journal_lines, table_record
from tierhelp import examples

from controller.forwarder.follow import Follower, Line, journal_id
from controller.forwarder.forward import SessionLost, publish_headers, resume_point
from controller.forwarder.subjects import RecordId, subject_of
from controller.journal import JournalWriter

pytestmark = pytest.mark.fast

TABLE = "T1"
SUBJECT = subject_of(TABLE)


class Refused(Exception):
    """The model broker refused a publish (the last subject sequence was not the expected)."""


@dataclass
class ModelStream:
    """A stream of one subject: what it stores, its duplicate window, a restart."""

    messages: list[tuple[str, bytes]] = field(default_factory=list)  #: (message id, data)
    window: dict[str, int] = field(default_factory=dict)

    def publish(self, data: bytes, headers: dict[str, str]) -> int:
        message_id = headers["Nats-Msg-Id"]
        if message_id in self.window:  # JetStream checks duplicates before expectations
            return self.window[message_id]
        if int(headers["Nats-Expected-Last-Subject-Sequence"]) != len(self.messages):
            raise Refused
        self.messages.append((message_id, data))
        self.window[message_id] = len(self.messages)
        return len(self.messages)

    def last(self) -> tuple[int, str, bytes] | None:
        if not self.messages:
            return None
        message_id, data = self.messages[-1]
        return len(self.messages), message_id, data

    def restart(self, lost: int) -> None:
        """A crash that loses the last ``lost`` messages it had acknowledged (not yet on its
        disk) and its duplicate window."""
        del self.messages[max(0, len(self.messages) - lost) :]
        self.window.clear()


class Session:
    """One connection of a forwarder: resumes from the stream, then publishes in order."""

    def __init__(self, stream: ModelStream, journal: Path) -> None:
        self.stream = stream
        self.ours = journal_id(journal)
        assert self.ours is not None
        last = stream.last()
        after = None if last is None else resume_point(TABLE, self.ours, last[1], last[2])
        self.last_seq = 0 if last is None else last[0]
        self.follower = Follower(journal, after=after)
        self.pending: deque[Line] = deque()

    def send(self, count: int, *, lose_ack: bool = False) -> bool:
        """Publish up to ``count`` records; False when the session ended (refused, or the
        acknowledgement lost: the record may be stored, the forwarder cannot know)."""
        for _ in range(count):
            if not self.pending:
                self.pending.extend(self.follower.available())
            if not self.pending:
                return True
            line = self.pending[0]
            record = RecordId(TABLE, self.ours, line.record.seq)
            try:
                seq = self.stream.publish(line.raw, publish_headers(record, self.last_seq))
            except Refused:
                return False
            if lose_ack:
                return False
            self.last_seq = seq
            self.pending.popleft()
        return True

    def close(self) -> None:
        self.follower.close()


actions = st.lists(
    st.one_of(
        st.tuples(st.just("send"), st.integers(0, 1), st.integers(1, 8)),
        st.tuples(st.just("lose ack"), st.integers(0, 1), st.just(1)),
        st.tuples(st.just("restart forwarder"), st.integers(0, 1), st.just(0)),
        st.tuples(st.just("restart broker"), st.just(0), st.integers(0, 5)),
        st.tuples(st.just("window expires"), st.just(0), st.just(0)),
        st.tuples(st.just("journal grows"), st.just(0), st.integers(1, 6)),
    ),
    max_size=40,
)


def _act(
    action: str,
    which: int,
    amount: int,
    *,
    stream: ModelStream,
    writer: JournalWriter,
    session: Callable[[int], Session],
    end: Callable[[int], None],
) -> None:
    """One step of the interleaving, by forwarder ``which`` (0, or 1: the second)."""
    if action in ("send", "lose ack"):
        if not session(which).send(amount, lose_ack=action == "lose ack"):
            end(which)  # any failure: the next session resumes from the stream
    elif action == "restart forwarder":
        end(which)
    elif action == "restart broker":
        stream.restart(amount)
        end(0)
        end(1)
    elif action == "window expires":
        stream.window.clear()
    else:
        last = writer.last
        start = 0 if last is None else last.seq
        for n in range(start, start + amount):
            writer.append(*table_record(n))


@settings(max_examples=examples(150), deadline=None)
@given(actions, st.integers(1, 12))
def test_every_record_is_stored_once_in_order_whatever_fails(
    steps: list[tuple[str, int, int]], initial: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder)
        writer = JournalWriter.open(journal, clock=StepClock(), fsync=False, hands_per_file=2)
        for n in range(initial):
            writer.append(*table_record(n))
        stream = ModelStream()
        sessions: list[Session | None] = [None, None]  # the forwarder and a second, by mistake

        def session(which: int) -> Session:
            current = sessions[which]
            if current is None:
                current = sessions[which] = Session(stream, journal)
            return current

        def end(which: int) -> None:
            current = sessions[which]
            if current is not None:
                current.close()
                sessions[which] = None

        try:
            for action, which, amount in steps:
                _act(action, which, amount, stream=stream, writer=writer, session=session, end=end)
            end(1)
            caught_up = False
            for _ in range(3):  # left alone, it catches up (a refusal at most, then resumed)
                if session(0).send(1000):
                    caught_up = True
                    break
                end(0)
            assert caught_up, "the forwarder alone did not catch up"
        except SessionLost as error:
            raise AssertionError(
                f"the stream's last record was not the journal's: {error}"
            ) from None
        finally:
            end(0)
            end(1)
            writer.close()
        root = journal_id(journal)
        lines = [raw.rstrip(b"\n") for _, _, raw in journal_lines(journal)]
        assert stream.messages == [
            (f"{TABLE}:{root}:{seq}", line) for seq, line in enumerate(lines, start=1)
        ]
