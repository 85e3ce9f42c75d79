"""From evaluation points to the stored rows of a comparison: distributions, tests, curves.

Pure functions over plain records, so the statistics can be checked without
running anything. All statistics come from `core.study.stats` (verified against
scipy there): the distribution of a method is its TS (or TC) over every
(optimization run × evaluation run) point; DocsChisel is compared with each
other method by the relative improvement of the means, as the paper reports
it ((DC − X) / X in percent), and by a two-sided Mann–Whitney U test of the
point distributions; the p-values of one metric form one Holm family.
Beside them, the primary evidence: a paired per-task comparison on the same
test tasks (bootstrap CI of the per-task difference, exact McNemar on the
tasks' majority outcomes) with the minimum detectable effect of that many pairs.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from core.study.stats import (
    bootstrap_interval,
    holm,
    iqr,
    mann_whitney_u,
    mcnemar_exact,
    minimum_detectable_effect,
    relative_improvement,
)

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
    task_ts: dict[str, float] = field(default_factory=dict)  # task -> success in this run (mean of repeats)
    task_tc: dict[str, float] = field(default_factory=dict)


def per_task(points: Sequence[Point], metric: str) -> dict[str, float]:
    """Task -> mean outcome over a method's points (every optimization × evaluation run)."""
    acc: dict[str, list[float]] = {}
    for p in points:
        for task, v in getattr(p, f"task_{metric}").items():
            acc.setdefault(task, []).append(v)
    return {t: float(statistics.fmean(v)) for t, v in acc.items()}


def paired_evidence(mine: Sequence[Point], theirs: Sequence[Point], metric: str) -> dict[str, Any]:
    """The paired per-task test of two methods on the same test tasks (the primary evidence).

    Each task's outcome is its mean over the method's runs; see `paired_tasks`.
    """
    return paired_tasks(per_task(mine, metric), per_task(theirs, metric))


def per_task_outcomes(points: Mapping[str, Sequence[Point]]) -> dict[str, dict[str, dict[str, float]]]:
    """method -> metric -> task -> mean outcome over the method's runs (stored with a comparison, so
    comparisons of several domains can be pooled into one paired test later)."""
    return {m: {metric: per_task(pts, metric) for metric in METRICS} for m, pts in points.items() if pts}


