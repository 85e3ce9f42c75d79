"""Task success (TS) and tool correctness (TC), overall, per domain and per tool.

Computed from the warehouse (the episodes linked to a run), never from memory,
so a resumed run reports over everything it holds, and re-scoring is a query.
Per-tool figures use each task's ground-truth tools: a task counts for every
tool its ground truth uses, as in the method's per-tool profiling.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from core.warehouse.records import content_hash
from core.warehouse.rows import EvaluationRow


@dataclass
class Metrics:
    n: int
    ts: float
    tc: float
    by_domain: pd.DataFrame
    by_tool: pd.DataFrame

    def store(self, warehouse, run_id: str, docset_id: str, split: str) -> None:
        rows = [_row(run_id, docset_id, split, "overall", "all", self.n, self.ts, self.tc)]
        for scope, df, key in (("domain", self.by_domain, "domain"), ("tool", self.by_tool, "tool")):
            for r in df.itertuples(index=False):
                rows.append(
                    _row(run_id, docset_id, split, scope, getattr(r, key), int(r.n), float(r.ts), float(r.tc))
                )
        warehouse.record(rows)

    def summary(self) -> str:
        return f"TS {self.ts:.1%}  TC {self.tc:.1%}  (n={self.n})"


def _row(run_id, docset_id, split, scope, key, n, ts, tc) -> EvaluationRow:
    return EvaluationRow(
        eval_id=content_hash("eval", run_id, scope, key, n),
        run_id=run_id,
        docset_id=docset_id,
        split=split,
        scope=scope,
        key=key,
        n=n,
        ts_mean=ts,
        tc_mean=tc,
    )


def compute_metrics(warehouse, run_id: str) -> Metrics:
    base = """
        SELECT e.* FROM episodes e JOIN run_episodes r USING (episode_id) WHERE r.run_id = ?
    """
    overall = warehouse.query(
        f"SELECT count(*) AS n, avg(success::INT) AS ts, avg(tool_correct::INT) AS tc FROM ({base})", [run_id]
    )
    by_domain = warehouse.query(
        f"""SELECT domain, count(*) AS n, avg(success::INT) AS ts, avg(tool_correct::INT) AS tc
            FROM ({base}) GROUP BY domain ORDER BY domain""",
        [run_id],
    )
    by_tool = warehouse.query(
        f"""SELECT tool, count(*) AS n, avg(success::INT) AS ts, avg(tool_correct::INT) AS tc FROM (
                SELECT unnest(t.tools) AS tool, e.success, e.tool_correct
                FROM ({base}) e JOIN tasks t ON t.benchmark = e.benchmark AND t.task_id = e.task_id
            ) GROUP BY tool ORDER BY tool""",
        [run_id],
    )
    row = overall.iloc[0]
    n = int(row["n"])
    return Metrics(
        n=n,
        ts=float(row["ts"]) if n else 0.0,
        tc=float(row["tc"]) if n else 0.0,
        by_domain=by_domain,
        by_tool=by_tool,
    )
