"""Significance marks for the comparison page: the paired per-task test where two methods ran the same
tasks, else Mann–Whitney U over evaluation runs with Holm's correction.

The study layer computes and stores the paper's statistics; this module only
recomputes what the Compare page shows next to its box plots from the same
episodes, so the marks always match what is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core.study.stats import mann_whitney_u


def holm(pvalues: Mapping[str, float]) -> dict[str, float]:
    """Holm–Bonferroni adjusted p-values (monotone, capped at 1)."""
    items = sorted(pvalues.items(), key=lambda kv: kv[1])
    m = len(items)
    out: dict[str, float] = {}
    running = 0.0
    for i, (key, p) in enumerate(items):
        running = max(running, min(1.0, (m - i) * p))
        out[key] = running
    return out


def stars(p: float | None) -> str:
    if p is None:
        return ""
    if p < 0.001:
        return "***"
    if p < 0.01:
        return "**"
    if p < 0.05:
        return "*"
    return "n.s."


def versus(reference: str, groups: Mapping[str, Sequence[float]]) -> dict[str, dict[str, float | None]]:
    """Two-sided Mann–Whitney U of `reference` against every other group, Holm-adjusted."""
    ref = list(groups.get(reference, ()))
    raw: dict[str, float] = {}
    out: dict[str, dict[str, float | None]] = {}
    for name, values in groups.items():
        if name == reference:
            continue
        vals = list(values)
        if len(ref) < 2 or len(vals) < 2:
            out[name] = {"u": None, "p": None, "p_holm": None}
            continue
        res = mann_whitney_u(ref, vals)  # scipy's two-sided default, without importing scipy.stats
        raw[name] = float(res.p)
        out[name] = {"u": float(res.u), "p": float(res.p), "p_holm": None}
    for name, p in holm(raw).items():
        out[name]["p_holm"] = p
    return out


# Fewer tasks than this in common and the paired interval says nothing: the page falls back to the runs.
MIN_PAIRED_TASKS = 3


def paired_versus(
    reference: str, tasks: Mapping[str, Mapping[str, float]]
) -> dict[str, dict[str, Any] | None]:
    """The paired per-task test of `reference` against every other method, on the tasks both ran.

    `tasks[method][task]` is the method's mean outcome on the task. Each result is
    `core.study.compare_rows.paired_tasks` (Δ with its 95 % bootstrap interval over
    tasks, McNemar) plus `mark`: `*` when the interval excludes 0, `n.s.` when it
    does not; None when fewer than MIN_PAIRED_TASKS tasks pair.
    """
    from core.study.compare_rows import paired_tasks

    ref = tasks.get(reference, {})
    out: dict[str, dict[str, Any] | None] = {}
    for name, other in tasks.items():
        if name == reference:
            continue
        r = paired_tasks(ref, other)
        if r["paired_n"] < MIN_PAIRED_TASKS or r["paired_low"] is None:
            out[name] = None
            continue
        excludes = r["paired_low"] > 0 or r["paired_high"] < 0
        out[name] = {**r, "mark": "*" if excludes else "n.s."}
    return out
