"""An ISO/IEC 14443-A UID as the PN532 shoe writes it never equals, nor passes for, an
ISO/IEC 15693 UID (docs/hardware.md, Tags)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.pn532.backend import uid_text
from drivers.seam.tags import is_uid
from tests.tierhelp import examples

pytestmark = pytest.mark.fast

type_a_uids = st.sampled_from([4, 7, 10]).flatmap(lambda n: st.binary(min_size=n, max_size=n))
iso15693_uids = st.binary(min_size=7, max_size=7).map(lambda b: "E0" + b.hex().upper())


def test_the_ntag_of_nfcpys_tests() -> None:
    assert uid_text(bytes.fromhex("0416c6c2d73881")) == "0416C6C2D73881"


@settings(max_examples=examples(300))
@given(type_a=type_a_uids, vicinity=iso15693_uids)
def test_two_families_never_compare_equal(type_a: bytes, vicinity: str) -> None:
    text = uid_text(type_a)
    assert len(text) in (8, 14, 20)
    assert not is_uid(text)
    assert is_uid(vicinity)
    assert text != vicinity
