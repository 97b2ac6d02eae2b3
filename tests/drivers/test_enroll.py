"""`tablectl enroll`: a deck read through a shoe on a real pty becomes a deck file, or nothing.

The shoe and the enrollment's driver read one clock the test moves (the
command has no clock of its own to pass: the test hands the options it opens its
shoe with one, drivers/seam/device.py ``OpenOptions``), so a heartbeat falls due only
when the test says so.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from backends import PtyBackend
from fake_device import FakeDevice

from controller.cli.commands import enroll as enroll_command
from controller.cli.commands.enroll import NO_SHOE, OK, REFUSED, EnrollRequest, enroll
from controller.cli.main import main
from controller.poker.cards import DECK, Card
from controller.poker.inputs import ReadPoint
from drivers.deck import Deck
from drivers.seam.device import OpenOptions
from drivers.seam.events import Feed, Lid, Reader
from drivers.tablectl.backend import ProtocolSettings
from drivers.tablectl.shoe import ShoeStatus
from simulator.clock import ManualClock

TAGS = [f"E0AA0000{n:08X}" for n in range(52)]
#: Seconds of silence before the enrollment gives up: it never should, here.
PATIENT = 30.0


def on_clock(monkeypatch: pytest.MonkeyPatch, clock: ManualClock) -> None:
    """The enrollment's shoe reads ``clock``."""
    monkeypatch.setattr(enroll_command, "OpenOptions", functools.partial(OpenOptions, clock=clock))


@pytest.fixture
def shoe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeDevice]:
    backend = PtyBackend(tmp_path)
    clock = ManualClock()
    on_clock(monkeypatch, clock)
    with FakeDevice(backend, clock=clock) as device:
        yield device
    backend.close()


def request(shoe: FakeDevice, path: Path, **kwargs: object) -> EnrollRequest:
    link = {"query_interval": 0.1, "backoff_initial": 0.02}
    settings = ProtocolSettings("shoe", shoe.backend.url, None, None, link=link)
    values: dict[str, object] = {"path": path, "name": "red", "shoe": settings, "timeout": PATIENT}
    values.update(kwargs)
    return EnrollRequest(**values)  # type: ignore[arg-type]  # the test's overrides are typed by name


def deal(shoe: FakeDevice, tags: list[str], point: ReadPoint = ReadPoint.DEALING_SLOT) -> None:
    for uid in tags:
        shoe.read(uid, point)


def test_a_deck_in_new_deck_order_is_enrolled_and_written(shoe: FakeDevice, tmp_path: Path) -> None:
    """52 tags in new-deck order become 2c 2d 2h 2s ... As; discard-reader reads are ignored."""
    path = tmp_path / "red.deck"
    deal(shoe, TAGS[:2])
    deal(shoe, ["E0FF000000000001"], ReadPoint.DISCARD_READER)
    deal(shoe, TAGS[2:])
    said: list[str] = []
    assert enroll(request(shoe, path), ask=input, say=said.append) == OK
    assert Deck.load(path) == Deck("red", dict(zip(TAGS, DECK, strict=True)))
    assert any("discard reader: ignored" in line for line in said)
    assert said[-1] == f"wrote {path}: deck red, 52 cards"


def test_a_duplicate_tag_refuses_the_enrollment_and_writes_nothing(
    shoe: FakeDevice, tmp_path: Path
) -> None:
    """A tag read twice (past the RFID repeat window) is refused; no file is written."""
    path = tmp_path / "red.deck"
    deal(shoe, TAGS[:5])
    said: list[str] = []

    def later_repeat(line: str) -> None:
        said.append(line)
        if line.startswith(" 5/52"):
            shoe.advance(0.1)  # past the repeat window: a real duplicate, not an RFID repeat
            deal(shoe, [TAGS[1]])

    status = enroll(request(shoe, path, repeat_window=0.05), ask=input, say=later_repeat)
    assert status == REFUSED
    assert not path.exists()
    assert f"enrollment refused: tag {TAGS[1]} read again: it is already the 2d of deck red" in (
        "\n".join(said)
    )
    assert said[-1] == "nothing was written"


def test_an_empty_shoe_with_cards_missing_refuses_naming_them(
    shoe: FakeDevice, tmp_path: Path
) -> None:
    """The shoe runs empty at 50 cards: refused, the two missing cards named."""
    path = tmp_path / "red.deck"
    deal(shoe, TAGS[:50])
    shoe.submit(ShoeStatus(0, Lid.CLOSED, Reader.OK, Feed.EMPTY))
    said: list[str] = []
    assert enroll(request(shoe, path), ask=input, say=said.append) == REFUSED
    assert "2 cards have no tag: Ah As" in said
    assert not path.exists()


