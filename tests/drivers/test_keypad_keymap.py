"""The keypad's key map and its key filter (drivers/keypad/keymap.py): pure, fast."""

from __future__ import annotations

import pytest
from evdev import ecodes
from hypothesis import given, settings
from hypothesis import strategies as st
from tierhelp import examples

from controller.poker.inputs import Button
from drivers.keypad.keymap import (
    DEFAULT_KEYS,
    KEYCAP_LABELS,
    STANDARD_17_KEYS,
    Chord,
    Dropped,
    KeyFilter,
    KeyMap,
    Pressed,
    key_code,
    key_name,
    read_keymap,
)

pytestmark = pytest.mark.fast

KP1, KP2, KP3 = ecodes.KEY_KP1, ecodes.KEY_KP2, ecodes.KEY_KP3
DEFAULT = KeyMap(DEFAULT_KEYS)
EV_KEY, EV_SYN, EV_MSC = ecodes.EV_KEY, ecodes.EV_SYN, ecodes.EV_MSC


def problems_of(table: dict[str, object]) -> list[str]:
    keymap, problems = read_keymap(table)
    assert (keymap is None) == bool(problems)
    return [f"{p.key}: {p.expected}" for p in problems]


def full(**changes: object) -> dict[str, object]:
    table: dict[str, object] = {b.value: k for b, k in DEFAULT_KEYS.items()}
    table.update(changes)
    return {k: v for k, v in table.items() if v is not None}


def test_the_default_map_gives_each_button_one_key_of_a_standard_keypad() -> None:
    """Eight buttons, eight different keys, all among the 17, NumLock not one of them."""
    assert set(DEFAULT_KEYS) == set(Button)
    assert len(set(DEFAULT_KEYS.values())) == len(Button)
    assert set(DEFAULT_KEYS.values()) <= set(STANDARD_17_KEYS)
    assert "KEY_NUMLOCK" not in DEFAULT_KEYS.values()
    assert set(KEYCAP_LABELS) == set(Button)
    assert len(STANDARD_17_KEYS) == 17
    assert all(key_code(name) is not None for name in STANDARD_17_KEYS)


def test_no_table_is_the_default_map() -> None:
    keymap, problems = read_keymap(None)
    assert problems == []
    assert keymap == DEFAULT
    assert DEFAULT.button_of(KP1) is Button.FOLD
    assert DEFAULT.button_of(ecodes.KEY_KP5) is None


def test_a_full_table_replaces_the_default() -> None:
    keymap, problems = read_keymap(full(fold="KEY_KP4", undo="KEY_KPDOT"))
    assert problems == []
    assert keymap is not None
    assert keymap.button_of(ecodes.KEY_KP4) is Button.FOLD
    assert keymap.button_of(KP1) is None
    assert keymap.button_of(ecodes.KEY_KPDOT) is Button.UNDO


def test_an_unknown_key_name_is_named() -> None:
    assert problems_of(full(fold="KEY_KP11")) == [
        "devices.panel.keys.fold: unknown key name 'KEY_KP11': expected the kernel's KEY_* "
        "name (e.g. KEY_KP1; `tablectl keypad --try` shows each key's name as it is pressed)"
    ]


@pytest.mark.parametrize(
    "name", ["kp1", "KEY_kp1", "BTN_LEFT", "EV_KEY", "KEY_MAX", "KEY_RESERVED", ""]
)
def test_only_the_kernels_key_names_are_keys(name: str) -> None:
    """Lower case, a mouse's button, an event type, a limit: none is a key."""
    assert any("unknown key name" in p for p in problems_of(full(fold=name)))


def test_a_key_mapped_to_two_buttons_names_both() -> None:
    assert problems_of(full(undo="KEY_KP1")) == [
        "devices.panel.keys.undo: key KEY_KP1 is mapped to two buttons (fold and undo): "
        "expected another key"
    ]


def test_two_names_of_one_kernel_key_are_one_key() -> None:
    """KEY_COFFEE and KEY_SCREENLOCK are the same code: on two buttons, one key twice."""
    problems = problems_of(full(fold="KEY_COFFEE", undo="KEY_SCREENLOCK"))
    assert problems == [
        "devices.panel.keys.undo: key KEY_SCREENLOCK is mapped to two buttons (fold and undo): "
        "expected another key"
    ]


def test_a_button_mapped_twice_is_named() -> None:
    assert problems_of(full(fold=["KEY_KP1", "KEY_KP4"])) == [
        "devices.panel.keys.fold: button fold is mapped twice (KEY_KP1, KEY_KP4): expected one key"
    ]


def test_a_button_with_no_key_is_named() -> None:
    assert problems_of(full(misdeal=None)) == [
        "devices.panel.keys.misdeal: button misdeal has no key: expected a KEY_* name"
    ]


