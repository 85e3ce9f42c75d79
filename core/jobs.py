"""Background jobs: long commands started from the dashboard, with progress in the warehouse.

Why this shape. A Streamlit script must never run an evaluation inline: the
page would freeze, a reload would lose it and a second tab would not see it. So
a job is a detached process tree, and everything a viewer needs to know lives in
the warehouse as an append-only log (`job_events`), which any tab, any reload
and any CLI can read:

    dashboard ──start_job──▶ supervisor (`python -m core.jobs supervise ...`, own session)
                                 └─▶ child  `python -m core.cli.main <argv>`
                                      env DOCSCHISEL_JOB_ID, DOCSCHISEL_WAREHOUSE

The child reports progress with `report_progress` and polls `cancel_requested`.
The supervisor records `running`, then the final state (`done`, `failed` with the
last log line, or `cancelled`) whatever the child does, so any CLI sub-command
can run as a job even if it knows nothing about jobs. Cancelling writes a
`cancel_requested` event; a cooperative child stops by itself, and the
supervisor sends SIGTERM (then SIGKILL) to the child's process group after a
grace period. Writes are short warehouse leases, so a job never locks the
dashboard out, and vice versa.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

from core.config import PROJECT_ROOT
from core.redaction import Redactor
from core.warehouse import Warehouse
from core.warehouse.rows import JobEventRow, JobRow

TERMINAL = ("done", "failed", "cancelled")
ACTIVE = ("queued", "running", "cancelling")
ENV_JOB = "DOCSCHISEL_JOB_ID"
ENV_WAREHOUSE = "DOCSCHISEL_WAREHOUSE"
DEFAULT_GRACE_S = 10.0
# Jobs that poll `cancel_requested` stop at their next episode boundary; one episode of a local
# model on a loaded machine can take minutes, so they get longer before the supervisor's SIGTERM
# (which would end them before they record their own stop).
COOPERATIVE_GRACE_S = 180.0
COOPERATIVE = ("eval", "compare", "optimize", "study", "sop", "reeval")
KILL_AFTER_S = 5.0
POLL_S = 0.25
# Progress rows are throttled per job so a fast loop cannot flood the log.
PROGRESS_MIN_INTERVAL_S = 0.5

_last_progress: dict[str, float] = {}
_cancel_seen: dict[str, tuple[float, bool]] = {}
_children: dict[str, subprocess.Popen] = {}


@dataclass(frozen=True)
class JobState:
    """The folded state of one job's event log."""

    job_id: str
    kind: str
    status: str  # queued | running | cancelling | done | failed | cancelled | lost
    done: int | None = None
    total: int | None = None
    message: str = ""
    params: dict[str, Any] = field(default_factory=dict)
    pid: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    cancel_requested: bool = False
    started_at: datetime | None = None  # the supervisor's "running" row
    first_progress: tuple[datetime, int] | None = None  # (when, done) of the first progress row
    progress_at: datetime | None = None  # the latest progress row

    @property
    def active(self) -> bool:
        return self.status in ACTIVE

    @property
    def phase(self) -> str:
        """What the job is doing now, in the producer's words (its latest progress message)."""
        return self.message if self.active else ""

    def elapsed_s(self, at: datetime | None = None) -> float | None:
        """Seconds since the job started running (until its last row once it ended)."""
        if self.started_at is None:
            return None
        end = (at or datetime.now()) if self.active else (self.updated_at or self.started_at)
        return max(0.0, (pd.Timestamp(end) - pd.Timestamp(self.started_at)).total_seconds())

    def eta_s(self, at: datetime | None = None) -> float | None:
        """Seconds left at the rate of the steps done so far; None until one step is done."""
        if not self.active or not self.total or not self.done or self.done >= self.total:
            return None
        left = self.total - self.done
        if self.first_progress is not None and self.progress_at is not None:
            t0, d0 = self.first_progress
            span = (pd.Timestamp(self.progress_at) - pd.Timestamp(t0)).total_seconds()
            if self.done > d0 and span > 0:  # the rate between progress rows: start-up time excluded
                return left * span / (self.done - d0)
        elapsed = self.elapsed_s(at)
        return None if not elapsed else left * elapsed / self.done

    @property
    def fraction(self) -> float | None:
        if not self.total or self.done is None:
            return None
        return max(0.0, min(1.0, self.done / self.total))

    @property
    def argv(self) -> list[str]:
        return list(self.params.get("argv", []))


