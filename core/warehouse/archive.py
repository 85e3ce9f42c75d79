"""The results archive: measured figures kept in the repository, beside docs/RESULTS.md.

Why: experiment warehouses live under data/, which is not versioned — they hold
traces full of third-party benchmark text and grow to gigabytes. A replaced
machine or a fresh checkout loses them, and with them the rows a section of
RESULTS.md is generated from; an experiment run one cell per session could then
never be shown whole (the field study's backbone panel compares cells measured
on different days). The archive keeps, for the tables listed in `ARCHIVED`,
every row ever measured, as one Parquet file per table. Those tables hold
measurements only (scores, intervals, timings, ids), never prompts, docs or task
text, so nothing of a benchmark is copied.

`archive` merges the rows of some warehouses into the folder (a row is
identified by its key, so archiving twice changes nothing); `open_archive`
builds a warehouse file from the folder, which the results document reads like
any other.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from core.warehouse import Warehouse

# table -> the columns that identify one measured row
ARCHIVED: dict[str, tuple[str, ...]] = {
    "field_impact": ("study_id", "field", "created_at"),
    "bench_results": ("bench_id", "subject", "metric"),
}


class ArchiveError(ValueError):
    """An archive file that cannot be read as what it should hold; the message names the file."""


def _read(path: Path, table: str) -> pd.DataFrame:
    try:
        df = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several kinds for a damaged or foreign file
        raise ArchiveError(f"{path}: not a readable Parquet file of table {table} ({exc})") from exc
    missing = [c for c in ARCHIVED[table] if c not in df.columns]
    if missing:
        raise ArchiveError(f"{path}: table {table} lacks its key column(s) {', '.join(missing)}")
    return df


def _merge(frames: list[pd.DataFrame], key: tuple[str, ...]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    # the archive's own copy of a row comes first and wins: a re-archived row is the same measurement
    df = df.drop_duplicates(subset=list(key), keep="first")
    return df.sort_values(list(key), kind="stable").reset_index(drop=True)


def archive(warehouses: Iterable[Warehouse], folder: str | Path) -> dict[str, int]:
    """Merge the archived tables of `warehouses` into `folder`; returns the rows now held per table.

    Each file is replaced atomically (written beside it, then renamed), so an
    interrupted run leaves the previous archive intact.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    whs = list(warehouses)
    counts: dict[str, int] = {}
    for table, key in ARCHIVED.items():
        path = out / f"{table}.parquet"
        frames = [_read(path, table)] if path.exists() else []
        frames += [w.query(f"SELECT * FROM {table}") for w in whs]
        merged = _merge(frames, key)
        counts[table] = len(merged)
        if merged.empty:
            continue
        tmp = path.with_suffix(".parquet.tmp")
        merged.to_parquet(tmp, index=False, compression="zstd")
        tmp.replace(path)
    return counts


def open_archive(folder: str | Path, into: str | Path | None = None) -> Warehouse:
    """A warehouse holding the archive's rows (a new file under a temporary folder unless `into`)."""
    src = Path(folder)
    target = Path(into) if into else Path(tempfile.mkdtemp(prefix="docschisel-archive-")) / "archive.duckdb"
    wh = Warehouse(target)
    for table in ARCHIVED:
        path = src / f"{table}.parquet"
        if path.exists():
            df = _read(path, table)
            if not df.empty:
                wh.insert(table, df, ignore_existing=False)
    return wh
