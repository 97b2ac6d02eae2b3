"""The host's RFID repeat filter on the shoe's clock (docs/protocol.md 7): pure, no line."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.poker.inputs import ReadPoint
from drivers.seam.tags import DEVICE_CLOCK_MODULUS, RepeatFilter

pytestmark = pytest.mark.fast

SLOT, DISCARD = ReadPoint.DEALING_SLOT, ReadPoint.DISCARD_READER
BOOT = "5A17C0DE"
A, B = "E004015000000001", "E004015000000002"
WRAP = DEVICE_CLOCK_MODULUS


def test_a_repeat_within_the_window_names_the_read_it_repeats_and_the_window_slides() -> None:
    """protocol.md 7: same UID, point and boot, less than the window after the last read of it
    (repeats included) is a repeat; the window's end is not inside it."""
    repeats = RepeatFilter(0.5)
    assert repeats.repeats(BOOT, A, SLOT, 10_000) is None
    assert repeats.repeats(BOOT, A, SLOT, 10_499) == 10_000
    assert repeats.repeats(BOOT, A, SLOT, 10_900) == 10_499, "slides from the last repeat"
    assert repeats.repeats(BOOT, A, SLOT, 11_400) is None, "500 ms after the last: a new read"


def test_another_point_another_tag_or_another_boot_is_never_a_repeat() -> None:
    """protocol.md 7: a repeat needs the same UID, the same point and the same boot id."""
    repeats = RepeatFilter(0.5)
    assert repeats.repeats(BOOT, A, SLOT, 1_000) is None
    assert repeats.repeats(BOOT, A, DISCARD, 1_010) is None
    assert repeats.repeats(BOOT, B, SLOT, 1_020) is None
    assert repeats.repeats("0BADBEEF", A, SLOT, 1_030) is None, "a power cycle starts afresh"
    assert repeats.repeats("0BADBEEF", A, SLOT, 1_040) == 1_030


def test_a_zero_window_drops_nothing_and_a_negative_one_is_refused() -> None:
    """protocol.md 10: the window is a setting; 0 passes every read; below 0 is an error."""
    repeats = RepeatFilter(0.0)
    assert repeats.repeats(BOOT, A, SLOT, 5) is None
    assert repeats.repeats(BOOT, A, SLOT, 5) is None
    with pytest.raises(ValueError, match=r"RFID repeat window -0\.1: expected 0 or more seconds"):
        RepeatFilter(-0.1)


def test_the_clock_wrapping_to_zero_is_read_forward() -> None:
    """protocol.md 7, Wrap-around: 4294967000 then 204 is 500 ms on (not 4294966796 back):
    a read at 203 would repeat, one at 1300 (1596 ms on) is new."""
    repeats = RepeatFilter(0.5)
    assert repeats.repeats(BOOT, A, SLOT, WRAP - 296) is None
    assert repeats.repeats(BOOT, A, SLOT, 203) == WRAP - 296
    assert repeats.repeats(BOOT, A, SLOT, 1_300) is None
    edge = RepeatFilter(0.5)
    assert edge.repeats(BOOT, A, SLOT, WRAP - 296) is None
    assert edge.repeats(BOOT, A, SLOT, 204) is None, "exactly the window on: not a repeat"


def test_the_wrap_is_followed_through_the_reads_of_other_tags() -> None:
    """protocol.md 7, Wrap-around: the clock is unwrapped over every read of the boot, so a
    tag read again a whole wrap later (49.7 days, other cards read meanwhile) is new."""
    repeats = RepeatFilter(0.5)
    assert repeats.repeats(BOOT, A, SLOT, 1_000) is None
    for step in range(1, 5):  # a card every quarter of the wrap
        assert repeats.repeats(BOOT, B, SLOT, (1_000 + step * WRAP // 4) % WRAP) is None
    assert repeats.repeats(BOOT, A, SLOT, 1_100) is None, "100 ms modulo 2**32, a wrap later"


def test_many_tags_prune_only_what_the_window_has_forgotten() -> None:
    """Past 1024 remembered tags the forgotten are pruned; a tag inside the window stays."""
    repeats = RepeatFilter(0.5)
    for n in range(1100):
        assert repeats.repeats(BOOT, f"E0{n:014X}", SLOT, n * 1_000) is None
    assert repeats.repeats(BOOT, f"E0{1099:014X}", SLOT, 1_099_100) == 1_099_000


reads = st.lists(
    st.tuples(st.sampled_from((A, B)), st.sampled_from((SLOT, DISCARD)), st.integers(0, 900)),
    max_size=40,
)


@given(start=st.integers(0, WRAP - 1), window_ms=st.integers(0, 800), script=reads)
def test_judged_on_the_wrapped_clock_as_on_the_true_time(
    start: int, window_ms: int, script: list[tuple[str, ReadPoint, int]]
) -> None:
    """protocol.md 7: whatever the clock reads at the start, the verdicts on the wrapped
    read_ms are those on the true elapsed time: same tag and point, less than the window after
    the last read of it."""
    repeats = RepeatFilter(window_ms / 1000)
    true_time = 0
    last: dict[tuple[str, ReadPoint], int] = {}
    for uid, point, gap in script:
        true_time += gap
        before = last.get((uid, point))
        expected = before is not None and true_time - before < window_ms
        got = repeats.repeats(BOOT, uid, point, (start + true_time) % WRAP)
        assert (got is not None) == expected
        if before is not None and expected:
            assert got == (start + before) % WRAP
        last[(uid, point)] = true_time
