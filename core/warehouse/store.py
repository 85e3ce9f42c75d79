"""The DuckDB trace warehouse: one file, numbered migrations, one write path.

Concurrency design (DESIGN.md §7). DuckDB lets one process write a file, and
while it holds the file no other process may open it, not even read-only. A
dashboard that keeps a connection open would therefore lock out every CLI job,
and a long-running job would lock out the dashboard. So nobody keeps the file
open: every read and every write opens a connection, does its work in one
transaction and closes it — milliseconds. When the file is momentarily held by
another process, the operation waits and retries with jittered backoff until
a deadline, so a user never sees a lock error and no row is lost. Producers
batch their rows (an episode and all its events are one transaction), which
keeps the number of opens low.

Within one process a re-entrant lock serialises opens, because DuckDB refuses a
read-only and a read-write connection to the same file in one process.

Opening is attaching: the process keeps empty in-memory DuckDB databases and
ATTACHes the file to one of them for a lease, DETACHing it afterwards. Detaching closes
the file and releases its lock exactly as closing a connection does, but a
fresh `duckdb.connect` builds a whole database instance (its catalog of
built-in functions: about 30 ms of CPU), while an attach reads only the file's
own catalog (a few ms). Producers open the file every flush, so this was a
large share of an agent step.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import random
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from core.config import warehouse_path
from core.redaction import Redactor

_PROCESS_LOCK = threading.RLock()
_MIGRATED: set[str] = set()
# A connection is kept for at most LINGER_S after its last use and HOLD_S in
# total: bursts of operations share one open (opening costs tens of ms), yet
# another process never waits more than about HOLD_S for the file.
LINGER_S = 0.15
HOLD_S = 1.0
YIELD_S = 0.05


class WarehouseBusyError(TimeoutError):
    """The file stayed locked by another process past the deadline."""


def _is_lock_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "lock" in text or "conflicting" in text or "different configuration" in text


class _Lease:
    """The process's current connection to one file, closed when idle or held too long."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.con: duckdb.DuckDBPyConnection | None = None
        self.read_only = True
        self.opened_at = 0.0
        self.last_used = 0.0
        self.depth = 0
        self._reaper: threading.Thread | None = None

    def acquire(self, read_only: bool, timeout_s: float) -> duckdb.DuckDBPyConnection:
        t = time.monotonic()
        if self.con is not None and self.depth == 0:
            too_long = t - self.opened_at > HOLD_S
            wrong_mode = self.read_only and not read_only
            if too_long or wrong_mode:
                self.close()
                if too_long:
                    time.sleep(YIELD_S)  # let a waiting process take its turn
        if self.con is None:
            self.con = _open(self.path, read_only, timeout_s)
            self.read_only = read_only
            self.opened_at = time.monotonic()
            self._start_reaper()
        elif self.read_only and not read_only:
            raise RuntimeError("write requested inside a read operation on the same warehouse")
        self.depth += 1
        return self.con

    def release(self) -> None:
        self.depth -= 1
        self.last_used = time.monotonic()

    def close(self) -> None:
        if self.con is not None:
            try:
                _detach(self.con)
            finally:
                self.con = None

    def _start_reaper(self) -> None:
        if self._reaper is not None and self._reaper.is_alive():
            return
        self._reaper = threading.Thread(target=self._reap, name="warehouse-lease", daemon=True)
        self._reaper.start()

    def _reap(self) -> None:
        while True:
            time.sleep(LINGER_S / 3)
            with _PROCESS_LOCK:
                if self.con is None:
                    return
                t = time.monotonic()
                if self.depth == 0 and (t - self.last_used > LINGER_S or t - self.opened_at > HOLD_S):
                    self.close()
                    return


_LEASES: dict[str, _Lease] = {}
# In-memory databases with no file attached, kept for the next open (guarded by _PROCESS_LOCK).
_IDLE_HOSTS: list[duckdb.DuckDBPyConnection] = []
_IDLE_HOSTS_MAX = 4
ALIAS = "warehouse"  # the attached file's catalog name, the default for every statement


def _attach(path: Path, read_only: bool) -> duckdb.DuckDBPyConnection:
    """An in-memory database of its own with `path` attached as its default catalog.

    Each open file gets a host of its own, so catalog queries
    (information_schema, duckdb_tables()) see that one file, as they did on a
    plain connection.
    """
    host = _IDLE_HOSTS.pop() if _IDLE_HOSTS else duckdb.connect(":memory:")
    quoted = str(path).replace("'", "''")
    try:
        host.execute(f"ATTACH '{quoted}' AS {ALIAS}{' (READ_ONLY)' if read_only else ''}")
    except BaseException:
        _retire(host)
        raise
    try:
        host.execute(f"USE {ALIAS}")
    except BaseException:
        _detach(host)
        raise
    return host


