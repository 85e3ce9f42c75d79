"""Run GEPA on the docs of some tools and store the result like the other baselines.

    run = generate_gepa(wh, bench, groups, split, agent, GepaConfig(model="local/qwen2.5-coder-1.5b", budget=300))
    run.docset, run.docset_id, run.run_id, run.costs      # doc set origin "gepa", run kind "baseline"

`groups` are the tools with their optimization and validation tasks, the
grouping DocsChisel uses (`core.chisel.profile.tool_tasks`; the caller builds
it, as this layer does not import the optimizer): trainset = the tools'
optimization tasks, valset = their validation tasks. The budget is GEPA's
`max_metric_calls` counted in target-agent episodes (one metric call = one
episode: the agent samples each task once per evaluation, at the agent
config's temperature and seed). GEPA's own seed drives its candidate and
minibatch choices, the reflection model samples with per-call seeds derived
from it, so runs with different seeds differ and a re-run is reproducible.

A run is identified by its configuration (method, benchmark, tools, tasks,
split, agent, reflection model, budget, seed, GEPA version), so asking again
returns the stored doc set without work; after a crash a re-run replays GEPA
from its seed on stored episodes and cached reflection calls. Costs per tool
(episodes, agent tokens, reflection calls and tokens, seconds) are in the doc
set's metadata and the run's finished status, in the shape
`core.warehouse.costs.baseline_costs` reads for Table III.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from typing import Any, Protocol

from core.agents.base import AgentConfig
from core.baselines.gepa_docs import DocsAdapter, TaskLoader, docset_for, seed_candidate
from core.baselines.gepa_search import EpisodeBudget, EvidencedRoundRobin, ToolReflection
from core.baselines.service import BaselineRun, stored_run
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key
from core.benchmarks.splits import Split
from core.docs import DocSet
from core.evaluation import Evaluator

ORIGIN = "gepa"
CANDIDATE = "gepa-candidate"  # origin of the doc sets GEPA evaluates on its way
# Part of the run id: bump it when a change makes the GEPA adapter decide differently.
ALGORITHM_VERSION = "gepa-docs-1"
SELECTIONS = ("pareto", "current_best", "epsilon_greedy", "top_k_pareto")

Log = Callable[[str], None]


class ToolTaskSet(Protocol):
    """A tool with its optimization and validation tasks (`core.chisel.profile.ToolTasks` fits)."""

    tool: str
    opt: list[Task]
    val: list[Task]


@dataclass(frozen=True)
class GepaConfig:
    """GEPA's settings. `budget` is `max_metric_calls` in target-agent episodes; `model` reflects.

    The rest are GEPA's defaults (minibatch of 3, Pareto candidate selection)
    and our guards: the reflection model's temperature and reply length, and a
    cap on a proposed text (a small model can ramble).
    """

    model: str
    budget: int
    seed: int = 0
    minibatch: int = 3
    candidate_selection: str = "pareto"
    temperature: float = 0.7
    max_tokens: int = 512
    max_chars: int = 2000
    params: bool = True  # optimize parameter descriptions (IPD) beside each tool's FD

    def __post_init__(self) -> None:
        if self.budget < 1 or self.minibatch < 1:
            raise ValueError("budget and minibatch must be at least 1")
        if self.candidate_selection not in SELECTIONS:
            raise ValueError(
                f"candidate_selection must be one of {SELECTIONS}, not {self.candidate_selection!r}"
            )


@dataclass
class GepaOutcome:
    """What one GEPA run produced: the doc set, per-tool costs, and a summary of the search."""

    docset: DocSet
    costs: dict[str, dict[str, Any]]
    meta: dict[str, Any] = field(default_factory=dict)


class _Logger:
    """GEPA's logger protocol over our log callback (GEPA prints to stdout otherwise)."""

    def __init__(self, log: Log | None) -> None:
        self._log = log

    def log(self, message: str) -> None:
        if self._log is not None:
            self._log(f"  gepa: {message}")


def split_tasks(groups: Sequence[ToolTaskSet]) -> tuple[list[Task], list[Task]]:
    """(trainset, valset): the groups' optimization and validation tasks, each task once, by id."""
    train = {t.task_id: t for g in groups for t in g.opt}
    val = {t.task_id: t for g in groups for t in g.val}
    return [train[k] for k in sorted(train)], [val[k] for k in sorted(val)]


