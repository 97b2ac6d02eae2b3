"""Write the journal's published JSON Schema (docs/journal.md, The schema):

    .venv/bin/python -m controller.journal.schemadoc [FILE]

FILE defaults to ``docs/schema/journal-v3.json`` (``journal-v<VERSION>.json``) of the source
tree; ``-`` prints it.
``tests/test_schema.py`` fails while the published file and ``controller/journal/schema.py`` differ.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Final

from controller.journal.schema import VERSION
from controller.journal.schemajson import schema_text

#: The published file, in the source tree beside the package.
PUBLISHED: Final = (
    Path(__file__).resolve().parents[2] / "docs" / "schema" / f"journal-v{VERSION}.json"
)


def main(argv: list[str]) -> int:
    """Write (or with ``-`` print) the schema; 2 on a usage error."""
    if len(argv) > 1:
        print("usage: python -m controller.journal.schemadoc [FILE | -]", file=sys.stderr)
        return 2
    if argv == ["-"]:
        sys.stdout.write(schema_text())
        return 0
    target = Path(argv[0]) if argv else PUBLISHED
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(schema_text(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
