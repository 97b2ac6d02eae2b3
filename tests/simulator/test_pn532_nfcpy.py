"""A host no one here wrote reads the simulated PN532: nfcpy 1.0.4 opens it as a real reader
and senses the same UIDs, 4- and 7-byte. If the simulation drifts from the chip, this fails.

nfcpy finds a serial reader only by a name under /dev (``tty:USB<n>:pn532``), so the test
links a free /dev/ttyUSB<n> to the simulator's pty and removes the link after: it needs root,
as CI has; it is skipped with the reason otherwise.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator
from pathlib import Path

import nfc
import nfc.clf
import pytest

from simulator.pn532.chip import Tag
from simulator.pn532.serve import Pn532Readers

pytestmark = [
    pytest.mark.skipif(
        os.geteuid() != 0, reason="nfcpy opens only names under /dev: the link needs root"
    ),
    # nfcpy's TTY.find opens each /dev name to test it and leaves the file to the collector.
    pytest.mark.filterwarnings("ignore:unclosed file <_io.TextIOWrapper name='/dev/ttyUSB"),
]

NTAG_UID = bytes.fromhex("04A2B3C4D5E680")
CLASSIC_UID = bytes.fromhex("DEADBEEF")


@contextlib.contextmanager
def dev_link(target: str) -> Iterator[str]:
    """A free /dev/ttyUSB<n> linked to ``target``, removed after; yields nfcpy's path."""
    for number in range(90, 200):
        link = Path(f"/dev/ttyUSB{number}")
        try:
            link.symlink_to(target)
        except FileExistsError:
            continue
        try:
            yield f"tty:USB{number}:pn532"
        finally:
            link.unlink()
        return
    pytest.fail("no free /dev/ttyUSB90 to /dev/ttyUSB199 for the link")


#: How many times nfcpy may open the reader. nfcpy gives the chip 100 ms of the wall clock to
#: answer each command of its open (nfc/clf/pn532.py ``init``; a PN532 answers within 15 ms),
#: and a test worker the machine keeps off the CPU that long cannot be told from a chip that
#: does not answer: nfcpy raises ENODEV. So an open that fails so is tried again on readers
#: powered up afresh; a simulation nfcpy cannot open fails every try.
OPENS = 3


@contextlib.contextmanager
def sensed(
    tmp_path: Path, tag: Tag | None
) -> Iterator[tuple[nfc.clf.RemoteTarget | None, Pn532Readers]]:
    """nfcpy opens the simulated reader at the slot (``tag`` in its field), senses for a
    106 kbps Type A target once and closes it; yields what it sensed and the readers, still
    serving, to be asked what the chip was told."""
    failed: list[OSError] = []
    for attempt in range(OPENS):
        with Pn532Readers(tmp_path / f"open{attempt}", ("slot",)) as readers:
            if tag is not None:
                readers.place("slot", tag, dwell=600.0)
            with dev_link(readers.endpoints["slot"].slave_name) as path:
                clf = nfc.ContactlessFrontend()
                try:
                    opened = clf.open(path)
                except OSError as error:
                    if error.errno != errno.ENODEV:
                        raise
                    failed.append(error)
                    continue
                assert opened, f"nfcpy found no reader at {path}"
                try:
                    target = clf.sense(nfc.clf.RemoteTarget("106A"))
                finally:
                    clf.close()
            yield target, readers
            return
    pytest.fail(f"nfcpy could not open the simulated PN532 in {OPENS} tries: {failed}")


@pytest.mark.parametrize(
    ("tag", "uid"),
    [(Tag.ntag213(NTAG_UID), NTAG_UID), (Tag.mifare_classic(CLASSIC_UID), CLASSIC_UID)],
    ids=["7-byte NTAG213", "4-byte MIFARE Classic"],
)
def test_nfcpy_senses_the_tag(tmp_path: Path, tag: Tag, uid: bytes) -> None:
    with sensed(tmp_path, tag) as (target, readers):
        assert target is not None
        assert bytes(target.sdd_res) == uid
        assert bytes(target.sens_res) == bytes(reversed(tag.sens_res))  # nfcpy's order: LSB first
        chip = readers.chips["slot"]
        with readers.locked():
            assert chip.baud == 115200  # nfcpy set 921600 at open and 115200 again at close
            assert chip.counters.by_code.get(0x00) == 1  # its Diagnose line test was echoed


def test_nfcpy_finds_no_tag_in_an_empty_field(tmp_path: Path) -> None:
    with sensed(tmp_path, None) as (target, readers):
        assert target is None
        with readers.locked():
            assert readers.chips["slot"].counters.polls == 1
