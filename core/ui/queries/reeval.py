"""Read queries of a re-evaluation: the new docs against the docs they replace, task by task.

The question an analyst asks after every edit is "what did it change?". An
evaluation started with `--against` runs both doc sets with one agent config
(same model, temperature and seeds) on the same tasks, so each episode of the
new docs has a partner of the old docs with the same (task, config, repeat):
the comparison pairs them, and a task flips when its success rate moved.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core.ui.queries import json_value
from core.ui.state import cached_query
from core.warehouse import Warehouse


@dataclass(frozen=True)
class RunComparison:
    """Paired outcomes of one evaluation run of new docs and the same episodes of the old docs."""

    new_run: str
    new_docset: str
    old_docset: str
    tasks: (
        pd.DataFrame
    )  # task_id, domain, n, old_ts, new_ts, old_tc, new_tc, change, old_episode, new_episode
    unpaired: int = 0  # episodes of the new run whose old-docs partner was not run
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def paired(self) -> pd.DataFrame:
        return self.tasks[self.tasks["n"] > 0]

    def rate(self, column: str) -> float | None:
        """A TS or TC column's mean over paired episodes (tasks weighted by their episode count)."""
        p = self.paired
        if p.empty:
            return None
        return float((p[column] * p["n"]).sum() / p["n"].sum())

    def flipped(self, change: str) -> pd.DataFrame:
        """`fixed` (passed more often with the new docs) or `broken` (less often)."""
        return self.tasks[self.tasks["change"] == change]


@cached_query
def docset_base(wh: Warehouse, docset_id: str) -> str | None:
    """The doc set a reviewed set was built from (the docs it replaces), when it records one."""
    rows = wh.rows("SELECT meta FROM doc_sets WHERE docset_id = ?", [docset_id])
    meta = json_value(rows[0][0], {}) if rows else {}
    base = meta.get("base") if isinstance(meta, dict) else None
    return str(base) if base else None


@cached_query
def eval_run_of(
    wh: Warehouse, docset_id: str, split: str, model: str, paradigm: str, until: str | None = None
) -> str | None:
    """The latest evaluation run of a doc set with this split and agent (up to `until`, a job's end)."""
    rows = wh.rows(
        """
        SELECT run_id FROM runs
        WHERE kind = 'eval' AND config->>'docset_id' = ? AND coalesce(config->>'split', '') = ?
          AND config->'agent'->>'model' = ? AND config->'agent'->>'paradigm' = ?
          AND (? IS NULL OR created_at <= CAST(? AS TIMESTAMP))
        ORDER BY created_at DESC LIMIT 1
        """,
        [docset_id, split, model, paradigm, until, until],
    )
    return rows[0][0] if rows else None


def _change(old: float, new: float) -> str:
    if pd.isna(old):
        return "not run with the old docs"
    return "fixed" if new > old else "broken" if new < old else "same"


@cached_query
def run_comparison(wh: Warehouse, new_run: str, old_docset: str) -> RunComparison:
    """Pair each episode of `new_run` with the old docs' episode of the same task, config and repeat."""
    pairs = wh.query(
        """
        WITH new AS (
            SELECT e.* FROM run_episodes r JOIN episodes e USING (episode_id) WHERE r.run_id = ?
        ),
        old AS (SELECT * FROM episodes WHERE docset_id = ?)
        SELECT n.task_id, any_value(n.domain) AS domain, any_value(n.docset_id) AS new_docset,
               count(o.episode_id) AS n, count(*) AS n_new,
               avg(CAST(o.success AS DOUBLE)) AS old_ts, avg(CAST(n.success AS DOUBLE)) FILTER (WHERE o.episode_id IS NOT NULL) AS new_ts,
               avg(CAST(o.tool_correct AS DOUBLE)) AS old_tc,
               avg(CAST(n.tool_correct AS DOUBLE)) FILTER (WHERE o.episode_id IS NOT NULL) AS new_tc,
               min(o.episode_id) AS old_episode, min(n.episode_id) AS new_episode
        FROM new n LEFT JOIN old o
          ON o.benchmark = n.benchmark AND o.task_id = n.task_id AND o.config_id = n.config_id
         AND o."repeat" = n."repeat"
        GROUP BY n.task_id ORDER BY n.task_id
        """,
        [new_run, old_docset],
    )
    new_docset = str(pairs["new_docset"].iloc[0]) if not pairs.empty else ""
    unpaired = int((pairs["n_new"] - pairs["n"]).sum()) if not pairs.empty else 0
    if not pairs.empty:
        pairs["change"] = [_change(o, n) for o, n in zip(pairs["old_ts"], pairs["new_ts"], strict=True)]
    else:
        pairs["change"] = pd.Series(dtype=str)
    tasks = pairs.drop(columns=["new_docset", "n_new"])
    return RunComparison(new_run, new_docset, old_docset, tasks, unpaired)


@cached_query
def changed_tools(wh: Warehouse, old_docset: str, new_docset: str) -> pd.DataFrame:
    """tool, old doc_id, new doc_id of every tool documented differently by the two sets."""
    return wh.query(
        """
        SELECT coalesce(o.tool, n.tool) AS tool, o.doc_id AS old_doc, n.doc_id AS new_doc
        FROM (SELECT * FROM doc_set_members WHERE docset_id = ?) o
        FULL JOIN (SELECT * FROM doc_set_members WHERE docset_id = ?) n ON o.tool = n.tool
        WHERE o.doc_id IS DISTINCT FROM n.doc_id ORDER BY tool
        """,
        [old_docset, new_docset],
    )
