"""Compressing the journal's rotated files (docs/journal.md, Compressed files).

A file the writer has rotated away from is finished: it is compressed with Zstandard level 19
(docs/performance.md, Journal size: gzip -9 leaves a triple draw hand above the 20 KB target,
zstd -19 well below) to ``journal-NNNNNN.jsonl.zst``, and every reader reads it as the plain one
(``files.open_journal_file``). The file in use is never compressed: it stays plain and fsynced.

A crash at any point leaves one whole copy: the compressed bytes go to a temporary file,
fsynced, checked against the plain file, renamed into place and the folder fsynced; only then
is the plain file removed (and the folder fsynced again). A crash before the rename leaves the
plain file and a temporary one (removed by the next pass); after it, both whole copies (the
readers take the plain one, ``files.journal_files``; the next pass removes it).

A file is compressed a ``CHUNK`` at a time, and ``stopping`` is asked between chunks: a file
of a hundred hands takes seconds to half a minute of a core at level 19 (docs/performance.md,
Journal size), longer than a stop may wait (the unit's ``TimeoutStopSec``), so a stopping table
leaves the rest to the next pass, nothing on disk changed (docs/journal.md, Compressed files).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import suppress
from pathlib import Path
from typing import Final

import zstandard

from controller.journal.files import (
    COMPRESSED_SUFFIX,
    compressed_name,
    file_name,
    fsync_directory,
    journal_files,
    write_all,
)

#: zstd's level: 19 is its strongest without --ultra's memory; it compresses a file of a hundred
#: hands in seconds (off the append path, once a file) and decompresses as fast as any level.
LEVEL: Final = 19
#: The compressor's temporary file, beside the one it becomes; never a journal file's name.
TEMPORARY_SUFFIX: Final = ".tmp"
#: How much of a file is compressed between two looks at ``stopping``: at level 19 a few tenths
#: of a second of a core on this machine (about half a second with the other core busy).
CHUNK: Final = 256 * 1024


def _never() -> bool:
    return False


def compress_file(
    directory: Path, number: int, *, fsync: bool = True, stopping: Callable[[], bool] = _never
) -> Path | None:
    """Compress the journal's finished file ``number`` in place; returns the compressed file,
    or None if ``stopping`` said so before the compression was done (then nothing is changed:
    the plain file stays, and no temporary is written).

    Safe to repeat after a crash part-way (see the module's docstring). ``fsync=False`` is for
    tests and benchmarks, as for the writer.
    """
    plain = directory / file_name(number)
    target = directory / compressed_name(number)
    temporary = target.with_name(target.name + TEMPORARY_SUFFIX)
    data = plain.read_bytes()
    packed = _compressed(data, stopping)
    if packed is None:
        return None
    # Read back before it replaces anything: a fault in memory must not replace the record.
    if zstandard.ZstdDecompressor().decompress(packed) != data:
        raise OSError(f"{plain.name}: the compressed copy does not read back as the file")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        write_all(descriptor, packed)
        if fsync:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
    os.replace(temporary, target)
    if fsync:
        fsync_directory(directory)
    plain.unlink()
    if fsync:
        fsync_directory(directory)
    return target


def compress_rotated(
    directory: Path, *, fsync: bool = True, stopping: Callable[[], bool] = _never
) -> list[Path]:
    """Compress every finished plain file of the journal (all but the last, the file in use),
    oldest first, and finish what a crash left: a temporary file is removed, a plain file that
    has its compressed copy is compressed again (the copy is rewritten, then the plain file
    removed). Returns the files compressed; once ``stopping`` says so, the file under way is
    left as it was (``compress_file``) and no other is begun."""
    for leftover in directory.glob(f"journal-*.jsonl{COMPRESSED_SUFFIX}{TEMPORARY_SUFFIX}"):
        with suppress(FileNotFoundError):
            leftover.unlink()
    numbered = journal_files(directory)
    done = []
    for number, path in numbered[:-1]:
        if path.name == file_name(number):
            compressed = compress_file(directory, number, fsync=fsync, stopping=stopping)
            if compressed is None:
                break
            done.append(compressed)
    return done


def _compressed(data: bytes, stopping: Callable[[], bool]) -> bytes | None:
    """``data`` as one zstd frame, compressed a ``CHUNK`` at a time; None if ``stopping`` said
    so between two chunks. The frame records its content's size and a checksum: a reader finds
    a damaged file."""
    stream = zstandard.ZstdCompressor(level=LEVEL, write_checksum=True).compressobj(size=len(data))
    view = memoryview(data)
    packed = []
    for start in range(0, len(data), CHUNK):
        if stopping():
            return None
        packed.append(stream.compress(view[start : start + CHUNK]))
    packed.append(stream.flush())
    return b"".join(packed)