def test_a_key_that_is_no_button_is_named_and_every_problem_is_listed_at_once() -> None:
    problems = problems_of(full(fold_now="KEY_KP5", misdeal=None, undo=3))
    assert problems == [
        "devices.panel.keys.fold_now: no such button; expected one of: new_hand, fold, "
        "check_call, bet_raise, all_in, draw_done, misdeal, undo",
        "devices.panel.keys.misdeal: button misdeal has no key: expected a KEY_* name",
        'devices.panel.keys.undo: expected a key\'s name, e.g. "KEY_KP1"',
    ]


def test_a_keymap_cannot_be_built_wrong() -> None:
    with pytest.raises(ValueError, match="button undo has no key"):
        KeyMap({b: k for b, k in DEFAULT_KEYS.items() if b is not Button.UNDO})


def test_key_names_read_back() -> None:
    assert key_name(KP1) == "KEY_KP1"
    assert key_name(152) == "KEY_COFFEE"
    assert key_name(0xFFF) == "key code 4095"


# --- The filter -----------------------------------------------------------------------------


def feed(events: list[tuple[int, int, int]]) -> list[object]:
    keys = KeyFilter(DEFAULT)
    out = [keys.feed(*event) for event in events]
    return [verdict for verdict in out if verdict is not None]


def down(code: int) -> list[tuple[int, int, int]]:
    return [(EV_MSC, ecodes.MSC_SCAN, 0x70000 + code), (EV_KEY, code, 1), (EV_SYN, 0, 0)]


def up(code: int) -> list[tuple[int, int, int]]:
    return [(EV_MSC, ecodes.MSC_SCAN, 0x70000 + code), (EV_KEY, code, 0), (EV_SYN, 0, 0)]


def repeat(code: int) -> list[tuple[int, int, int]]:
    return [(EV_KEY, code, 2), (EV_SYN, 0, 0)]


def test_a_key_counts_when_it_goes_down_never_when_it_repeats_or_comes_up() -> None:
    assert feed(down(KP1) + repeat(KP1) * 20 + up(KP1)) == [Pressed(KP1, Button.FOLD)]


def test_two_taps_are_two_presses() -> None:
    assert feed(down(KP2) + up(KP2) + down(KP2) + up(KP2)) == [Pressed(KP2, Button.CHECK_CALL)] * 2


def test_a_key_on_no_button_is_a_press_of_no_button() -> None:
    """The driver logs and reports it: nothing pressed is silently dropped."""
    assert feed(down(ecodes.KEY_KP5) + up(ecodes.KEY_KP5)) == [Pressed(ecodes.KEY_KP5, None)]


def test_a_chord_is_one_press_the_first_keys_and_the_second_is_refused() -> None:
    """KP2 then KP3 before KP2 is up: call counted, the raise refused as a chord."""
    assert feed(down(KP2) + down(KP3) + up(KP2) + up(KP3)) == [
        Pressed(KP2, Button.CHECK_CALL),
        Chord(KP3, (KP2,)),
    ]


def test_after_a_chord_the_next_key_alone_counts_again() -> None:
    events = down(KP1) + down(KP2) + up(KP1) + down(KP3) + up(KP2) + up(KP3) + down(KP3)
    assert feed(events) == [
        Pressed(KP1, Button.FOLD),
        Chord(KP2, (KP1,)),
        Chord(KP3, (KP2,)),  # KP2 was still down
        Pressed(KP3, Button.BET_RAISE),
    ]


def test_dropped_events_are_reported_and_ignored_up_to_the_next_report() -> None:
    """After SYN_DROPPED the kernel's buffer lost events: what follows up to SYN_REPORT is
    the rest of a broken frame, and no key is taken as held any more."""
    dropped = [(EV_SYN, ecodes.SYN_DROPPED, 0), (EV_KEY, KP2, 1), (EV_SYN, ecodes.SYN_REPORT, 0)]
    events = [*down(KP1), *dropped, *down(KP3)]
    assert feed(events) == [Pressed(KP1, Button.FOLD), Dropped(), Pressed(KP3, Button.BET_RAISE)]


def test_reset_forgets_the_keys_held() -> None:
    keys = KeyFilter(DEFAULT)
    keys.feed(EV_KEY, KP1, 1)
    keys.reset()
    assert keys.held == frozenset()
    assert keys.feed(EV_KEY, KP2, 1) == Pressed(KP2, Button.CHECK_CALL)


@settings(max_examples=examples(100))
@given(
    st.lists(
        st.tuples(st.sampled_from([KP1, KP2, KP3, ecodes.KEY_KP5]), st.sampled_from([0, 1, 2])),
        max_size=60,
    )
)
def test_presses_never_outnumber_the_keys_gone_down_alone(
    events: list[tuple[int, int]],
) -> None:
    """Whatever the order: a press only at a key's down with nothing else held; the filter's
    held set is exactly the keys down and not yet up (auto-repeat changes nothing)."""
    keys = KeyFilter(DEFAULT)
    held: set[int] = set()
    for code, value in events:
        verdict = keys.feed(EV_KEY, code, value)
        if value == 1:
            alone = not (held - {code})
            assert isinstance(verdict, Pressed if alone else Chord)
            held.add(code)
        else:
            assert verdict is None
            if value == 0:
                held.discard(code)
        assert keys.held == held
