"""Stored comparisons as tables: for `docschisel compare show` and the docs/RESULTS.md section.

Everything here reads the snapshot of a comparison's latest finished row
(`comparisons.result_id`), so the CLI, the results document and any later
re-rendering show the same numbers as the run that computed them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core.study.compare_rows import BASELINES
from core.study.gold_overlap import overlap_frame, shared_gold_tasks
from core.study.stats import relative_improvement
from core.tables import markdown_table as table


@dataclass
class StoredComparison:
    compare_id: str
    result_id: str
    benchmark: str
    spec: dict[str, Any]
    task_ids: list[str]
    created_at: Any
    detail: dict[str, Any] = field(default_factory=dict)
    methods: pd.DataFrame = field(default_factory=pd.DataFrame)
    tests: pd.DataFrame = field(default_factory=pd.DataFrame)
    curves: pd.DataFrame = field(default_factory=pd.DataFrame)
    dc_algorithm: str | None = None  # the DocsChisel algorithm revision behind its doc sets
    shared_gold: list[str] | None = None  # test tasks whose gold call an opt/val task shares (None: unknown)


METHOD_ORDER = {"og": 0, "et": 1, "drt": 2, "dc": 3, "gepa": 4}
VERSUS_ORDER = {"og": 0, "et": 1, "drt": 2, "gepa": 3, "baselines": 4}
METRIC_ORDER = {"ts": 0, "tc": 1}


def _ordered(frame: pd.DataFrame, **orders: dict[str, int]) -> pd.DataFrame:
    """Rows in the paper's order (OG, ET, DRT, DC, GEPA, then DocsChisel variants; TS before TC)."""
    if frame.empty:
        return frame
    keys = list(orders)
    ranked = frame.assign(**{f"_{k}": frame[k].map(o).fillna(len(o)) for k, o in orders.items()})
    return (
        ranked.sort_values([f"_{k}" for k in keys] + keys, kind="stable")
        .drop(columns=[f"_{k}" for k in keys])
        .reset_index(drop=True)
    )


def stored_comparisons(warehouse, compare_id: str | None = None) -> list[StoredComparison]:
    """The latest finished snapshot of each comparison (or of one) per DocsChisel revision, newest first.

    A comparison's id is its settings, so a command re-run after the DocsChisel algorithm changed
    stores a snapshot under the same id; it measures another method, and the earlier revision's
    snapshot stays a result of its own (the settings table pairs the two).
    """
    heads = warehouse.query(
        """SELECT * FROM comparisons WHERE status = 'finished' AND (? IS NULL OR compare_id = ?)
           ORDER BY created_at DESC""",
        [compare_id, compare_id],
    )
    out: list[StoredComparison] = []
    seen: set[tuple[str, str | None]] = set()
    for h in heads.itertuples(index=False):
        frames = {
            name: warehouse.query(f"SELECT * FROM comparison_{name} WHERE result_id = ?", [h.result_id])
            for name in ("methods", "tests", "curves")
        }
        frames["methods"] = _ordered(frames["methods"], method=METHOD_ORDER)
        frames["tests"] = _ordered(frames["tests"], metric=METRIC_ORDER, versus=VERSUS_ORDER)
        frames["curves"] = frames["curves"].sort_values(["series", "opt_run", "budget"], ignore_index=True)
        out.append(
            StoredComparison(
                h.compare_id,
                h.result_id,
                h.benchmark,
                json.loads(h.spec),
                list(h.task_ids),
                h.created_at,
                json.loads(h.detail) if h.detail else {},
                **frames,
                dc_algorithm=_dc_algorithm(
                    warehouse, frames["methods"], json.loads(h.detail) if h.detail else {}
                ),
                shared_gold=shared_gold_tasks(warehouse, h.split_id, list(h.task_ids)),
            )
        )
        if (h.compare_id, out[-1].dc_algorithm) in seen:
            out.pop()  # an older snapshot of the same comparison and revision
        else:
            seen.add((h.compare_id, out[-1].dc_algorithm))
    return out


