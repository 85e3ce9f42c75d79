"""EvoSOP's Table 1 as paired evidence: each method against the atomic agent on the same test tasks.

Why: Table 1 reports means over seeds, and with three seeds a 2-point
difference in test TS is invisible among the seed noise — or looks real. Every
finished evolve run evaluates the atomic tools and its selected toolset on the
same held-out test tasks with the same seed, so each (task, seed) is a pair:
the per-task mean difference gets a paired bootstrap interval over tasks, the
pairs an exact McNemar test, and the minimum detectable effect says what the
comparison could have shown at all. Reasoning rounds (model calls per
episode) are paired the same way, as the paper's second metric.

It lives here rather than in `core.sop.report` because the statistics are the
study layer's (`core.study.stats`); the results section appends it to the
EvoSOP section.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from core.sop.report import runs
from core.study.stats import (
    mcnemar_exact,
    minimum_detectable_effect,
    paired_task_delta,
    per_task_differences,
)

GROUP = ["benchmark", "domains", "model", "train_cap", "test_cap", "n_epochs"]
ORDER = {"asi": 1, "no-merge": 2, "no-review": 3, "full": 4}


def _outcomes(wh: Any, run_id: str | None) -> tuple[dict[str, float], dict[str, float]]:
    """Per test task of one evaluation run: success (mean over its episodes) and model calls."""
    if not run_id:
        return {}, {}
    df = wh.query(
        """SELECT e.task_id, avg(e.success::INT) AS ts, avg(e.n_steps) AS rounds
           FROM run_episodes r JOIN episodes e USING (episode_id) WHERE r.run_id = ?
           GROUP BY e.task_id""",
        [run_id],
    )
    return dict(zip(df["task_id"], df["ts"], strict=True)), dict(
        zip(df["task_id"], df["rounds"], strict=True)
    )


def _fmt(mean: float, low: float, high: float, scale: float = 100.0, digits: int = 1) -> str:
    return f"{scale * mean:+.{digits}f} [{scale * low:+.{digits}f}, {scale * high:+.{digits}f}]"


def paired_frame(wh: Any) -> pd.DataFrame:
    """Per protocol group and method: paired ΔTS (pp) and Δrounds against the atomic agent, over tasks."""
    df = runs(wh)
    if df.empty:
        return pd.DataFrame()
    df = df[df["status"] == "finished"]
    tests = wh.query("SELECT run_id, test_run, base_test_run FROM sop_results")
    df = df.merge(tests, on="run_id", how="inner")
    df = df[df["test_run"].notna() & df["base_test_run"].notna()]
    rows = []
    for key, g in df.groupby(GROUP, dropna=False):
        bench, domains, model, train_cap, _test_cap, n_epochs = key
        for method, gm in g.groupby("method"):
            ts_v, ts_b, r_v, r_b = [], [], [], []
            for _, r in gm.sort_values("seed").iterrows():
                sv, rv = _outcomes(wh, r["test_run"])
                sb, rb = _outcomes(wh, r["base_test_run"])
                ts_v.append(sv)
                ts_b.append(sb)
                r_v.append(rv)
                r_b.append(rb)
            pairs = [(v[t], b[t]) for v, b in zip(ts_v, ts_b, strict=True) for t in v if t in b]
            if not pairs:
                continue
            ts = paired_task_delta(ts_v, ts_b)
            rounds = paired_task_delta(r_v, r_b)
            per_task = per_task_differences(ts_v, ts_b)
            mc = mcnemar_exact([v >= 0.5 for v, _ in pairs], [b >= 0.5 for _, b in pairs])
            rows.append(
                {
                    "benchmark": bench,
                    "domains": domains,
                    "model": model,
                    "protocol": f"{train_cap} training tasks, {n_epochs} epochs",
                    "method": method,
                    "seeds": int(gm["seed"].nunique()),
                    "paired tasks": ts.n,
                    "Δ test TS pp [95 % CI]": _fmt(ts.mean, ts.low, ts.high),
                    "McNemar (only method / only atomic), p": f"{mc.b} / {mc.c}, {mc.p:.2f}",
                    "MDE pp": _mde(per_task),
                    "Δ rounds per task [95 % CI]": _fmt(rounds.mean, rounds.low, rounds.high, 1.0, 2),
                }
            )
    if not rows:
        return pd.DataFrame()
    out = pd.DataFrame(rows)
    # Table 1's order: the paper's ablations from the least to the most machinery
    rank = out["method"].map(lambda m: ORDER.get(str(m).split(" ")[0], 9))
    out = out.assign(_rank=rank).sort_values(["benchmark", "domains", "model", "protocol", "_rank", "method"])
    return out.drop(columns="_rank").reset_index(drop=True)


def _mde(diffs: list[float]) -> str:
    """The minimum detectable effect in pp; "–" where every task's difference is 0 (no spread to scale)."""
    mde = minimum_detectable_effect(diffs)
    return "–" if not any(diffs) or mde != mde else f"{100 * mde:.1f}"


def paired_section(wh: Any) -> str | None:
    """The Markdown that follows Table 1 in docs/RESULTS.md (None: no finished run with a test)."""
    from core.tables import markdown_table

    frame = paired_frame(wh)
    if frame.empty:
        return None
    return "\n\n".join(
        [
            "Each method against ReAct with the atomic tools on the same held-out test tasks and seeds (pairs: "
            "task × seed): the per-task mean difference with a paired bootstrap interval over tasks, the exact "
            "McNemar test on the pairs, the minimum detectable effect of the per-task differences (α 0.05, "
            "power 0.8), and the change in reasoning rounds (model calls per episode).",
            markdown_table(frame),
        ]
    )
