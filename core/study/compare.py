"""The comparison harness: OG, EasyTool, DRAFT, DocsChisel and GEPA on the same held-out test tasks.

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
   Table IV). The original docs (OG) are one doc set. GEPA (`gepa`, asked
   for by name) runs after DC: run s on DocsChisel's tools and opt / val
   tasks, reflecting with DC's optimizer model, with as many target-agent
   episodes as the DC run with seed s spent (`core.study.gepa_budget`;
   `core.baselines.gepa_run.generate_gepa`). Every producer is
   content-hashed and resumable, so asking again costs nothing.
3. Evaluation (runs of kind `compare`; curve points `compare-curve`): each
   doc set on the test tasks `eval_runs` times; evaluation
   run j uses `AgentConfig(temperature=T, seed=j)`, because the local model is
   deterministic at T = 0 and the gateway caches identical calls. OG has one
   doc set, so its distribution has `eval_runs` points (`og_eval_runs` where
   set: seeds 0 .. og_eval_runs-1, so its per-task rate is measured on as many
   samples as the others'); every other method has `opt_runs × eval_runs`.
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
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import pandas as pd

from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, get_benchmark
from core.docs import DocSet
from core.study.budget import budget_docsets
from core.study.compare_rows import (
    Point,
    curve_row,
    failure_reasons,
    flip_rows,
    guard_summary,
    method_rows,
    never_solved,
    per_task_outcomes,
    significance_rows,
)
from core.study.compare_spec import (
    BASELINE_OF,
    LABELS,
    METHODS,
    CompareSpec,
    compare_tasks,
    compared_tools,
    engine_for,
    guard_tasks,
    optimization_agent,
    reflection_model,
)
from core.study.fields import study_tools
from core.warehouse import reads
from core.warehouse.costs import baseline_costs, chisel_costs, doc_lengths
from core.warehouse.records import content_hash

if TYPE_CHECKING:  # the runner (and its model stack) loads only when a comparison evaluates
    from core.runner.runner import Progress

__all__ = [
    "METHODS",
    "CompareCancelled",
    "CompareResult",
    "CompareSpec",
    "Harness",
    "compare_tasks",
    "run_compare",
]

Log = Callable[[str], None]


class CompareCancelled(RuntimeError):
    """Raised when the caller asked the comparison to stop; everything finished so far is stored.

    A comparison is hours of local-model episodes, so a dashboard job must be
    able to stop it between (and inside) its steps; re-running the same spec
    resumes from the stored doc sets and episodes.
    """


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
        progress: Progress | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.wh, self.spec = warehouse, spec
        self.bench = bench or get_benchmark(spec.benchmark, data_dir)
        self.agent_factory, self.embedder = agent_factory, embedder
        self.log = log or (lambda _msg: None)
        self.concurrency = concurrency
        self.cid = spec.compare_id
        self.ran = self.reused = 0
        self.progress = progress
        self.cancelled = cancelled or (lambda: False)
        self.done, self.total = 0, self.planned_steps()
        # the tools every method documents (None = all tools of the domains); chosen when `run()`
        # starts (with a headroom band that means profiling), fixed for the whole comparison
        self.tools: list[str] | None = None

    # ------------------------------------------------------------------ progress
    def planned_steps(self, guard: bool = False) -> int:
        """How many steps `run()` takes: one per produced doc set, evaluation run and curve point.

        Counted up front from the spec so a progress bar has a fixed end; a
        resumed comparison passes through its stored steps quickly. `guard`:
        with regression-guard tasks, whose evaluation runs count too (`run()`
        recounts once it knows whether there are any).
        """
        spec = self.spec
        baselines = sum(1 for m in spec.methods if m in BASELINE_OF or m == "gepa")
        variants = len(spec.dc_variants()) if "dc" in spec.methods else 0
        steps = (baselines + variants) * spec.opt_runs + self.evaluation_steps()
        if guard:  # the regression guard: every evaluation run again on the guard tasks
            steps += self.evaluation_steps()
        if variants and spec.curve_eval_runs:
            series = 2 if spec.memory_ablation else 1
            steps += spec.opt_runs * (spec.iterations + 1) * series + (
                spec.opt_runs if spec.memory_ablation else 0
            )
        return steps

    def evaluation_steps(self) -> int:
        """Evaluation runs on the test tasks: OG's, then every other method's per optimization run."""
        spec = self.spec
        produced = sum(1 for m in spec.methods if m in BASELINE_OF or m == "gepa")
        produced += len(spec.dc_variants()) if "dc" in spec.methods else 0
        return (spec.runs_of("og") if "og" in spec.methods else 0) + produced * spec.opt_runs * spec.eval_runs

    def _step(self, message: str) -> None:
        """Count one finished step, report it, and stop here when cancellation was asked for."""
        self.done = min(self.done + 1, self.total)
        if self.progress:
            self.progress(self.done, self.total, message)
        self._check()

    def _check(self, stopped: bool = False) -> None:
        if stopped or self.cancelled():
            raise CompareCancelled(f"comparison {self.cid} cancelled after {self.done} of {self.total} steps")

    # ------------------------------------------------------------------ doc sets
    def baselines(self, method: str) -> list[Entry]:
        from core.baselines.service import generate_baseline
        from core.llm import default_optimizer_model

        spec, out = self.spec, []
        for s in range(spec.opt_runs):
            run = generate_baseline(
                self.wh,
                BASELINE_OF[method],
                spec.benchmark,
                domains=list(spec.domains) or None,
                tools=self.tools,
                model=spec.baseline_model or default_optimizer_model(),
                seed=s,
                split_seed=spec.split_seed,
                split_grouping=spec.split_grouping,
                bench=self.bench,
                embedder=self.embedder,
            )
            self.log(f"{LABELS[method]} run {s}: doc set {run.docset_id}{' (stored)' if run.reused else ''}")
            out.append(Entry(s, run.docset, run.run_id, run.costs))
            self._step(f"{LABELS[method]} run {s}")
        return out

    def docschisel(self, optimizer_model: str | None, memory: bool = True) -> list[Entry]:
        from core.chisel.config import OptimizeConfig
        from core.chisel.loop import Optimizer

        spec, out = self.spec, []
        for s in range(spec.opt_runs):
            engine, model = engine_for(spec, optimizer_model)
            config = OptimizeConfig.like(
                spec,
                memory=memory,
                engine=engine,
                optimizer_model=model,
                # each diagnosed trace is a model call for the LLM engine; the evidence engine reads all
                max_traces=None if engine == "evidence" else spec.max_traces,
                seed=s,
                agent=optimization_agent(spec, s),
                repeats=spec.profile_repeats,
                tools=tuple(self.tools or ()),
                headroom=None,  # the harness chose the tools (with the band) for every method
            )
            result = Optimizer(
                self.wh,
                config,
                benchmark=self.bench,
                agent_factory=self.agent_factory,
                concurrency=self.concurrency,
                log=self.log,
                cancelled=self.cancelled,
            ).run()
            self._check(result.cancelled)
            out.append(Entry(s, result.docset, result.run_id))
            self._step(f"DocsChisel{'' if memory else ' (no memory)'} run {s}")
        return out

    def gepa(self, dc: Sequence[Entry] | None) -> list[Entry]:
        """GEPA run s: DocsChisel's tools and tasks, its optimizer model, the episodes its run s spent."""
        from core.baselines.gepa_run import GepaConfig, generate_gepa
        from core.llm import default_optimizer_model
        from core.study.gepa_budget import episode_budget, task_groups

        spec, out = self.spec, []
        model = reflection_model(spec) or default_optimizer_model()
        paired = {e.opt_run: e.producer for e in dc or ()}
        for s in range(spec.opt_runs):
            split, groups = task_groups(
                self.wh,
                self.bench,
                domains=spec.domains,
                tools=self.tools,
                split_seed=spec.split_seed,
                split_grouping=spec.split_grouping,
                max_opt=spec.max_opt_tasks,
                max_val=spec.max_val_tasks,
                limit_tools=spec.limit_tools,
                min_val=spec.min_val_tasks,
                guard_val=spec.guard_val_tasks,
                seed=s,
            )
            budget, source = episode_budget(
                self.wh, paired.get(s), groups, spec.iterations, spec.profile_repeats
            )
            run = generate_gepa(
                self.wh,
                self.bench,
                groups,
                split,
                optimization_agent(spec, s),
                GepaConfig(model=model, budget=budget, seed=s),
                agent_factory=self.agent_factory,
                concurrency=self.concurrency,
                log=self.log,
                cancelled=self.cancelled,
            )
            self._check(run.cancelled)
            self.log(
                f"{LABELS['gepa']} run {s}: doc set {run.docset_id}, budget {budget} episodes ({source})"
                + (" (stored)" if run.reused else "")
            )
            out.append(Entry(s, run.docset, run.run_id, run.costs))
            self._step(f"GEPA run {s}")
        return out

    # ------------------------------------------------------------------ evaluation
    def _evaluator(self, **kw: Any) -> Any:
        """The runner-backed evaluator of this comparison (the harness's agent factory and concurrency)."""
        from core.evaluation import RunnerEvaluator

        return RunnerEvaluator(
            self.wh,
            self.bench,
            agent_factory=self.agent_factory,
            concurrency=self.concurrency,
            extra={"compare_id": self.cid},
            **kw,
        )

    def evaluate(
        self, method: str, entry: Entry, eval_run: int, tasks: Sequence[Task], kind: str = "compare", **extra
    ) -> Point:
        """One evaluation run; curve points use kind `compare-curve`, so readers can tell them apart."""
        from core.runner import RunPlan, run

        plan = RunPlan(
            self.bench,
            entry.docset,
            self.spec.eval_agent(eval_run),
            list(tasks),
            repeats=1,
            split="test",
            kind=kind,
            name=f"{kind} {method} s{entry.opt_run} e{eval_run}",
            extra={"compare_id": self.cid, "method": method, "opt_run": entry.opt_run, **extra},
        )
        res = run(
            self.wh,
            plan,
            concurrency=self.concurrency,
            agent_factory=self.agent_factory,
            cancelled=self.cancelled,
        )
        self.ran += res.ran
        self.reused += res.reused
        self._check(res.cancelled)
        m = res.metrics
        outcomes = reads.task_outcomes(self.wh, res.run_id)
        return Point(
            method,
            entry.opt_run,
            eval_run,
            m.ts,
            m.tc,
            m.n,
            res.run_id,
            entry.docset.docset_id,
            {t: ts for t, (ts, _) in outcomes.items()},
            {t: tc for t, (_, tc) in outcomes.items()},
        )

    def points(self, method: str, entries: Sequence[Entry], tasks: Sequence[Task]) -> list[Point]:
        out = []
        for entry in entries:
            for j in range(self.spec.runs_of(method)):
                p = self.evaluate(method, entry, j, tasks)
                self.log(f"  {method} s{entry.opt_run} e{j}: TS {p.ts:6.1%} TC {p.tc:6.1%}")
                out.append(p)
                self._step(f"evaluated {method} s{entry.opt_run} e{j}")
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
                    self.evaluate(f"dc-{series}", at_k, j, tasks, "compare-curve", budget=b.budget)
                    for j in range(spec.curve_eval_runs)
                ]
                rows.append(
                    curve_row(
                        series, entry.opt_run, b.budget, pts, b.changed, b.docset.docset_id, entry.producer
                    )
                )
                self.log(f"  curve {series} s{entry.opt_run} k={b.budget}: TS {rows[-1]['ts']:.1%}")
                self._step(f"curve {series} s{entry.opt_run} k={b.budget}")
        return rows

    def guard(self, entries: dict[str, list[Entry]], tasks: Sequence[Task]) -> dict[str, list[Point]]:
        """Every method's doc sets on the regression-guard tasks, evaluated as on the test tasks.

        Runs of kind `compare-guard`, so no reader mixes them into the main
        result; their episodes are the same (benchmark, task, doc set, agent,
        repeat) identities as any other, so a resumed comparison reuses them.
        """
        out: dict[str, list[Point]] = {}
        if not tasks:
            return out
        for method, es in entries.items():
            out[method] = []
            for entry in es:
                for j in range(self.spec.runs_of(method)):
                    p = self.evaluate(method, entry, j, tasks, "compare-guard")
                    self.log(f"  guard {method} s{entry.opt_run} e{j}: TS {p.ts:6.1%}")
                    out[method].append(p)
                    self._step(f"guard {method} s{entry.opt_run} e{j}")
        return out

    # ------------------------------------------------------------------ efficiency
    def efficiency(self, method: str, entries: Sequence[Entry], tools: Sequence[str]) -> dict[str, Any]:
        """Mean over the method's optimization runs of doc length and per-tool cost (Table III)."""
        lengths = doc_lengths(self.wh, [e.docset.docset_id for e in entries], tools)
        per_run: list[dict[str, float]] = []
        if method in BASELINE_OF or method == "gepa":
            per_run = [baseline_costs(e.costs) for e in entries]
        elif method.startswith("dc"):
            costs = chisel_costs(self.wh, [e.producer for e in entries])
            per_run = [costs[e.producer] for e in entries if e.producer in costs]
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

    def _measure(self, tasks: Sequence[Task], original: DocSet):
        """Produce every method's doc sets, evaluate them and draw the curves (the long part of `run`)."""
        spec = self.spec
        entries: dict[str, list[Entry]] = {}
        optimizer_of: dict[str, str | None] = {}
        for method in spec.methods:
            if method == "og":
                entries["og"] = [Entry(0, original)]
            elif method in BASELINE_OF:
                entries[method] = self.baselines(method)
            elif method == "gepa":  # after DocsChisel (METHODS order): its runs set GEPA's budgets
                entries[method] = self.gepa(entries.get("dc"))
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
        return entries, optimizer_of, points, curves

    # ------------------------------------------------------------------ main
    def run(self) -> CompareResult:
        spec, wh = self.spec, self.wh
        skipped: dict[str, str] = {}
        self.tools = compared_tools(wh, spec, self.bench, self._evaluator, skipped)
        split_id, tasks = compare_tasks(wh, spec, self.bench, self.tools)
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
        if self.tools is not None:
            self.log(f"compared tools (the methods' docs differ only there): {', '.join(self.tools)}")
        for tool, reason in sorted(skipped.items()):
            self.log(f"  skipped {tool}: {reason} (--headroom none compares it too)")
        guard = guard_tasks(wh, spec, self.bench, self.tools)
        self.total = self.planned_steps(guard=bool(guard))
        if guard:
            self.log(f"regression guard: {len(guard)} test tasks that use none of the compared tools")
        try:
            entries, optimizer_of, points, curves = self._measure(tasks, original)
            guard_points = self.guard(entries, guard)
        except CompareCancelled:
            wh.record_comparison_status(
                self.cid,
                "cancelled",
                **header,
                detail={"done": self.done, "total": self.total, "ran": self.ran},
            )
            self.log(
                f"comparison {self.cid} cancelled after {self.done} of {self.total} steps; re-run to resume"
            )
            raise
        labels = {**LABELS, **{k: f"DC ({m})" for k, m in optimizer_of.items() if k != "dc" or m}}
        per_task = per_task_outcomes(points)
        failures = {m: reads.task_failures(wh, [p.run_id for p in pts]) for m, pts in points.items()}
        flips = {
            m: flip_rows(per_task, failures, m) for m in per_task if m.startswith("dc") and "og" in per_task
        }
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
            detail={
                "runtime": spec.agent.identity().get("runtime"),
                "producers": producers,
                "ran": self.ran,
                "reused": self.reused,
                "tools": tools,
                "per_task": per_task,
                "flips": flips,
                "never_solved": never_solved(per_task, failures),
                "failure_reasons": failure_reasons(points, failures),
                "guard": guard_summary(
                    guard_points,
                    {m: reads.task_failures(wh, [p.run_id for p in pts]) for m, pts in guard_points.items()},
                    [t.task_id for t in guard],
                )
                if guard_points
                else None,
            },
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
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> CompareResult:
    """Run (or resume) a comparison and store its result; see the module docstring.

    `progress(done, total, message)` is called after every step and
    `cancelled()` is polled between and inside steps; when it returns True the
    run stops with `CompareCancelled`, having stored everything finished.
    """
    return Harness(
        warehouse,
        spec,
        bench=bench,
        data_dir=data_dir,
        agent_factory=agent_factory,
        embedder=embedder,
        log=log,
        concurrency=concurrency,
        progress=progress,
        cancelled=cancelled,
    ).run()
