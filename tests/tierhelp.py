"""The tier a pytest run selects (docs/testing.md, The fast tier), for the tests that size
themselves to it: a property test runs a fifth of its Hypothesis examples when the run selects
the fast tier only (``make test-fast``), and all of them in ``make test``.

``FAST_ONLY`` is set by tests/conftest.py (``pytest_configure``), before any test module is
imported, so a ``@settings(max_examples=examples(300))`` reads it when its module is collected.
"""

from __future__ import annotations

#: True when the run's ``-m`` selects only tests marked fast (tests/conftest.py sets it).
FAST_ONLY = False

#: The fewest examples a property test runs in the fast tier.
FAST_MIN = 10


def examples(full: int) -> int:
    """Hypothesis's ``max_examples`` for a property test: ``full`` in ``make test``, a fifth of
    it (at least FAST_MIN, at most ``full``) in the fast tier."""
    return min(full, max(FAST_MIN, full // 5)) if FAST_ONLY else full
