"""Domain-aware profiling: group tools by domain, take their opt/val tasks, run the original docs.

A tool belongs to the domain where most of the tasks that use it live (a
WorkBench tool also used by multi-domain tasks is optimized once, in its main
domain); its tasks are all selected tasks whose ground truth uses it, split
into optimization and validation parts by the stored split. The test part is
never selected here, so nothing downstream can run or read it.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.benchmarks.base import Task
from core.benchmarks.splits import Split


@dataclass
class ToolTasks:
    tool: str
    domain: str
    opt: list[Task] = field(default_factory=list)
    val: list[Task] = field(default_factory=list)
    # joined the optimized tools because the agent called it in their place (`decisions.misused_tools`):
    # its headroom is on those tasks, and its own tasks are the regression side
    misused: bool = False


def _cap(tasks: list[Task], limit: int | None, seed: int, tool: str, part: str) -> list[Task]:
    if not limit or len(tasks) <= limit:
        return tasks
    chosen = random.Random(f"{seed}:{tool}:{part}").sample(sorted(tasks, key=lambda t: t.task_id), limit)
    return sorted(chosen, key=lambda t: t.task_id)


def tool_tasks(
    tasks: Sequence[Task],
    split: Split,
    docset_tools: Sequence[str],
    *,
    only_tools: Sequence[str] = (),
    limit_tools: int | None = None,
    max_opt: int | None = None,
    max_val: int | None = None,
    seed: int = 0,
) -> dict[str, list[ToolTasks]]:
    """domain -> the tools to optimize there, each with its opt and val tasks (never test)."""
    counts: dict[str, Counter] = {}
    for t in tasks:
        for tool in t.tools:
            counts.setdefault(tool, Counter())[t.domain] += 1
    known = set(docset_tools)
    wanted = set(only_tools)
    unknown = sorted(wanted - set(counts))
    if unknown:
        raise KeyError(f"no selected task uses tool(s) {unknown}")
    by_domain: dict[str, list[ToolTasks]] = {}
    for tool in sorted(counts):
        if tool not in known or (wanted and tool not in wanted):
            continue
        domain = sorted(counts[tool].items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        opt = _cap(split.tool_tasks(tasks, tool, "opt"), max_opt, seed, tool, "opt")
        val = _cap(split.tool_tasks(tasks, tool, "val"), max_val, seed, tool, "val")
        by_domain.setdefault(domain, []).append(ToolTasks(tool, domain, opt, val))
    if limit_tools:
        for domain, items in by_domain.items():
            items.sort(key=lambda tt: (not (tt.opt and tt.val), -(len(tt.opt) + len(tt.val)), tt.tool))
            by_domain[domain] = sorted(items[:limit_tools], key=lambda tt: tt.tool)
    return dict(sorted(by_domain.items()))
