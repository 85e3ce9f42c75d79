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

The same holds, one folder per experiment warehouse, for evaluation episodes
(`archive_runs` / `restore_runs`): the runs, their episodes' outcomes, the
doc sets' names, the field study's rows, the comparisons' results and the
epochs and SOP usage of finished EvoSOP runs, without traces, calls, answers,
errors or SOPs (those quote the benchmark's tasks). An episode re-scored since it was archived takes its new
score into the archive. Restored into a fresh warehouse, they let a long
experiment resume where the last session stopped — the runner reuses a stored
episode by its content-hashed id — and the sections built from episode
outcomes (the original-docs baseline) regenerate. An archived episode has no
trace to open, and `docschisel rescore` cannot re-score it; an evaluation that
reads traces (an optimizer's diagnosis, GEPA's reflection, SOP mining) runs it
again, and the full episode replaces it (`core.runner.run(traces=True)`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from core.warehouse import Warehouse, records

# table -> the columns that identify one measured row
ARCHIVED: dict[str, tuple[str, ...]] = {
    "field_impact": ("study_id", "field", "created_at"),
    "bench_results": ("bench_id", "subject", "metric"),
}


# experiment warehouse tables kept for resuming, each with its key and the columns left out
RUN_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "runs": (("run_id",), ()),
    "run_episodes": (("run_id", "episode_id"), ()),
    "doc_sets": (("docset_id",), ()),
    "episodes": (("episode_id",), ("calls", "final_answer", "error")),
    # a field study's per-field rows name the runs they pair: restored with them, `study show --why`,
    # the Field impact page's explanations and the results' moved-task tables work in a fresh checkout
    "field_impact": (ARCHIVED["field_impact"], ()),
    # a comparison's results (methods' scores, tests, budget curves; read only by reports and the Compare
    # page): a fresh checkout's results show every comparison measured, not only those run again there
    "comparisons": (("compare_id", "status", "created_at"), ()),
    "comparison_methods": (("result_id", "method"), ()),
    "comparison_tests": (("result_id", "metric", "method", "versus"), ()),
    "comparison_curves": (("result_id", "series", "opt_run", "budget"), ()),
    # an EvoSOP run's result (Table 1; read only by reports and the SOPs page)
    "sop_results": (("run_id",), ()),
    # a finished EvoSOP run's epochs, per-SOP usage and decisions (the per-epoch and lifetime tables): ids,
    # counts and scores; not the SOPs themselves (code and docs generated from the benchmark's
    # trajectories), nor the decisions' reasons (a rejected SOP's reason quotes the model's output)
    "sop_epochs": (("run_id", "epoch"), ()),
    "sop_usage": (("run_id", "epoch", "sop_id"), ()),
    "sop_decisions": (("run_id", "epoch", "sop_id", "action"), ("reason", "detail")),
    # which task ids each split put in opt / val / test (ids only, no benchmark content): the results tell
    # test tasks that repeat an optimization task's gold call apart once the benchmark's tasks are loaded
    "splits": (("split_id",), ()),
    "split_assignments": (("split_id", "task_id"), ()),
}
# tables archived for finished EvoSOP runs only: a restored unfinished run resumes from its episodes
FINISHED_SOP_RUNS = frozenset({"sop_epochs", "sop_usage", "sop_decisions"})
# the `source` of a restored episode: kept as measured, never re-scored (its calls are not archived);
# a run that needs traces runs it again (core.warehouse.records)
ARCHIVED_SOURCE = records.ARCHIVED_SOURCE
# what of an episode's score is kept: the scoring rules' version and the outcome's kind, no values
SCORE_KEYS = ("scoring", "reason", "partial", "correct")


class ArchiveError(ValueError):
    """An archive file that cannot be read as what it should hold; the message names the file."""


def _read(path: Path, table: str, key: tuple[str, ...] | None = None) -> pd.DataFrame:
    try:
        df = pd.read_parquet(path)
    except Exception as exc:  # pyarrow raises several kinds for a damaged or foreign file
        raise ArchiveError(f"{path}: not a readable Parquet file of table {table} ({exc})") from exc
    missing = [c for c in (key or ARCHIVED[table]) if c not in df.columns]
    if missing:
        raise ArchiveError(f"{path}: table {table} lacks its key column(s) {', '.join(missing)}")
    return df


def _merge(frames: list[pd.DataFrame], key: tuple[str, ...]) -> pd.DataFrame:
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame()
    df = pd.concat(frames, ignore_index=True)
    # the first frame's copy of a row wins: callers put the archive's first (a re-archived row is the
    # same measurement), except for episodes, whose score a rescore may have changed since
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
        _write(merged, path)
    return counts


def _write(merged: pd.DataFrame, path: Path) -> None:
    tmp = path.with_suffix(".parquet.tmp")
    merged.to_parquet(tmp, index=False, compression="zstd")
    tmp.replace(path)


def _kept_score(raw: object) -> str | None:
    if not isinstance(raw, str):
        return None
    try:
        score = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(score, dict):
        return None
    return json.dumps({k: score[k] for k in SCORE_KEYS if k in score}, sort_keys=True)


def _run_rows(wh: Warehouse, table: str, dropped: tuple[str, ...]) -> pd.DataFrame:
    cols = ", ".join(f'"{c}"' for c in dropped)
    where = " WHERE run_id IN (SELECT run_id FROM sop_results)" if table in FINISHED_SOP_RUNS else ""
    df = wh.query(
        (f"SELECT * EXCLUDE ({cols}) FROM {table}" if dropped else f"SELECT * FROM {table}") + where
    )
    if table == "episodes":
        df = df[df["source"].fillna("") != "import"]  # imported traces are a dataset's, not a measurement
        df = df.assign(source=df["source"].replace(ARCHIVED_SOURCE, "run"))
        df = df.assign(score=df["score"].map(_kept_score))
    return df


def archive_runs(wh: Warehouse, folder: str | Path) -> dict[str, int]:
    """Merge `wh`'s runs and episode outcomes (no traces) into `folder`; rows now held per table."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    for table, (key, dropped) in RUN_TABLES.items():
        path = out / f"{table}.parquet"
        frames = [_read(path, table, key)] if path.exists() else []
        rows = _run_rows(wh, table, dropped)
        # An episode's trace never changes, but its score does when `docschisel rescore` scores it
        # again under new rules: the warehouse's row (the current score, or the same archived one
        # restored) wins over the archive's, so the results built from the archive follow a rescore.
        merged = _merge([rows, *frames] if table == "episodes" else [*frames, rows], key)
        counts[table] = len(merged)
        if not merged.empty:
            _write(merged, path)
    return counts


def restore_runs(folder: str | Path, wh: Warehouse) -> dict[str, int]:
    """Insert the archived runs and episode outcomes into `wh` (rows it holds already are kept);
    returns the rows added per table."""
    src = Path(folder)
    frames = {}
    for table, (key, _) in RUN_TABLES.items():
        path = src / f"{table}.parquet"
        if path.exists():
            frames[table] = _read(path, table, key)
    if not frames:
        raise ArchiveError(
            f"{src}: no archived runs here (expected {', '.join(f'{t}.parquet' for t in RUN_TABLES)})"
        )
    if "episodes" in frames:
        # without their calls and traces they cannot be scored again: `rescore` leaves them as stored
        frames["episodes"] = frames["episodes"].assign(source=ARCHIVED_SOURCE)
    before = {t: int(wh.scalar(f"SELECT count(*) FROM {t}") or 0) for t in frames}
    # rows the warehouse holds already are kept as they are (by primary key, or by the archive's key
    # where the table has none: restoring twice adds nothing)
    frames = {t: _absent(wh, t, RUN_TABLES[t][0], df) for t, df in frames.items()}
    wh.insert_many(frames)
    return {t: int(wh.scalar(f"SELECT count(*) FROM {t}") or 0) - n for t, n in before.items()}


def _absent(wh: Warehouse, table: str, key: tuple[str, ...], df: pd.DataFrame) -> pd.DataFrame:
    """The rows of `df` whose key `table` does not hold yet."""
    cols = ", ".join(f'"{c}"' for c in key)
    held = wh.query(f"SELECT DISTINCT {cols} FROM {table}")
    if held.empty or df.empty:
        return df

    def ids(frame: pd.DataFrame) -> pd.Series:  # one text per key (timestamps of either resolution)
        text = frame[list(key)].astype(str)
        out = text.iloc[:, 0]
        for col in text.columns[1:]:  # column-wise: an archive holds hundreds of thousands of episodes
            out = out + "\x1f" + text[col]
        return out

    return df[~ids(df).isin(set(ids(held)))]


def open_archive(folder: str | Path, into: str | Path) -> Warehouse:
    """A warehouse file at `into` holding the archive's rows (the caller owns and removes the file)."""
    src = Path(folder)
    wh = Warehouse(Path(into))
    for table in ARCHIVED:
        path = src / f"{table}.parquet"
        if path.exists():
            df = _read(path, table)
            if not df.empty:
                wh.insert(table, df, ignore_existing=False)
    return wh
