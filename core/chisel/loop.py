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
from dataclasses import replace
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import Split, get_or_create_split
from core.chisel import lineage
from core.chisel.access import GroundTruth
from core.chisel.config import OptimizeConfig
from core.chisel.decisions import (
    Candidate,
    ToolProfile,
    cross_validation,
    judge,
    judged_groups,
    misused_tools,
    outside_headroom,
    select,
    with_misuse_tasks,
)
from core.chisel.engines import make_engine
from core.chisel.engines.base import Engine, IterationRecord, Observations, ToolContext
from core.chisel.introspect import read_only_tools, signature
from core.chisel.memory import DomainMemory, outcome_of
from core.chisel.priors import priors_from_rows
from core.chisel.profile import ToolTasks, tool_tasks
from core.chisel.results import OptimizeResult, ToolResult, resumed_tool
from core.chisel.types import Diagnosis, Plan, Trace
from core.docs import DocSet, ToolDoc
from core.docs.tokens import token_length
from core.evaluation import EvalBatch, Evaluator, RunnerEvaluator
from core.warehouse import reads
from core.warehouse.rows import ChiselToolRow

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
        evaluator: Evaluator | None = None,
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
        self.evaluator = evaluator
        self.run_id = ""
        self._steps = (0, 0)  # (tools done, tools in all) for phase reports
        self._profiled: tuple[EvalBatch, EvalBatch, dict[str, Task]] | None = None  # the domain's profile

    def _phase(self, message: str) -> None:
        """Report what the run is doing now at its tool count, so a job's card moves before a tool ends."""
        if self.progress and self._steps[1]:
            self.progress(self._steps[0], self._steps[1], message)

    # ------------------------------------------------------------------ evaluation
    def _evaluator(self) -> Evaluator:
        """The runner-backed evaluator of this run (its runs are children of the optimize run)."""
        if self.evaluator is None:
            self.evaluator = RunnerEvaluator(
                self.wh,
                self.bench,
                self.config.agent,
                repeats=self.config.repeats,
                concurrency=self.concurrency,
                agent_factory=self.agent_factory,
                parent_run=self.run_id,
                extra={"optimizer_run": self.run_id},
            )
        return self.evaluator

    def _evaluate(
        self, docset: DocSet, tasks: Sequence[Task], part: str, kind: str, label: dict[str, Any]
    ) -> EvalBatch:
        return self._evaluator().evaluate(docset, tasks, part, kind=kind, label=label)

    # ------------------------------------------------------------------ main
    def run(self) -> OptimizeResult:
        t_start = time.monotonic()
        cfg = self.config
        all_tasks = self.bench.tasks()
        tasks = select_tasks(self.bench, all_tasks, domains=list(cfg.domains) or None)
        split = get_or_create_split(
            self.wh, self.key, all_tasks, seed=cfg.split_seed, grouping=cfg.split_grouping
        )
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
        groups = judged_groups(
            groups, tasks, split, cfg.min_val_tasks, cfg.guard_val_tasks, cfg.seed, cfg.pool_domain_val
        )
        gt = GroundTruth(self.wh, self.run_id, split, all_tasks, allowed=("opt",))
        study_rows = (
            reads.field_impacts(self.wh, cfg.benchmark, cfg.agent.model, cfg.agent.paradigm)
            if cfg.priors
            else []
        )
        if study_rows:
            self.log(
                f"priors: {len(study_rows)} field-study rows for {cfg.agent.model} ({cfg.agent.paradigm}) on {cfg.benchmark}"
            )
        result = OptimizeResult(self.run_id, original, original.docset_id, split.split_id)
        selected: dict[str, ToolDoc] = {}
        total_tools = sum(len(v) for v in groups.values())
        done = 0
        context = original  # the docs selected so far in this run (`in_context`), the others original
        for domain, items in groups.items():
            memory = DomainMemory(domain, enabled=cfg.memory)
            t0 = time.monotonic()
            priors = priors_from_rows(study_rows, domain)
            self._steps = (done, total_tools)
            self._phase(f"profiling {domain}: original docs on {len(items)} tools' opt and val tasks")
            prof = self._profile(domain, items, original)
            if cfg.misused_tools:
                before = len(items)
                items, prof = self._with_misused(domain, items, tasks, split, original)
                total_tools += len(items) - before
            if cfg.misuse_tasks:
                items, prof = self._with_misuse(domain, items, prof)
            if cfg.cross_val_tasks:
                items, prof = self._with_cross(domain, items)
            result.profile_minutes += (time.monotonic() - t0) / 60
            for tt in items:
                if self.cancelled():
                    result.cancelled = True
                    break
                self._steps = (done, total_tools)
                self._phase(f"optimizing {tt.tool}")
                own = {t.task_id for t in [*tt.opt, *tt.val] if tt.tool in t.tools}
                # a misused tool's headroom is the requests it draws, not its own tasks
                skip = None if tt.misused else outside_headroom(prof[tt.tool], cfg.headroom, own)
                if skip:
                    tr = self._skip_tool(tt, original[tt.tool], prof[tt.tool], skip, memory)
                    result.tools.append(tr)
                    selected[tt.tool] = tr.selected
                    done += 1
                    if self.progress:
                        self.progress(done, total_tools, tt.tool)
                    continue
                tool_prof = prof
                # only ever so with `in_context`; a tool this run already finished keeps the TS⁰ it stored
                if context.docset_id != original.docset_id and not lineage.finished_tool(
                    self.wh, self.run_id, tt.tool
                ):
                    tool_prof = {**prof, tt.tool: self._in_context_profile(tt, context, original)}
                tr = self._tool(tt, context, tool_prof, memory, gt, split, priors)
                gt.flush()
                result.tools.append(tr)
                selected[tt.tool] = tr.selected
                if cfg.in_context and tr.changed:
                    context = context.replace(tr.selected, name=f"docschisel context after {tt.tool}")
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
            "split_grouping": cfg.split_grouping,
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
        lineage.promote_candidate_docset(self.wh, final, final.name, meta)
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
        chosen = "; ".join(
            f"{r.tool}: {'candidate ' + r.selected.doc_id if r.changed else 'original kept'}"
            for r in result.tools
        )
        self.log(
            f"{status}: doc set {result.docset_id} ({sum(r.changed for r in result.tools)} of {len(result.tools)} tools changed) in {result.minutes:.1f} min"
            + (f"; selected: {chosen}" if chosen else "")
        )
        return result

    # ------------------------------------------------------------------ profiling
    def _profile(self, domain: str, items: list[ToolTasks], original: DocSet) -> dict[str, ToolProfile]:
        """Run the original docs on the domain's opt and val tasks once; per-tool views of the batches."""
        opt = {t.task_id: t for tt in items for t in tt.opt}
        val = {t.task_id: t for tt in items for t in tt.val}
        self.log(
            f"[{domain}] profiling {len(items)} tools: {len(opt)} opt + {len(val)} val tasks with the original docs"
        )

        def ordered(tasks: dict[str, Task]) -> list[Task]:
            return sorted(tasks.values(), key=lambda t: t.task_id)

        opt_batch = self._evaluate(original, ordered(opt), "opt", "chisel-profile", {"domain": domain})
        val_batch = self._evaluate(original, ordered(val), "val", "chisel-profile", {"domain": domain})
        self._profiled = (opt_batch, val_batch, {**opt, **val})
        return self._slice(items)

    def _slice(self, items: list[ToolTasks]) -> dict[str, ToolProfile]:
        """Per-tool views of the domain's profile batches (no episode is run).

        A validation task profiled in the optimization part (cross-tool validation) takes its
        original-docs outcome from the optimization batch.
        """
        assert self._profiled is not None, "_profile runs first"
        opt_batch, val_batch, _ = self._profiled
        return {
            tt.tool: ToolProfile(
                tt.tool,
                tt.domain,
                opt_batch.only(t.task_id for t in tt.opt),
                val_batch.only(t.task_id for t in tt.val).joined(opt_batch, [t.task_id for t in tt.val]),
            )
            for tt in items
        }

    def _with_cross(
        self, domain: str, items: list[ToolTasks]
    ) -> tuple[list[ToolTasks], dict[str, ToolProfile]]:
        """Each tool's validation with the other tools' optimization tasks (`decisions.cross_validation`).

        They were profiled with the original docs already, so this costs no episode here.
        """
        grown = cross_validation(items, self.config.cross_val_tasks, self.config.seed)
        for before, after in zip(items, grown, strict=True):
            if len(after.val) > len(before.val):
                self.log(
                    f"[{domain}] {after.tool}: +{len(after.val) - len(before.val)} val tasks from the other "
                    "tools' optimization tasks"
                )
        return grown, self._slice(grown)

    def _in_context_profile(self, tt: ToolTasks, context: DocSet, original: DocSet) -> ToolProfile:
        """The tool's optimization and validation tasks run with the docs selected so far (`in_context`).

        Its candidates are then judged against this outcome, not against the original docs', so a
        doc that only helps where an earlier tool's selected doc already does, or that hurts beside
        it, is not accepted. Costs one run of the tool's tasks; a resumed run reuses its episodes.
        """
        changed = [t for t in context if context[t].doc_id != original[t].doc_id]
        self.wh.register_docset(
            context,
            benchmark=self.bench.name,
            origin="docschisel-candidate",
            name=context.name,
            meta={"run_id": self.run_id, "context": changed},
        )
        label = {"tool": tt.tool, "context": True}
        opt = self._evaluate(context, tt.opt, "opt", "chisel-profile", label)
        val = self._evaluate(context, tt.val, "val", "chisel-profile", label)
        p = ToolProfile(tt.tool, tt.domain, opt, val)
        self.log(
            f"[{tt.domain}] {tt.tool}: judged beside the docs selected so far ({', '.join(changed)}): "
            f"TS val {p.base_val:.2f}, opt {p.base_opt:.2f}"
        )
        return p

    def _with_misused(
        self, domain: str, items: list[ToolTasks], tasks: Sequence[Task], split: Split, original: DocSet
    ) -> tuple[list[ToolTasks], dict[str, ToolProfile]]:
        """The tools the agent called in the optimized tools' place (`decisions.misused_tools`) join them.

        Each comes with its own optimization and validation tasks (capped as the others'), run once
        with the original docs here: they are the side where its doc must not get worse. Its misuse
        tasks are added next by `_with_misuse`, like every tool's.
        """
        assert self._profiled is not None, "_profile runs first"
        cfg = self.config
        opt_batch, val_batch, profiled = self._profiled
        chosen = misused_tools(
            items,
            [*opt_batch.traces, *val_batch.traces],
            profiled,
            cfg.misused_tools,
            list(original),
            read_only_tools(self.bench),
        )
        if not chosen:
            self.log(
                f"[{domain}] no other tool was called in the optimized tools' place on {cfg.misused_tools}+ episodes"
            )
            return items, self._slice(items)
        used = {tool for t in tasks for tool in t.tools}
        with_tasks = [t for t in chosen if t in used]  # `tool_tasks` reads no filter as every tool
        found = (
            tool_tasks(
                tasks,
                split,
                list(original),
                only_tools=with_tasks,
                max_opt=cfg.max_opt_tasks,
                max_val=cfg.max_val_tasks,
                seed=cfg.seed,
            )
            if with_tasks
            else {}
        )
        own = {tt.tool: tt for group in found.values() for tt in group}
        extra = [
            replace(own[tool], domain=domain, misused=True)
            if tool in own
            else ToolTasks(tool, domain, misused=True)
            for tool in chosen
        ]
        new_opt = {t.task_id: t for tt in extra for t in tt.opt if t.task_id not in profiled}
        new_val = {t.task_id: t for tt in extra for t in tt.val if t.task_id not in profiled}
        label = {"domain": domain, "misused": chosen}

        def profiled_too(batch: EvalBatch, new: dict[str, Task], part: str) -> EvalBatch:
            """`batch` plus the original docs' episodes of the `new` tasks of this part."""
            if not new:
                return batch
            ordered = sorted(new.values(), key=lambda t: t.task_id)
            return batch.joined(self._evaluate(original, ordered, part, "chisel-profile", label), new)

        opt_batch = profiled_too(opt_batch, new_opt, "opt")
        val_batch = profiled_too(val_batch, new_val, "val")
        self._profiled = (opt_batch, val_batch, {**profiled, **new_opt, **new_val})
        for tt in extra:
            self.log(
                f"[{domain}] {tt.tool}: optimized too, the agent called it in the optimized tools' place; "
                f"its own {len(tt.opt)} opt / {len(tt.val)} val tasks must not get worse"
            )
        grown = [*items, *extra]
        return grown, self._slice(grown)

    def _with_misuse(
        self, domain: str, items: list[ToolTasks], prof: dict[str, ToolProfile]
    ) -> tuple[list[ToolTasks], dict[str, ToolProfile]]:
        """Each tool's sets with the profiled tasks where it was called in another tool's place.

        Only tasks the profile already ran are added (`decisions.with_misuse_tasks`),
        so this costs no episode here; every candidate is then judged on them too.
        """
        assert self._profiled is not None, "_profile runs first"
        opt_batch, val_batch, tasks = self._profiled
        grown = with_misuse_tasks(
            items,
            opt_batch.traces,
            val_batch.traces,
            tasks,
            self.config.misuse_tasks,
            self.config.seed,
            read_only_tools(self.bench),
        )
        for before, after in zip(items, grown, strict=True):
            more_opt, more_val = len(after.opt) - len(before.opt), len(after.val) - len(before.val)
            if more_opt or more_val:
                self.log(
                    f"[{domain}] {after.tool}: +{more_opt} opt / +{more_val} val tasks where the original "
                    "docs had the agent call it in another tool's place"
                )
        return grown, self._slice(grown)

    def _skip_tool(
        self, tt: ToolTasks, d0: ToolDoc, p: ToolProfile, reason: str, memory: DomainMemory
    ) -> ToolResult:
        """A tool without headroom: its original doc is kept, and the summary says why."""
        resumed = lineage.finished_tool(self.wh, self.run_id, tt.tool)
        if resumed is not None:
            return resumed_tool(self.wh, resumed, tt, d0, p.base_val, p.base_opt, memory)
        self.log(f"[{tt.domain}] {tt.tool}: skipped, {reason}")
        return self._record_tool(
            tt, d0, p, d0, p.base_val, [], [], f"skipped: {reason}", memory, time.monotonic()
        )

    # ------------------------------------------------------------------ one tool
    def _tool(
        self,
        tt: ToolTasks,
        docs: DocSet,
        prof: dict[str, ToolProfile],
        memory: DomainMemory,
        gt: GroundTruth,
        split: Split,
        priors: dict | None = None,
    ) -> ToolResult:
        """Iterate on one tool's doc, select, record; a tool finished earlier in this run is restored.

        `docs` is the doc set its candidates are swapped into: the original docs, or with
        `in_context` the docs selected so far (its own doc is still the original there).
        """
        cfg = self.config
        tool, d0, p = tt.tool, docs[tt.tool], prof[tt.tool]
        resumed = lineage.finished_tool(self.wh, self.run_id, tool)
        if resumed is not None:
            self.log(f"[{tt.domain}] {tool}: already optimized in this run (resumed)")
            return resumed_tool(self.wh, resumed, tt, d0, p.base_val, p.base_opt, memory)
        t0 = time.monotonic()
        self.log(
            f"[{tt.domain}] {tool}: {len(tt.opt)} opt / {len(tt.val)} val tasks, TS0 val {p.base_val:.2f}, "
            f"opt {p.base_opt:.2f}"
        )
        if len(tt.val) < cfg.min_val_tasks:
            self.log(
                f"  note: {tool} is judged on {len(tt.val)} validation task(s), fewer than --min-val-tasks "
                f"{cfg.min_val_tasks}: there were no more to pool, so one sample more or less decides its "
                "acceptance; "
                + (
                    "optimize it beside its domain's other tools, or pass --pool-domain-val"
                    if not cfg.pool_domain_val
                    else "its domain has no more validation tasks"
                )
            )
        ctx = ToolContext(
            benchmark=self.bench,
            tool=tool,
            domain=tt.domain,
            original=d0,
            current=d0,
            docset=docs,
            iteration=0,
            seed=cfg.seed,
            gt=gt,
            signature=signature(self.bench, tool, d0),
            opt_task_ids=sorted(t.task_id for t in tt.opt),
            observations=Observations(),
            run_id=self.run_id,
            read_only=read_only_tools(self.bench),
            priors=dict(priors or {}),
        )
        ctx.observations.absorb(p.opt.traces, tool)
        failed = p.opt.failed()
        candidates: list[Candidate] = []
        agent_runs: list[str] = []
        reason = ""
        if not tt.val:
            reason = "no validation tasks: the original doc is kept"
        elif not tt.opt:
            reason = "no optimization tasks: the original doc is kept"
        for n in range(1, cfg.iterations + 1):
            if reason or self.cancelled():
                break
            if not failed:
                reason = "no failed optimization traces left"
                break
            ctx.iteration = n
            self._phase(
                f"optimizing {tt.tool}: iteration {n} of {cfg.iterations}, {len(failed)} failed traces"
            )
            step = self._iteration(ctx, failed, memory, tt, docs, p)
            if step is None:
                reason = "the diagnoses found nothing documentation could fix" if n == 1 else "no new plan"
                break
            candidate, opt_batch = step
            candidates.append(candidate)
            agent_runs += [candidate.evaluation.val_run, candidate.evaluation.opt_run]
            ctx.current = candidate.doc
            failed = opt_batch.failed()
        chosen = select(d0, p.base_val, candidates, cfg.selection)
        reason = chosen.reason + (f"; stopped: {reason}" if reason else "")
        return self._record_tool(
            tt, d0, p, chosen.doc, chosen.val_ts, candidates, agent_runs, reason, memory, t0
        )

    def _record_tool(
        self,
        tt: ToolTasks,
        d0: ToolDoc,
        p: ToolProfile,
        doc: ToolDoc,
        best_val: float,
        candidates: Sequence[Candidate],
        agent_runs: Sequence[str],
        reason: str,
        memory: DomainMemory,
        t0: float,
    ) -> ToolResult:
        """Store the tool's selection and summary (Table III columns) and return its result."""
        tool = tt.tool
        lineage.store_selection(self.wh, self.run_id, tool, doc, reason)
        result = ToolResult(
            tool=tool,
            domain=tt.domain,
            n_opt=len(tt.opt),
            n_val=len(tt.val),
            base_val_ts=p.base_val,
            base_opt_ts=p.base_opt,
            best_val_ts=best_val,
            original=d0,
            selected=doc,
            iterations=max((c.iteration for c in candidates), default=0),
            accepted=sum(1 for c in candidates if c.evaluation.accepted),
            minutes=(time.monotonic() - t0) / 60,
            optimizer_tokens=self._optimizer_tokens(tool),
            agent_tokens=reads.runs_agent_tokens(self.wh, agent_runs),
            reason=reason,
        )
        lineage.store_tool_summary(
            self.wh,
            ChiselToolRow(
                run_id=self.run_id,
                tool=tool,
                domain=tt.domain,
                n_opt=result.n_opt,
                n_val=result.n_val,
                base_val_ts=result.base_val_ts,
                base_opt_ts=result.base_opt_ts,
                best_val_ts=best_val,
                original_doc_id=d0.doc_id,
                selected_doc_id=doc.doc_id,
                iterations=result.iterations,
                accepted=result.accepted,
                minutes=result.minutes,
                optimizer_tokens=result.optimizer_tokens,
                agent_tokens=result.agent_tokens,
                doc_tokens_before=token_length(d0),
                doc_tokens_after=token_length(doc),
                detail={
                    "reason": reason,
                    "memory": {k: memory.snapshot(k) for k in memory.entries} if memory.enabled else None,
                },
            ),
        )
        chosen = next((c for c in candidates if c.doc.doc_id == doc.doc_id), None)
        named = (
            f"candidate {doc.doc_id} (iteration {chosen.iteration})" if chosen else f"candidate {doc.doc_id}"
        )
        self.log(
            f"[{tt.domain}] {tool}: selected {named if result.changed else f'the original {d0.doc_id}'} "
            f"(val TS {p.base_val:.2f} -> {best_val:.2f}); {reason}"
        )
        return result

    # ------------------------------------------------------------------ one iteration
    def _iteration(
        self,
        ctx: ToolContext,
        failed: list[Trace],
        memory: DomainMemory,
        tt: ToolTasks,
        original: DocSet,
        p: ToolProfile,
    ) -> tuple[Candidate, EvalBatch] | None:
        """diagnose -> plan -> generate -> evaluate -> judge -> record; None when there is nothing to try."""
        n = ctx.iteration
        related = self._diagnose(ctx, self._sample_traces(failed, ctx.tool, n), memory)
        if not related:
            return None
        plan = self._plan(ctx, related, memory)
        if plan is None:
            return None
        cand, notes = self.engine.generate(ctx, plan, memory)
        self.log(
            f"  it{n}: plan "
            + ", ".join(f"{o.op} {o.field}" for o in plan.operations)
            + f" -> candidate {cand.doc_id}"
        )
        val, opt = self._evaluate_candidate(ctx, cand, tt, original)
        evaluation = judge(p, val, opt)
        candidate = Candidate(cand, evaluation, token_length(cand), n)
        self._record_iteration(ctx, candidate, plan, related, notes, opt, memory, p)
        return candidate, opt

    def _sample_traces(self, failed: list[Trace], tool: str, n: int) -> list[Trace]:
        """The failed traces to diagnose: all of them, or a seeded sample of `max_traces`."""
        cfg = self.config
        traces = sorted(failed, key=lambda t: (t.task_id, t.episode_id))
        if cfg.max_traces and len(traces) > cfg.max_traces:
            import random

            traces = sorted(
                random.Random(f"{cfg.seed}:{tool}:{n}").sample(traces, cfg.max_traces),
                key=lambda t: t.task_id,
            )
        return traces

    def _diagnose(self, ctx: ToolContext, traces: list[Trace], memory: DomainMemory) -> list[Diagnosis]:
        """Diagnose every trace (all stored); return the documentation-related ones."""
        n = ctx.iteration
        diagnoses = [self.engine.diagnose(ctx, t, memory) for t in traces]
        lineage.store_diagnoses(self.wh, self.run_id, n, ctx.current, self.engine.name, diagnoses)
        related = [d for d in diagnoses if d.doc_related]
        self.log(
            f"  it{n}: {len(diagnoses)} failed traces diagnosed, {len(related)} documentation-related: "
            + ", ".join(sorted({d.failure_class for d in diagnoses}))
        )
        return related

    def _plan(self, ctx: ToolContext, related: list[Diagnosis], memory: DomainMemory) -> Plan | None:
        """Per-trace plans merged into one (all stored); None when the merged plan is empty."""
        trace_plans = [self.engine.plan(ctx, d, memory) for d in related]
        merged = self.engine.merge(ctx, trace_plans, related, memory)
        lineage.store_plans(self.wh, self.run_id, ctx.iteration, trace_plans, merged)
        if not merged.operations:
            self.log(f"  it{ctx.iteration}: empty plan ({'; '.join(merged.notes[-2:])})")
            return None
        return merged

    def _evaluate_candidate(
        self, ctx: ToolContext, cand: ToolDoc, tt: ToolTasks, original: DocSet
    ) -> tuple[EvalBatch, EvalBatch]:
        """Swap in only this tool's candidate; run its validation and optimization tasks."""
        tool, n = ctx.tool, ctx.iteration
        docset_n = original.replace(cand, name=f"docschisel candidate {tool} it{n}")
        self.wh.register_docset(
            docset_n,
            benchmark=self.bench.name,
            origin="docschisel-candidate",
            name=docset_n.name,
            meta={"run_id": self.run_id, "tool": tool, "iteration": n, "candidate": True},
            parents={tool: ctx.original.doc_id},
        )
        val = self._evaluate(docset_n, tt.val, "val", "chisel-eval", {"tool": tool})
        opt = self._evaluate(docset_n, tt.opt, "opt", "chisel-eval", {"tool": tool})
        ctx.observations.absorb(opt.traces, tool)
        return val, opt

    def _record_iteration(
        self,
        ctx: ToolContext,
        candidate: Candidate,
        plan: Plan,
        related: list[Diagnosis],
        notes: list[str],
        opt: EvalBatch,
        memory: DomainMemory,
        p: ToolProfile,
    ) -> None:
        """Store the candidate, update and store the memories, remember the iteration."""
        n, ev, cand = ctx.iteration, candidate.evaluation, candidate.doc
        lineage.store_candidate(
            self.wh,
            self.run_id,
            ctx.tool,
            n,
            cand,
            ctx.original,
            plan,
            ev,
            candidate.tokens,
            self.engine.name,
            notes,
            [d.episode_id for d in related],
        )
        reg_traces = [t for t in opt.traces if t.task_id in set(ev.regressions)]
        self.engine.update_memory(ctx, memory, related, plan, cand, ev, reg_traces)
        lineage.store_memory(self.wh, self.run_id, memory, ctx.tool, n)
        outcome = outcome_of(ev.delta, len(ev.fixed), len(ev.regressions))
        ctx.history.append(
            IterationRecord(n, [o.key() for o in plan.operations], cand.doc_id, plan, cand, ev, outcome)
        )
        self.log(
            f"  it{n}: val TS {p.base_val:.2f} -> {ev.val_ts:.2f}, opt TS {p.base_opt:.2f} -> {ev.opt_ts:.2f}, "
            f"{len(ev.fixed)} fixed, {len(ev.regressions)} regressions -> "
            f"{'passed' if ev.accepted else 'failed'} the acceptance rule"
        )

    def _optimizer_tokens(self, tool: str) -> int:
        from core.llm import current

        totals = current().ledger.totals(run_id=self.run_id, tool=tool)
        return int(totals["tokens_in"] + totals["tokens_out"])


def optimize(warehouse, config: OptimizeConfig, **kwargs: Any) -> OptimizeResult:
    """Run DocsChisel with `config`; see `Optimizer` for the keyword options."""
    return Optimizer(warehouse, config, **kwargs).run()


def default_agent(model: str | None = None, **kw: Any) -> AgentConfig:
    from core.llm import default_model

    return AgentConfig(model=model or default_model(), **kw)