def _dc_algorithm(warehouse, methods: pd.DataFrame, detail: dict[str, Any]) -> str | None:
    """The algorithm revision of the optimization runs behind DocsChisel's doc sets (None: no DC method).

    Why: a comparison re-run after the method changed measures a different
    method, not the same one with more runs; results keep the two apart. The
    runs are the comparison's recorded producers; a doc set's own record names
    only the run that first wrote it (a later revision may reproduce it).
    """
    runs = {r for m, ids in (detail.get("producers") or {}).items() if m.startswith("dc") for r in ids}
    if not runs:
        for row in methods.itertuples(index=False):
            if not str(row.method).startswith("dc") or not row.points:
                continue
            points = json.loads(row.points) if isinstance(row.points, str) else row.points
            docsets = sorted({p["docset_id"] for p in points if p.get("docset_id")})
            found = warehouse.query(
                "SELECT DISTINCT meta->>'run_id' AS run_id FROM doc_sets WHERE list_contains(?, docset_id)",
                [docsets],
            )
            runs |= {str(r) for r in found["run_id"] if r}
    if not runs:
        return None
    found = warehouse.query(
        """SELECT DISTINCT config->>'algorithm' AS algorithm FROM runs
           WHERE list_contains(?, run_id) AND config->>'algorithm' IS NOT NULL""",
        [sorted(runs)],
    )
    return ",".join(sorted(str(a) for a in found["algorithm"])) or None


def _pct(v: Any) -> float:
    return float("nan") if v is None or (isinstance(v, float) and math.isnan(v)) else 100.0 * float(v)


