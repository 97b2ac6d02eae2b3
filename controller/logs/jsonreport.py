"""``--json``: what a command found, as one versioned JSON object for a technician's script.

Each command's report is a dataclass (its fields are the object's keys, docs/app.md,
Machine-readable output); ``print_report`` adds ``"version"`` first and prints it. A
change that removes or retypes a key raises ``VERSION``; a new key does not.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

#: The shape's version, the first key of every report.
VERSION: Final = 1


def _plain(value: object) -> Any:
    """What JSON has no form for, as text: a path, an enumeration's value."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    raise TypeError(f"{type(value).__name__} {value!r}: expected a JSON value in a report")


def report_json(report: DataclassInstance) -> str:
    """The report as one JSON object, ``version`` first, indented for a person as well."""
    return json.dumps(
        {"version": VERSION, **dataclasses.asdict(report)},
        indent=2,
        ensure_ascii=False,
        default=_plain,
    )


def print_report(report: DataclassInstance, stream: TextIO | None = None) -> None:
    """Print the report (standard output by default)."""
    print(report_json(report), file=stream if stream is not None else sys.stdout)
