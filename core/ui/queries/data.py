"""Read queries behind the Data page: what the warehouse holds."""

from __future__ import annotations

import json

import pandas as pd

from core.ui.state import cached_query
from core.warehouse import Warehouse

TABLES = {
    "benchmarks": "Benchmarks",
    "tasks": "Tasks",
    "splits": "Splits",
    "doc_versions": "Doc versions",
    "doc_sets": "Doc sets",
    "runs": "Runs",
    "episodes": "Episodes",
    "events": "Events",
    "evaluations": "Evaluations",
    "diagnoses": "Diagnoses",
    "plans": "Plans",
    "candidates": "Candidates",
    "memories": "Memories",
    "approvals": "Review actions",
    "field_impact": "Field-impact rows",
    "llm_calls": "LLM calls",
    "llm_cache": "Cached LLM responses",
    "jobs": "Jobs",
    "infra_failures": "Infrastructure failures",
}


@cached_query
def table_counts(wh: Warehouse) -> pd.DataFrame:
    sql = " UNION ALL ".join(f"SELECT '{t}' AS tbl, count(*) AS n FROM {t}" for t in TABLES)
    df = wh.query(sql)
    df["table"] = df["tbl"].map(TABLES)
    return df[["table", "tbl", "n"]]


@cached_query
def schema_version(wh: Warehouse) -> int:
    return int(wh.scalar("SELECT max(version) FROM schema_version") or 0)


@cached_query
def benchmark_summary(wh: Warehouse) -> pd.DataFrame:
    return wh.query(
        """
        WITH t AS (SELECT benchmark, count(*) AS tasks, count(DISTINCT domain) AS domains FROM tasks GROUP BY 1),
        e AS (SELECT benchmark, count(*) AS episodes, count(DISTINCT model) AS models,
                     count(*) FILTER (WHERE source = 'import') AS imported, min(started_at) AS first,
                     max(finished_at) AS last FROM episodes GROUP BY 1),
        d AS (SELECT benchmark, count(*) AS doc_sets FROM doc_sets GROUP BY 1)
        SELECT b.name AS benchmark, coalesce(t.tasks, 0) AS tasks, coalesce(t.domains, 0) AS domains,
               coalesce(e.episodes, 0) AS episodes, coalesce(e.imported, 0) AS imported,
               coalesce(e.models, 0) AS models, coalesce(d.doc_sets, 0) AS doc_sets, e.first, e.last
        FROM benchmarks b LEFT JOIN t ON t.benchmark = b.name LEFT JOIN e ON e.benchmark = b.name
        LEFT JOIN d ON d.benchmark = b.name
        ORDER BY b.name
        """
    )


@cached_query
def domain_summary(wh: Warehouse) -> pd.DataFrame:
    return wh.query(
        """
        SELECT benchmark, domain, count(*) AS episodes, avg(success::INT) AS ts, avg(tool_correct::INT) AS tc,
               count(DISTINCT task_id) AS tasks
        FROM episodes GROUP BY ALL ORDER BY benchmark, domain
        """
    )


@cached_query
def benchmark_source(wh: Warehouse, name: str) -> str:
    """What to pass as `--benchmark` for a stored benchmark: its folder for a user benchmark, else its name.

    A user benchmark is stored under `name@fingerprint`, which no command can
    load; the folder it was imported from can (and if the folder changed since,
    the command loads the new version, under its own name).
    """
    rows = wh.rows("SELECT info FROM benchmarks WHERE name = ?", [name])
    try:
        info = json.loads(rows[0][0]) if rows and rows[0][0] else {}
    except (TypeError, ValueError):
        info = {}
    folder = info.get("folder") if isinstance(info, dict) else None
    return str(folder) if folder else name


@cached_query
def infra_failures(wh: Warehouse, limit: int = 200) -> pd.DataFrame:
    """Recent attempts that failed outside the agent (not episodes; retried by the next run)."""
    return wh.query(
        """SELECT ts, error_class, benchmark, task_id, "repeat", model, error, run_id
           FROM infra_failures ORDER BY ts DESC LIMIT ?""",
        [int(limit)],
    )
