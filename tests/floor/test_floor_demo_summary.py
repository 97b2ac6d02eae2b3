"""The floor demo's summary (docs/floor.md, The demo) says each chain's verdict in the one
vocabulary of controller/journal/verdict.py (docs/journal.md, Verdicts), as floor verify does:
its links, and its signatures checked and by whom, or not checked and why; never a word of its
own such as "verified"."""

from __future__ import annotations

import argparse
import subprocess

import pytest

from controller.journal import verdict
from simulator.floordemo import summary
from simulator.floorlab_check import Comparison, Lag

pytestmark = pytest.mark.fast

GOOD = verdict.Verdict(
    verdict.Links.INTACT, verdict.Signatures.GOOD, verdict.by_registered(["5c1a232245c3ac72"])
)
UNCHECKED = verdict.Verdict(
    verdict.Links.INTACT, verdict.Signatures.NOT_CHECKED, verdict.no_key_registered("T2")
)


def _summary(*found: Comparison) -> list[str]:
    args = argparse.Namespace(tables=len(found), hands=3, game="mambo", seed=0)
    verify = subprocess.CompletedProcess(["tablectl"], 0, "clean\n", "")
    return summary(
        args,
        {c.table_id: c for c in found},
        {c.table_id: c.records for c in found},
        verify,
        Lag(sum(c.records for c in found), 0.05, 0.2, 0.3),
    )


def _row(lines: list[str], first: str) -> str:
    [row] = [line for line in lines if line.split()[0] == first]
    return row


def test_each_chain_is_said_by_its_verdict_and_the_total_says_every_chain_vouched_for() -> None:
    lines = _summary(
        Comparison("T1", "j1", 40, 40, verdicts=[GOOD]),
        Comparison("T2", "j2", 30, 30, verdicts=[GOOD]),
    )
    assert _row(lines, "T1").endswith(
        "  links intact; signatures GOOD, checked with the table's registered key 5c1a232245c3ac72"
    )
    assert _row(lines, "total").endswith(
        "  every chain: links intact; signatures GOOD, checked with each table's registered key"
    )
    assert not any("verified" in line.lower() for line in lines), lines


def test_a_chain_whose_signatures_were_not_checked_says_so_and_why_and_is_not_counted_good() -> (
    None
):
    lines = _summary(
        Comparison("T1", "j1", 40, 40, verdicts=[GOOD]),
        Comparison("T2", "j2", 30, 30, verdicts=[UNCHECKED]),
    )
    assert _row(lines, "T2").endswith(
        "  links intact; signatures NOT CHECKED: the floor has no key registered for table T2 "
        "(tablectl floor key register)"
    )
    assert _row(lines, "total").endswith(
        "  1 of 2 chains: links intact; signatures GOOD, checked with each table's registered "
        "key; the others as above"
    )
    assert not any("verified" in line.lower() for line in lines), lines


def test_a_broken_chain_and_a_table_with_nothing_stored_say_so() -> None:
    broken = verdict.Verdict(verdict.Links.BROKEN, verdict.Signatures.NOT_JUDGED, at=7)
    lines = _summary(
        Comparison("T1", "j1", 40, 40, chain_problems=["record 7: ..."], verdicts=[broken]),
        Comparison("T2", None, 0, 0),
    )
    assert _row(lines, "T1").endswith(
        "  links NOT INTACT at record 7; signatures not judged past the break"
    )
    assert _row(lines, "T2").endswith("  no chain stored: not walked")
    assert _row(lines, "total").endswith(
        "0 of 2 chains: "
        + verdict.Verdict(
            verdict.Links.INTACT, verdict.Signatures.GOOD, "each table's registered key"
        ).text()
        + "; the others as above"
    )
