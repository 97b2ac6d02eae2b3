"""Hypothesis fuzzing of the shoe codec: garbage, cuts and corruption.

Properties: no exception ever escapes; every valid sentence buried in
garbage is recovered, in order; every corrupted sentence is counted and
reported, never passed on.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from controller.inputs import ReadPoint
from drivers import shoe
from drivers.sentences import DecodeError, Heartbeat, Hello, Sentence
from drivers.shoe import CardSeen, Feed, Lid, Reader, ShoeStatus

uids = st.from_regex(r"E0[0-9A-F]{14}", fullmatch=True)
seqs = st.integers(0, 9999)
cards = st.builds(CardSeen, seqs, st.sampled_from(ReadPoint), uids)
statuses = st.builds(
    ShoeStatus, seqs, st.sampled_from(Lid), st.sampled_from(Reader), st.sampled_from(Feed)
)
shoe_sentences = st.lists(st.one_of(cards, statuses), min_size=1, max_size=6)
cuts = st.lists(st.integers(1, 40), max_size=30)


def feed_in_pieces(data: bytes, pieces: list[int]) -> list[Sentence | DecodeError]:
    codec = shoe.host_codec()
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


@given(st.binary(max_size=600), cuts)
def test_no_exception_escapes_for_any_input_cut_anywhere(data: bytes, pieces: list[int]) -> None:
    """Arbitrary bytes in arbitrary pieces only ever yield sentences and decode errors."""
    for item in feed_in_pieces(data, pieces):
        assert isinstance(item, DecodeError | Hello | Heartbeat | CardSeen | ShoeStatus)


@given(shoe_sentences, st.lists(st.binary(max_size=120), min_size=7, max_size=7), cuts)
def test_every_valid_sentence_buried_in_garbage_is_recovered_in_order(
    sentences: list[Sentence], garbage: list[bytes], pieces: list[int]
) -> None:
    """Garbage before, between and after sentences never costs a sentence."""
    encoder = shoe.device_codec()
    data = garbage[0] + b"".join(
        encoder.encode(s) + noise for s, noise in zip(sentences, garbage[1:], strict=False)
    )
    assert is_subsequence(sentences, recovered(feed_in_pieces(data, pieces)))


@given(
    shoe_sentences,
    st.data(),
    cuts,
)
def test_every_corrupted_sentence_is_counted_and_reported_never_passed_on(
    sentences: list[Sentence], data: st.DataObject, pieces: list[int]
) -> None:
    """One changed byte in a sentence: it is dropped and reported, the others all arrive."""
    encoder = shoe.device_codec()
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
    closing = ShoeStatus(0, Lid.CLOSED, Reader.OK, Feed.OK)
    wires.append(encoder.encode(closing))
    codec = shoe.host_codec()
    out: list[Sentence | DecodeError] = []
    stream = b"".join(wires)
    start = 0
    for size in pieces:
        out.extend(codec.feed(stream[start : start + size]))
        start += size
    out.extend(codec.feed(stream[start:]))
    intact = [s for i, s in enumerate(sentences) if i not in corrupt] + [closing]
    assert recovered(out) == intact
    errors = [item for item in out if isinstance(item, DecodeError)]
    assert len(errors) == codec.counters.error_total
    # A sentence whose '$' was hit is noise (counted in noise_bytes); every other is reported.
    assert len(errors) >= len(corrupt) - destroyed_starts
    if destroyed_starts:
        assert codec.counters.noise_bytes > 0