# ---------------------------------------------------------------------- paths


def log_path(warehouse: Warehouse, job_id: str) -> Path:
    """Where the supervisor writes the child's stdout and stderr."""
    return warehouse.path.parent / "jobs" / f"{job_id}.log"


def log_tail(warehouse: Warehouse, job_id: str, lines: int = 40) -> str:
    path = log_path(warehouse, job_id)
    if not path.exists():
        return ""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 64_000))
        text = fh.read().decode("utf-8", errors="replace")
    return "\n".join(text.splitlines()[-lines:])


# ---------------------------------------------------------------------- the log


def _event(
    warehouse: Warehouse,
    job_id: str,
    status: str,
    done: int | None = None,
    total: int | None = None,
    message: str = "",
) -> None:
    warehouse.record([JobEventRow(job_id=job_id, status=status, done=done, total=total, message=message)])


def report_progress(warehouse: Warehouse, job_id: str, done: int, total: int, message: str = "") -> None:
    """Record progress of a running job (throttled; the first and last step always land)."""
    t = time.monotonic()
    last = _last_progress.get(job_id)
    if last is not None and 0 < done < total and t - last < PROGRESS_MIN_INTERVAL_S:
        return
    _last_progress[job_id] = t
    _event(warehouse, job_id, "running", int(done), int(total), message)


def cancel_requested(warehouse: Warehouse, job_id: str) -> bool:
    """Whether someone asked this job to stop; cheap to call once per task."""
    t = time.monotonic()
    seen = _cancel_seen.get(job_id)
    if seen is not None and (seen[1] or t - seen[0] < PROGRESS_MIN_INTERVAL_S):
        return seen[1]
    flag = bool(
        warehouse.scalar(
            "SELECT count(*) FROM job_events WHERE job_id = ? AND status = 'cancel_requested'", [job_id]
        )
    )
    _cancel_seen[job_id] = (t, flag)
    return flag


def current_job() -> tuple[Warehouse, str] | None:
    """The (warehouse, job id) this process runs for, when started by `start_job`."""
    job_id = os.environ.get(ENV_JOB)
    if not job_id:
        return None
    return Warehouse(os.environ.get(ENV_WAREHOUSE) or None), job_id


def request_cancel(warehouse: Warehouse, job_id: str, reason: str = "") -> None:
    """Ask a job to stop; the job (or, after a grace period, its supervisor) ends it."""
    state = job_state(warehouse, job_id)
    if state is None or not state.active:
        return
    _event(warehouse, job_id, "cancel_requested", message=reason or "cancel requested")


# ---------------------------------------------------------------------- start


def new_job_id(kind: str) -> str:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    safe = "".join(c if c.isalnum() else "-" for c in kind)[:24]
    return f"{safe}-{stamp}-{uuid.uuid4().hex[:6]}"


def start_job(
    warehouse: Warehouse,
    kind: str,
    argv: Sequence[str],
    params: Mapping[str, Any] | None = None,
    *,
    grace_s: float | None = None,
    models: Sequence[str] = (),
) -> str:
    """Launch `python -m core.cli.main <argv>` as a detached, supervised job; returns its id.

    The job's environment is `job_env`: the models named in `argv` (and in
    `models`) get their keys, nothing else secret is passed on.
    """
    job_id = new_job_id(kind)
    if grace_s is None:
        grace_s = COOPERATIVE_GRACE_S if kind in COOPERATIVE else DEFAULT_GRACE_S
    argv = [str(a) for a in argv]
    record = {**dict(params or {}), "argv": argv}
    _event(warehouse, job_id, "queued", message="queued")
    log = log_path(warehouse, job_id)
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [
        sys.executable,
        "-m",
        "core.jobs",
        "supervise",
        "--job",
        job_id,
        "--warehouse",
        str(warehouse.path),
        "--grace",
        str(grace_s),
        "--",
        *argv,
    ]
    env = _child_env(warehouse, job_id, job_env([*models_in(argv), *models]))
    try:
        with log.open("ab") as err:
            proc = subprocess.Popen(
                cmd,
                cwd=str(PROJECT_ROOT),
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=err,
                start_new_session=True,
            )
    except OSError as exc:
        _event(warehouse, job_id, "failed", message=f"could not start: {exc}")
        raise
    _children[job_id] = proc
    warehouse.record([JobRow(job_id=job_id, kind=kind, params=record, pid=proc.pid)])
    return job_id


