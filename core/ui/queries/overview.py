"""Read queries behind the Overview page: headline numbers, success by model, optimization gains."""

from __future__ import annotations

import contextlib
from typing import Any

import pandas as pd

from core.ui.state import cached_query
from core.warehouse import Warehouse

# The latest status row of each run (run_status is an append-only log).
LATEST_STATUS = (
    "(SELECT run_id, arg_max(status, ts) AS status, max(ts) AS status_ts FROM run_status GROUP BY run_id)"
)


@cached_query
def headline(wh: Warehouse) -> dict[str, Any]:
    # A run whose process is gone is marked `interrupted` by whoever looks next; the dashboard looks here.
    with contextlib.suppress(Exception):
        wh.mark_interrupted()
    row = wh.query(
        """
        SELECT
          (SELECT count(*) FROM benchmarks) AS benchmarks,
          (SELECT count(*) FROM tasks) AS tasks,
          (SELECT count(*) FROM runs) AS runs,
          (SELECT count(*) FROM episodes) AS episodes,
          (SELECT count(DISTINCT model) FROM episodes) AS models,
          (SELECT avg(success::INT) FROM episodes) AS ts,
          (SELECT avg(tool_correct::INT) FROM episodes) AS tc,
          (SELECT coalesce(sum(tokens_in + tokens_out), 0) FROM episodes) AS episode_tokens,
          (SELECT coalesce(sum(tokens_in + tokens_out), 0) FROM llm_calls) AS llm_tokens,
          (SELECT coalesce(sum(cost), 0) FROM episodes) + (SELECT coalesce(sum(cost), 0) FROM llm_calls) AS cost,
          (SELECT count(*) FROM doc_versions) AS doc_versions,
          (SELECT count(*) FROM candidates) AS candidates
        """
    )
    return {k: (None if pd.isna(v) else v) for k, v in row.iloc[0].to_dict().items()}


@cached_query
def by_model(wh: Warehouse) -> pd.DataFrame:
    """TS / TC per benchmark, model, paradigm and documentation."""
    return wh.query(
        """
        SELECT e.benchmark, e.model, e.paradigm,
               coalesce(s.origin, '–') AS docs,
               count(*) AS episodes,
               avg(e.success::INT) AS ts,
               avg(e.tool_correct::INT) AS tc,
               avg(e.n_steps) AS steps,
               sum(e.tokens_in + e.tokens_out) AS tokens,
               sum(e.cost) AS cost,
               any_value(e.source) AS source
        FROM episodes e LEFT JOIN doc_sets s USING (docset_id)
        GROUP BY ALL
        ORDER BY e.benchmark, ts DESC
        """
    )


@cached_query
def optimization_runs(wh: Warehouse, limit: int = 10) -> pd.DataFrame:
    """Latest optimization runs: tools, accepted candidates and the validation gain per tool."""
    return wh.query(
        f"""
        WITH per_tool AS (
            SELECT run_id, tool,
                   max(base_val_ts) AS base,
                   greatest(max(base_val_ts), coalesce(max(val_ts) FILTER (WHERE accepted), 0)) AS best,
                   count(*) AS candidates,
                   count(*) FILTER (WHERE accepted) AS accepted,
                   max(iteration) AS iterations
            FROM candidates GROUP BY run_id, tool
        )
        SELECT r.run_id, coalesce(nullif(r.name, ''), r.run_id) AS name, r.benchmark, r.created_at,
               coalesce(st.status, 'started') AS status,
               count(p.tool) AS tools, sum(p.candidates) AS candidates, sum(p.accepted) AS accepted,
               max(p.iterations) AS iterations, avg(p.base) AS base_ts, avg(p.best) AS best_ts,
               100 * (avg(p.best) - avg(p.base)) AS gain_pp
        FROM runs r
        LEFT JOIN per_tool p USING (run_id)
        LEFT JOIN {LATEST_STATUS} st USING (run_id)
        WHERE r.kind = 'optimize'
        GROUP BY ALL
        ORDER BY r.created_at DESC
        LIMIT {int(limit)}
        """
    )


@cached_query
def recent_runs(wh: Warehouse, limit: int = 12) -> pd.DataFrame:
    return wh.query(
        f"""
        SELECT r.run_id, r.kind, coalesce(nullif(r.name, ''), r.run_id) AS name, r.benchmark, r.created_at,
               coalesce(st.status, 'started') AS status,
               (SELECT count(*) FROM run_episodes re WHERE re.run_id = r.run_id) AS episodes
        FROM runs r LEFT JOIN {LATEST_STATUS} st USING (run_id)
        ORDER BY r.created_at DESC
        LIMIT {int(limit)}
        """
    )
