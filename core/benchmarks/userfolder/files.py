"""Reading a folder's files as text, with a size limit and line-accurate UTF-8 errors.

A hand-made folder may hold a 2 GB log renamed `tasks.jsonl` or a file saved
in Latin-1; both must end in one problem naming the file (and the line of the
first bad byte), not in a MemoryError or a UnicodeDecodeError traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.benchmarks.userfolder.errors import Problems
from core.safeio import MAX_JSON_DEPTH, InputError, decode_utf8, loads_json

MAX_FILE_BYTES = 64 * 1024 * 1024


def read_text(folder: Path, rel: str, problems: Problems) -> str | None:
    """The file `rel` of the folder as text, or None after recording why it cannot be read."""
    path = folder / rel
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            problems.add(rel, f"is {size / 1e6:,.0f} MB; the limit is {MAX_FILE_BYTES / 1e6:,.0f} MB")
            return None
        data = path.read_bytes()
    except OSError as exc:
        problems.add(rel, f"cannot read ({exc.strerror or exc})")
        return None
    try:
        return decode_utf8(data)
    except InputError as exc:
        problems.add(rel, exc.message, exc.line)
        return None


def parse_json(text: str, rel: str, problems: Problems, *, line: int | None = None) -> tuple[bool, Any]:
    """(ok, value) of JSON text; syntax errors and nesting deeper than the limit are problems."""
    try:
        return True, loads_json(text, MAX_JSON_DEPTH, line=line)
    except InputError as exc:
        problems.add(rel, exc.message, exc.line)
        return False, None
