"""Read queries behind the Data page: what the warehouse holds."""

from __future__ import annotations

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
