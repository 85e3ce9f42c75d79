"""Replaying call lists on fresh tables and comparing end states (SPEC 6.1-6.3).

Call strings (`<domain>.<tool>.func(k="v", ...)`, the form of the ground truth
and of the recorded `function_calls`) are parsed with `ast`, never evaluated:
only keyword arguments with literal values are accepted, and anything else
(syntax error, positional arguments, unknown tool, unknown keyword, an
exception inside the tool) skips that call silently, which is what the
upstream `eval` loop did. String literals are decoded exactly like Python does,
so a backslash-n written in a call string becomes a real newline.

Only write tools are executed during a replay. Read tools never change a
compared table and no write tool depends on state a read tool changes (the one
read with a side effect converts an analytics column, and analytics data is not
compared), so skipping them gives the same end state faster.

End states are compared through hashable fingerprints equivalent to pandas
`DataFrame.equals` on the compared tables: column names and order, row labels
and order, and cells, with missing == missing. (Column dtypes are always object
here, so they need no separate check.) Untouched tables reuse the fingerprint
of the initial state, which keeps re-scoring thousands of rows fast.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from core.benchmarks.workbench.tables import COMPARED, Tables, fresh_tables, initial_tables
from core.benchmarks.workbench.tools import TOOLS, WRITE_TOOLS

CASE_SENSITIVE_COLUMNS = frozenset({"status", "list_name", "board"})
ParsedCall = tuple[str, dict[str, Any]]


def newline_rule(call: str) -> str:
    """SPEC 6.1: every real newline in a call string becomes backslash + n before anything else."""
    return call.replace("\n", "\\n")


@lru_cache(maxsize=65536)
def parse_call_string(text: str) -> ParsedCall | None:
    """`<domain>.<tool>.func(k=literal, ...)` -> (tool name, kwargs), or None when upstream would skip it.

    The newline rule is applied first. Unknown tools are rejected here; unknown
    keywords are left for the tool call to reject, like upstream. Results are
    cached (recorded runs repeat many call strings): never mutate the kwargs.
    """
    try:
        node = ast.parse(newline_rule(text).strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(node, ast.Call) or node.args:
        return None
    f = node.func
    if not (
        isinstance(f, ast.Attribute)
        and f.attr == "func"
        and isinstance(f.value, ast.Attribute)
        and isinstance(f.value.value, ast.Name)
    ):
        return None
    tool = f"{f.value.value.id}.{f.value.attr}"
    if tool not in TOOLS:
        return None
    kwargs: dict[str, Any] = {}
    for kw in node.keywords:
        if kw.arg is None or kw.arg in kwargs:  # **kwargs, or a repeated keyword (a SyntaxError for eval)
            return None
        try:
            kwargs[kw.arg] = ast.literal_eval(kw.value)
        except (ValueError, SyntaxError, TypeError):
            return None
    return tool, kwargs


def call_function_name(call: str) -> str:
    """SPEC 6.4: the text before the first `(`, reduced to its first two dot-separated parts."""
    return ".".join(call.split("(", 1)[0].split(".")[:2])


def _is_missing(v: Any) -> bool:
    return v is None or v is pd.NaT or (isinstance(v, float) and v != v)


def _raw_cell(v: Any) -> Any:
    return None if _is_missing(v) else v


def _rows(df: pd.DataFrame) -> list[tuple]:
    return list(map(tuple, df.to_numpy(dtype=object).tolist()))


class _Folder:
    """Row-level memo of the lower-casing rule; most rows of a replayed table are unchanged rows."""

    def __init__(self) -> None:
        self._memo: dict[tuple, dict[tuple, tuple]] = {}

    def fold(self, columns: tuple, rows: list[tuple]) -> tuple:
        memo = self._memo.setdefault(columns, {})
        mask = [c not in CASE_SENSITIVE_COLUMNS for c in columns]
        out = []
        for row in rows:
            hit = memo.get(row)
            if hit is None:
                hit = tuple(
                    (v.lower() if isinstance(v, str) else None) if f else _raw_cell(v)
                    for v, f in zip(row, mask, strict=True)
                )
                memo[row] = hit
            out.append(hit)
        return tuple(out)


def table_fingerprint(df: pd.DataFrame, *, lower: bool, folder: _Folder | None = None) -> tuple:
    """A hashable image of one table with `DataFrame.equals` semantics.

    With `lower`, the scorer's rule applies: text cells are lower-cased except in
    status/list_name/board, and every non-text cell in a lower-cased column
    becomes missing.
    """
    columns = tuple(df.columns)
    rows = _rows(df)
    if lower:
        cells = (folder or _Folder()).fold(columns, rows)
    else:
        cells = tuple(tuple(_raw_cell(v) for v in row) for row in rows)
    return (columns, tuple(df.index.tolist()), cells)


@dataclass(frozen=True)
class EndState:
    """The replay result of one call list."""

    lowered: tuple  # per compared table, lower-cased fingerprint (for correctness)
    changed: bool  # any compared table differs from the initial state (case-sensitive)
    executed: int  # write calls that ran without raising
    skipped: int  # calls skipped: unparsable, unknown tool/keyword, or the tool raised


class Replayer:
    """Replays call lists from a reset state, with caches keyed by the call list.

    One instance per data directory; the caches make the 5,520-row re-scoring
    cheap because many rows share call lists (and every ground truth is
    replayed once).
    """

    def __init__(self, root: Path, *, compat_timestamps: bool = False) -> None:
        self.root = root
        self.compat_timestamps = compat_timestamps
        init = initial_tables(root)
        self._folder = _Folder()
        self._init_lower = {
            k: table_fingerprint(init.get(k), lower=True, folder=self._folder) for k in COMPARED
        }
        self._init_rows = {
            k: (tuple(init.get(k).columns), init.get(k).index.tolist(), _rows(init.get(k))) for k in COMPARED
        }
        self._cache: dict[tuple, EndState] = {}

    def fresh(self) -> Tables:
        return fresh_tables(self.root, compat_timestamps=self.compat_timestamps)

    def initial_state(self) -> EndState:
        return EndState(tuple(self._init_lower[k] for k in COMPARED), False, 0, 0)

    def run_strings(self, calls: Sequence[str]) -> EndState:
        """Replay call strings (newline rule + AST parse; unparsable ones are skipped)."""
        key = ("s", *calls)
        hit = self._cache.get(key)
        if hit is None:
            parsed = [parse_call_string(c) for c in calls]
            hit = self._run([p for p in parsed if p is not None], sum(p is None for p in parsed))
            self._cache[key] = hit
        return hit

    def run_parsed(self, calls: Iterable[ParsedCall]) -> EndState:
        """Replay already-parsed calls (tool name, kwargs); unknown tools are skipped."""
        calls = list(calls)
        key = ("p", *((t, tuple((k, repr(v)) for k, v in a.items())) for t, a in calls))
        hit = self._cache.get(key)
        if hit is None:
            known = [c for c in calls if c[0] in TOOLS]
            hit = self._run(known, len(calls) - len(known))
            self._cache[key] = hit
        return hit

    def _run(self, calls: list[ParsedCall], skipped: int) -> EndState:
        writes = [(t, a) for t, a in calls if t in WRITE_TOOLS]
        if not writes:
            return EndState(self.initial_state().lowered, False, 0, skipped)
        tables = self.fresh()
        executed = 0
        for tool, kwargs in writes:
            try:
                TOOLS[tool].fn(tables, **kwargs)
                executed += 1
            except Exception:  # noqa: BLE001 - upstream skips a call on any exception
                skipped += 1
        lowered = []
        changed = False
        for k in COMPARED:
            if k in tables.dirty:
                df = tables.get(k)
                columns, index, rows = tuple(df.columns), df.index.tolist(), _rows(df)
                lowered.append((columns, tuple(index), self._folder.fold(columns, rows)))
                changed = changed or self._differs(k, columns, index, rows)
            else:
                lowered.append(self._init_lower[k])
        return EndState(tuple(lowered), changed, executed, skipped)

    def _differs(self, key: str, columns: tuple, index: list, rows: list[tuple]) -> bool:
        """Case-sensitive comparison with the initial table (missing == missing)."""
        c0, i0, r0 = self._init_rows[key]
        if columns != c0 or index != i0 or len(rows) != len(r0):
            return True
        if rows == r0:  # fast path; tuple equality is identity-first, so shared NaN objects match
            return False
        return any(
            tuple(map(_raw_cell, a)) != tuple(map(_raw_cell, b))
            for a, b in zip(rows, r0, strict=True)
            if a != b
        )