def test_a_tag_of_the_other_deck_is_refused(shoe: FakeDevice, tmp_path: Path) -> None:
    """The other deck's file is given: its tags cannot join this deck."""
    other = tmp_path / "blue.deck"
    Deck("blue", dict(zip(TAGS, DECK, strict=True))).save(other)
    deal(shoe, TAGS[:1])
    said: list[str] = []
    status = enroll(request(shoe, tmp_path / "red.deck", other_deck=other), input, said.append)
    assert status == REFUSED
    assert any("belongs to the other deck" in line for line in said)


def test_an_existing_deck_file_is_not_replaced_without_force(tmp_path: Path) -> None:
    """Enrollment will not overwrite a deck file unless told to."""
    path = tmp_path / "red.deck"
    path.write_text("keep me")
    shoe = ProtocolSettings("shoe", "/nonexistent/port", None, None)
    said: list[str] = []
    assert enroll(EnrollRequest(path, "red", shoe), input, said.append) == REFUSED
    assert said == [f"error: {path} exists; pass --force to replace it"]
    assert path.read_text() == "keep me"


def test_reads_lost_mid_enrollment_in_new_deck_order_refuse_it(
    shoe: FakeDevice, tmp_path: Path
) -> None:
    """docs/protocol.md 5, Lost sentences: the shoe skips two numbers after the 5th card; in
    new-deck order the 6th tag read would be enrolled as the card lost before it, so the
    enrollment is refused naming the lost numbers, and nothing is written."""
    path = tmp_path / "red.deck"
    deal(shoe, TAGS[:5])
    said: list[str] = []

    def lose_two(line: str) -> None:
        said.append(line)
        if line.startswith(" 5/52"):
            shoe.wait_acknowledged()
            first = shoe.lose_unsent(2)
            said.append(f"(lost from {first})")
            deal(shoe, TAGS[7:9])
            shoe.advance(0.15)  # the next heartbeat shows the two lost

    assert enroll(request(shoe, path), ask=input, say=lose_two) == REFUSED
    assert not path.exists()
    first = next(line for line in said if line.startswith("(lost from "))[11:-1]
    refusal = f"enrollment refused: the shoe's sentences {first}..{int(first) + 1} were lost"
    assert any(line.startswith(refusal) for line in said), said
    assert said[-1] == "nothing was written"


def test_reads_lost_mid_enrollment_in_any_order_are_a_warning(
    shoe: FakeDevice, tmp_path: Path
) -> None:
    """docs/protocol.md 5, Lost sentences: in any order the technician names each card, so
    lost numbers are a warning to pass again any card not listed; the deck is still written."""
    path = tmp_path / "red.deck"
    names = dict(zip(TAGS, (c.code for c in DECK), strict=True))
    deal(shoe, TAGS[:2])
    said: list[str] = []

    def lose_one(line: str) -> None:
        said.append(line)
        if line.startswith(" 2/52"):
            shoe.wait_acknowledged()
            shoe.lose_unsent(1)
            deal(shoe, TAGS[2:])
            shoe.advance(0.15)  # the next heartbeat shows the one lost

    def ask(prompt: str) -> str:
        return names[prompt.split()[1].rstrip(":")]

    assert enroll(request(shoe, path, any_order=True), ask=ask, say=lose_one) == OK
    assert Deck.load(path) == Deck("red", dict(zip(TAGS, DECK, strict=True)))
    warnings = [line for line in said if line.startswith("warning: the shoe's sentences")]
    assert len(warnings) == 1
    assert warnings[0].endswith("were lost; pass again any card not listed")


def test_a_shoe_speaking_another_protocol_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refused shoe stops the enrollment with the driver's reason."""
    backend = PtyBackend(tmp_path)
    clock = ManualClock()
    on_clock(monkeypatch, clock)
    with FakeDevice(backend, protocol=2, clock=clock) as shoe:
        said: list[str] = []
        assert enroll(request(shoe, tmp_path / "red.deck"), input, said.append) == NO_SHOE
    assert any("speaks protocol version 2" in line for line in said)


def test_tablectl_enroll_in_any_order_asks_for_each_card(
    shoe: FakeDevice,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--any-order: the technician names each card; a typo or a card named twice is asked again."""
    order = list(reversed(DECK))
    answers = iter(["Zz", order[0].code, order[0].code] + [c.code for c in order[1:]])
    monkeypatch.setattr("builtins.input", lambda prompt: next(answers))
    deal(shoe, TAGS)
    path = tmp_path / "red.deck"
    status = main(
        [
            "enroll",
            "--deck", str(path),
            "--port", shoe.backend.url,
            "--any-order",
            "--timeout", str(PATIENT),
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert status == OK, out
    assert "not a card: 'Zz'" in out
    assert f"{order[0]} is already enrolled" in out
    deck = Deck.load(path)
    assert deck.cards[TAGS[0]] == Card.parse("As")
    assert deck.cards[TAGS[51]] == Card.parse("2c")
