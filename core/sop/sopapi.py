"""Helpers SOP code calls to read tool outputs: parse, pick a value, recognise errors and empty results.

Why a module of its own: the same functions run in two places that must agree.
The offline composer uses them in the main process to decide which value of an
earlier output links to a later call's argument, and the worker process
exposes them to SOP code (`tools.pick(...)`), so a link the miner found is
extracted the same way at run time. Standard library only: the worker imports
this module and nothing else of the project.

Tool outputs are observation text (what the agent sees): JSON, a Python
literal (WorkBench prints dicts and lists), numpy's array print (`['a' 'b']`),
or plain text.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
from typing import Any

_NUMPY_SCALAR = re.compile(r"np\.(?:int|float|str_|bool_|uint)\w*\(([^()]*)\)")
_QUOTED = re.compile(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"")
_NUMPY_STRINGS = re.compile(
    r"""^\[\s*(?:(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s+)+(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")\s*\]$"""
)
_EMPTY = re.compile(r"^\s*no\b.*\bfound\.?\s*$", re.I)


def parse(text: Any) -> Any:
    """The structured value of an output text, or the text itself when it has none."""
    if not isinstance(text, str):
        return text
    s = text.strip()
    if not s:
        return s
    try:
        return json.loads(s)
    except ValueError:
        pass
    cleaned = _NUMPY_SCALAR.sub(r"\1", s)
    if _NUMPY_STRINGS.match(cleaned):  # literal_eval would glue ['a' 'b'] into ['ab']
        return [a if a or not b else b for a, b in _QUOTED.findall(cleaned)]
    try:
        return ast.literal_eval(cleaned)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    if cleaned.startswith("[") and cleaned.endswith("]"):  # numpy's array print: ['a' 'b'] has no commas
        items = [a if a or not b else b for a, b in _QUOTED.findall(cleaned)]
        if items or cleaned[1:-1].strip() == "":
            return items
    return s


def leaves(value: Any, key: str | None = None) -> Iterator[tuple[str | None, Any]]:
    """(key, scalar) pairs of a parsed value, depth first; list items carry their container's key."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from leaves(v, str(k))
    elif isinstance(value, list | tuple):
        for v in value:
            yield from leaves(v, key)
    else:
        yield key, value


def pick(output: Any, key: str | None = None) -> Any:
    """The first value stored under `key` in an output (any depth); without a key, the first scalar.

    Returns None when nothing matches, so SOP code can check before using it.
    """
    value = parse(output)
    for k, v in leaves(value):
        if key is None or k == key:
            return v
    return None


def pick_all(output: Any, key: str | None = None) -> list[Any]:
    """Every value stored under `key` (or every scalar), in order."""
    return [v for k, v in leaves(parse(output)) if key is None or k == key]


def is_empty(output: Any) -> bool:
    """An output that found nothing: an empty structure, empty text, or "No ... found."."""
    value = parse(output)
    if isinstance(value, dict | list | tuple):
        return len(value) == 0
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip() or bool(_EMPTY.match(value))
    return False


def looks_like_error(output: Any) -> bool:
    """The generic rejection look ("Error...", "... not provided.", "... not found.")."""
    if not isinstance(output, str):
        return False
    s = output.strip().lower()
    return s.startswith("error") or s.endswith("not provided.") or s.endswith(" not found.")


def norm(value: Any) -> str:
    """A value as compared when linking calls: case- and whitespace-insensitive text."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return re.sub(r"\s+", " ", str(value)).strip().lower()