# What a job inherits from the process that starts it: how to find programs and libraries, the
# locale, offline switches and the project's own settings. Secrets are added by name, for the models
# the job runs (core.llm.keys), never wholesale: a job started from the dashboard must not be a way
# to spend or print every key the server holds.
BASE_ENV = (
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TMPDIR", "TEMP", "TMP", "SHELL",
    "VIRTUAL_ENV", "PYTHONHASHSEED", "SYSTEMROOT", "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE",
    "SENTENCE_TRANSFORMERS_HOME", "XDG_CACHE_HOME", "LITELLM_LOCAL_MODEL_COST_MAP", "LITELLM_OFFLINE_MODE",
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
)  # fmt: skip
BASE_ENV_PREFIXES = ("LC_", "DOCSCHISEL_")
MODEL_OPTIONS = ("--model", "-m", "--optimizer-model", "--baseline-model")


def models_in(argv: Sequence[str]) -> list[str]:
    """The models a `docschisel` command line names (`--model X`, `--model=X`, comma lists)."""
    out: list[str] = []
    for i, arg in enumerate(argv):
        value = None
        if arg in MODEL_OPTIONS and i + 1 < len(argv):
            value = argv[i + 1]
        elif "=" in arg and arg.split("=", 1)[0] in MODEL_OPTIONS:
            value = arg.split("=", 1)[1]
        if value:
            out.extend(v.strip() for v in value.split(",") if v.strip())
    return out


