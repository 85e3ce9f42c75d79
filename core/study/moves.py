"""Where a field study's ΔTS comes from: the tasks each variant moved, the tasks nothing moves, and
the smallest effect the study could have detected.

A row "−FD +8.3 pp [0, +25]" alone does not say whether one task flipped in
every repeat or noise spread over many, nor what the agent did wrong on either
side. This module reads the episodes behind a study's rows (its paired runs, by
id, from `detail.runs` / `detail.base_runs`) and answers three questions a
reader asks before trusting a number:

- which tasks moved under a variant (their success over the paired repeats
  differs by at least `MOVED`), and each side's most frequent failure reason
  (`core.warehouse.reads.task_failures`: the scorer's reason, else the
  episode's error class);
- which tasks no variant moves: solved in every episode of every doc set, or
  never solved (the cell has no headroom there), with the failures behind them;
- the minimum detectable effect: with n tasks and the per-task differences'
  spread, how large a true ΔTS a two-sided 5 % test detects with 80 % power.
  Effects smaller than that read as noise, which is why a flat row is not
  evidence of no effect.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from core.fields import CODES
from core.study.compare_rows import top_reason
from core.study.stats import minimum_detectable_effect
from core.warehouse import reads

# a task moved when its mean paired difference in success (over the repeats) is at least this large
MOVED = 0.5
# the columns of a moved-task row a reader sees (the doc set ids are for links to the traces)
SHOWN = ("field", "task", "original", "variant", "Δ", "original failure", "variant failure")


@dataclass
class Explanation:
    """What lies behind one study's table."""

    study_id: str
    n_tasks: int
    moved: pd.DataFrame  # SHOWN, then the original's and the variant's doc set ids
    always: list[str] = field(default_factory=list)  # solved in every episode of every doc set
    never: list[str] = field(default_factory=list)  # never solved by any doc set
    never_reasons: dict[str, int] = field(default_factory=dict)
    mde_pp: float = math.nan  # from the per-task differences' pooled SD
    worst_mde_pp: float = math.nan  # every pair discordant (SD 1): the bound before any data
    pooled_sd: float = math.nan
    variants: int = 0
    # task -> (direction +1/-1, variants that moved it that way, variants measured): a task most
    # variants move the same way points at the original docs' own draw on it, not at the fields
    shared: dict[str, tuple[int, int, int]] = field(default_factory=dict)


def _detail(raw: object) -> dict:
    try:
        d = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return d if isinstance(d, dict) else {}


def run_successes(store, run_ids: Sequence[str]) -> tuple[dict[str, dict[str, float]], dict[str, str]]:
    """(run id -> task id -> success (mean over the run's episodes of the task), run id -> its doc set)."""
    if not run_ids:
        return {}, {}
    df = store.query(
        """SELECT re.run_id, e.task_id, avg(e.success::INT) AS s, any_value(e.docset_id) AS docset_id
           FROM run_episodes re JOIN episodes e USING (episode_id)
           WHERE re.run_id IN (SELECT unnest(?::VARCHAR[])) GROUP BY ALL""",
        [list(run_ids)],
    )
    out: dict[str, dict[str, float]] = {}
    docsets: dict[str, str] = {}
    for r in df.itertuples(index=False):
        out.setdefault(str(r.run_id), {})[str(r.task_id)] = float(r.s)
        docsets[str(r.run_id)] = str(r.docset_id)
    return out, docsets


def task_differences(
    variant: Sequence[Mapping[str, float]], base: Sequence[Mapping[str, float]]
) -> dict[str, float]:
    """Task -> mean over paired repeats of (variant − original) success (repeats paired by index)."""
    diffs: dict[str, list[float]] = {}
    for v, b in zip(variant, base, strict=False):
        for task in set(v) & set(b):
            diffs.setdefault(task, []).append(v[task] - b[task])
    return {t: sum(d) / len(d) for t, d in diffs.items()}


def _rate(scores: Sequence[Mapping[str, float]], task: str) -> str:
    vals = [s[task] for s in scores if task in s]
    return f"{round(sum(vals))}/{len(vals)}" if vals else "–"


