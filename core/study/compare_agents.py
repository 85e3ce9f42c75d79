"""The current DocsChisel revision across target agents: one paired test over (agent, task) units.

Why: each comparison measures one target agent (a model in a paradigm), and its paired test has
the power of its own test tasks (14-27 on one domain). The question a user asks is whether the
current engine helps the agents they run, so the newest revision measured on several agents, with
the same DocsChisel settings, is put side by side, one row per agent, and pooled: a unit is one
agent on one test task. Agents are not chosen after the fact: every agent measured under that
revision with those settings enters. The McNemar test counts units (outcomes of different agents are separate samples, so the
test holds for these tasks); the interval of Δ resamples tasks with all their agents' units
(`cluster_bootstrap_interval`), since two agents share a task's difficulty.
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from core.study.compare_across import (
    PEERS,
    dc_settings,
    finite_pct,
    method_label,
    most_runs,
    opt_runs,
    same_tasks_key,
)
from core.study.compare_report import StoredComparison, runtime_label, split_grouping
from core.study.compare_rows import paired_tasks
from core.study.stats import cluster_bootstrap_interval, relative_improvement
from core.tables import markdown_table as table

VERSUS = ("og", *PEERS)


def revision_number(revision: str | None) -> int:
    """`docschisel-17` -> 17; a comparison without a DocsChisel revision sorts first (-1)."""
    found = re.search(r"(\d+)$", revision or "")
    return int(found.group(1)) if found else -1


def _agent(c: StoredComparison) -> str:
    """The target agent: its model, and its paradigm where it is not ReAct with native tool calling."""
    a = c.spec.get("agent") or {}
    how = f"{a.get('paradigm') or 'react'}/{a.get('doc_mode') or 'native'}"
    return str(a.get("model") or "?") + ("" if how == "react/native" else f" ({how})")


def _group_key(c: StoredComparison) -> tuple:
    """What must match for agents to be pooled: benchmark, runtime build, sampling, split and DC settings."""
    s = c.spec
    settings = {k: v for k, v in dc_settings(c).items() if k != "revision"}
    return (
        c.benchmark,
        runtime_label((c.detail or {}).get("runtime")),  # the runtime's build, not the model file
        s.get("temperature"),
        int(s.get("eval_runs") or 1),
        split_grouping(c),
        tuple(s.get("optimizer_models") or ()),
        s.get("engine"),
        tuple(settings.items()),
    )


def _per_task(c: StoredComparison, method: str) -> dict[str, float]:
    return dict((((c.detail or {}).get("per_task") or {}).get(method) or {}).get("ts") or {})


def _versus_source(
    dc: StoredComparison, method: str, comparisons: list[StoredComparison]
) -> StoredComparison | None:
    """Where `method` was measured on DC's test tasks: DC's own comparison, else a peer comparison.

    Comparisons with the same test tasks, agent and evaluation runs use the same sampling seeds, so
    a peer run elsewhere pairs by task (chosen by `most_runs`, as the peers table chooses it).
    """
    if _per_task(dc, method):
        return dc
    return most_runs((same_tasks_key(c), c) for c in comparisons if _per_task(c, method)).get(
        same_tasks_key(dc)
    )


def _revision_agents(group: list[StoredComparison], revision: int) -> dict[str, list[StoredComparison]]:
    """Per agent, the DC comparisons of `revision` in `group`, disjoint in test tasks (most runs first)."""
    agents: dict[str, list[StoredComparison]] = {}
    seen: dict[str, set[str]] = {}
    ranked = sorted(
        (c for c in group if revision_number(c.dc_algorithm) == revision), key=opt_runs, reverse=True
    )  # stable: newest first among equal optimization runs
    for c in ranked:
        agent = _agent(c)
        if not seen.setdefault(agent, set()) & set(c.task_ids):
            agents.setdefault(agent, []).append(c)
            seen[agent] |= set(c.task_ids)
    return dict(sorted(agents.items()))  # agents in name order, whichever ran last


def _units(agents: dict[str, list[StoredComparison]]) -> set[tuple[str, str]]:
    return {(agent, t) for agent, members in agents.items() for c in members for t in c.task_ids}


def _members(comparisons: list[StoredComparison]) -> dict[tuple, dict[str, list[StoredComparison]]]:
    """Per pooling group and revision, per agent: DC comparisons of one revision, disjoint in test tasks.

    The revision is the newest one measured on at least two agents. An earlier revision measured on at
    least two agents is kept beside it while it holds an (agent, test task) unit that no newer revision
    kept here was measured on: a revision being re-run agent by agent does not hide the larger pooled
    result it will replace - nor does a second revision re-run part-way after it - and no result is
    chosen over another.
    """
    with_dc = [c for c in comparisons if _per_task(c, "dc")]
    groups: dict[tuple, list[StoredComparison]] = {}
    for c in with_dc:
        groups.setdefault(_group_key(c), []).append(c)
    out: dict[tuple, dict[str, list[StoredComparison]]] = {}
    for key, group in groups.items():
        covered: set[tuple[str, str]] = set()
        for revision in sorted({revision_number(c.dc_algorithm) for c in group}, reverse=True):
            agents = _revision_agents(group, revision)
            units = _units(agents)
            if len(agents) >= 2 and units - covered:
                out[(*key, revision)] = agents
                covered |= units
    return out


def _row(
    agents: str, dc_label: str, versus: str, units: dict[str, tuple[str, float, float]], sources: str
) -> dict[str, Any]:
    """One row: DC against `versus` over `units` (unit -> (task, DC outcome, other outcome))."""
    a = {u: v[1] for u, v in units.items()}
    b = {u: v[2] for u, v in units.items()}
    ev = paired_tasks(a, b)
    clusters: dict[str, list[float]] = {}
    for task, x, y in units.values():
        clusters.setdefault(task, []).append(x - y)
    ci = cluster_bootstrap_interval(list(clusters.values()))
    mean_a, mean_b = sum(a.values()) / len(a), sum(b.values()) / len(b)
    return {
        "agents": agents,
        "method": dc_label,
        "versus": versus,
        "units": len(units),
        "tasks": len(clusters),
        "DC %": 100 * mean_a,
        "other %": 100 * mean_b,
        "relative %": finite_pct(relative_improvement(mean_a, mean_b)),
        "Δ pp [95% CI]": f"{100 * ci.mean:+.1f} [{100 * ci.low:+.1f}, {100 * ci.high:+.1f}]",
        "McNemar b/c": f"{ev['mcnemar_b']}/{ev['mcnemar_c']}",
        "p (McNemar)": f"{float(ev['mcnemar_p']):.4f}",
        "MDE pp": None if ev["mde"] is None else 100 * ev["mde"],
        "comparisons": sources,
    }


def agents_frame(comparisons: list[StoredComparison]) -> pd.DataFrame:
    """A DocsChisel revision against OG and each peer, per target agent and pooled over agents.

    `comparisons` newest first. Per pooling group (same benchmark, runtime build, temperature,
    evaluation runs, split and DocsChisel settings; the newest revision measured there on at least
    two agents, and each earlier one while it holds units no newer one shown has), one row per
    agent and one pooled row per method DC is set against; a method measured for only some agents is
    pooled over those.
    """
    rows: list[dict[str, Any]] = []
    for agents in _members(comparisons).values():
        first = next(iter(agents.values()))[0]
        dc_label = f"{method_label(first, 'dc')}, {first.dc_algorithm}"
        for versus in VERSUS:
            pooled: dict[str, tuple[str, float, float]] = {}
            names, ids = [], []
            for agent, members in agents.items():
                units: dict[str, tuple[str, float, float]] = {}
                used, label = [], versus
                for dc in members:
                    source = _versus_source(dc, versus, comparisons)
                    if source is None:
                        continue
                    a, b = _per_task(dc, "dc"), _per_task(source, versus)
                    units.update({f"{agent} · {t}": (t, a[t], b[t]) for t in sorted(set(a) & set(b))})
                    used.append(dc.compare_id if source is dc else f"{dc.compare_id} + {source.compare_id}")
                    label = method_label(source, versus)
                if not units:
                    continue
                rows.append(_row(agent, dc_label, label, units, ", ".join(f"`{u}`" for u in used)))
                pooled.update(units)
                names.append(agent)
                ids += used
            if len(names) >= 2:
                rows.append(
                    _row(" + ".join(names), dc_label, label, pooled, ", ".join(f"`{u}`" for u in ids))
                )
    return pd.DataFrame(rows)


def agents_part(comparisons: list[StoredComparison]) -> str | None:
    """`agents_frame` as the results document's first part of the comparison section, or None."""
    agents = agents_frame(comparisons)
    if agents.empty:
        return None
    return (
        "**The newest DocsChisel revision across target agents** (the newest revision measured on several "
        "target agents — a model in a paradigm — and every agent measured under it with the same DocsChisel "
        "settings, benchmark and temperature; an earlier revision's rows stay beside it while that revision "
        "was measured on an agent and test task no newer revision shown was): one row per agent and a row "
        "pooled over agents, where a unit is one agent on one test task. Each unit's outcome is its mean "
        "over a method's runs; a peer measured in another comparison on the same test tasks and seeds is "
        "paired from there. McNemar counts units whose majority outcome flipped each way; the interval of "
        "Δ resamples test tasks with all their agents' units, since two agents share a task's difficulty; "
        "the minimum detectable effect is that of this many paired units (α = 0.05, 80 % power):\n\n"
        + table(agents, floatfmt=".1f")
    )
