"""Initial state files (`state/*.json`, `state/*.csv`) and fresh copies per episode.

The state is one dict keyed by file stem: `state/notes.json` becomes
`state["notes"]` (the parsed JSON value) and `state/folders.csv` becomes
`state["folders"]` (a list of row dicts, every cell a string: CSV has no
types, and guessing them would turn "007" into 7). Files are read once at
load time, so an unreadable file fails the load, not an episode; every episode
then gets its own deep copy, so episodes never see each other's writes.
"""

from __future__ import annotations

import copy
import csv
import io
from pathlib import Path
from typing import Any

from core.benchmarks.userfolder.errors import Problems
from core.benchmarks.userfolder.files import parse_json, read_text

STATE_DIR = "state"
STATE_SUFFIXES = (".json", ".csv")


def read_state(folder: Path, problems: Problems) -> dict[str, Any]:
    """The initial state from `state/` ({} when the folder has none)."""
    root = folder / STATE_DIR
    if not root.exists():
        return {}
    if not root.is_dir():
        problems.add(STATE_DIR, "must be a folder of .json / .csv files")
        return {}
    state: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for path in sorted(root.iterdir()):
        rel = f"{STATE_DIR}/{path.name}"
        if path.name.startswith("."):
            continue
        if not path.is_file() or path.suffix.lower() not in STATE_SUFFIXES:
            problems.add(rel, "unsupported state file: state/ holds only .json and .csv files")
            continue
        if path.stem in seen:
            problems.add(rel, f"state key {path.stem!r} is also defined by {seen[path.stem]}")
            continue
        seen[path.stem] = rel
        text = read_text(folder, rel, problems)
        if text is None:
            continue
        if path.suffix.lower() == ".json":
            ok, value = parse_json(text, rel, problems)
            if ok:
                state[path.stem] = value
        else:
            rows = _read_csv(text, rel, problems)
            if rows is not None:
                state[path.stem] = rows
    return state


def _read_csv(text: str, rel: str, problems: Problems) -> list[dict[str, str]] | None:
    """Rows as dicts under the header; a ragged row or a broken quote is an error with its line."""
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return []
        if len(set(header)) != len(header) or any(not h.strip() for h in header):
            problems.add(rel, "the CSV header must name every column once", 1)
            return None
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                problems.add(
                    rel, f"row has {len(row)} cells but the header has {len(header)} columns", reader.line_num
                )
                return None
            rows.append(dict(zip(header, row, strict=True)))
        return rows
    except csv.Error as exc:
        problems.add(rel, f"malformed CSV ({exc})", reader.line_num)
        return None


def fresh_state(initial: dict[str, Any]) -> dict[str, Any]:
    """An independent copy of the initial state for one episode (or one replay)."""
    return copy.deepcopy(initial)
