"""From evaluation points to the stored rows of a comparison: distributions, tests, curves.

Pure functions over plain records, so the statistics can be checked without
running anything. All statistics come from `core.study.stats` (verified against
scipy there): the distribution of a method is its TS (or TC) over every
(optimization run × evaluation run) point; DocsChisel is compared with each
other method by the relative improvement of the means, as the paper reports
it ((DC − X) / X in percent), and by a two-sided Mann–Whitney U test of the
point distributions; the p-values of one metric form one Holm family.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.study.stats import holm, iqr, mann_whitney_u, relative_improvement

METRICS = ("ts", "tc")
BASELINES = ("et", "drt")


@dataclass(frozen=True)
class Point:
    """One evaluation run of one method's doc set: TS and TC over the test tasks."""

    method: str
    opt_run: int
    eval_run: int
    ts: float
    tc: float
    n: int
    run_id: str
    docset_id: str


def _finite(value: float) -> float | None:
    """NaN / infinity (e.g. a relative improvement over 0) are stored as NULL."""
    return value if value is not None and math.isfinite(value) else None


def distribution(values: Sequence[float]) -> dict[str, float | None]:
    if not values:
        return {"mean": None, "median": None, "iqr": None}
    return {
        "mean": float(statistics.fmean(values)),
        "median": float(statistics.median(values)),
        "iqr": iqr(values),
    }


def method_rows(
    points: Mapping[str, Sequence[Point]],
    labels: Mapping[str, str],
    efficiency: Mapping[str, Mapping[str, Any]],
    optimizer_models: Mapping[str, str | None],
) -> list[dict[str, Any]]:
    """One summary row per method, in the order of `points`."""
    rows = []
    for method, pts in points.items():
        ts = distribution([p.ts for p in pts])
        tc = distribution([p.tc for p in pts])
        eff = efficiency.get(method, {})
        rows.append(
            {
                "method": method,
                "label": labels.get(method, method),
                "optimizer_model": optimizer_models.get(method),
                "n_points": len(pts),
                "n_docsets": len({p.docset_id for p in pts}),
                "n_tasks": max((p.n for p in pts), default=0),
                "ts_mean": ts["mean"],
                "ts_median": ts["median"],
                "ts_iqr": ts["iqr"],
                "tc_mean": tc["mean"],
                "tc_median": tc["median"],
                "tc_iqr": tc["iqr"],
                "doc_tokens": eff.get("doc_tokens"),
                "tools_optimized": eff.get("tools_optimized"),
                "opt_tokens_per_tool": eff.get("opt_tokens_per_tool"),
                "agent_tokens_per_tool": eff.get("agent_tokens_per_tool"),
                "minutes_per_tool": eff.get("minutes_per_tool"),
                "points": [asdict(p) for p in pts],
            }
        )
    return rows


def significance_rows(points: Mapping[str, Sequence[Point]], method: str = "dc") -> list[dict[str, Any]]:
    """`method` against every other main method (og, et, drt) per metric, Holm within the metric.

    Also a `baselines` row per metric: the relative improvement over the mean
    of the baselines' means (no test of its own; it is not a separate sample).
    Other DocsChisel variants (`dc:<model>`) are reported, not tested.
    """
    if method not in points or not points[method]:
        return []
    others = [m for m in points if m != method and not m.startswith("dc") and points[m]]
    rows: list[dict[str, Any]] = []
    for metric in METRICS:
        mine = [getattr(p, metric) for p in points[method]]
        mean = float(statistics.fmean(mine))
        family = []
        for other in others:
            theirs = [getattr(p, metric) for p in points[other]]
            test = mann_whitney_u(mine, theirs)
            other_mean = float(statistics.fmean(theirs))
            family.append(
                {
                    "metric": metric,
                    "method": method,
                    "versus": other,
                    "method_mean": mean,
                    "versus_mean": other_mean,
                    "relative_pct": _finite(relative_improvement(mean, other_mean)),
                    "u": test.u,
                    "p": test.p,
                    "test": test.method,
                    "n1": test.n1,
                    "n2": test.n2,
                }
            )
        for row, adjusted in zip(family, holm([r["p"] for r in family]), strict=True):
            row["p_holm"] = adjusted
        rows += family
        base_means = [r["versus_mean"] for r in family if r["versus"] in BASELINES]
        if base_means:
            pooled = float(statistics.fmean(base_means))
            rows.append(
                {
                    "metric": metric,
                    "method": method,
                    "versus": "baselines",
                    "method_mean": mean,
                    "versus_mean": pooled,
                    "relative_pct": _finite(relative_improvement(mean, pooled)),
                    "u": None,
                    "p": None,
                    "p_holm": None,
                    "test": None,
                    "n1": len(mine),
                    "n2": None,
                }
            )
    return rows


def curve_row(
    series: str,
    opt_run: int,
    budget: int,
    points: Sequence[Point],
    changed: Sequence[str],
    docset_id: str,
    optimize_run: str,
) -> dict[str, Any]:
    """One point of an iteration-budget curve: the mean over its evaluation runs."""
    return {
        "series": series,
        "opt_run": opt_run,
        "budget": budget,
        "ts": float(statistics.fmean(p.ts for p in points)) if points else None,
        "tc": float(statistics.fmean(p.tc for p in points)) if points else None,
        "n_episodes": sum(p.n for p in points),
        "changed_tools": len(changed),
        "docset_id": docset_id,
        "optimize_run": optimize_run,
    }
