"""The evaluation runner: benchmark × doc set × agent config × tasks × repeats.

Episodes run concurrently up to a limit and are written to the warehouse as
they finish: finished episodes are grouped for at most `flush_s` (0.5 s) or 32
episodes per transaction, because a DuckDB commit costs milliseconds and with a
fast model one transaction per episode would dominate the step time. A kill
loses at most that window, and those episodes simply run again on resume.
An episode's identity is a content hash of (benchmark, task,
doc set, agent config, repeat); before running, the runner asks the warehouse
which of the planned episodes already exist and runs only the rest. Re-running
the same command after a crash or Ctrl-C therefore finishes exactly what is
missing — nothing lost, nothing duplicated.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key
from core.docs import DocSet
from core.runner.episodes import AgentFactory, repeat_config, run_episode
from core.runner.metrics import Metrics, compute_metrics
from core.warehouse import Episode, Warehouse

Progress = Callable[[int, int, str], None]
FLUSH_S = 0.5
FLUSH_EPISODES = 32


@dataclass
class RunPlan:
    """What to run; `key` (everything that defines the run) gives the run id."""

    benchmark: Benchmark
    docset: DocSet
    config: AgentConfig
    tasks: Sequence[Task]
    repeats: int = 1
    split: str = ""
    variant: str = ""
    kind: str = "eval"
    name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def key(self) -> dict[str, Any]:
        return {
            "benchmark": benchmark_key(self.benchmark),
            "variant": self.variant,
            "docset_id": self.docset.docset_id,
            "agent": self.config.to_json(),
            "split": self.split,
            "tasks": sorted(t.task_id for t in self.tasks),
            "repeats": self.repeats,
            **self.extra,
        }

    def episode_ids(self) -> list[tuple[str, Task, int]]:
        out = []
        for task in self.tasks:
            for r in range(self.repeats):
                eid = Episode.make_id(
                    benchmark_key(self.benchmark),
                    task.task_id,
                    self.docset.docset_id,
                    self.config.config_id,
                    r,
                )
                out.append((eid, task, r))
        return out


@dataclass
class RunResult:
    run_id: str
    planned: int
    ran: int
    reused: int
    cancelled: bool
    metrics: Metrics


def default_agent_factory(config: AgentConfig):
    from core.agents import make_agent

    return make_agent(config)


def run(
    warehouse: Warehouse,
    plan: RunPlan,
    *,
    concurrency: int = 2,
    agent_factory: AgentFactory | None = None,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
    show_progress: bool = False,
    parent_run: str | None = None,
    flush_s: float = FLUSH_S,
) -> RunResult:
    """Run every planned episode that is not already stored, then compute metrics."""
    factory = agent_factory or default_agent_factory
    bench_name = plan.benchmark.name
    warehouse.register_benchmark(bench_name)
    warehouse.register_docset(plan.docset, benchmark=bench_name, origin=plan.docset.name or "docset")
    _register_tools(warehouse, plan.benchmark)
    warehouse.register_tasks(bench_name, plan.tasks)
    warehouse.register_agent_config(plan.config.to_json())
    run_id = warehouse.start_run(
        plan.kind, plan.key(), name=plan.name, benchmark=bench_name, parent_run=parent_run
    )

    planned = plan.episode_ids()
    done = warehouse.existing_episodes([eid for eid, _, _ in planned])
    warehouse.link_episodes(run_id, done)
    todo = [(eid, t, r) for eid, t, r in planned if eid not in done]
    total, finished = len(planned), len(done)
    bar = _bar(total, finished, show_progress)
    lock = threading.Lock()
    was_cancelled = False

    def one(task: Task, repeat: int):
        config = repeat_config(plan.config, repeat)
        agent = factory(config)
        return run_episode(
            plan.benchmark,
            task,
            plan.docset,
            config,
            repeat,
            run_id=run_id,
            agent=agent,
            split=plan.split,
            variant=plan.variant,
            identity=plan.config,
        )

    buffer: list = []
    oldest = 0.0  # when the oldest buffered episode finished

    def flush() -> None:
        if buffer:
            warehouse.record_episodes(list(buffer), run_id=run_id)
            buffer.clear()

    if progress:
        progress(finished, total, "resuming" if finished else "starting")
    with ThreadPoolExecutor(max_workers=max(1, concurrency), thread_name_prefix="episode") as pool:
        pending: set[Future] = set()
        queue = list(todo)
        try:
            while queue or pending:
                while queue and len(pending) < max(1, concurrency):
                    if cancelled and cancelled():
                        was_cancelled = True
                        queue.clear()
                        break
                    _, task, r = queue.pop(0)
                    pending.add(pool.submit(one, task, r))
                if not pending:
                    break
                timeout = max(0.0, oldest + flush_s - time.monotonic()) if buffer else None
                finished_now, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
                for fut in finished_now:
                    # run_episode records agent and tool failures; an exception here is a real bug
                    if not buffer:
                        oldest = time.monotonic()
                    buffer.append(fut.result())
                    with lock:
                        finished += 1
                    if bar is not None:
                        bar.update(1)
                    if progress:
                        progress(finished, total, "")
                if buffer and (
                    len(buffer) >= FLUSH_EPISODES
                    or time.monotonic() - oldest >= flush_s
                    or not (pending or queue)
                ):
                    flush()
        finally:
            flush()  # what finished is stored even when the run stops on an error
    if bar is not None:
        bar.close()
    from core.llm import current

    current().ledger.flush()  # accounting rows of this run reach the warehouse now, not at exit
    metrics = compute_metrics(warehouse, run_id)
    metrics.store(warehouse, run_id, plan.docset.docset_id, plan.split)
    warehouse.set_run_status(
        run_id,
        "cancelled" if was_cancelled else "finished",
        {"planned": total, "ran": len(todo), "ts": metrics.ts, "tc": metrics.tc},
    )
    return RunResult(
        run_id,
        total,
        len(todo) if not was_cancelled else finished - len(done),
        len(done),
        was_cancelled,
        metrics,
    )


def _register_tools(warehouse: Warehouse, bench: Benchmark) -> None:
    """The benchmark's tools with their home domain and original doc (idempotent)."""
    from collections import Counter

    from core.warehouse.rows import ToolRow

    original = bench.original_docs()
    hook = getattr(bench, "tool_domain", None)
    counts: dict[str, Counter] = {}
    for t in bench.tasks():
        for tool in t.tools:
            counts.setdefault(tool, Counter())[t.domain] += 1
    rows = []
    for tool in bench.tool_names():
        if tool not in original:
            continue
        domain = hook(tool) if callable(hook) else None
        if domain is None and tool in counts:
            domain = counts[tool].most_common(1)[0][0]
        rows.append(
            ToolRow(benchmark=bench.name, tool=tool, domain=domain, original_doc_id=original[tool].doc_id)
        )
    warehouse.record(rows)


def _bar(total: int, initial: int, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit="ep", desc="episodes", dynamic_ncols=True)
