"""Stored comparisons set against each other: which are current, pooled tasks, settings and peers.

Why apart from `compare_report`: that module renders one comparison; everything here pairs the
per-task outcomes of several stored comparisons (same test tasks, target agent and sampling), and
builds the results document's comparison section from both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from itertools import product
from typing import Any

import pandas as pd

from core.study.compare_report import (
    DEFAULT_SAMPLES,
    StoredComparison,
    cross_val_tasks,
    grammar_notes,
    in_context,
    markdown,
    misuse_tasks,
    misused_tools,
    og_runs,
    p_text,
    pp_ci,
    samples,
    split_grouping,
    stored_comparisons,
)
from core.study.compare_rows import paired_tasks
from core.study.stats import holm, relative_improvement
from core.tables import markdown_table as table


def _scope(c: StoredComparison) -> tuple:
    """What a comparison measures: benchmark, domains, tool cap and target agent (not its sizes)."""
    s, a = c.spec, c.spec.get("agent") or {}
    return (
        c.benchmark,
        (c.detail or {}).get("runtime"),
        tuple(s.get("domains") or ()),
        s.get("limit_tools"),
        a.get("model"),
        a.get("paradigm"),
        a.get("doc_mode"),
        c.dc_algorithm,
        split_grouping(c),  # another split measures other test tasks: it never supersedes
        misuse_tasks(c),  # DocsChisel judged on other tasks is another method
        misused_tools(c),
        cross_val_tasks(c),
        in_context(c),
        samples(c),
    )


def _covers(newer: StoredComparison, older: StoredComparison) -> bool:
    """Whether `newer` measures everything `older` did, at least as many times.

    Its methods and optimizer models include the older one's and it has at
    least as many optimization and evaluation runs; extra parts (the curve,
    the memory ablation, another method) only add to it.
    """
    a, b = newer.spec, older.spec
    return (
        set(b.get("methods") or ()) <= set(a.get("methods") or ())
        and set(b.get("optimizer_models") or ()) <= set(a.get("optimizer_models") or ())
        and int(a.get("opt_runs") or 1) >= int(b.get("opt_runs") or 1)
        and int(a.get("eval_runs") or 1) >= int(b.get("eval_runs") or 1)
        and og_runs(newer) >= og_runs(older)
    )


def current_comparisons(comparisons: list[StoredComparison]) -> tuple[list[StoredComparison], list[str]]:
    """The comparisons the results show, and the ids of the older ones they supersede.

    A comparison is superseded by a newer one of the same scope that covers it
    (`_covers`): re-running a scope with more evaluation runs, or adding GEPA
    or the memory ablation, stores a new comparison, and the results document
    shows the newest and names the others, which stay in the warehouse. A
    newer comparison that measures less (fewer methods, fewer runs) does not
    hide an older one that measured more: both are shown.
    """
    current: list[StoredComparison] = []
    older: list[str] = []
    for c in comparisons:  # newest first
        if any(_scope(n) == _scope(c) and _covers(n, c) for n in current):
            older.append(c.compare_id)
        else:
            current.append(c)
    return current, older


def _agent_key(c: StoredComparison) -> tuple:
    """The benchmark, target agent and sampling temperature a comparison measured with."""
    s, a = c.spec, c.spec.get("agent") or {}
    return (
        c.benchmark,
        (c.detail or {}).get("runtime"),
        a.get("model"),
        a.get("paradigm"),
        a.get("doc_mode"),
        s.get("temperature"),
    )


def _pool_key(c: StoredComparison) -> tuple:
    """Comparisons that can be pooled: same benchmark, target agent, temperature, DC variants and split."""
    s = c.spec
    return (
        *_agent_key(c),
        tuple(s.get("optimizer_models") or ()),
        s.get("engine"),
        split_grouping(c),
        *dc_settings(c).values(),
    )


def pooled_frame(comparisons: list[StoredComparison]) -> pd.DataFrame:
    """Paired per-task evidence over the tasks of several comparisons (e.g. one per domain).

    Each comparison stores its methods' per-task outcomes (mean over runs);
    test tasks of different domains are distinct, so their union is one
    larger paired sample, with the power a single domain does not have. Every
    DocsChisel variant is tested against every other method, and every method
    against the original docs.
    """
    rows = []
    groups: dict[tuple, list[StoredComparison]] = {}
    for c in comparisons:
        if (c.detail or {}).get("per_task"):
            groups.setdefault(_pool_key(c), []).append(c)
    for group in groups.values():
        members, seen = [], set()
        for c in group:  # newest first: an older comparison of the same tasks adds none of them
            if not seen & set(c.task_ids):
                members.append(c)
                seen |= set(c.task_ids)
        if len(members) < 2:
            continue
        labels: dict[str, str] = {}
        merged: dict[str, dict[str, dict[str, float]]] = {}
        for c in members:
            labels.update(dict(zip(c.methods["method"], c.methods["label"], strict=False)))
            for method, metrics in c.detail["per_task"].items():
                for metric, tasks in metrics.items():
                    merged.setdefault(method, {}).setdefault(metric, {}).update(tasks)
        pairs = [(m, o) for m in merged if m.startswith("dc") for o in merged if not o.startswith("dc")]
        pairs += [(m, "og") for m in merged if not m.startswith("dc") and m != "og" and "og" in merged]
        scope = " + ".join(",".join(c.spec.get("domains") or ["all"]) for c in members)
        # and again without the test tasks that repeat an optimization/validation task's gold call
        subsets: list[tuple[str, set[str]]] = [("all", set())]
        if all(c.shared_gold is not None for c in members) and any(c.shared_gold for c in members):
            subsets.append(("without repeated gold calls", {t for c in members for t in c.shared_gold or ()}))
        for (subset, drop), metric, (m, o) in product(subsets, ("ts", "tc"), pairs):
            a = {t: v for t, v in merged[m].get(metric, {}).items() if t not in drop}
            b = {t: v for t, v in merged[o].get(metric, {}).items() if t not in drop}
            ev = paired_tasks(a, b)
            if not ev["paired_n"]:
                continue
            common = sorted(set(a) & set(b))
            mean_a = sum(a[t] for t in common) / len(common)
            mean_b = sum(b[t] for t in common) / len(common)
            rows.append(
                {
                    "scope": scope,
                    "test tasks": subset,
                    "metric": metric.upper(),
                    "method": labels.get(m, m),
                    "versus": labels.get(o, o),
                    "tasks": ev["paired_n"],
                    "method %": 100 * mean_a,
                    "other %": 100 * mean_b,
                    "relative %": finite_pct(relative_improvement(mean_a, mean_b)),
                    "Δ pp [95% CI]": pp_ci(pd.Series(ev)),
                    "McNemar b/c": f"{ev['mcnemar_b']}/{ev['mcnemar_c']}",
                    "p (McNemar)": p_text(ev["mcnemar_p"]),
                    "MDE pp": None if ev["mde"] is None else 100 * ev["mde"],
                }
            )
    return pd.DataFrame(rows)


def dc_settings(c: StoredComparison) -> dict[str, Any]:
    """The DocsChisel settings that make one comparison's DC another method than another's DC."""
    return {
        "revision": c.dc_algorithm,
        "misuse tasks": misuse_tasks(c),
        "misused tools optimized (episodes)": misused_tools(c),
        "cross-tool validation tasks": cross_val_tasks(c),
        "in context": in_context(c),
        "samples per candidate": samples(c),
    }


def same_tasks_key(c: StoredComparison) -> tuple:
    """Comparisons whose DC can be paired by task: same test tasks, target agent and sampling."""
    return (*_agent_key(c), int(c.spec.get("eval_runs") or 1), split_grouping(c), tuple(sorted(c.task_ids)))


def opt_runs(c: StoredComparison) -> int:
    return int(c.spec.get("opt_runs") or 1)


def most_runs(pairs: Iterable[tuple[Any, StoredComparison]]) -> dict[Any, StoredComparison]:
    """Per key, the comparison with most optimization runs, then the newest.

    Why one rule: whichever table pairs comparisons across the warehouse (settings, peers, agents)
    must pick the same stored comparison for a key, or two tables would report different numbers
    for one pair. `pairs` come newest first.
    """
    chosen: dict[Any, StoredComparison] = {}
    for key, c in pairs:
        if key not in chosen or opt_runs(c) > opt_runs(chosen[key]):
            chosen[key] = c
    return chosen


# each DocsChisel setting's default (`CompareSpec`): only settings that differ from it are named
_SETTING_DEFAULTS: dict[str, Any] = {
    "misuse tasks": 0,
    "cross-tool validation tasks": 0,
    "in context": False,
    "samples per candidate": DEFAULT_SAMPLES,
}


def _setting_text(settings: dict[str, Any]) -> str:
    return (
        ", ".join(
            k if isinstance(v, bool) else f"{k} {v}"
            for k, v in settings.items()
            if k in _SETTING_DEFAULTS and v != _SETTING_DEFAULTS[k]
        )
        or "the defaults"
    )


def settings_frame(comparisons: list[StoredComparison]) -> pd.DataFrame:
    """DocsChisel against itself under one other setting, on the same test tasks.

    A DocsChisel setting (misuse tasks, cross-tool validation, in-context judging, samples per
    candidate, or the algorithm revision) makes another method, so its comparison is reported apart and never
    pooled. But comparisons with the same test tasks, target agent and evaluation runs evaluate
    the same tasks with the same sampling seeds, so their DC outcomes pair by task: that paired
    difference, not two separate gains over OG, is what says whether the setting helps. Only
    pairs that differ in exactly one setting are shown (per setting, the comparison with most
    optimization runs, then the newest).
    """
    chosen = most_runs(
        ((same_tasks_key(c), tuple(dc_settings(c).items())), c)
        for c in comparisons
        if "dc" in ((c.detail or {}).get("per_task") or {})
    )
    members = list(chosen.values())
    rows = []
    for i, first in enumerate(members):
        for second in members[i + 1 :]:
            if same_tasks_key(first) != same_tasks_key(second):
                continue
            differ = [k for k, v in dc_settings(first).items() if dc_settings(second)[k] != v]
            if len(differ) != 1:
                continue
            # the newer revision first, or the setting switched on (or set higher) first
            new, old = first, second
            if differ[0] != "revision" and dc_settings(new)[differ[0]] < dc_settings(old)[differ[0]]:
                new, old = second, first
            a_set, b_set = dc_settings(new), dc_settings(old)
            a = new.detail["per_task"]["dc"].get("ts", {})
            b = old.detail["per_task"]["dc"].get("ts", {})
            ev = paired_tasks(a, b)
            if not ev["paired_n"]:
                continue
            common = sorted(set(a) & set(b))
            setting = differ[0]
            rows.append(
                {
                    "scope": ",".join(new.spec.get("domains") or ["all"]),
                    "setting": setting,
                    "DC with": f"{a_set[setting]} (`{new.compare_id}`)"
                    if setting == "revision"
                    else f"{_setting_text(a_set)} (`{new.compare_id}`)",
                    "DC with (other)": f"{b_set[setting]} (`{old.compare_id}`)"
                    if setting == "revision"
                    else f"{_setting_text(b_set)} (`{old.compare_id}`)",
                    "tasks": ev["paired_n"],
                    "TS %": 100 * sum(a[t] for t in common) / len(common),
                    "other TS %": 100 * sum(b[t] for t in common) / len(common),
                    "Δ pp [95% CI]": pp_ci(pd.Series(ev)),
                    "McNemar b/c": f"{ev['mcnemar_b']}/{ev['mcnemar_c']}",
                    "p (McNemar)": p_text(ev["mcnemar_p"]),
                    "MDE pp": None if ev["mde"] is None else 100 * ev["mde"],
                }
            )
    return pd.DataFrame(rows)


def finite_pct(v: float) -> float | None:
    return None if v is None or not math.isfinite(v) else v


# the peers DocsChisel is measured against across comparisons (OG is every comparison's own baseline)
PEERS = ("gepa", "et", "drt")


def method_label(c: StoredComparison, method: str) -> str:
    rows = c.methods[c.methods["method"] == method] if "label" in c.methods else c.methods.iloc[0:0]
    return str(rows.iloc[0]["label"]) if len(rows) else method


def peers_frame(comparisons: list[StoredComparison]) -> pd.DataFrame:
    """Each DocsChisel setting against each peer measured in another comparison on the same test tasks.

    Comparisons with the same test tasks, target agent and evaluation runs evaluate every doc set with
    the same sampling seeds, so any method of one pairs by task with any method of another. A peer
    (GEPA, EasyTool, DRAFT) is run in one comparison, and a DocsChisel setting tried later in another
    is otherwise never set against it. Per scope, each DC setting (the comparison with most
    optimization runs, then the newest) meets each peer (likewise); pairs inside one comparison are
    that comparison's own significance table and are left out. p-values are Holm-corrected over the
    rows of a scope: picking the best of several settings against one peer is a multiple comparison.
    """

    def measured(c: StoredComparison) -> dict:
        return (c.detail or {}).get("per_task") or {}

    chosen_dc = most_runs(
        ((same_tasks_key(c), tuple(dc_settings(c).items())), c) for c in comparisons if "dc" in measured(c)
    )
    chosen_peer = most_runs(
        ((same_tasks_key(c), m), c) for c in comparisons for m in PEERS if m in measured(c)
    )
    rows = []
    for (scope_key, settings), dc in chosen_dc.items():
        for (peer_scope, method), peer in chosen_peer.items():
            if peer_scope != scope_key or peer.result_id == dc.result_id:
                continue
            a = dc.detail["per_task"]["dc"].get("ts", {})
            b = peer.detail["per_task"][method].get("ts", {})
            ev = paired_tasks(a, b)
            if not ev["paired_n"]:
                continue
            common = sorted(set(a) & set(b))
            split = "" if split_grouping(dc) == "gold" else ", task-level split"
            rows.append(
                {
                    "scope": ",".join(dc.spec.get("domains") or ["all"]) + split,
                    "group": scope_key,
                    "DC with": f"{_setting_text(dict(settings))}, {dc.dc_algorithm} (`{dc.compare_id}`)",
                    "peer": f"{method_label(peer, method)}, {opt_runs(peer)} opt runs (`{peer.compare_id}`)",
                    "tasks": ev["paired_n"],
                    "DC TS %": 100 * sum(a[t] for t in common) / len(common),
                    "peer TS %": 100 * sum(b[t] for t in common) / len(common),
                    "Δ pp [95% CI]": pp_ci(pd.Series(ev)),
                    "McNemar b/c": f"{ev['mcnemar_b']}/{ev['mcnemar_c']}",
                    "p (McNemar)": ev["mcnemar_p"],
                    "MDE pp": None if ev["mde"] is None else 100 * ev["mde"],
                }
            )
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame(rows)
    df["p (Holm)"] = df["p (McNemar)"]
    for idx in df.groupby("group", sort=False).groups.values():
        ps = [
            1.0 if p is None or (isinstance(p, float) and math.isnan(p)) else p
            for p in df.loc[idx, "p (McNemar)"]
        ]
        df.loc[idx, "p (Holm)"] = holm(ps)
    for col in ("p (McNemar)", "p (Holm)"):
        df[col] = df[col].map(p_text)
    cols = [c for c in df.columns if c not in ("MDE pp", "group")] + ["MDE pp"]
    return df[cols]


def comparison_section(
    warehouse, headline: Callable[[list[StoredComparison]], str | None] | None = None
) -> str | None:
    """The results document's comparison section; `headline` adds a part over all comparisons first.

    Why a parameter: a part built on this module's records (the agents table of
    `compare_agents`) cannot be imported here without an import cycle.
    """
    comparisons, older = current_comparisons(stored_comparisons(warehouse))
    unfinished = [c.compare_id for c in comparisons if len(c.methods) < 2]
    comparisons = [c for c in comparisons if len(c.methods) >= 2]
    if not comparisons:
        return None
    intro = (
        "Every method's doc sets evaluated on the same held-out test tasks (`docschisel compare`). Each point "
        "is one evaluation run of one optimization run's doc set (evaluation run j samples at temperature T "
        "with seed j); OG has a single doc set. Paper anchors: +95.89% TS over the original docs, +75.15% over "
        "the baselines; 12.65 min and 4,481 tokens per tool; docs of 189 tokens (original 153); without "
        "memory TS is 76% lower after 5 iterations."
    )
    parts = [" ".join([intro, *grammar_notes(comparisons)])]
    if headline is not None and (part := headline(comparisons)):
        parts.append(part)
    parts += [markdown(c) for c in comparisons]
    tables = (
        (
            pooled_frame(comparisons),
            "**Pooled over the comparisons above** (same benchmark, target agent and temperature): the "
            "paired per-task test on the union of their test tasks — each task's outcome is its mean over a "
            "method's runs; Δ is the mean per-task difference with a bootstrap interval over tasks, McNemar "
            "counts tasks whose majority outcome flipped each way (b: only the method solves it, c: only the "
            "other), and the minimum detectable effect is what this many paired tasks could show at α = 0.05 "
            "with 80 % power. Where some test tasks repeat an optimization or validation task's gold call, the "
            "rows are given again without those tasks:",
        ),
        (
            settings_frame(comparisons),
            "**DocsChisel settings against each other** (comparisons above with the same test tasks, target "
            "agent and evaluation runs, whose DocsChisel differs in one setting): DC's per-task TS under one "
            "setting paired with its per-task TS under the other, with the same statistics as the pooled "
            "rows:",
        ),
        (
            peers_frame(comparisons),
            "**DocsChisel settings against the peers of other comparisons** (same test tasks, target agent "
            "and evaluation runs): each DocsChisel setting's per-task TS paired with a peer's measured in "
            "another comparison, with the same statistics; p is Holm-corrected over the rows of a scope, "
            "since the best of several settings is picked against the same peer. A peer's budget is that of "
            "its own comparison (GEPA gets the target-agent episodes of that comparison's DocsChisel run "
            "with the same seed):",
        ),
    )
    parts += [f"{intro}\n\n{table(frame, floatfmt='.1f')}" for frame, intro in tables if not frame.empty]
    if unfinished:
        parts.append(
            "Comparisons with results for fewer than two methods (stopped before the other methods were "
            f"evaluated; resumable with the same command): {', '.join(f'`{i}`' for i in unfinished)}."
        )
    if older:
        parts.append(
            "Earlier comparisons of the same scopes, superseded by the ones above and kept in the warehouse "
            f"(`docschisel compare show --id ...`): {', '.join(f'`{i}`' for i in older)}."
        )
    return "\n\n".join(parts)
