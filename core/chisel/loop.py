"""The DocsChisel loop: profiling, per-tool iterations, regression-aware evaluation, selection.

    result = optimize(warehouse, OptimizeConfig(benchmark="api-bank", domains=("finance",)))
    result.docset_id, result.run_id, result.tools

For every domain, the original docs are run on each tool's optimization and
validation tasks (profiling). Then, tool by tool, each iteration diagnoses the
latest failed optimization traces, plans field operations anchored on the
original doc, generates a candidate from the original doc, and evaluates it
with only this tool's doc swapped: TS on the validation tasks, and a re-run
of the optimization tasks for new failures and regressions. A candidate is
accepted iff its validation TS is at least the original's; the domain
memories are updated either way. The selected doc per tool (best accepted
validation TS, ties to the shortest) makes a new DocSet; inputs are never
mutated.

Resumability comes from identities: the run id is a hash of the settings,
every evaluation reuses stored episodes, every lineage row has a content-hash
key, and a tool whose summary is stored is not redone. With a deterministic
engine a re-run after a crash ends exactly where an uninterrupted run would.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import Split, get_or_create_split
from core.chisel import store
from core.chisel.access import GroundTruth, load_traces, mark_error_outputs
from core.chisel.config import OptimizeConfig
from core.chisel.engine import Engine, IterationRecord, Observations, ToolContext, make_engine
from core.chisel.introspect import error_output_check, signature
from core.chisel.memory import DomainMemory, outcome_of
from core.chisel.profile import ToolTasks, tool_tasks
from core.chisel.results import OptimizeResult, ToolResult, passing, resumed_tool, select, success_rate
from core.chisel.types import Evaluation, Trace
from core.docs import DocSet, ToolDoc
from core.docs.tokens import token_length
from core.runner import RunPlan, run

Log = Callable[[str], None]


class Optimizer:
    """One optimization run; `run()` does everything and returns the result."""

    def __init__(
        self,
        warehouse,
        config: OptimizeConfig,
        *,
        benchmark: Benchmark | None = None,
        data_dir: str | None = None,
        engine: Engine | None = None,
        agent_factory: Callable | None = None,
        concurrency: int = 2,
        log: Log | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.wh = warehouse
        self.config = config
        self.bench = benchmark or get_benchmark(config.benchmark, data_dir)
        from core.llm import default_optimizer_model

        self.optimizer_model = config.optimizer_model or default_optimizer_model()
        self.engine = engine or make_engine(config.engine, self.optimizer_model, seed=config.seed)
        self.agent_factory = agent_factory
        self.concurrency = concurrency
        self.log = log or (lambda s: None)
        self.progress = progress
        self.cancelled = cancelled or (lambda: False)
        self.key = benchmark_key(self.bench)
        self.is_error = error_output_check(self.bench)
        self.run_id = ""

    # ------------------------------------------------------------------ evaluation
    def _evaluate(
        self, docset: DocSet, tasks: Sequence[Task], part: str, kind: str, label: dict[str, Any]
    ) -> tuple[str, list[Trace]]:
        plan = RunPlan(
            self.bench,
            docset,
            self.config.agent,
            list(tasks),
            repeats=self.config.repeats,
            split=part,
            kind=kind,
            name=f"{kind} {label.get('tool') or label.get('domain', '')} {part}",
            extra={"optimizer_run": self.run_id, "part": part, **label},
        )
        res = run(
            self.wh,
            plan,
            concurrency=self.concurrency,
            agent_factory=self.agent_factory,
            parent_run=self.run_id,
        )
        return res.run_id, mark_error_outputs(load_traces(self.wh, res.run_id), self.is_error)

    # ------------------------------------------------------------------ main
    def run(self) -> OptimizeResult:
        t_start = time.monotonic()
        cfg = self.config
        all_tasks = self.bench.tasks()
        tasks = select_tasks(self.bench, all_tasks, domains=list(cfg.domains) or None)
        split = get_or_create_split(self.wh, self.key, all_tasks, seed=cfg.split_seed)
        original = self.bench.original_docs()
        self.wh.register_benchmark(self.bench.name)
        self.wh.register_docset(original, benchmark=self.bench.name, origin="original", name="original")
        engine_name = getattr(self.engine, "name", "custom")
        run_config = cfg.key(self.key, engine_name, self.optimizer_model)
        run_config["split_id"] = split.split_id
        self.run_id = self.wh.start_run(
            "optimize",
            run_config,
            name=cfg.name or f"optimize {self.key} {','.join(cfg.domains) or 'all'}",
            benchmark=self.bench.name,
        )
        self.log(
            f"optimize run {self.run_id}: {self.key}, engine {engine_name}, optimizer {self.optimizer_model}, agent {cfg.agent.model} ({cfg.agent.label}), split {split.split_id}"
        )
        groups = tool_tasks(
            tasks,
            split,
            list(original),
            only_tools=cfg.tools,
            limit_tools=cfg.limit_tools,
            max_opt=cfg.max_opt_tasks,
            max_val=cfg.max_val_tasks,
            seed=cfg.seed,
        )
        gt = GroundTruth(self.wh, self.run_id, split, all_tasks, allowed=("opt",))
        result = OptimizeResult(self.run_id, original, original.docset_id, split.split_id)
        selected: dict[str, ToolDoc] = {}
        total_tools = sum(len(v) for v in groups.values())
        done = 0
        for domain, items in groups.items():
            memory = DomainMemory(domain, enabled=cfg.memory)
            t0 = time.monotonic()
            prof = self._profile(domain, items, original)
            result.profile_minutes += (time.monotonic() - t0) / 60
            for tt in items:
                if self.cancelled():
                    result.cancelled = True
                    break
                tr = self._tool(tt, original, prof, memory, gt, split)
                gt.flush()
                result.tools.append(tr)
                selected[tt.tool] = tr.selected
                done += 1
                if self.progress:
                    self.progress(done, total_tools, tt.tool)
            if result.cancelled:
                break
        final = DocSet(
            [selected.get(t, d) for t, d in original.items()],
            name=cfg.name or f"docschisel {self.key} {','.join(cfg.domains) or 'all'}",
        )
        result.docset = final
        result.minutes = (time.monotonic() - t_start) / 60
        meta = {
            "run_id": self.run_id,
            "split_id": split.split_id,
            "split_seed": cfg.split_seed,
            "engine": engine_name,
            "agent": cfg.agent.to_json(),
            "tools": {
                r.tool: {"selected": r.selected.doc_id, "original": r.original.doc_id, "reason": r.reason}
                for r in result.tools
            },
        }
        result.docset_id = self.wh.register_docset(
            final,
            benchmark=self.bench.name,
            origin="docschisel",
            name=final.name,
            meta=meta,
            parents={r.tool: r.original.doc_id for r in result.tools},
        )
        store.promote_candidate_docset(self.wh, final, final.name, meta)
        status = "cancelled" if result.cancelled else "finished"
        self.wh.set_run_status(
            self.run_id,
            status,
            {
                "docset_id": result.docset_id,
                "changed": sum(r.changed for r in result.tools),
                "minutes": result.minutes,
                "profile_minutes": result.profile_minutes,
                **meta,
            },
        )
        self.log(
            f"{status}: doc set {result.docset_id} ({sum(r.changed for r in result.tools)} of {len(result.tools)} tools changed) in {result.minutes:.1f} min"
        )
        return result

    # ------------------------------------------------------------------ profiling
    def _profile(self, domain: str, items: list[ToolTasks], original: DocSet) -> dict[str, dict[str, Any]]:
        """Run the original docs on the domain's opt and val tasks once; per-tool views of the traces."""
        opt = {t.task_id: t for tt in items for t in tt.opt}
        val = {t.task_id: t for tt in items for t in tt.val}
        self.log(
            f"[{domain}] profiling {len(items)} tools: {len(opt)} opt + {len(val)} val tasks with the original docs"
        )
        opt_run, opt_traces = self._evaluate(
            original,
            sorted(opt.values(), key=lambda t: t.task_id),
            "opt",
            "chisel-profile",
            {"domain": domain},
        )
        val_run, val_traces = self._evaluate(
            original,
            sorted(val.values(), key=lambda t: t.task_id),
            "val",
            "chisel-profile",
            {"domain": domain},
        )
        out = {}
        for tt in items:
            o_ids = {t.task_id for t in tt.opt}
            v_ids = {t.task_id for t in tt.val}
            out[tt.tool] = {
                "opt": [t for t in opt_traces if t.task_id in o_ids],
                "val": [t for t in val_traces if t.task_id in v_ids],
                "opt_run": opt_run,
                "val_run": val_run,
            }
        return out

    # ------------------------------------------------------------------ one tool
    def _tool(
        self, tt: ToolTasks, original: DocSet, prof: dict, memory: DomainMemory, gt: GroundTruth, split: Split
    ) -> ToolResult:
        cfg = self.config
        tool, d0 = tt.tool, original[tt.tool]
        p = prof[tool]
        base_val, base_opt = success_rate(p["val"]), success_rate(p["opt"])
        d0_pass = passing(p["opt"])
        resumed = store.finished_tool(self.wh, self.run_id, tool)
        if resumed is not None:
            self.log(f"[{tt.domain}] {tool}: already optimized in this run (resumed)")
            return resumed_tool(self.wh, resumed, tt, d0, base_val, base_opt, memory)
        t0 = time.monotonic()
        self.log(
            f"[{tt.domain}] {tool}: {len(tt.opt)} opt / {len(tt.val)} val tasks, TS0 val {base_val:.2f}, opt {base_opt:.2f}"
        )
        ctx = ToolContext(
            benchmark=self.bench,
            tool=tool,
            domain=tt.domain,
            original=d0,
            current=d0,
            docset=original,
            iteration=0,
            seed=cfg.seed,
            gt=gt,
            signature=signature(self.bench, tool, d0),
            opt_task_ids=sorted(t.task_id for t in tt.opt),
            observations=Observations(),
            run_id=self.run_id,
        )
        ctx.observations.absorb(p["opt"], tool)
        failed = [t for t in p["opt"] if not t.success]
        candidates: list[tuple[ToolDoc, Evaluation, int, int]] = []  # doc, evaluation, tokens, iteration
        eval_runs: list[str] = [p["opt_run"], p["val_run"]]
        reason = ""
        iterations_run = 0
        if not tt.val:
            reason = "no validation tasks: the original doc is kept"
        elif not tt.opt:
            reason = "no optimization tasks: the original doc is kept"
        for n in range(1, cfg.iterations + 1):
            if reason or self.cancelled():
                break
            if not failed:
                reason = reason or "no failed optimization traces left"
                break
            ctx.iteration = n
            step = self._iteration(ctx, failed, memory, tt, original, base_val, base_opt, d0_pass)
            if step is None:
                reason = "the diagnoses found nothing documentation could fix" if n == 1 else "no new plan"
                break
            cand, evaluation, new_failed = step
            iterations_run = n
            eval_runs += [evaluation.val_run, evaluation.opt_run]
            candidates.append((cand, evaluation, token_length(cand), n))
            ctx.current = cand
            failed = new_failed
        doc, best_val, why = select(d0, base_val, candidates, cfg.selection)
        reason = f"{why}" + (f"; stopped: {reason}" if reason else "")
        store.store_selection(self.wh, self.run_id, tool, doc, reason)
        minutes = (time.monotonic() - t0) / 60
        opt_tokens = self._optimizer_tokens(tool)
        agent_tokens = self._agent_tokens(eval_runs[2:])
        accepted = sum(1 for _, e, _, _ in candidates if e.accepted)
        store.store_tool_summary(
            self.wh,
            {
                "run_id": self.run_id,
                "tool": tool,
                "domain": tt.domain,
                "n_opt": len(tt.opt),
                "n_val": len(tt.val),
                "base_val_ts": base_val,
                "base_opt_ts": base_opt,
                "best_val_ts": best_val,
                "original_doc_id": d0.doc_id,
                "selected_doc_id": doc.doc_id,
                "iterations": iterations_run,
                "accepted": accepted,
                "minutes": minutes,
                "optimizer_tokens": opt_tokens,
                "agent_tokens": agent_tokens,
                "doc_tokens_before": token_length(d0),
                "doc_tokens_after": token_length(doc),
                "detail": {
                    "reason": reason,
                    "memory": {k: memory.snapshot(k) for k in memory.entries} if memory.enabled else None,
                },
            },
        )
        self.log(
            f"[{tt.domain}] {tool}: selected {'a candidate' if doc.doc_id != d0.doc_id else 'the original'} (val TS {base_val:.2f} -> {best_val:.2f}); {reason}"
        )
        return ToolResult(
            tool,
            tt.domain,
            len(tt.opt),
            len(tt.val),
            base_val,
            base_opt,
            best_val,
            d0,
            doc,
            iterations_run,
            accepted,
            minutes,
            opt_tokens,
            agent_tokens,
            reason,
        )

    def _iteration(
        self,
        ctx: ToolContext,
        failed: list[Trace],
        memory: DomainMemory,
        tt: ToolTasks,
        original: DocSet,
        base_val: float,
        base_opt: float,
        d0_pass: dict[str, bool],
    ):
        cfg, n, tool = self.config, ctx.iteration, ctx.tool
        traces = sorted(failed, key=lambda t: (t.task_id, t.episode_id))
        if cfg.max_traces and len(traces) > cfg.max_traces:
            import random

            traces = sorted(
                random.Random(f"{cfg.seed}:{tool}:{n}").sample(traces, cfg.max_traces),
                key=lambda t: t.task_id,
            )
        diagnoses = [self.engine.diagnose(ctx, t, memory) for t in traces]
        store.store_diagnoses(self.wh, self.run_id, n, ctx.current, self.engine.name, diagnoses)
        related = [d for d in diagnoses if d.doc_related]
        self.log(
            f"  it{n}: {len(diagnoses)} failed traces diagnosed, {len(related)} documentation-related: "
            + ", ".join(sorted({d.failure_class for d in diagnoses}))
        )
        if not related:
            return None
        trace_plans = [self.engine.plan(ctx, d, memory) for d in related]
        merged = self.engine.merge(ctx, trace_plans, related, memory)
        store.store_plans(self.wh, self.run_id, n, trace_plans, merged)
        if not merged.operations:
            self.log(f"  it{n}: empty plan ({'; '.join(merged.notes[-2:])})")
            return None
        cand, notes = self.engine.generate(ctx, merged, memory)
        self.log(
            f"  it{n}: plan "
            + ", ".join(f"{o.op} {o.field}" for o in merged.operations)
            + f" -> candidate {cand.doc_id}"
        )
        docset_n = original.replace(cand, name=f"docschisel candidate {tool} it{n}")
        self.wh.register_docset(
            docset_n,
            benchmark=self.bench.name,
            origin="docschisel-candidate",
            name=docset_n.name,
            meta={"run_id": self.run_id, "tool": tool, "iteration": n, "candidate": True},
            parents={tool: ctx.original.doc_id},
        )
        val_run, val_traces = self._evaluate(docset_n, tt.val, "val", "chisel-eval", {"tool": tool})
        opt_run, opt_traces = self._evaluate(docset_n, tt.opt, "opt", "chisel-eval", {"tool": tool})
        ctx.observations.absorb(opt_traces, tool)
        now_pass = passing(opt_traces)
        regressions = sorted(t for t, ok in d0_pass.items() if ok and not now_pass.get(t, False))
        fixed = sorted(t for t, ok in d0_pass.items() if not ok and now_pass.get(t, False))
        new_failed = [t for t in opt_traces if not t.success]
        val_ts = success_rate(val_traces)
        evaluation = Evaluation(
            val_ts=val_ts,
            base_val_ts=base_val,
            opt_ts=success_rate(opt_traces),
            base_opt_ts=base_opt,
            val_run=val_run,
            opt_run=opt_run,
            new_failures=sorted(t.episode_id for t in new_failed),
            regressions=regressions,
            fixed=fixed,
            accepted=val_ts >= base_val,
        )
        store.store_candidate(
            self.wh,
            self.run_id,
            tool,
            n,
            cand,
            ctx.original,
            merged,
            evaluation,
            token_length(cand),
            self.engine.name,
            notes,
            [d.episode_id for d in related],
        )
        reg_traces = [t for t in opt_traces if t.task_id in set(regressions)]
        self.engine.update_memory(ctx, memory, related, merged, cand, evaluation, reg_traces)
        store.store_memory(self.wh, self.run_id, memory, tool, n)
        outcome = outcome_of(val_ts - base_val, len(fixed), len(regressions))
        ctx.history.append(
            IterationRecord(
                n, [o.key() for o in merged.operations], cand.doc_id, merged, cand, evaluation, outcome
            )
        )
        self.log(
            f"  it{n}: val TS {base_val:.2f} -> {val_ts:.2f}, opt TS {base_opt:.2f} -> {evaluation.opt_ts:.2f}, "
            f"{len(fixed)} fixed, {len(regressions)} regressions -> {'accepted' if evaluation.accepted else 'rejected'}"
        )
        return cand, evaluation, new_failed

    def _optimizer_tokens(self, tool: str) -> int:
        from core.llm import current

        totals = current().ledger.totals(run_id=self.run_id, tool=tool)
        return int(totals["tokens_in"] + totals["tokens_out"])

    def _agent_tokens(self, run_ids: Sequence[str]) -> int:
        if not run_ids:
            return 0
        return int(
            self.wh.scalar(
                """SELECT coalesce(sum(e.tokens_in + e.tokens_out), 0) FROM episodes e
                   WHERE e.episode_id IN (SELECT episode_id FROM run_episodes WHERE run_id IN (SELECT unnest(?::VARCHAR[])))""",
                [list(dict.fromkeys(run_ids))],
            )
            or 0
        )


def optimize(warehouse, config: OptimizeConfig, **kwargs: Any) -> OptimizeResult:
    """Run DocsChisel with `config`; see `Optimizer` for the keyword options."""
    return Optimizer(warehouse, config, **kwargs).run()


def default_agent(model: str | None = None, **kw: Any) -> AgentConfig:
    from core.llm import default_model

    return AgentConfig(model=model or default_model(), **kw)