def _detach(con: duckdb.DuckDBPyConnection) -> None:
    """Close the file (DETACH checkpoints it and releases its lock); keep the host for the next open."""
    try:
        with contextlib.suppress(duckdb.Error):
            con.execute("ROLLBACK")  # only an operation that died mid-transaction left one open
        con.execute("USE memory")
        con.execute(f"DETACH {ALIAS}")
    except BaseException:
        con.close()  # closing the whole instance closes the file too
        raise
    _retire(con)


def _retire(host: duckdb.DuckDBPyConnection) -> None:
    if len(_IDLE_HOSTS) < _IDLE_HOSTS_MAX:
        _IDLE_HOSTS.append(host)
    else:
        host.close()


def _open(path: Path, read_only: bool, timeout_s: float) -> duckdb.DuckDBPyConnection:
    """Open the file, waiting with jittered backoff while another process holds it."""
    deadline = time.monotonic() + timeout_s
    delay = 0.005
    while True:
        try:
            return _attach(path, read_only)
        except (duckdb.IOException, duckdb.ConnectionException) as exc:
            if not _is_lock_error(exc):
                raise
            if time.monotonic() > deadline:
                raise WarehouseBusyError(
                    f"warehouse {path} stayed locked for {timeout_s:.0f}s: {exc}"
                ) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 0.05)


def close_all() -> None:
    """Close every lingering connection (tests, process exit, before handing the file over)."""
    with _PROCESS_LOCK:
        for lease in _LEASES.values():
            if lease.depth == 0:
                lease.close()


atexit.register(close_all)


def migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) of every migration file, in order."""
    folder = resources.files("core.warehouse") / "migrations"
    out = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            out.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(out)


class Store:
    """Connections to one warehouse file. Cheap to construct; holds no open connection."""

    def __init__(self, path: str | os.PathLike | None = None, *, timeout_s: float = 120.0) -> None:
        self.path = Path(warehouse_path(path)).resolve()
        self.timeout_s = timeout_s
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.migrate()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.path)!r})"

    # ------------------------------------------------------------------ connections
    @contextmanager
    def _connect(self, read_only: bool) -> Iterator[duckdb.DuckDBPyConnection]:
        """A connection for one operation, from the process's short lease on the file."""
        with _PROCESS_LOCK:
            lease = _LEASES.get(str(self.path))
            if lease is None:
                lease = _LEASES[str(self.path)] = _Lease(self.path)
            con = lease.acquire(read_only, self.timeout_s)
            try:
                yield con
            finally:
                lease.release()

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """The one write path: a read-write connection inside one transaction."""
        with self._connect(read_only=False) as con:
            con.execute("BEGIN TRANSACTION")
            try:
                yield con
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.execute("COMMIT")

    def migrate(self) -> int:
        """Apply missing numbered migrations; returns the schema version."""
        key = str(self.path)
        if key in _MIGRATED and self.path.exists():
            return max((m[0] for m in migrations()), default=0)  # the highest number, not a count
        with self.transaction() as con:
            con.execute(
                "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, name VARCHAR, applied_at TIMESTAMP)"
            )
            done = {r[0] for r in con.execute("SELECT version FROM schema_version").fetchall()}
            version = max(done, default=0)
            for number, name, sql in migrations():
                if number in done:
                    continue
                con.execute(sql)
                con.execute("INSERT INTO schema_version VALUES (?, ?, now())", [number, name])
                version = number
        _MIGRATED.add(key)
        return version

    # ------------------------------------------------------------------ reads
    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] | None = None) -> pd.DataFrame:
        """Run a read query on a short-lived read-only connection."""
        with self._connect(read_only=True) as con:
            return con.execute(sql, params or []).df()

    def scalar(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        with self._connect(read_only=True) as con:
            row = con.execute(sql, params or []).fetchone()
        return None if row is None else row[0]

    def rows(self, sql: str, params: Sequence[Any] | None = None) -> list[tuple]:
        with self._connect(read_only=True) as con:
            return con.execute(sql, params or []).fetchall()

    # ------------------------------------------------------------------ writes
    def insert(
        self, table: str, rows: Iterable[Mapping[str, Any]] | pd.DataFrame, *, ignore_existing: bool = True
    ) -> int:
        """Insert rows by column name in one transaction; existing keys are kept untouched."""
        with self.transaction() as con:
            return insert_rows(con, table, rows, ignore_existing=ignore_existing)

    def insert_many(
        self, batches: Mapping[str, Iterable[Mapping[str, Any]] | pd.DataFrame]
    ) -> dict[str, int]:
        """Insert into several tables atomically (e.g. an episode with its events)."""
        with self.transaction() as con:
            return {t: insert_rows(con, t, rows) for t, rows in batches.items()}


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict | list | tuple) and not isinstance(value, str):
        return json.dumps(value, ensure_ascii=False, default=str)
    return value