def job_env(models: Sequence[str] = (), environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a job: the base variables, then each model's key and endpoint by name.

    The default models ($DOCSCHISEL_MODEL, $DOCSCHISEL_OPTIMIZER_MODEL) count as
    named, since a command without `--model` runs them.
    """
    from core.llm.keys import env_names_for
    from core.redaction import is_secret_name

    env = dict(os.environ if environ is None else environ)
    out = {
        k: v
        for k, v in env.items()
        if (k in BASE_ENV or k.startswith(BASE_ENV_PREFIXES)) and not is_secret_name(k)
    }
    defaults = [env[k] for k in ("DOCSCHISEL_MODEL", "DOCSCHISEL_OPTIMIZER_MODEL") if env.get(k)]
    for name in env_names_for([*models, *defaults]):
        if name in env:
            out[name] = env[name]
    return out


def _child_env(warehouse: Warehouse, job_id: str, env: Mapping[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ if env is None else env)
    env[ENV_JOB] = job_id
    env[ENV_WAREHOUSE] = str(warehouse.path)
    env["PYTHONUNBUFFERED"] = "1"
    root = str(PROJECT_ROOT)
    parts = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in parts:
        env["PYTHONPATH"] = os.pathsep.join([root, *parts])
    return env


# ---------------------------------------------------------------------- read


_STATE_SQL = """
WITH ev AS (
    SELECT job_id,
           max(ts) AS updated_at,
           min(ts) AS first_ts,
           arg_max(status, ts) AS last_status,
           arg_max(status, ts) FILTER (WHERE status IN ('done', 'failed', 'cancelled')) AS terminal,
           bool_or(status = 'cancel_requested') AS cancel_req,
           arg_max(done, ts) FILTER (WHERE total IS NOT NULL) AS done,
           arg_max(total, ts) FILTER (WHERE total IS NOT NULL) AS total,
           arg_max(coalesce(message, ''), ts) AS message,
           min(ts) FILTER (WHERE status = 'running') AS started_at,
           min(ts) FILTER (WHERE total IS NOT NULL AND status = 'running') AS first_progress_at,
           arg_min(done, ts) FILTER (WHERE total IS NOT NULL AND status = 'running') AS first_done,
           max(ts) FILTER (WHERE total IS NOT NULL AND status = 'running') AS progress_at
    FROM job_events
    {where}
    GROUP BY job_id
)
SELECT ev.job_id, j.kind, j.params, j.pid, coalesce(j.created_at, ev.first_ts) AS created_at,
       ev.updated_at, ev.last_status, ev.terminal, ev.cancel_req, ev.done, ev.total, ev.message,
       ev.started_at, ev.first_progress_at, ev.first_done, ev.progress_at
FROM ev LEFT JOIN jobs j USING (job_id)
ORDER BY created_at DESC
{limit}
"""


def _str(value: Any) -> str | None:
    return None if value is None or (not isinstance(value, str) and pd.isna(value)) else str(value)


def _fold(row: Mapping[str, Any]) -> JobState:
    row = {
        k: (_str(v) if k in ("terminal", "last_status", "message", "kind", "params") else v)
        for k, v in row.items()
    }
    terminal = row["terminal"]
    if terminal:
        status = terminal
    elif row["cancel_req"]:
        status = "cancelling"
    else:
        status = row["last_status"] if row["last_status"] in ACTIVE else "running"
    pid = _int(row["pid"])
    job_id = row["job_id"]
    if status in ACTIVE and pid is not None and not _alive(job_id, pid):
        status = "lost"
    params = row["params"]
    try:
        params = json.loads(params) if isinstance(params, str) else dict(params or {})
    except (ValueError, TypeError):
        params = {}
    return JobState(
        job_id=job_id,
        kind=row["kind"] or str(params.get("kind", "job")),
        status=status,
        done=_int(row["done"]),
        total=_int(row["total"]),
        message=row["message"] or "",
        params=params,
        pid=pid,
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        cancel_requested=bool(row["cancel_req"]),
        started_at=_ts(row.get("started_at")),
        first_progress=(
            (_ts(row.get("first_progress_at")), _int(row.get("first_done")) or 0)
            if _ts(row.get("first_progress_at")) is not None
            else None
        ),
        progress_at=_ts(row.get("progress_at")),
    )


def _ts(value: Any) -> datetime | None:
    return None if value is None or pd.isna(value) else pd.Timestamp(value).to_pydatetime()


def _int(value: Any) -> int | None:
    try:
        return None if value is None or pd.isna(value) else int(value)
    except (TypeError, ValueError):
        return None


def _alive(job_id: str, pid: int) -> bool:
    """Whether the supervisor process still runs (reaping it when it is our child)."""
    proc = _children.get(job_id)
    if proc is not None:
        if proc.poll() is None:
            return True
        _children.pop(job_id, None)
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def job_state(warehouse: Warehouse, job_id: str) -> JobState | None:
    """The current state of one job, or None when unknown."""
    df = warehouse.query(_STATE_SQL.format(where="WHERE job_id = ?", limit=""), [job_id])
    if df.empty:
        return None
    return _fold(df.iloc[0].to_dict())


def list_jobs(warehouse: Warehouse, limit: int = 50, *, kind: str | None = None) -> list[JobState]:
    """Most recent jobs first."""
    df = warehouse.query(_STATE_SQL.format(where="", limit=f"LIMIT {int(limit) * 4}"))
    jobs = [_fold(r) for r in df.to_dict("records")]
    if kind is not None:
        jobs = [j for j in jobs if j.kind == kind]
    return jobs[:limit]


def wait_until(
    warehouse: Warehouse,
    job_id: str,
    reached: Callable[[JobState], bool],
    timeout_s: float = 600.0,
    poll_s: float = 0.2,
) -> JobState:
    """Block until the job's state satisfies `reached` or the job ends (tests and scripts).

    Callers wait on a state, not on a time window: the timeout only stops a
    job that hangs, so it is generous and a loaded machine does not fail it.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        state = job_state(warehouse, job_id)
        if state is not None and (reached(state) or not state.active):
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"job {job_id} still {state.status if state else 'unknown'} after {timeout_s}s"
            )
        time.sleep(poll_s)


