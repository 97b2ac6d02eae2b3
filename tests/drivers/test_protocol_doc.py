"""docs/protocol.md's examples are real: every sentence shown decodes as its talker's."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from drivers.tablectl import panel, shoe
from drivers.tablectl.sentences import Codec, DecodeError

pytestmark = pytest.mark.fast

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SENTENCE = re.compile(r"\$[A-Z]{5}[^*\s`]*\*[0-9A-Fa-f]{2}")
LISTENERS = {"SH": shoe.host_codec, "PN": panel.host_codec, "HC": panel.device_codec}


def documented_sentences() -> list[str]:
    return sorted(set(SENTENCE.findall(DOC.read_text(encoding="utf-8"))))


def test_the_document_shows_an_example_of_every_sentence_type() -> None:
    """Each device and host sentence type has at least one example in the document."""
    shown = {(s[1:3], s[3:6]) for s in documented_sentences()}
    expected = {("SH", kind) for kind in shoe.SHOE_SENTENCES}
    expected |= {("PN", kind) for kind in panel.PANEL_SENTENCES}
    expected |= {("HC", kind) for kind in panel.HOST_TO_PANEL}
    assert expected <= shown


@pytest.mark.parametrize("text", documented_sentences())
def test_every_documented_sentence_decodes_with_a_correct_checksum(text: str) -> None:
    """An example in the document is a valid sentence, checksum included."""
    codec: Codec = LISTENERS[text[1:3]]()
    (item,) = codec.feed(text.encode("ascii") + b"\r\n")
    assert not isinstance(item, DecodeError), f"{text}: {item}"