def p_text(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{float(v):.4f}"


def runtime_label(runtime: str | None) -> str:
    """A local runtime identity (cache salt) in short: llama.cpp build and grammar revision."""
    if not runtime:
        return ""
    parts = runtime.split("|")
    build = next((p.split("==", 1)[1] for p in parts if p.startswith("llama-cpp-python==")), "")
    return f"llama.cpp {build}, grammar {_grammar(parts)}".strip(", ")


def _grammar(parts: list[str]) -> str:
    """The grammar revision among a runtime identity's parts (`g10`), "" when there is none."""
    return next((p for p in parts if len(p) <= 4 and p.startswith("g") and p[1:].isdigit()), "")


# what a grammar revision before `fixed` could not let a text-mode agent write, said beside the comparisons
# measured under it, since their headings name only the revision
GRAMMAR_LIMITS: tuple[tuple[int, str], ...] = (
    (
        10,
        "a list of records inside an argument (a list there held scalars only), so a call such as "
        'RecordHealthData\'s `health_data=[{"name": …, "value": …}]` succeeded only when the agent passed '
        "the whole list as one string",
    ),
)


def grammar_revision(runtime: str | None) -> int | None:
    """The grammar revision number of a local runtime identity (`g10` -> 10), None for hosted models."""
    grammar = _grammar(runtime.split("|")) if runtime else ""
    return int(grammar[1:]) if grammar else None


def grammar_notes(comparisons: list[StoredComparison]) -> list[str]:
    """One sentence per known limit of an older grammar that a shown text-mode comparison ran under."""
    shown = {
        grammar_revision((c.detail or {}).get("runtime"))
        for c in comparisons
        if (c.spec.get("agent") or {}).get("doc_mode") == "text"
    }
    return [
        f"Under grammar g{fixed - 1} and earlier a text-mode agent could not write {limit}; g{fixed} lifts "
        "that, and a comparison under it is a new comparison."
        for fixed, limit in GRAMMAR_LIMITS
        if any(g is not None and g < fixed for g in shown)
    ]


def split_grouping(c: StoredComparison) -> str:
    """The comparison's split: `gold` (grouped by gold call) or `task` (specs stored before grouping existed)."""
    return str(c.spec.get("split_grouping") or "task")


def misuse_tasks(c: StoredComparison) -> int:
    """DocsChisel's misuse tasks per tool (`--misuse-tasks`; 0 for specs stored before the setting)."""
    return int(c.spec.get("misuse_tasks") or 0)


def misused_tools(c: StoredComparison) -> int:
    """DocsChisel's misuse threshold for optimizing a tool outside the compared ones (`--misused-tools`; 0: off)."""
    return int(c.spec.get("misused_tools") or 0)


def cross_val_tasks(c: StoredComparison) -> int:
    """DocsChisel's cross-tool validation tasks per tool (`--cross-val-tasks`; 0 before the setting)."""
    return int(c.spec.get("cross_val_tasks") or 0)


def og_runs(c: StoredComparison) -> int:
    """Evaluation runs of the original docs (`--og-eval-runs`, or `eval_runs` where unset)."""
    return int(c.spec.get("og_eval_runs") or 0) or int(c.spec.get("eval_runs") or 1)


def in_context(c: StoredComparison) -> bool:
    """Whether DocsChisel judged each tool beside the docs selected before it (`--in-context`)."""
    return bool(c.spec.get("in_context"))


# `CompareSpec.profile_repeats`' default (read here without importing the spec's model stack; a test holds them equal)
DEFAULT_SAMPLES = 3


def samples(c: StoredComparison) -> int:
    """Samples per task DocsChisel profiled tools and judged candidates on (`--profile-repeats`)."""
    return int(c.spec.get("profile_repeats") or DEFAULT_SAMPLES)


def title(c: StoredComparison) -> str:
    s, a = c.spec, c.spec.get("agent") or {}
    runtime = runtime_label((c.detail or {}).get("runtime"))
    return (
        f"{c.benchmark} · {','.join(s.get('domains') or []) or 'all domains'} · {a.get('model')}"
        f"{f' ({runtime})' if runtime else ''} · "
        f"{a.get('paradigm')}/{a.get('doc_mode')} · {len(c.task_ids)} test tasks · "
        f"{'split grouped by gold call' if split_grouping(c) == 'gold' else 'task-level split'} · "
        f"{f'DocsChisel {c.dc_algorithm} · ' if c.dc_algorithm else ''}"
        f"{f'{misuse_tasks(c)} misuse tasks per tool · ' if misuse_tasks(c) else ''}"
        f"{f'tools misused on {misused_tools(c)}+ episodes optimized too · ' if misused_tools(c) else ''}"
        f"{f'{cross_val_tasks(c)} cross-tool validation tasks per tool · ' if cross_val_tasks(c) else ''}"
        f"{'tools judged in context · ' if in_context(c) else ''}"
        f"{samples(c)} samples per candidate · "
        f"{s.get('opt_runs')} optimization × {s.get('eval_runs')} evaluation runs"
        f"{f' (OG {og_runs(c)})' if og_runs(c) != int(s.get('eval_runs') or 1) else ''} at T={s.get('temperature')} "
        f"(comparison `{c.compare_id}`)"
    )


def _project(frame: pd.DataFrame, columns: list[tuple[str, str, Any]]) -> pd.DataFrame:
    """A display frame: (title, stored column, formatter or None) per column."""
    return pd.DataFrame({title: frame[col].map(fmt) if fmt else frame[col] for title, col, fmt in columns})


SUMMARY = [
    ("method", "label", None),
    ("points", "n_points", None),
    ("doc sets", "n_docsets", None),
    *(
        (f"{m.upper()} {stat} {unit}", f"{m}_{key}", _pct)
        for m in ("ts", "tc")
        for stat, key, unit in (("mean", "mean", "%"), ("median", "median", "%"), ("IQR", "iqr", "pp"))
    ),
]
EFFICIENCY = [
    ("method", "label", None),
    ("doc tokens", "doc_tokens", None),
    ("tools optimized", "tools_optimized", None),
    ("optimizer tokens / tool", "opt_tokens_per_tool", None),
    ("agent tokens / tool", "agent_tokens_per_tool", None),
    ("min / tool", "minutes_per_tool", None),
]
SIGNIFICANCE = [
    ("DC mean %", "method_mean", _pct),
    ("other mean %", "versus_mean", _pct),
    ("relative %", "relative_pct", None),
    ("U", "u", None),
    ("p", "p", p_text),
    ("p (Holm)", "p_holm", p_text),
]


def pp_ci(row: pd.Series) -> str:
    """The paired per-task difference in percentage points with its bootstrap interval."""
    d = row.get("paired_delta")
    if d is None or (isinstance(d, float) and math.isnan(d)):
        return ""
    return f"{100 * d:+.1f} [{100 * row['paired_low']:+.1f}, {100 * row['paired_high']:+.1f}]"


def summary_frame(c: StoredComparison) -> pd.DataFrame:
    """TS / TC per method over its (optimization run × evaluation run) points, in percent."""
    return _project(c.methods, SUMMARY)


def significance_frame(c: StoredComparison) -> pd.DataFrame:
    """DC against each method: relative improvement of the means, Mann–Whitney U, p, Holm p.

    With per-task outcomes stored, also the paired evidence (primary): the
    per-task difference with its bootstrap interval, the exact McNemar p and
    the minimum detectable effect of that many paired tasks.
    """
    t = c.tests
    if t.empty:
        return t
    if "versus" in t.columns and not set(BASELINES) <= set(c.methods.get("method", [])):
        t = t[t["versus"] != "baselines"]  # stored by earlier versions even with one baseline
    names = dict(zip(c.methods["method"], c.methods["label"], strict=True))
    names["baselines"] = "mean of ET and DRT"
    head = pd.DataFrame(
        {
            "metric": t["metric"].str.upper(),
            "comparison": [
                f"{names.get(a, a)} vs {names.get(b, b)}"
                for a, b in zip(t["method"], t["versus"], strict=True)
            ],
        }
    )
    frames = [head, _project(t, SIGNIFICANCE), t["test"].fillna("").rename("test")]
    if "paired_delta" in t.columns and t["paired_delta"].notna().any():
        frames.append(
            pd.DataFrame(
                {
                    "paired Δ pp [95% CI]": t.apply(pp_ci, axis=1),
                    "tasks": t["paired_n"].map(lambda v: "" if pd.isna(v) else int(v)),
                    "McNemar p": t["mcnemar_p"].map(p_text),
                    "MDE pp": t["mde"].map(lambda v: "" if pd.isna(v) else f"{100 * v:.1f}"),
                }
            )
        )
    return pd.concat(frames, axis=1)


def efficiency_frame(c: StoredComparison) -> pd.DataFrame:
    """Doc length and optimization cost per tool (the paper's Table III columns)."""
    return _project(c.methods, EFFICIENCY)


def optimizer_frame(c: StoredComparison) -> pd.DataFrame:
    """DocsChisel per optimizer model (Table IV); empty unless several models were compared."""
    m = c.methods[c.methods["method"].str.startswith("dc")]
    if len(m) < 2:
        return pd.DataFrame()
    og = c.methods[c.methods["method"] == "og"]
    base = float(og["ts_mean"].iloc[0]) if not og.empty else float("nan")
    return pd.DataFrame(
        {
            "optimizer model": m["optimizer_model"].fillna("default"),
            "TS mean %": m["ts_mean"].map(_pct),
            "TC mean %": m["tc_mean"].map(_pct),
            "TS vs OG %": [relative_improvement(float(v), base) for v in m["ts_mean"]],
            "min / tool": m["minutes_per_tool"],
            "optimizer tokens / tool": m["opt_tokens_per_tool"],
        }
    )


def curve_frame(c: StoredComparison) -> pd.DataFrame:
    """Test TS / TC of the doc set selected within each iteration budget, mean over optimization runs."""
    cur = c.curves
    if cur.empty:
        return cur
    mean = cur.groupby(["series", "budget"], as_index=False)[["ts", "tc"]].mean()
    out = pd.DataFrame({"budget k": sorted(mean["budget"].unique())})
    for series in ("memory", "no-memory"):
        part = mean[mean["series"] == series].set_index("budget")
        if part.empty:
            continue
        out[f"TS {series} %"] = out["budget k"].map(part["ts"]).map(_pct)
        out[f"TC {series} %"] = out["budget k"].map(part["tc"]).map(_pct)
    if "TS no-memory %" in out and "TS memory %" in out:
        out["TS no-memory vs memory %"] = [
            relative_improvement(n, m) for n, m in zip(out["TS no-memory %"], out["TS memory %"], strict=True)
        ]
    return out


def captioned(intro: str, frame: pd.DataFrame, floatfmt: str) -> str | None:
    """`intro` over `frame` as a markdown table, or None when there is nothing to show."""
    return None if frame.empty else f"{intro}\n\n{table(frame, floatfmt=floatfmt)}"


def markdown(c: StoredComparison) -> str:
    parts = [
        f"**{title(c)}**",
        "TS and TC per method over its evaluation points:\n\n" + table(summary_frame(c)),
    ]
    sig = captioned(
        "DocsChisel against each method: relative improvement of the means (the paper's %), two-sided "
        "Mann–Whitney U of the point distributions, p-values Holm-corrected within each metric:",
        significance_frame(c),
        ".2f",
    )
    if sig:
        parts.append(sig)
    guard = guard_part(c)
    if guard:
        parts.append(guard)
    parts.append("Efficiency per tool (Table III columns):\n\n" + table(efficiency_frame(c)))
    opt = optimizer_frame(c)
    if not opt.empty:
        parts.append("DocsChisel per optimizer model (Table IV):\n\n" + table(opt))
    cur = curve_frame(c)
    if not cur.empty:
        parts.append(
            "Iteration budget (Fig. 9) and memory ablation (Fig. 10): held-out test results of the doc set "
            "DocsChisel selects within k iterations, mean over optimization runs:\n\n" + table(cur)
        )
    overlap = overlap_part(c)
    if overlap:
        parts.append(overlap)
    parts += why_parts(c)
    return "\n\n".join(parts)


def overlap_part(c: StoredComparison) -> str | None:
    """Each method's TS on the test tasks that repeat an optimization/validation task's gold call, and apart."""
    per_task = (c.detail or {}).get("per_task") or {}
    if not c.shared_gold or not per_task:
        return None
    labels = dict(zip(c.methods.get("method", []), c.methods.get("label", []), strict=False))
    return (
        f"{len(c.shared_gold)} of {len(c.task_ids)} test tasks ask for a call that is also the gold call of an "
        "optimization or validation task (the benchmark repeats a request across dialogues). A method whose docs "
        "carry the values of the tasks it optimized on gains there without documenting the tool better, so "
        "each method's TS is shown on those tasks and on the others apart:\n\n"
        + table(overlap_frame(per_task, c.shared_gold, c.task_ids, labels), floatfmt=".1f")
    )


def guard_frame(c: StoredComparison) -> pd.DataFrame:
    """The regression guard per method: TS on the guard tasks and, against OG, the paired Δ and lost tasks."""
    guard = (c.detail or {}).get("guard") or {}
    rows = guard.get("methods") or []
    if not rows:
        return pd.DataFrame()
    labels = dict(zip(c.methods.get("method", []), c.methods.get("label", []), strict=False))
    out = []
    for r in sorted(rows, key=lambda r: (METHOD_ORDER.get(r["method"], len(METHOD_ORDER)), r["method"])):
        lost = r.get("lost")
        out.append(
            {
                "method": labels.get(r["method"], r["method"]),
                "TS %": _pct(r.get("ts")),
                "Δ TS vs OG (pp, 95% CI)": pp_ci(
                    pd.Series(
                        {
                            "paired_delta": r.get("delta"),
                            "paired_low": r.get("low"),
                            "paired_high": r.get("high"),
                        }
                    )
                )
                if "delta" in r
                else "",
                "tasks lost": ", ".join(f"{t} ({(r.get('lost_why') or {}).get(t, '')})" for t in lost)
                if lost
                else ("none" if lost is not None else ""),
                "episodes": r.get("n_episodes"),
            }
        )
    return pd.DataFrame(out)


def guard_part(c: StoredComparison) -> str | None:
    frame = guard_frame(c)
    if frame.empty:
        return None
    n = len(((c.detail or {}).get("guard") or {}).get("task_ids") or [])
    return (
        f"Regression guard: {n} test tasks of the same domains that use none of the compared tools (requests "
        "whose right outcome is to call nothing among them). Every method's docs are in the prompt there too; "
        "a method should not lose them. Reported apart, not in the TS above:\n\n" + table(frame)
    )


def flips_frame(c: StoredComparison, method: str) -> pd.DataFrame:
    """The tasks whose majority outcome differs between a DocsChisel variant and the original docs."""
    return pd.DataFrame((c.detail or {}).get("flips", {}).get(method, []))


def failure_frame(c: StoredComparison, top: int = 8) -> pd.DataFrame:
    """The most frequent failure reasons, each as a share of every method's evaluation episodes (%)."""
    stored = (c.detail or {}).get("failure_reasons") or {}
    labels = dict(zip(c.methods.get("method", []), c.methods.get("label", []), strict=False))
    methods = sorted(stored, key=lambda m: (METHOD_ORDER.get(m, len(METHOD_ORDER)), m))
    share = {
        m: {why: 100.0 * n / stored[m]["episodes"] for why, n in stored[m]["reasons"].items()}
        for m in methods
        if stored[m].get("episodes")
    }
    reasons = sorted(
        {why for s in share.values() for why in s},
        key=lambda w: (-max(s.get(w, 0.0) for s in share.values()), w),  # ties by name: a stable document
    )
    rows = [
        {"failure reason": why, **{labels.get(m, m): share[m].get(why, 0.0) for m in share}}
        for why in reasons[:top]
    ]
    return pd.DataFrame(rows)


def why_parts(c: StoredComparison) -> list[str]:
    """Where the numbers come from: the tasks that flipped, and the tasks no method ever solved."""
    detail = c.detail or {}
    labels = dict(zip(c.methods.get("method", []), c.methods.get("label", []), strict=False))
    parts = []
    for method, rows in (detail.get("flips") or {}).items():
        name = labels.get(method, method)
        if not rows:
            parts.append(f"No test task changed its majority outcome between {name} and the original docs.")
            continue
        solved = sum(r["change"] == "solved" for r in rows)
        parts.append(
            f"Test tasks whose majority outcome differs between {name} and the original docs ({solved} solved, "
            f"{len(rows) - solved} lost; per-task success over the runs, and each side's most frequent failure "
            "reason):\n\n" + table(pd.DataFrame(rows), floatfmt=".2f")
        )
    traded = captioned(
        "Failure reasons per method, as a share of its evaluation episodes (%; the benchmark's reason for "
        "each failed episode, the most frequent first): which failures a method's docs traded for which.",
        failure_frame(c),
        ".1f",
    )
    if traded:
        parts.append(traded)
    stuck = detail.get("never_solved") or {}
    if stuck.get("tasks"):
        reasons = "; ".join(f"{why} ({n}×)" for why, n in stuck.get("reasons", {}).items())
        parts.append(
            f"{len(stuck['tasks'])} of {len(c.task_ids)} test tasks were never solved by any method in any run; "
            f"their failures: {reasons}."
        )
    return parts


def text(c: StoredComparison) -> str:
    """The CLI's plain-text rendering of the same tables."""
    blocks = [title(c).replace("`", ""), summary_frame(c).round(1).to_string(index=False)]
    sig = significance_frame(c)
    if not sig.empty:
        blocks.append(sig.round(2).to_string(index=False))
    guard = guard_frame(c)
    if not guard.empty:
        blocks.append("regression guard (tasks outside the compared tools):\n" + guard.to_string(index=False))
    blocks.append(efficiency_frame(c).round(2).to_string(index=False))
    for extra in (optimizer_frame(c), curve_frame(c)):
        if not extra.empty:
            blocks.append(extra.round(1).to_string(index=False))
    blocks += why_parts(c)  # the tasks behind the numbers: what an analyst opens next
    return "\n\n".join(blocks)
