"""Reading hand-written input files without tracebacks: UTF-8 with a line number, JSON with a depth limit.

Why: Python's own errors for malformed input are either a `RecursionError`
(JSON nested a few thousand levels deep) or a `UnicodeDecodeError` that gives
a byte offset into the file. Users need the line. These helpers raise
`InputError` (a `ValueError`) whose `line` and message say where and what.
"""

from __future__ import annotations

import json
import re
from typing import Any

MAX_JSON_DEPTH = 64
_STRUCTURE = re.compile(r'"(?:[^"\\\n]|\\.)*"|[\[\]{}]')


class InputError(ValueError):
    """Malformed input at a known line (None when the whole file is concerned)."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line


def line_of(text: str | bytes, index: int) -> int:
    """The 1-based line of character (or byte) `index`."""
    newline = b"\n" if isinstance(text, bytes) else "\n"
    return text.count(newline, 0, index) + 1  # type: ignore[arg-type]


def decode_utf8(data: bytes) -> str:
    """`data` as text; invalid UTF-8 raises `InputError` naming the line and the byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = line_of(data, exc.start)
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        byte = data[exc.start : exc.start + 1].hex()
        raise InputError(f"not valid UTF-8 (byte 0x{byte} at column {column})", line) from None


def json_depth_problem(text: str, max_depth: int = MAX_JSON_DEPTH) -> InputError | None:
    """An `InputError` at the line where `text` nests deeper than `max_depth`, else None.

    Scans brackets outside strings with one regular expression (C speed), so it
    runs before `json.loads` ever recurses.
    """
    depth = 0
    for m in _STRUCTURE.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            if depth > max_depth:
                return InputError(
                    f"JSON nested more than {max_depth} levels deep (the limit); flatten the data",
                    line_of(text, m.start()),
                )
        elif ch in "]}":
            depth -= 1
    return None


def loads_json(text: str, max_depth: int = MAX_JSON_DEPTH, *, line: int | None = None) -> Any:
    """`json.loads` with a depth limit; syntax errors raise `InputError` with their line and column.

    `line` is the line `text` starts on in its file (for one line of a JSONL file).
    """
    problem = json_depth_problem(text, max_depth)
    if problem is not None:
        raise InputError(problem.message, line if line is not None else problem.line)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = line if line is not None else exc.lineno
        raise InputError(f"invalid JSON at column {exc.colno}: {exc.msg}", at) from None
    except RecursionError:  # unreachable after the depth scan; kept so no traceback escapes
        raise InputError("JSON nested too deeply", line) from None
