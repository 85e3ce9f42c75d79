"""GEPA beside DocsChisel: the same tasks per tool, and the same number of target-agent episodes.

Tasks: `task_groups` is DocsChisel's grouping (`core.chisel.profile.tool_tasks`
on the stored split, with the same caps and seed), so GEPA's trainset is the
tools' optimization tasks and its valset their validation tasks; test tasks
are never among them.

Budget: GEPA run s gets the distinct target-agent episodes the DocsChisel run
with seed s spent — the episodes of that optimize run's child runs, profile
included (`core.warehouse.reads.child_run_episodes`) — so both optimizers see
the agent equally often. Without a DocsChisel run to pair with (`dc` not among
the methods), the most DocsChisel could spend with the same settings:
every tool's optimization and validation tasks profiled once and re-run in
each of `iterations` iterations, each on `repeats` samples:

    budget = (1 + iterations) × Σ_tools (|opt_t| + |val_t|) × repeats
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from core.benchmarks.base import Benchmark
from core.benchmarks.registry import benchmark_key, select_tasks
from core.benchmarks.splits import DEFAULT_GROUPING, Split, get_or_create_split
from core.chisel.decisions import judged_groups
from core.chisel.profile import ToolTasks, tool_tasks
from core.warehouse import reads


def task_groups(
    warehouse: Any,
    bench: Benchmark,
    *,
    domains: Sequence[str] = (),
    tools: Sequence[str] | None = None,
    split_seed: int = 0,
    split_grouping: str = DEFAULT_GROUPING,
    max_opt: int | None = None,
    max_val: int | None = None,
    limit_tools: int | None = None,
    min_val: int = 0,
    guard_val: int = 0,
    seed: int = 0,
) -> tuple[Split, list[ToolTasks]]:
    """(stored split, the tools with their opt / val tasks) exactly as DocsChisel groups and judges them."""
    all_tasks = bench.tasks()
    split = get_or_create_split(
        warehouse, benchmark_key(bench), all_tasks, seed=split_seed, grouping=split_grouping
    )
    tasks = select_tasks(bench, all_tasks, domains=list(domains) or None)
    groups = tool_tasks(
        tasks,
        split,
        list(bench.original_docs()),
        only_tools=tuple(tools or ()),
        limit_tools=limit_tools,
        max_opt=max_opt,
        max_val=max_val,
        seed=seed,
    )
    judged = judged_groups(groups, tasks, split, min_val, guard_val, seed)
    return split, [tt for items in judged.values() for tt in items]


def formula_budget(groups: Sequence[ToolTasks], iterations: int, repeats: int) -> int:
    """The most episodes DocsChisel could spend on these tools (see the module docstring)."""
    return (1 + iterations) * sum(len(g.opt) + len(g.val) for g in groups) * repeats


def episode_budget(
    warehouse: Any, dc_run: str | None, groups: Sequence[ToolTasks], iterations: int, repeats: int
) -> tuple[int, str]:
    """(GEPA's budget in episodes, where it came from): the paired DocsChisel run's spend, else the formula."""
    if dc_run:
        return max(1, reads.child_run_episodes(warehouse, dc_run)), f"DocsChisel run {dc_run}"
    return max(1, formula_budget(groups, iterations, repeats)), "formula"
