"""The comparison harness: OG, EasyTool, DRAFT and DocsChisel on the same held-out test tasks.

    result = run_compare(warehouse, CompareSpec(benchmark="api-bank", domains=("finance",)))
    result.methods, result.tests, result.curves      # the stored rows, as frames

What it does, as the DocsChisel paper does it (§IV):

1. Test tasks: a seeded sample (`limit`, seed `split_seed`) of the `test` part
   of the stored split for the chosen domains; the same tasks for every method
   and every run. No producer reads them (EasyTool runs without execution,
   DRAFT explores in sandboxes of `opt` tasks, DocsChisel reads `opt` ground
   truth and runs `opt` / `val` tasks only).
2. Doc sets: `opt_runs` independent optimization runs per method, run s with
   seed s — `core.baselines.service.generate_baseline` for ET / DRT and
   `core.chisel.loop.Optimizer` for DC (one set of runs per optimizer model:
   Table IV). The original docs (OG) are one doc set. Every producer is
   content-hashed and resumable, so asking again costs nothing.
3. Evaluation: each doc set on the test tasks `eval_runs` times; evaluation
   run j uses `AgentConfig(temperature=T, seed=j)`, because the local model is
   deterministic at T = 0 and the gateway caches identical calls. OG has one
   doc set, so its distribution has `eval_runs` points (repeating it per
   optimization run would only copy them); every other method has
   `opt_runs × eval_runs`.
4. Statistics and efficiency (`compare_rows`, `core.warehouse.costs`), the
   iteration-budget curve of DC and, with `memory_ablation`, the same curve of
   DC optimized without memory (`budget`), each budget's doc set evaluated
   `curve_eval_runs` times.
5. Storage: a result snapshot in `comparison_*` (migration 0006) through the
   warehouse's typed writes.

Every evaluation goes through `core.runner.run`, whose episodes are identified
by (benchmark, task, doc set, agent config, repeat): re-running the same
comparison runs only missing episodes and stores no duplicate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import pandas as pd

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import get_or_create_split
from core.docs import DocSet
from core.study.budget import budget_docsets
from core.study.compare_rows import Point, curve_row, method_rows, significance_rows
from core.study.fields import sample, study_tools
from core.warehouse.costs import baseline_costs, chisel_run_costs, doc_lengths
from core.warehouse.records import content_hash

Log = Callable[[str], None]
METHODS = ("og", "et", "drt", "dc")
LABELS = {"og": "OG (original)", "et": "ET (EasyTool)", "drt": "DRT (DRAFT)", "dc": "DC (DocsChisel)"}
BASELINE_OF = {"et": "easytool", "drt": "draft"}


@dataclass(frozen=True)
class CompareSpec:
    """Everything that defines one comparison; its hash is the comparison id.

    `agent` is the target agent (its model, paradigm, doc mode, step limit).
    `optimizer_models` empty means the optimizer's default (the evidence engine
    with the local model); several give one DC variant each (`dc` for the
    first, `dc:<model>` for the others). `baseline_model` None means the
    agent's model.
    """

    benchmark: str = "api-bank"
    domains: tuple[str, ...] = ()
    methods: tuple[str, ...] = METHODS
    opt_runs: int = 3
    eval_runs: int = 5
    limit: int | None = 20
    agent: AgentConfig = field(default_factory=AgentConfig)
    temperature: float = 0.7
    iterations: int = 5
    optimizer_models: tuple[str, ...] = ()
    engine: str = "auto"
    max_opt_tasks: int | None = None
    max_val_tasks: int | None = None
    max_traces: int | None = None
    selection: str = "evidence"  # DocsChisel's selection rule (core.chisel.results.select)
    memory_ablation: bool = True
    curve_eval_runs: int = 1
    baseline_model: str | None = None
    split_seed: int = 0

    def __post_init__(self) -> None:
        unknown = [m for m in self.methods if m not in METHODS]
        if unknown or not self.methods:
            raise ValueError(f"methods must be some of {', '.join(METHODS)}; got {list(self.methods)}")
        for name in ("opt_runs", "eval_runs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.curve_eval_runs < 0 or self.iterations < 0:
            raise ValueError("curve_eval_runs and iterations must be >= 0")
        if self.limit is not None and self.limit < 1:
            raise ValueError("limit must be at least 1 (or None for every test task)")
        if self.temperature <= 0:
            raise ValueError("temperature must be > 0: at 0 the evaluation runs would be identical")
        # canonical order, so the same comparison always has the same id
        object.__setattr__(self, "methods", tuple(m for m in METHODS if m in self.methods))
        object.__setattr__(self, "domains", tuple(sorted(set(self.domains))))
        object.__setattr__(self, "optimizer_models", tuple(dict.fromkeys(self.optimizer_models)))

    @property
    def compare_id(self) -> str:
        return content_hash("compare", asdict(self))

    def eval_agent(self, eval_run: int) -> AgentConfig:
        """The target agent of evaluation run j: `agent` sampled at `temperature` with seed j.

        `agent` itself (temperature 0 by default) is what the optimizer evaluates candidates with.
        """
        return replace(self.agent, temperature=self.temperature, seed=eval_run)

    def dc_variants(self) -> list[tuple[str, str | None]]:
        """(method key, optimizer model) of the DocsChisel runs; None = the optimizer's default."""
        models: list[str | None] = list(self.optimizer_models) or [None]
        return [("dc" if i == 0 else f"dc:{m}", m) for i, m in enumerate(models)]