def run_gepa(
    evaluator: Evaluator,
    original: DocSet,
    groups: Sequence[ToolTaskSet],
    split: Split,
    config: GepaConfig,
    *,
    run_id: str = "",
    warehouse: Any = None,
    register: Callable[[DocSet], None] | None = None,
    log: Log | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> GepaOutcome:
    """`gepa.optimize` over the groups' tools; the original docs when there is nothing to optimize."""
    import gepa

    tools = [g.tool for g in groups]
    train, val = split_tasks(groups)
    meta: dict[str, Any] = {
        "config": asdict(config),
        "gepa_version": metadata.version("gepa"),
        "tasks": {"opt": [t.task_id for t in train], "val": [t.task_id for t in val]},
    }
    reason = _nothing_to_do(tools, train, val, config.budget)
    if reason:
        return GepaOutcome(original, {t: _cost_row() for t in tools}, {**meta, "reason": reason})
    t0 = time.perf_counter()
    adapter = DocsAdapter(
        evaluator,
        original,
        tools,
        split,
        budget=config.budget,
        warehouse=warehouse,
        run_id=run_id,
        register=register,
    )
    reflection = ToolReflection(
        config.model,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        run_id=run_id or None,
        max_chars=config.max_chars,
    )
    seed = seed_candidate(original, tools, config.params)
    result = gepa.optimize(
        seed_candidate=seed,
        trainset=TaskLoader(train),
        valset=TaskLoader(val),
        adapter=adapter,
        reflection_strategy=reflection,
        candidate_selection_strategy=config.candidate_selection,
        module_selector=EvidencedRoundRobin(),
        reflection_minibatch_size=config.minibatch,
        max_metric_calls=config.budget,
        stop_callbacks=[EpisodeBudget(config.budget, config.minibatch, len(val), cancelled)],
        seed=config.seed,
        raise_on_exception=True,
        track_best_outputs=False,
        logger=_Logger(log),
    )
    best = dict(result.best_candidate)
    changed = sorted(k for k in seed if best.get(k, seed[k]) != seed[k])
    scores = [float(s) for s in result.val_aggregate_scores]
    meta.update(
        {
            "budget": config.budget,
            "metric_calls": int(result.total_metric_calls or 0),
            "episodes_ran": adapter.spend.ran,
            "candidates": len(result.candidates),
            "val_scores": scores,
            "best_idx": result.best_idx,
            "seed_val_ts": scores[0],
            "best_val_ts": scores[result.best_idx],
            "changed": changed,
            "best_candidate": {k: best[k] for k in changed},
            "minutes": (time.perf_counter() - t0) / 60,
        }
    )
    if result.best_idx == 0:
        meta["reason"] = "no candidate beat the original docs on the validation tasks"
    costs = {t: _cost_row(adapter, reflection, t) for t in tools}
    return GepaOutcome(docset_for(original, best), costs, meta)


def _nothing_to_do(tools: Sequence[str], train: Sequence[Task], val: Sequence[Task], budget: int) -> str:
    if not tools:
        return "no tools to optimize: the original docs are kept"
    if not train:
        return "no optimization tasks: the original docs are kept"
    if not val:
        return "no validation tasks: the original docs are kept"
    if budget < len(val):
        return f"a budget of {budget} episodes cannot evaluate the {len(val)} validation tasks once"
    return ""


def _cost_row(
    adapter: DocsAdapter | None = None, reflection: ToolReflection | None = None, tool: str = ""
) -> dict[str, Any]:
    """One tool's cost record: reflection calls / tokens (`tokens`), agent episodes and tokens, seconds."""
    spend = adapter.spend if adapter else None
    r = reflection.costs.get(tool) if reflection else None
    tokens_in, tokens_out = (r.tokens_in, r.tokens_out) if r else (0, 0)
    return {
        "calls": r.calls if r else 0,
        "tokens_in": tokens_in,
        "tokens_out": tokens_out,
        "tokens": tokens_in + tokens_out,
        "episodes": round(spend.episodes.get(tool, 0.0), 3) if spend else 0.0,
        "agent_tokens": round(spend.agent_tokens.get(tool, 0.0), 1) if spend else 0.0,
        "seconds": round((spend.seconds.get(tool, 0.0) if spend else 0.0) + (r.seconds if r else 0.0), 3),
    }


def run_key(
    bench: Benchmark, groups: Sequence[ToolTaskSet], split: Split, agent: AgentConfig, config: GepaConfig
) -> dict[str, Any]:
    """Everything that defines a GEPA run (hashed into its run id): the same key returns the stored result."""
    train, val = split_tasks(groups)
    return {
        "method": ORIGIN,
        "algorithm": ALGORITHM_VERSION,
        "gepa_version": metadata.version("gepa"),
        "config": asdict(config),
        "benchmark": benchmark_key(bench),
        "tools": sorted(g.tool for g in groups),
        "tasks": {"opt": [t.task_id for t in train], "val": [t.task_id for t in val]},
        "split_id": split.split_id,
        "agent": agent.to_json(),
        "original": bench.original_docs().docset_id,
    }


def generate_gepa(
    warehouse: Any,
    bench: Benchmark,
    groups: Sequence[ToolTaskSet],
    split: Split,
    agent: AgentConfig,
    config: GepaConfig,
    *,
    agent_factory: Callable | None = None,
    concurrency: int = 1,
    log: Log | None = None,
    cancelled: Callable[[], bool] | None = None,
    evaluator: Evaluator | None = None,
) -> BaselineRun:
    """Run GEPA (or reuse the stored result of the identical run) and store its doc set and costs."""
    from core.evaluation import RunnerEvaluator

    tools = sorted(g.tool for g in groups)
    key = run_key(bench, groups, split, agent, config)
    name = f"gepa {key['benchmark']} s{config.seed}"
    run_id = warehouse.start_run("baseline", key, name=name, benchmark=bench.name)
    stored = stored_run(warehouse, ORIGIN, run_id, tools)
    if stored is not None:
        return stored
    original = bench.original_docs()
    warehouse.register_benchmark(bench.name)
    warehouse.register_docset(original, benchmark=bench.name, origin="original", name="original")
    evaluator = evaluator or RunnerEvaluator(
        warehouse,
        bench,
        agent,
        repeats=1,
        concurrency=concurrency,
        agent_factory=agent_factory,
        parent_run=run_id,
        extra={"optimizer_run": run_id},
        cancelled=cancelled,
    )

    def register(docset: DocSet) -> None:
        meta = {"run_id": run_id, "candidate": True}
        warehouse.register_docset(docset, benchmark=bench.name, origin=CANDIDATE, name=docset.name, meta=meta)

    out = run_gepa(
        evaluator, original, groups, split, config, run_id=run_id, warehouse=warehouse, register=register, log=log,
        cancelled=cancelled,
    )  # fmt: skip
    if cancelled is not None and cancelled():
        warehouse.set_run_status(run_id, "cancelled", {"metric_calls": out.meta.get("metric_calls", 0)})
        return BaselineRun(ORIGIN, run_id, "", original, tools, out.costs, False, cancelled=True)
    docset = DocSet(out.docset.values(), name=f"gepa {bench.name} {config.model} s{config.seed}")
    meta = json.loads(json.dumps({"run_id": run_id, "costs": out.costs, "gepa": out.meta}, default=str))
    docset_id = warehouse.register_docset(
        docset,
        benchmark=bench.name,
        origin=ORIGIN,
        name=docset.name,
        meta=meta,
        parents={t: original[t].doc_id for t in tools},
    )
    # the best candidate was stored when GEPA evaluated it: label it as the result
    warehouse.promote_docset(
        docset_id, candidate_origin=CANDIDATE, origin=ORIGIN, name=docset.name, meta=meta
    )
    totals = {
        "tools": len(tools),
        **{
            k: sum(c.get(k, 0) for c in out.costs.values())
            for k in ("calls", "tokens", "episodes", "seconds")
        },
        "metric_calls": out.meta.get("metric_calls", 0),
    }
    detail = {"docset_id": docset_id, "costs": out.costs, "totals": totals, "gepa": meta["gepa"]}
    warehouse.set_run_status(run_id, "finished", detail)
    if log:
        log(
            f"GEPA {run_id}: {totals['metric_calls']} of {config.budget} episodes, "
            f"{out.meta.get('candidates', 1)} candidates, {len(out.meta.get('changed', []))} texts changed"
        )
    return BaselineRun(ORIGIN, run_id, docset_id, docset, tools, out.costs, False)