def insert_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    rows: Iterable[Mapping[str, Any]] | pd.DataFrame,
    *,
    ignore_existing: bool = True,
    list_columns: Sequence[str] = (),
) -> int:
    """Insert by name from a DataFrame; dict/list values in JSON columns are serialised."""
    if not table.replace("_", "").isalnum():
        raise ValueError(f"bad table name {table!r}")
    list_cols = set(list_columns) | _LIST_COLUMNS.get(table, set())
    redactor = Redactor.from_env()  # every text reaches the file through here: no secret does
    if not isinstance(rows, pd.DataFrame):
        records = list(rows)
        if not records:
            return 0
        arrow = _arrow_table(records, list_cols, redactor)
        if arrow is not None:
            return _insert_frame(con, table, arrow, list(arrow.column_names), ignore_existing)
        rows = pd.DataFrame(records)
    df = rows
    if df.empty:
        return 0
    if rows is df:
        df = df.copy()  # the caller's frame is not ours to rewrite
    for col in df.columns:
        dtype = df[col].dtype
        if pd.api.types.is_object_dtype(dtype):
            if col not in list_cols and df[col].map(lambda v: isinstance(v, dict | list | tuple)).any():
                df[col] = df[col].map(_jsonable)
            df[col] = df[col].map(redactor.value)
        elif pd.api.types.is_string_dtype(dtype):  # pandas' own string columns (the default since 3.0)
            df[col] = df[col].map(redactor.text, na_action="ignore")
    return _insert_frame(con, table, df, list(df.columns), ignore_existing)


def _arrow_table(
    records: list[Mapping[str, Any]], list_cols: set[str], redactor: Redactor
) -> pa.Table | None:
    """Rows as an Arrow table, redacted cell by cell in plain Python; None when a column mixes types.

    Producers hand over lists of dicts (an episode's events, LLM calls): going
    through pandas for them cost more CPU than the agent step itself, while a
    column-wise Arrow build is a few list comprehensions. A column Arrow cannot
    type (ints mixed with text, say) falls back to the DataFrame path, which
    stores such values as pandas always did.
    """
    names: dict[str, None] = {}
    for r in records:
        names.update(dict.fromkeys(r))
    columns = {}
    for name in names:
        values = [r.get(name) for r in records]
        if name not in list_cols and any(isinstance(v, dict | list | tuple) for v in values):
            values = [_jsonable(v) for v in values]
        values = [redactor.value(v) if isinstance(v, str | list | tuple | dict) else v for v in values]
        try:
            columns[name] = pa.array(values)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
            return None
    return pa.table(columns)


def _insert_frame(
    con: duckdb.DuckDBPyConnection, table: str, frame: Any, columns: list[str], ignore_existing: bool
) -> int:
    """INSERT ... SELECT by column name from a DataFrame or Arrow table.

    The statement reads the frame through DuckDB's replacement scan (a local
    variable named in the query): registering and unregistering it as a view
    cost about a millisecond per statement, as much as the insert itself.
    """
    verb = "INSERT OR IGNORE INTO" if ignore_existing and table not in _LOG_TABLES else "INSERT INTO"
    _incoming_rows = frame  # read by name in the query below
    cols = ", ".join(f'"{c}"' for c in columns)
    con.execute(f'{verb} "{table}" ({cols}) SELECT {cols} FROM _incoming_rows')
    return len(frame)


# Append-only logs without a key (a state is the latest row).
_LOG_TABLES = {"run_status", "job_events", "field_impact", "comparisons"}

# Columns declared as VARCHAR[] (lists stay lists, not JSON text).
_LIST_COLUMNS: dict[str, set[str]] = {
    "doc_versions": {"fields"},
    "tasks": {"tools"},
    "diagnoses": {"fields"},
    "comparisons": {"task_ids"},
}
