"""The dispute bundle (13:69E-1.31(b): when a patron disputes a hand, the device's game history
captured and kept; docs/journal.md, The dispute bundle): everything about one hand in one folder
that a machine which never saw the table can check.

A bundle holds the journal's records as their exact lines, from the table's signed checkpoint
before the hand's software record in force (so the start that dealt it, its ``software`` and
``table_key`` records, are among them) to the signed checkpoint after the hand (or to the
journal's end, said so, while none follows yet); what the records tell of the hand, made from
them by the code of the tablectl that makes the bundle (its recall as text and JSON, its PHH
export, its terms, the software record in force); the public key in force at the first record;
and a manifest naming that tablectl and listing every file with its SHA-256.

The records under their signatures are the evidence; the told files are a reading of them.
``derived`` makes the told files from the records, both when a bundle is made (``make``, from the
table's journal, controller/cli/commands/dispute.py, or the floor's store,
controller/floor/disputestore.py) and when it is checked (``check``): the bundled files must be
those bytes when the same software made the bundle, and are said to be worded otherwise, not
failed, when another did.

The parts, each a private module behind this one: ``_format`` (the files' names, the manifest,
the keys in force), ``_bundle`` (finding a hand's records, what they tell, making and writing
the bundle), ``_verify`` (checking it).
"""

from __future__ import annotations

from controller.history.dispute._bundle import (
    Bounds,
    Finder,
    SoftwareFile,
    TermsFile,
    bounds,
    derived,
    make,
    this_software,
    write,
)
from controller.history.dispute._format import (
    BUNDLE_VERSION,
    MANIFEST,
    PHH,
    PUBLIC_KEY,
    RECALL,
    RECALL_JSON,
    RECORDS,
    SOFTWARE_FILE,
    TERMS,
    Begins,
    BundleFile,
    BundleKey,
    DisputeError,
    Ends,
    MadeBy,
    Manifest,
    keys_in,
    manifest_text,
    read_manifest,
    sha256,
)
from controller.history.dispute._verify import KEY_STRENGTH, Check, TrustedKey, Verdict, check

__all__ = [
    "BUNDLE_VERSION",
    "KEY_STRENGTH",
    "MANIFEST",
    "PHH",
    "PUBLIC_KEY",
    "RECALL",
    "RECALL_JSON",
    "RECORDS",
    "SOFTWARE_FILE",
    "TERMS",
    "Begins",
    "Bounds",
    "BundleFile",
    "BundleKey",
    "Check",
    "DisputeError",
    "Ends",
    "Finder",
    "MadeBy",
    "Manifest",
    "SoftwareFile",
    "TermsFile",
    "TrustedKey",
    "Verdict",
    "bounds",
    "check",
    "derived",
    "keys_in",
    "make",
    "manifest_text",
    "read_manifest",
    "sha256",
    "this_software",
    "write",
]
