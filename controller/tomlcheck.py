"""Reading a TOML document as a checked configuration: every problem named, none raised early.

A ``Section`` wraps one TOML table: its typed getters record a ``Problem`` (the
dotted key, the value found and what is allowed) instead of raising, so a
reader walks the whole file and ``SettingsError`` lists every mistake at once.
Unknown keys are problems too, with difflib's "did you mean". Pure: no I/O.

A layer of its own, below the drivers (each backend checks its keys with a ``Section``) and
above the poker core (``ConfigError``): it may use the poker core alone.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from controller.poker.engine.tablesetup import ConfigError

# --- Problems -----------------------------------------------------------------------------


class _Missing:
    def __repr__(self) -> str:
        return "(missing)"


MISSING: Final = _Missing()


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in the file: the key, the value found there, and what is allowed."""

    key: str
    value: object
    #: What is allowed, usually starting "expected".
    expected: str

    def __str__(self) -> str:
        return f"{self.key} = {show(self.value)}: {self.expected}"


class SettingsError(ConfigError):
    """The configuration file cannot be used; ``problems`` lists every reason at once."""

    def __init__(self, source: str, problems: Sequence[Problem]) -> None:
        self.source = source
        self.problems = tuple(problems)
        count = len(self.problems)
        lines = [f"{source}: {count} error{'s' if count != 1 else ''} in the table's configuration"]
        lines.extend(f"  {problem}" for problem in self.problems)
        super().__init__("\n".join(lines))


def show(value: object) -> str:
    """A value as it would be written in TOML, for an error message."""
    if value is MISSING:
        return "(missing)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str | int | float):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(show(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key} = {show(item)}" for key, item in value.items()) + "}"
    return str(value)


def _dotted(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


class Section:
    """One TOML table being read: typed getters that record a problem instead of raising.

    Each getter returns the value, or the default when the key is absent, or None
    after recording a Problem; ``known`` keys are checked on creation (None: the
    caller judges the keys itself).
    """

    def __init__(
        self,
        problems: list[Problem],
        prefix: str,
        data: Mapping[str, object],
        known: tuple[str, ...] | None,
        sections: Mapping[str, tuple[str, ...]],
    ) -> None:
        self.problems = problems
        self.prefix = prefix
        self.data = data
        #: Every section's keys, to say where a key written in the wrong section belongs.
        self.sections = sections
        if known is not None:  # None: the section's reader judges its own keys
            self._unknown(known)

    def _unknown(self, known: tuple[str, ...]) -> None:
        for key, value in self.data.items():
            if key in known:
                continue
            expected = f"one of the keys of [{self.prefix}]" if self.prefix else "a section"
            expected = f"no such key; expected {expected}: {', '.join(known)}"
            close = difflib.get_close_matches(key, known, n=1)
            if close:
                expected += f" (did you mean {close[0]!r}?)"
            else:
                home = [
                    section
                    for section, keys in self.sections.items()
                    if section not in ("", self.prefix) and key in keys
                ]
                if home:
                    expected += f" ({key!r} belongs in [{home[0]}])"
            self.problems.append(Problem(self.key(key), value, expected))

    def key(self, name: str) -> str:
        return _dotted(self.prefix, name)

    def has(self, name: str) -> bool:
        return name in self.data

    def fail(self, name: str, expected: str) -> None:
        self.problems.append(Problem(self.key(name), self.data.get(name, MISSING), expected))

    def section(
        self, name: str, known: tuple[str, ...] | None, *, required: bool
    ) -> Section | None:
        value = self.data.get(name, MISSING)
        if value is MISSING:
            if required:
                self.fail(name, f"expected a [{self.key(name)}] section")
            return None
        if not isinstance(value, dict):
            self.fail(name, f"expected a [{self.key(name)}] section, not a single value")
            return None
        return Section(self.problems, self.key(name), value, known, self.sections)

    def integer(
        self,
        name: str,
        default: int | None = None,
        *,
        minimum: int = 0,
        maximum: int | None = None,
        what: str = "",
    ) -> int | None:
        """An integer in range; None (with a problem recorded unless it has a default) if not."""
        value = self.data.get(name, MISSING)
        if value is MISSING:
            if default is None:
                self.fail(name, f"expected {what or 'an integer'}; this key is required")
            return default
        bounds = f"at least {minimum}" if maximum is None else f"{minimum} to {maximum}"
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or value < minimum
            or (maximum is not None and value > maximum)
        ):
            self.fail(name, f"expected {what + ': ' if what else ''}a whole number, {bounds}")
            return None
        return value

    def seconds(
        self, name: str, default: float, *, above: float, maximum: float, above_why: str = ""
    ) -> float | None:
        """A number of seconds, more than ``above`` (``above_why`` says why, if it needs saying)
        and at most ``maximum``; ``default`` when absent, None (a problem noted) when wrong."""
        value = self.data.get(name, MISSING)
        if value is MISSING:
            return default
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or not above < value <= maximum
        ):
            why = f" ({above_why})" if above_why else ""
            self.fail(
                name,
                f"expected a number of seconds, more than {above:g}{why} and at most {maximum:g}",
            )
            return None
        return float(value)

    def boolean(self, name: str, default: bool) -> bool | None:
        value = self.data.get(name, MISSING)
        if value is MISSING:
            return default
        if not isinstance(value, bool):
            self.fail(name, "expected true or false")
            return None
        return value

    def string(
        self, name: str, *, pattern: re.Pattern[str] | None = None, what: str, required: bool
    ) -> str | None:
        value = self.data.get(name, MISSING)
        if value is MISSING:
            if required:
                self.fail(name, f"expected {what}; this key is required")
            return None
        if not isinstance(value, str) or (pattern is not None and not pattern.fullmatch(value)):
            self.fail(name, f"expected {what}")
            return None
        return value

    def choice(self, name: str, choices: Sequence[str], default: str | None) -> str | None:
        value = self.data.get(name, MISSING)
        if value is MISSING:
            if default is None:
                self.fail(name, f"expected {one_of(choices)}; this key is required")
            return default
        if value not in choices:
            hint = ""
            if isinstance(value, str):
                close = difflib.get_close_matches(value, choices, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
            self.fail(name, f"expected {one_of(choices)}{hint}")
            return None
        assert isinstance(value, str)  # value is one of the string choices
        return value

    def path(
        self, name: str, base: Path, *, what: str, required: bool, default: Path | None = None
    ) -> Path | None:
        """A path; a relative one is taken from the configuration file's folder."""
        if name not in self.data:
            if required:
                self.fail(name, f"expected {what}; this key is required")
            return default
        value = self.string(name, what=what, required=True)
        if value is None:
            return None
        if not value.strip() or "\0" in value:
            self.fail(name, f"expected {what}")
            return None
        return base / value


def one_of(choices: Sequence[str]) -> str:
    quoted = [json.dumps(choice) for choice in choices]
    if len(quoted) == 1:
        return quoted[0]
    either = "one of " if len(quoted) > 2 else ""
    return either + ", ".join(quoted[:-1]) + " or " + quoted[-1]
