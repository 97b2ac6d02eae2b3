"""The tier a pytest run selects (docs/testing.md, The fast tier): ``selects_only_fast`` reads
the run's ``-m`` for tests/conftest.py, and ``examples`` sizes a property test to the run: a
fifth of its Hypothesis examples when the run selects the fast tier only (``make test-fast``),
all of them in ``make test``.

``FAST_ONLY`` is set by tests/conftest.py (``pytest_configure``), before any test module is
imported, so a ``@settings(max_examples=examples(300))`` reads it when its module is collected.
"""

from __future__ import annotations

import itertools
import re

from _pytest.mark.expression import Expression

#: The marker of the fast tier.
FAST = "fast"

#: True when the run's ``-m`` selects only tests marked fast (tests/conftest.py sets it).
FAST_ONLY = False

#: The fewest examples a property test runs in the fast tier.
FAST_MIN = 10


def examples(full: int) -> int:
    """Hypothesis's ``max_examples`` for a property test: ``full`` in ``make test``, a fifth of
    it (at least FAST_MIN, at most ``full``) in the fast tier."""
    return min(full, max(FAST_MIN, full // 5)) if FAST_ONLY else full


def selects_only_fast(markexpr: str) -> bool:
    """Whether the mark expression ``markexpr`` (pytest's ``-m``) selects only tests marked
    fast: false for every test without the mark, whatever other marks it has."""
    if not markexpr:
        return False
    try:
        expression = Expression.compile(markexpr)  # pytest's own reading of -m
    except Exception:  # not pytest's grammar: pytest itself reports it; sized as in make test
        return False
    names = sorted(set(re.findall(r"[A-Za-z_]\w*", markexpr)) - {"and", "or", "not", FAST})
    for values in itertools.product((False, True), repeat=len(names)):
        marked = {name for name, value in zip(names, values, strict=True) if value}
        if expression.evaluate(lambda name, /, marked=marked, **_kwargs: name in marked):
            return False
    return True
