"""Field coverage: which of the 17 fields a collection of docs provides (the paper's Table II).

A cell is the share of a collection's tools that have the field; the matrix
is what the `docschisel fields coverage` command prints and what the study
pages plot, so both read the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pandas as pd

from core.docs.model import ToolDoc
from core.docs.parsers import DocParseError, load_docs
from core.fields import BY_CODE, CODES

# Known benchmark doc files, relative to a data directory, and their collection names.
BENCHMARK_DOCS: dict[str, str] = {
    "WorkBench": "workbench/derived/tools.json",
    "API-Bank": "api-bank/derived/api_docs.json",
}


def coverage(docs: Iterable[ToolDoc]) -> pd.Series:
    """Share of `docs` having each field (index: field codes in taxonomy order); NaN when empty."""
    docs = list(docs)
    if not docs:
        return pd.Series(float("nan"), index=list(CODES), dtype=float)
    return pd.Series({c: sum(d.has(c) for d in docs) / len(docs) for c in CODES}, dtype=float)


def coverage_matrix(collections: Mapping[str, Iterable[ToolDoc]]) -> pd.DataFrame:
    """Rows: the 17 fields in taxonomy order; columns: collections; cells: share of tools with the field."""
    frame = pd.DataFrame({name: coverage(docs) for name, docs in collections.items()}, index=list(CODES))
    frame.index.name = "field"
    return frame


def field_label(code: str) -> str:
    """`Tool Name (TN)`, as the paper's Table II spells a row."""
    return f"{BY_CODE[code].name} ({code})"


def collections_from_path(path: str | Path) -> dict[str, list[ToolDoc]]:
    """Doc collections in a file or folder.

    A folder holding benchmark data (a data directory with `workbench/` and/or
    `api-bank/`, or one benchmark's own folder) is split into its datasets by
    the known doc files; the folder's own .json/.jsonl files are collections
    named by file stem. A doc file is one collection named by its stem.
    """
    p = Path(path)
    if not p.exists():
        raise DocParseError(f"{p}: no such file or folder", file=str(p))
    if p.is_file():
        posix = p.resolve().as_posix()
        name = next((n for n, rel in BENCHMARK_DOCS.items() if posix.endswith("/" + rel)), p.stem)
        return {name: load_docs(p)}
    out: dict[str, list[ToolDoc]] = {}
    for name, rel in BENCHMARK_DOCS.items():
        bench_dir, inner = rel.split("/", 1)
        for candidate in (p / rel, p / inner if p.name == bench_dir else None):
            if candidate is not None and candidate.is_file():
                out[name] = load_docs(candidate)
                break
    known = {(p / rel).resolve() for rel in BENCHMARK_DOCS.values()}
    for f in sorted(p.iterdir()):
        if f.is_file() and f.suffix.lower() in (".json", ".jsonl") and f.resolve() not in known:
            name = f.stem
            while name in out:
                name += "'"
            out[name] = load_docs(f)
    if not out:
        raise DocParseError(
            f"{p}: no documentation found (no benchmark doc files, no .json/.jsonl files)", file=str(p)
        )
    return out


def tool_counts(collections: Mapping[str, Iterable[ToolDoc]]) -> dict[str, int]:
    return {name: len(list(docs)) for name, docs in collections.items()}
