"""Read queries behind the SOPs page (EvoSOP runs): the producer's own frames, cached by warehouse path."""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.sop import report
from core.ui.state import cached_query
from core.warehouse import Warehouse, reads


@cached_query
def runs(wh: Warehouse) -> pd.DataFrame:
    return report.runs(wh)


@cached_query
def table1(wh: Warehouse) -> pd.DataFrame:
    return report.table1(wh)


@cached_query
def paired(wh: Warehouse) -> pd.DataFrame:
    from core.study.sop_tests import paired_frame

    return paired_frame(wh)


@cached_query
def epochs(wh: Warehouse, run_id: str) -> pd.DataFrame:
    return report.epochs_frame(wh, run_id)


@cached_query
def lifecycle(wh: Warehouse, run_id: str) -> pd.DataFrame:
    return report.lifecycle_frame(wh, run_id)


@cached_query
def uptake(wh: Warehouse, run_id: str) -> pd.DataFrame:
    return report.uptake_frame(wh, run_id)


@cached_query
def decisions(wh: Warehouse, run_id: str) -> pd.DataFrame:
    return report.decisions_frame(wh, run_id)


@cached_query
def reviews(wh: Warehouse, run_id: str, sop_id: str) -> pd.DataFrame:
    return report.reviews_frame(wh, run_id, sop_id)


@cached_query
def sops(wh: Warehouse, run_id: str) -> dict[str, dict[str, Any]]:
    """sop id -> stored row, for every SOP the run evaluated or rejected into its epochs."""
    ids = {i for e in reads.sop_epochs(wh, run_id) for i in (*e["evaluated"], *e["kept"])}
    return reads.sops_by_id(wh, ids)


@cached_query
def episode_links(wh: Warehouse, episode_ids: tuple[str, ...]) -> pd.DataFrame:
    """Where origin trajectories live: benchmark, run, task and outcome per episode id."""
    if not episode_ids:
        return pd.DataFrame(columns=["episode_id", "benchmark", "run_id", "task_id", "success"])
    return wh.query(
        """SELECT e.episode_id, e.benchmark, any_value(r.run_id) AS run_id, e.task_id, e.success
           FROM episodes e LEFT JOIN run_episodes r USING (episode_id)
           WHERE e.episode_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL ORDER BY e.task_id""",
        [list(episode_ids)],
    )


@cached_query
def final(wh: Warehouse, run_id: str) -> tuple[int, dict[str, Any]]:
    best, toolset = report.final_toolset(wh, run_id)
    return best, toolset.to_json()
