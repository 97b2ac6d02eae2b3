"""Write the triple draw hands of PokerKit's WSOP 2023 Event #43 Day 5 tests as PHH files.

PokerKit 0.7.7 ships these hands as unit tests (``pokerkit/tests/test_wsop/test_2023_43_5.py``),
each ending in ``HandHistory.from_game_state``; this runs every test and keeps the PHH of
each hand whose variant is fixed-limit 2-7 triple draw (``F2L3D``). Run once, from the
repository root: ``python tests/data/phh/make_wsop.py``.
"""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any

from pokerkit import HandHistory
from pokerkit.tests.test_wsop import test_2023_43_5 as source

HERE = Path(__file__).resolve().parent


def main() -> None:
    """Run each test of the source module and write the triple draw hands it builds."""
    captured: list[HandHistory] = []
    original = HandHistory.from_game_state.__func__  # type: ignore[attr-defined]  # classmethod

    def capture(cls: type[HandHistory], *args: Any, **kwargs: Any) -> HandHistory:
        history = original(cls, *args, **kwargs)
        captured.append(history)
        return history

    HandHistory.from_game_state = classmethod(capture)  # type: ignore[assignment,method-assign]  # capture only
    loader = unittest.TestLoader()
    for name in loader.getTestCaseNames(source.StateTestCase):
        captured.clear()
        unittest.TextTestRunner(verbosity=0).run(source.StateTestCase(name))
        for history in captured:
            if history.variant == "F2L3D":
                path = HERE / f"wsop-2023-43-5-{name.removeprefix('test_')}.phh"
                path.write_text(history.dumps(), encoding="utf-8")
                print(path.name)


if __name__ == "__main__":
    main()