def wait_for(warehouse: Warehouse, job_id: str, timeout_s: float = 600.0, poll_s: float = 0.2) -> JobState:
    """Block until the job reaches a final state (tests and scripts)."""
    return wait_until(warehouse, job_id, lambda _s: False, timeout_s, poll_s)


# ---------------------------------------------------------------------- supervisor


def _last_line(path: Path) -> str:
    with contextlib.suppress(OSError):
        for line in reversed(path.read_text(encoding="utf-8", errors="replace").splitlines()):
            if line.strip():
                return line.strip()[:500]
    return ""


def _pump(stream: Any, out: Any, redactor: Redactor) -> None:
    """Copy the child's output into the job log line by line, with secrets redacted on the way."""
    with contextlib.suppress(OSError, ValueError):
        for line in iter(stream.readline, b""):
            out.write(redactor.text(line.decode("utf-8", errors="replace")).encode())
            out.flush()


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, sig)


def supervise(job_id: str, warehouse_path: str, argv: Sequence[str], grace_s: float) -> int:
    """Run the child command, watch for cancellation, and record how it ended."""
    wh = Warehouse(warehouse_path)
    log = log_path(wh, job_id)
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "core.cli.main", *argv]
    redactor = Redactor.from_env()
    out = log.open("ab")
    out.write(redactor.text(f"$ docschisel {' '.join(argv)}\n").encode())
    out.flush()
    child = subprocess.Popen(
        cmd,
        cwd=str(PROJECT_ROOT),
        env=_child_env(wh, job_id),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    pump = threading.Thread(target=_pump, args=(child.stdout, out, redactor), daemon=True)
    pump.start()
    _event(wh, job_id, "running", message="started")

    stop = {"signal": False}

    def _forward(signum: int, _frame: Any) -> None:
        stop["signal"] = True
        _signal_group(child, signal.SIGTERM)

    signal.signal(signal.SIGTERM, _forward)
    signal.signal(signal.SIGINT, _forward)

    cancel_at: float | None = None
    termed = killed = False
    next_check = 0.0
    while child.poll() is None:
        t = time.monotonic()
        if cancel_at is None and t >= next_check:
            next_check = t + 1.0
            with contextlib.suppress(Exception):
                if cancel_requested(wh, job_id):
                    cancel_at = t
        if cancel_at is not None:
            if not termed and t - cancel_at >= grace_s:
                _signal_group(child, signal.SIGTERM)
                termed = True
            elif termed and not killed and t - cancel_at >= grace_s + KILL_AFTER_S:
                _signal_group(child, signal.SIGKILL)
                killed = True
        time.sleep(POLL_S)
    rc = child.returncode
    pump.join(timeout=10.0)
    out.close()
    cancelled = cancel_at is not None or stop["signal"] or cancel_requested(wh, job_id)
    state = job_state(wh, job_id)
    done, total = (state.done, state.total) if state else (None, None)
    if cancelled:
        _event(wh, job_id, "cancelled", done, total, "cancelled" + (" (terminated)" if termed else ""))
    elif rc == 0:
        _event(wh, job_id, "done", total if total else done, total, "finished")
    else:
        _event(wh, job_id, "failed", done, total, _last_line(log) or f"exit code {rc}")
    return 0 if rc == 0 or cancelled else 1


def _main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m core.jobs", description="supervise one background job")
    sub = parser.add_subparsers(dest="cmd", required=True)
    sp = sub.add_parser("supervise")
    sp.add_argument("--job", required=True)
    sp.add_argument("--warehouse", required=True)
    sp.add_argument("--grace", type=float, default=DEFAULT_GRACE_S)
    sp.add_argument("argv", nargs=argparse.REMAINDER)
    ns = parser.parse_args(args)
    argv = ns.argv[1:] if ns.argv[:1] == ["--"] else ns.argv
    return supervise(ns.job, ns.warehouse, argv, ns.grace)


if __name__ == "__main__":
    sys.exit(_main())