def paired_tasks(a: Mapping[str, float], b: Mapping[str, float]) -> dict[str, Any]:
    """Paired evidence from two methods' per-task outcomes on their common tasks.

    The difference is resampled over tasks (bootstrap CI on ΔTS), the exact
    McNemar test is run on each task's majority outcome, and the minimum
    detectable effect says what difference this many paired tasks could have
    shown.
    """
    tasks = sorted(set(a) & set(b))
    empty = {
        "paired_delta": None,
        "paired_low": None,
        "paired_high": None,
        "paired_n": 0,
        "mcnemar_b": None,
        "mcnemar_c": None,
        "mcnemar_p": None,
        "mde": None,
    }
    if not tasks:
        return empty
    diffs = [a[t] - b[t] for t in tasks]
    ci = bootstrap_interval(diffs)
    mc = mcnemar_exact([a[t] >= 0.5 for t in tasks], [b[t] >= 0.5 for t in tasks])
    return {
        "paired_delta": ci.mean,
        "paired_low": ci.low,
        "paired_high": ci.high,
        "paired_n": len(tasks),
        "mcnemar_b": mc.b,
        "mcnemar_c": mc.c,
        "mcnemar_p": mc.p,
        "mde": _finite(minimum_detectable_effect(diffs)),
    }


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
    """`method` against every other main method (og, et, drt, gepa) per metric, Holm within the metric.

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
                    **paired_evidence(points[method], points[other], metric),
                }
            )
        for row, adjusted in zip(family, holm([r["p"] for r in family]), strict=True):
            row["p_holm"] = adjusted
        rows += family
        base_means = [r["versus_mean"] for r in family if r["versus"] in BASELINES]
        if len(base_means) == len(BASELINES):  # with one baseline the mean is that baseline's row again
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
                    **paired_evidence(points[method], [], metric),
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


def top_reason(reasons: Mapping[str, int] | None) -> str:
    if not reasons:
        return ""
    why, n = max(reasons.items(), key=lambda kv: (kv[1], kv[0]))
    return f"{why} ({n}×)"


def flip_rows(
    per_task: Mapping[str, Mapping[str, Mapping[str, float]]],
    failures: Mapping[str, Mapping[str, Mapping[str, int]]],
    method: str,
    versus: str = "og",
) -> list[dict[str, Any]]:
    """Tasks whose majority outcome differs between two methods, with each side's main failure reason.

    This is where a comparison's numbers come from: a DocsChisel gain is the
    tasks it solves that the original docs did not, minus those it lost, and
    the reasons say which failure the new docs fixed (or caused).
    """
    a = per_task.get(method, {}).get("ts", {})
    b = per_task.get(versus, {}).get("ts", {})
    rows = []
    for task in sorted(set(a) & set(b)):
        won, was = a[task] >= 0.5, b[task] >= 0.5
        if won == was:
            continue
        rows.append(
            {
                "task": task,
                "change": "solved" if won else "lost",
                versus: round(b[task], 3),
                method: round(a[task], 3),
                f"{versus} failure": top_reason(failures.get(versus, {}).get(task)),
                f"{method} failure": top_reason(failures.get(method, {}).get(task)),
            }
        )
    return sorted(rows, key=lambda r: (r["change"] != "solved", r["task"]))


def never_solved(
    per_task: Mapping[str, Mapping[str, Mapping[str, float]]],
    failures: Mapping[str, Mapping[str, Mapping[str, int]]],
) -> dict[str, Any]:
    """Tasks no method ever solved in any run, and the failure reasons behind them (pooled)."""
    methods = [m for m in per_task if per_task[m].get("ts")]
    if not methods:
        return {"tasks": [], "reasons": {}}
    common = set.intersection(*(set(per_task[m]["ts"]) for m in methods))
    stuck = sorted(t for t in common if all(per_task[m]["ts"][t] == 0 for m in methods))
    reasons: dict[str, int] = {}
    for m in methods:
        for t in stuck:
            for why, n in failures.get(m, {}).get(t, {}).items():
                reasons[why] = reasons.get(why, 0) + n
    return {"tasks": stuck, "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:8])}


def failure_reasons(
    points: Mapping[str, Sequence[Point]], failures: Mapping[str, Mapping[str, Mapping[str, int]]]
) -> dict[str, dict[str, Any]]:
    """Method -> its evaluation episodes and how many of them failed for each reason, over all test tasks.

    The flips say which tasks moved; this says which failures moved. A method can trade one failure
    for another at a similar TS: DocsChisel 21 on the 0.5B text agent fixed arguments (fewer
    "invalid parameter name") while routing got worse (more "API Name Mismatch").
    """
    out: dict[str, dict[str, Any]] = {}
    for method, pts in points.items():
        counts: dict[str, int] = {}
        for by_reason in failures.get(method, {}).values():
            for why, n in by_reason.items():
                counts[why] = counts.get(why, 0) + n
        out[method] = {
            "episodes": sum(p.n for p in pts),
            "reasons": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        }
    return out


def guard_summary(
    points: Mapping[str, Sequence[Point]],
    failures: Mapping[str, Mapping[str, Mapping[str, int]]],
    task_ids: Sequence[str],
    versus: str = "og",
) -> dict[str, Any]:
    """The regression guard's result: each method's TS on the guard tasks, paired with the original docs.

    Stored apart from the main rows because these tasks are not what the
    methods were asked to improve: the question here is only whether a
    method's docs lose tasks the original docs pass (`lost`), with the
    paired interval saying how sure that is.
    """
    outcomes = per_task_outcomes(points)
    base = outcomes.get(versus, {}).get("ts", {})
    rows = []
    for method, pts in points.items():
        if not pts:
            continue
        row: dict[str, Any] = {
            "method": method,
            "ts": float(statistics.fmean(p.ts for p in pts)),
            "tc": float(statistics.fmean(p.tc for p in pts)),
            "n_episodes": sum(p.n for p in pts),
        }
        if method != versus and base:
            paired = paired_tasks(outcomes[method]["ts"], base)
            flips = flip_rows(outcomes, failures, method, versus)
            row.update(
                delta=paired["paired_delta"],
                low=paired["paired_low"],
                high=paired["paired_high"],
                lost=[r["task"] for r in flips if r["change"] == "lost"],
                solved=[r["task"] for r in flips if r["change"] == "solved"],
                lost_why={r["task"]: r[f"{method} failure"] for r in flips if r["change"] == "lost"},
            )
        rows.append(row)
    return {"task_ids": list(task_ids), "methods": rows}
