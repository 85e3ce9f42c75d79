"""The WorkBench sandbox state: five pandas tables plus the read-only company directory.

Why pandas: the upstream scorer compares tables with `DataFrame.equals`, which
looks at row labels and their order as well as cells (SPEC 1.5, 6.3). Keeping
the same data structure makes the label rules (append with label 0, write at
label = row count, relabel after append) fall out of the same operations
instead of being simulated.

Every CSV is read with `dtype=object`, so cells are Python `str` or missing
(NaN), exactly like the upstream pandas 2.1 `dtype=str` load; this also keeps
pandas 3's string dtype out of the tables, which would reject the non-text
values (an integer `duration`, a timestamp) that the upstream tables accept.
The tables are loaded once per data directory and copied for every episode
(the reset rule, SPEC 2.1).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from core.config import benchmark_dir

# Table key -> CSV file under data/processed/ (plots is in memory only).
TABLE_FILES: dict[str, str] = {
    "calendar": "calendar_events.csv",
    "emails": "emails.csv",
    "analytics": "analytics_data.csv",
    "tasks": "project_tasks.csv",
    "crm": "customer_relationship_manager_data.csv",
}
# The tables the scorer compares, in SPEC order (analytics data is not compared; plots is).
COMPARED: tuple[str, ...] = ("calendar", "emails", "plots", "tasks", "crm")
# Which compared table each tool domain writes to.
DOMAIN_TABLE: dict[str, str] = {
    "calendar": "calendar",
    "email": "emails",
    "analytics": "plots",
    "project_management": "tasks",
    "customer_relationship_manager": "crm",
}


def workbench_dir(data_dir: str | Path | None = None) -> Path:
    """The `workbench/` folder: the explicit path if it already is one, else `<data-dir>/workbench`."""
    if data_dir is not None:
        p = Path(data_dir).expanduser()
        if (p / "data" / "processed").is_dir():
            return p.resolve()
        return benchmark_dir("workbench", p)
    return benchmark_dir("workbench")


@dataclass
class Tables:
    """One episode's state. Tools replace frames (`set`), never mutate them in place.

    `dirty` names the compared tables a write tool replaced.
    """

    calendar: pd.DataFrame
    emails: pd.DataFrame
    analytics: pd.DataFrame
    plots: pd.DataFrame
    tasks: pd.DataFrame
    crm: pd.DataFrame
    directory: pd.Series
    dirty: set[str] = field(default_factory=set)
    # Q1: store a sent email's time as a Timestamp object, as upstream does (searches may then raise).
    compat_timestamps: bool = False

    def get(self, key: str) -> pd.DataFrame:
        return getattr(self, key)

    def set(self, key: str, df: pd.DataFrame) -> None:
        setattr(self, key, df)
        if key in COMPARED:
            self.dirty.add(key)

    def touch(self, key: str) -> None:
        self.dirty.add(key)


_EMPTY_PLOTS = pd.DataFrame({"file_path": pd.Series([], dtype=object)})
# With copy-on-write (always on from pandas 3) a shallow copy is an independent table.
_DEEP = int(pd.__version__.split(".")[0]) < 3 and pd.options.mode.copy_on_write is not True


def empty_plots() -> pd.DataFrame:
    return _EMPTY_PLOTS.copy(deep=_DEEP)


def clone(df: pd.DataFrame) -> pd.DataFrame:
    """An independent table to modify (cheap under copy-on-write)."""
    return df.copy(deep=_DEEP)


def append_row(df: pd.DataFrame, values: list, label: object) -> pd.DataFrame:
    """A new table with one row appended under `label` (same result as `pd.concat`, faster)."""
    cells = np.vstack(
        [df.to_numpy(dtype=object).reshape(len(df), len(df.columns)), np.array([values], dtype=object)]
    )
    index = pd.Index([*df.index.tolist(), label])
    return pd.DataFrame(cells, columns=df.columns, index=index, dtype=object)


def drop_where(df: pd.DataFrame, column: str, value: object) -> pd.DataFrame:
    """The rows whose `column` differs from `value` (labels kept), i.e. `df[df[column] != value]`.

    Non-text values take the pandas path so that, e.g., a list raises pandas'
    own "Lengths must match to compare" like upstream.
    """
    if not isinstance(value, str):
        return df[df[column] != value]
    return df.take(np.flatnonzero(df[column].to_numpy() != value))


def set_where(df: pd.DataFrame, key: str, key_value: object, field: str, value: object) -> pd.DataFrame:
    """A new table with `field` set to `value` where `key == key_value`, i.e. `df.loc[mask, field] = value`.

    Text values into an existing column take a numpy fast path; anything else
    (a new column, a non-text value) goes through pandas, with pandas' own
    behaviour and errors.
    """
    if isinstance(value, str) and isinstance(key_value, str) and field in df.columns:
        cells = df.to_numpy(dtype=object).copy()
        cells[df[key].to_numpy() == key_value, df.columns.get_loc(field)] = value
        return pd.DataFrame(cells, columns=df.columns, index=df.index, dtype=object)
    df = clone(df)
    if field not in df.columns:
        # No field validation upstream: an unknown name becomes a new (object) column.
        df[field] = pd.Series([float("nan")] * len(df), index=df.index, dtype=object)
    df.loc[df[key] == key_value, field] = value
    return df


def has_id(df: pd.DataFrame, column: str, value: object) -> bool:
    """Whether some row holds `value`: numpy containment, as upstream (`value in column.values`).

    A list is compared element-wise with broadcasting, so a one-item list is
    simply not found and a longer one raises numpy's broadcast error, the two
    behaviours seen in the recorded runs.
    """
    return bool(value in df[column].to_numpy())


def max_id(df: pd.DataFrame, column: str) -> int:
    """Numeric value of the lexicographically greatest id (how every table numbers new rows)."""
    return int(max(df[column].to_numpy()))


@lru_cache(maxsize=4)
def _initial(root: str) -> Tables:
    base = Path(root) / "data" / "processed"
    frames = {k: pd.read_csv(base / f, dtype=object) for k, f in TABLE_FILES.items()}
    for df in frames.values():
        # Plain object labels: pandas 3 would infer an Arrow string Index, which is slower to look up.
        df.columns = pd.Index(list(df.columns), dtype=object)
    # The only non-text column: upstream converts it to a real boolean at load time.
    frames["analytics"]["user_engaged"] = frames["analytics"]["user_engaged"] == "True"
    directory = pd.read_csv(Path(root) / "data" / "raw" / "email_addresses.csv", header=None, dtype=object)[0]
    return Tables(plots=empty_plots(), directory=directory, **frames)


def fresh_tables(root: Path, *, compat_timestamps: bool = False) -> Tables:
    """A reset state for one episode.

    The frames are shared with the cached initial state, not copied: no tool
    mutates a frame in place (each builds a new frame by filtering or
    concatenating, or modifies a `clone`), so sharing is safe and makes a reset
    free. The tests check that the initial frames are unchanged after episodes.
    """
    init = _initial(str(root))
    return Tables(
        calendar=init.calendar,
        emails=init.emails,
        analytics=init.analytics,
        plots=init.plots,
        tasks=init.tasks,
        crm=init.crm,
        directory=init.directory,
        compat_timestamps=compat_timestamps,
    )


def initial_tables(root: Path) -> Tables:
    """The shared initial state. Never mutate it; use `fresh_tables` for an episode."""
    return _initial(str(root))
