"""Hypothesis fuzzing of the codecs, both devices, both directions: garbage, cuts, corruption.

Properties: no exception ever escapes; every valid sentence buried in
garbage is recovered, in order; every corrupted sentence is counted and
reported, never passed on.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from controller.poker.inputs import Button, ReadPoint
from drivers.seam.events import Feed, Lid, Reader, RejectReason
from drivers.tablectl import panel, shoe
from drivers.tablectl.panel import Light, Press, Text
from drivers.tablectl.sentences import (
    Ack,
    Codec,
    DecodeError,
    Heartbeat,
    Hello,
    Query,
    Reject,
    Sentence,
    Welcome,
)
from drivers.tablectl.shoe import CardSeen, ShoeStatus

pytestmark = pytest.mark.fast

seqs = st.integers(0, 9999)
tokens = st.from_regex(r"[A-Za-z0-9._-]{1,16}", fullmatch=True)
hellos = st.builds(
    Hello,
    seqs,
    tokens,
    tokens,
    tokens,
    st.integers(1, 999),
    st.from_regex(r"[0-9A-F]{8}", fullmatch=True),
)
heartbeats = st.builds(Heartbeat, seqs)
cards = st.builds(
    CardSeen,
    seqs,
    st.sampled_from(ReadPoint),
    st.from_regex(r"E0[0-9A-F]{14}", fullmatch=True),
    st.integers(0, 2**32 - 1),
)
statuses = st.builds(
    ShoeStatus, seqs, st.sampled_from(Lid), st.sampled_from(Reader), st.sampled_from(Feed)
)
presses = st.builds(Press, seqs, st.sampled_from(Button))
host_common = st.one_of(
    st.builds(Query, st.integers(1, 999)),
    st.builds(Welcome, st.integers(1, 999)),
    st.builds(Reject, st.sampled_from(RejectReason), tokens),
    st.builds(Ack, seqs),
)
texts = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40)
to_panel = st.one_of(host_common, st.builds(Light, st.integers(0, 10)), st.builds(Text, texts))

Direction = tuple[st.SearchStrategy[Sentence], Callable[[], Codec], Callable[[], Codec]]
DIRECTIONS: dict[str, Direction] = {
    "shoe-to-host": (
        st.one_of(hellos, heartbeats, cards, statuses),
        shoe.device_codec,
        shoe.host_codec,
    ),
    "panel-to-host": (st.one_of(hellos, heartbeats, presses), panel.device_codec, panel.host_codec),
    "host-to-shoe": (host_common, shoe.host_codec, shoe.device_codec),
    "host-to-panel": (to_panel, panel.host_codec, panel.device_codec),
}
cuts = st.lists(st.integers(1, 40), max_size=30)
few = settings(max_examples=examples(40))


def feed_in_pieces(codec: Codec, data: bytes, pieces: list[int]) -> list[Sentence | DecodeError]:
    out: list[Sentence | DecodeError] = []
    start = 0
    for size in pieces:
        out.extend(codec.feed(data[start : start + size]))
        start += size
    out.extend(codec.feed(data[start:]))
    return out


def recovered(items: list[Sentence | DecodeError]) -> list[Sentence]:
    return [item for item in items if not isinstance(item, DecodeError)]


def is_subsequence(wanted: list[Sentence], got: list[Sentence]) -> bool:
    it = iter(got)
    return all(any(w == g for g in it) for w in wanted)


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@few
@given(data=st.binary(max_size=600), pieces=cuts)
def test_no_exception_escapes_for_any_input_cut_anywhere(
    direction: str, data: bytes, pieces: list[int]
) -> None:
    """Arbitrary bytes in arbitrary pieces only ever yield sentences and decode errors."""
    _, _, listener = DIRECTIONS[direction]
    codec = listener()
    for item in feed_in_pieces(codec, data, pieces):
        assert isinstance(item, DecodeError) or hasattr(type(item), "from_fields")
    assert codec.counters.error_total == sum(
        1 for i in feed_in_pieces(listener(), data, pieces) if isinstance(i, DecodeError)
    )


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@few
@given(data=st.data(), pieces=cuts)
def test_every_valid_sentence_buried_in_garbage_is_recovered_in_order(
    direction: str, data: st.DataObject, pieces: list[int]
) -> None:
    """Garbage before, between and after sentences never costs a sentence."""
    strategy, speaker, listener = DIRECTIONS[direction]
    sentences = data.draw(st.lists(strategy, min_size=1, max_size=6))
    garbage = data.draw(st.lists(st.binary(max_size=120), min_size=7, max_size=7))
    encoder = speaker()
    stream = garbage[0] + b"".join(
        encoder.encode(s) + noise for s, noise in zip(sentences, garbage[1:], strict=False)
    )
    assert is_subsequence(sentences, recovered(feed_in_pieces(listener(), stream, pieces)))


@pytest.mark.parametrize("direction", sorted(DIRECTIONS))
@few
@given(data=st.data(), pieces=cuts)
def test_every_corrupted_sentence_is_counted_and_reported_never_passed_on(
    direction: str, data: st.DataObject, pieces: list[int]
) -> None:
    """One changed byte in a sentence: it is dropped and reported, the others all arrive."""
    strategy, speaker, listener = DIRECTIONS[direction]
    sentences = data.draw(st.lists(strategy, min_size=1, max_size=6))
    encoder = speaker()
    wires = [encoder.encode(s) for s in sentences]
    corrupt = data.draw(st.sets(st.integers(0, len(wires) - 1), min_size=1))
    destroyed_starts = 0
    for index in corrupt:
        wire = bytearray(wires[index])
        position = data.draw(st.integers(0, len(wire) - 1))
        # XOR with 1..255 changes the byte to any other value.
        wire[position] ^= data.draw(st.integers(1, 255))
        destroyed_starts += position == 0
        wires[index] = bytes(wire)
    # A last, intact sentence closes any corrupted one still waiting for its CR LF.
    closing = data.draw(strategy)
    wires.append(encoder.encode(closing))
    codec = listener()
    out = feed_in_pieces(codec, b"".join(wires), pieces)
    intact = [s for i, s in enumerate(sentences) if i not in corrupt] + [closing]
    assert recovered(out) == intact
    errors = [item for item in out if isinstance(item, DecodeError)]
    assert len(errors) == codec.counters.error_total
    # A sentence whose '$' was hit is noise (counted in noise_bytes) or joins the sentence
    # before it in one error; every other corrupted sentence is an error of its own.
    assert len(errors) >= len(corrupt) - destroyed_starts
    assert len(errors) + codec.counters.noise_bytes > 0