def explain(store, rows: pd.DataFrame, moved_at: float = MOVED) -> Explanation:
    """The explanation of one study's current rows (`core.warehouse.reads.current_field_impacts`)."""
    rows = rows[rows["operation"].isin(["add", "remove"]) & (rows["repeats"] > 0)]
    study_id = str(rows["study_id"].iloc[0]) if not rows.empty else ""
    pairs: dict[str, tuple[str, list[str], list[str]]] = {}  # field -> (label, variant runs, base runs)
    n_tasks = 0
    for r in rows.itertuples(index=False):
        d = _detail(r.detail)
        k = int(r.repeats)
        runs, base = list(d.get("runs") or [])[:k], list(d.get("base_runs") or [])[:k]
        if runs and base:
            pairs[r.field] = (f"−{r.field}" if r.operation == "remove" else f"+{r.field}", runs, base)
        n_tasks = max(n_tasks, int(d.get("n_tasks") or 0))
    every = sorted({x for _, runs, base in pairs.values() for x in (*runs, *base)})
    scores, docsets = run_successes(store, every)
    order = {c: i for i, c in enumerate(CODES)}
    moved, variances = [], []
    ways: dict[tuple[str, int], int] = {}
    for code in sorted(pairs, key=lambda c: order.get(c, 99)):
        label, runs, base = pairs[code]
        v = [scores.get(x, {}) for x in runs]
        b = [scores.get(x, {}) for x in base]
        diffs = task_differences(v, b)
        if len(diffs) > 1:
            variances.append(float(np.var(list(diffs.values()), ddof=1)))
        shifted = {t: d for t, d in diffs.items() if abs(d) >= moved_at - 1e-9}
        for t, d in shifted.items():
            ways[(t, 1 if d > 0 else -1)] = ways.get((t, 1 if d > 0 else -1), 0) + 1
        if not shifted:
            continue
        fail_v, fail_b = reads.task_failures(store, runs), reads.task_failures(store, base)
        for task in sorted(shifted, key=lambda t: (-shifted[t], t)):
            moved.append(
                {
                    "field": label,
                    "task": task,
                    "original": _rate(b, task),
                    "variant": _rate(v, task),
                    "Δ": round(shifted[task], 2),
                    "original failure": top_reason(fail_b.get(task)),
                    "variant failure": top_reason(fail_v.get(task)),
                    "original docset": docsets.get(base[0], ""),
                    "variant docset": docsets.get(runs[0], ""),
                }
            )
    per_task: dict[str, list[float]] = {}
    for s in scores.values():
        for task, x in s.items():
            per_task.setdefault(task, []).append(x)
    always = sorted(t for t, xs in per_task.items() if min(xs) == 1.0)
    never = sorted(t for t, xs in per_task.items() if max(xs) == 0.0)
    never_reasons: dict[str, int] = {}
    if never:
        for task, reasons in reads.task_failures(store, every).items():
            if task in never:
                for why, n in reasons.items():
                    never_reasons[why] = never_reasons.get(why, 0) + n
    # no variation at all (every task's difference 0, or all alike) bounds nothing: worst case only
    sd = math.sqrt(sum(variances) / len(variances)) if variances and any(variances) else math.nan
    n = n_tasks or len(per_task)
    shared = {
        t: (way, k, len(pairs))
        for (t, way), k in sorted(ways.items())
        if len(pairs) >= 4 and 2 * k >= len(pairs)
    }
    return Explanation(
        shared=shared,
        study_id=study_id,
        n_tasks=n,
        moved=pd.DataFrame(moved),
        always=always,
        never=never,
        never_reasons=dict(sorted(never_reasons.items(), key=lambda kv: (-kv[1], kv[0]))[:6]),
        mde_pp=100 * minimum_detectable_effect(n=n, sd=sd) if n and not math.isnan(sd) else math.nan,
        worst_mde_pp=100 * minimum_detectable_effect(n=n, sd=1.0) if n else math.nan,
        pooled_sd=sd,
        variants=len(variances),
    )


def detectable_text(e: Explanation) -> str:
    """One sentence: the smallest ΔTS this study could have shown."""
    if math.isnan(e.worst_mde_pp):
        return ""
    text = f"Minimum detectable effect (two-sided 5 %, 80 % power, {e.n_tasks} paired tasks): "
    if not math.isnan(e.mde_pp):
        text += (
            f"±{e.mde_pp:.1f} pp from the per-task differences' spread (SD {e.pooled_sd:.2f}, pooled over "
            f"{e.variants} variants); "
        )
    return (
        text + f"±{e.worst_mde_pp:.1f} pp if every pair were discordant. Smaller true effects read as noise."
    )


def pinned_text(e: Explanation) -> str:
    """One sentence: the tasks no variant moves (no headroom there), and why the unsolved ones fail."""
    stuck = []
    if e.always:
        stuck.append(f"{len(e.always)} solved in every episode of every doc set")
    if e.never:
        why = "; ".join(f"{w} ({n}×)" for w, n in e.never_reasons.items())
        stuck.append(f"{len(e.never)} never solved" + (f" (their failures: {why})" if why else ""))
    return f"Tasks no variant moves, of {e.n_tasks}: " + ", ".join(stuck) + "." if stuck else ""


def shared_text(e: Explanation) -> str:
    """One sentence on tasks that most variants move the same way: the baseline's draw, not the fields."""
    if not e.shared:
        return ""
    items = [
        f"{t} ({'up' if way > 0 else 'down'} under {k} of {n})" for t, (way, k, n) in sorted(e.shared.items())
    ]
    return (
        "Moved the same way under at least half of the variants: "
        + "; ".join(items)
        + ". Every variant is paired with the same original-docs runs, so a task those runs happened to "
        "solve (or fail) more often than usual moves under many variants at once: such rows more likely show "
        "the baseline's sampling noise, shared by all fields, than effects of the fields (measuring the "
        "original docs with more repeats would tell)."
    )


def markdown(e: Explanation, table, limit: int = 20) -> str:
    """The explanation as Markdown (`table` renders a frame: the results document's table helper)."""
    parts = [detectable_text(e), pinned_text(e), shared_text(e)]
    if e.moved.empty:
        parts.append("No task's success moved by half or more of its repeats under any variant.")
    else:
        largest = e.moved["Δ"].abs().sort_values(ascending=False, kind="stable").index[:limit]
        shown = e.moved.loc[sorted(largest)].reset_index(drop=True)  # taxonomy order, as measured
        more = len(e.moved) - len(shown)
        parts.append(
            "Tasks whose success moved by at least half of the paired repeats (successes / episodes under the "
            "original docs and the variant, and each side's most frequent failure reason"
            + (f"; the {limit} largest of {len(e.moved)} shown" if more > 0 else "")
            + "):\n\n"
            + table(shown[list(SHOWN)].assign(Δ=shown["Δ"].map(lambda d: f"{d:+.2f}")))
        )
    return "\n\n".join(p for p in parts if p)