@dataclass
class Entry:
    """One doc set of one method: which optimization run produced it and at what cost."""

    opt_run: int
    docset: DocSet
    producer: str = ""  # baseline or optimize run id
    costs: dict[str, Any] = field(default_factory=dict)


@dataclass
class CompareResult:
    compare_id: str
    result_id: str
    task_ids: list[str]
    methods: pd.DataFrame
    tests: pd.DataFrame
    curves: pd.DataFrame
    ran: int = 0
    reused: int = 0


def compare_tasks(warehouse, spec: CompareSpec, bench: Benchmark) -> tuple[str, list[Task]]:
    """(split id, the seeded sample of the split's test part for the spec's domains)."""
    all_tasks = bench.tasks()
    split = get_or_create_split(warehouse, benchmark_key(bench), all_tasks, seed=spec.split_seed)
    domain_tasks = select_tasks(bench, all_tasks, domains=list(spec.domains) or None)
    chosen = sample(split.tasks(domain_tasks, "test"), spec.limit, spec.split_seed)
    if not chosen:
        raise ValueError(f"no test tasks in {spec.benchmark} for domains {list(spec.domains) or 'all'}")
    return split.split_id, chosen


class Harness:
    """One comparison run; `run()` does everything (see the module docstring)."""

    def __init__(
        self,
        warehouse,
        spec: CompareSpec,
        *,
        bench: Benchmark | None = None,
        data_dir=None,
        agent_factory: Callable | None = None,
        embedder=None,
        log: Log | None = None,
        concurrency: int = 1,
    ) -> None:
        self.wh, self.spec = warehouse, spec
        self.bench = bench or get_benchmark(spec.benchmark, data_dir)
        self.agent_factory, self.embedder = agent_factory, embedder
        self.log = log or (lambda _msg: None)
        self.concurrency = concurrency
        self.cid = spec.compare_id
        self.ran = self.reused = 0

    # ------------------------------------------------------------------ doc sets
    def baselines(self, method: str) -> list[Entry]:
        from core.baselines.service import generate_baseline

        spec, out = self.spec, []
        for s in range(spec.opt_runs):
            run = generate_baseline(
                self.wh,
                BASELINE_OF[method],
                spec.benchmark,
                domains=list(spec.domains) or None,
                model=spec.baseline_model or spec.agent.model,
                seed=s,
                split_seed=spec.split_seed,
                bench=self.bench,
                embedder=self.embedder,
            )
            self.log(f"{LABELS[method]} run {s}: doc set {run.docset_id}{' (stored)' if run.reused else ''}")
            out.append(Entry(s, run.docset, run.run_id, run.costs))
        return out

    def docschisel(self, optimizer_model: str | None, memory: bool = True) -> list[Entry]:
        from core.chisel.config import OptimizeConfig
        from core.chisel.loop import Optimizer

        spec, out = self.spec, []
        for s in range(spec.opt_runs):
            config = OptimizeConfig(
                benchmark=spec.benchmark,
                domains=spec.domains,
                agent=spec.agent,
                iterations=spec.iterations,
                memory=memory,
                engine=spec.engine,
                optimizer_model=optimizer_model,
                seed=s,
                split_seed=spec.split_seed,
                max_opt_tasks=spec.max_opt_tasks,
                max_val_tasks=spec.max_val_tasks,
                max_traces=spec.max_traces,
                selection=spec.selection,
            )
            result = Optimizer(
                self.wh,
                config,
                benchmark=self.bench,
                agent_factory=self.agent_factory,
                concurrency=self.concurrency,
                log=self.log,
            ).run()
            out.append(Entry(s, result.docset, result.run_id))
        return out

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, method: str, entry: Entry, eval_run: int, tasks: Sequence[Task], **extra) -> Point:
        from core.runner import RunPlan, run

        plan = RunPlan(
            self.bench,
            entry.docset,
            self.spec.eval_agent(eval_run),
            list(tasks),
            repeats=1,
            split="test",
            kind="compare",
            name=f"compare {method} s{entry.opt_run} e{eval_run}",
            extra={"compare_id": self.cid, "method": method, "opt_run": entry.opt_run, **extra},
        )
        res = run(self.wh, plan, concurrency=self.concurrency, agent_factory=self.agent_factory)
        self.ran += res.ran
        self.reused += res.reused
        m = res.metrics
        return Point(method, entry.opt_run, eval_run, m.ts, m.tc, m.n, res.run_id, entry.docset.docset_id)

    def points(self, method: str, entries: Sequence[Entry], tasks: Sequence[Task]) -> list[Point]:
        out = []
        for entry in entries:
            for j in range(self.spec.eval_runs):
                p = self.evaluate(method, entry, j, tasks)
                self.log(f"  {method} s{entry.opt_run} e{j}: TS {p.ts:6.1%} TC {p.tc:6.1%}")
                out.append(p)
        return out

    def curve(self, series: str, entries: Sequence[Entry], original: DocSet, tasks) -> list[dict[str, Any]]:
        spec, rows = self.spec, []
        for entry in entries:
            for b in budget_docsets(self.wh, entry.producer, original, range(spec.iterations + 1)):
                self.wh.register_docset(
                    b.docset,
                    benchmark=self.bench.name,
                    origin="docschisel-budget",
                    name=b.docset.name,
                    meta={"run_id": entry.producer, "budget": b.budget, "candidate": True},
                )
                at_k = Entry(entry.opt_run, b.docset, entry.producer)
                pts = [
                    self.evaluate(f"dc-{series}", at_k, j, tasks, budget=b.budget)
                    for j in range(spec.curve_eval_runs)
                ]
                rows.append(
                    curve_row(
                        series, entry.opt_run, b.budget, pts, b.changed, b.docset.docset_id, entry.producer
                    )
                )
                self.log(f"  curve {series} s{entry.opt_run} k={b.budget}: TS {rows[-1]['ts']:.1%}")
        return rows

    # ------------------------------------------------------------------ efficiency
    def efficiency(self, method: str, entries: Sequence[Entry], tools: Sequence[str]) -> dict[str, Any]:
        """Mean over the method's optimization runs of doc length and per-tool cost (Table III)."""
        lengths = doc_lengths(self.wh, [e.docset.docset_id for e in entries], tools)
        per_run: list[dict[str, float]] = []
        if method in BASELINE_OF:
            per_run = [baseline_costs(e.costs) for e in entries]
        elif method.startswith("dc"):
            runs = chisel_run_costs(self.wh, [e.producer for e in entries]).set_index("run_id")
            per_run = [
                {
                    "tools_optimized": float(runs.at[e.producer, "tools"]),
                    "opt_tokens_per_tool": float(runs.at[e.producer, "optimizer_tokens"]),
                    "agent_tokens_per_tool": float(runs.at[e.producer, "agent_tokens"]),
                    "minutes_per_tool": float(runs.at[e.producer, "minutes_per_tool"]),
                }
                for e in entries
                if e.producer in runs.index
            ]
        out: dict[str, Any] = {
            "doc_tokens": _mean([lengths.get(e.docset.docset_id) for e in entries]),
            "tools_optimized": 0.0,
            "opt_tokens_per_tool": 0.0,
            "agent_tokens_per_tool": 0.0,
            "minutes_per_tool": 0.0,
        }
        for key in ("tools_optimized", "opt_tokens_per_tool", "agent_tokens_per_tool", "minutes_per_tool"):
            if per_run:
                out[key] = _mean([r.get(key) for r in per_run])
        return out

    # ------------------------------------------------------------------ main
    def run(self) -> CompareResult:
        spec, wh = self.spec, self.wh
        split_id, tasks = compare_tasks(wh, spec, self.bench)
        task_ids = [t.task_id for t in tasks]
        tools = study_tools(self.bench, tasks)
        original = self.bench.original_docs()
        wh.register_benchmark(self.bench.name)
        wh.register_docset(original, benchmark=self.bench.name, origin="original", name="original")
        header = {
            "benchmark": benchmark_key(self.bench),
            "spec": asdict(spec),
            "split_id": split_id,
            "task_ids": task_ids,
        }
        wh.record_comparison_status(self.cid, "started", **header)
        self.log(
            f"comparison {self.cid}: {', '.join(spec.methods)} on {len(tasks)} test tasks "
            f"({len(tools)} tools), {spec.opt_runs} optimization × {spec.eval_runs} evaluation runs"
        )
        entries: dict[str, list[Entry]] = {}
        optimizer_of: dict[str, str | None] = {}
        for method in spec.methods:
            if method == "og":
                entries["og"] = [Entry(0, original)]
            elif method in BASELINE_OF:
                entries[method] = self.baselines(method)
            else:
                for key, model in spec.dc_variants():
                    entries[key] = self.docschisel(model)
                    optimizer_of[key] = model
        points = {m: self.points(m, es, tasks) for m, es in entries.items()}
        curves: list[dict[str, Any]] = []
        if "dc" in entries and spec.curve_eval_runs:
            curves = self.curve("memory", entries["dc"], original, tasks)
            if spec.memory_ablation:
                nomem = self.docschisel(optimizer_of.get("dc"), memory=False)
                curves += self.curve("no-memory", nomem, original, tasks)
        labels = {**LABELS, **{k: f"DC ({m})" for k, m in optimizer_of.items() if k != "dc"}}
        efficiency = {m: self.efficiency(m, es, tools) for m, es in entries.items()}
        methods = method_rows(points, labels, efficiency, optimizer_of)
        tests = significance_rows(points)
        result_id = content_hash("compare-result", self.cid, methods, tests, curves)
        producers = {m: [e.producer for e in es if e.producer] for m, es in entries.items()}
        wh.record_comparison_result(
            self.cid,
            result_id,
            methods=methods,
            tests=tests,
            curves=curves,
            detail={"producers": producers, "ran": self.ran, "reused": self.reused, "tools": tools},
            **header,
        )
        self.log(
            f"comparison {self.cid} stored (result {result_id}): {self.ran} episodes run, {self.reused} reused"
        )
        return CompareResult(
            self.cid,
            result_id,
            task_ids,
            pd.DataFrame(methods),
            pd.DataFrame(tests),
            pd.DataFrame(curves),
            self.ran,
            self.reused,
        )


def _mean(values: Sequence[float | None]) -> float | None:
    vals = [float(v) for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def run_compare(
    warehouse,
    spec: CompareSpec,
    *,
    bench: Benchmark | None = None,
    agent_factory: Callable | None = None,
    log: Log | None = None,
    concurrency: int = 1,
    data_dir=None,
    embedder=None,
) -> CompareResult:
    """Run (or resume) a comparison and store its result; see the module docstring."""
    return Harness(
        warehouse,
        spec,
        bench=bench,
        data_dir=data_dir,
        agent_factory=agent_factory,
        embedder=embedder,
        log=log,
        concurrency=concurrency,
    ).run()
