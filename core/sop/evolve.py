"""The EvoSOP loop (the paper's Algorithm 1): construct, merge, evaluate, review, checkpoint; select; test.

    result = evolve(warehouse, SopConfig(benchmark="workbench", domains=("email",)), ground_truth=factory)
    result.run_id, result.best_epoch, result.toolset, result.test

Epoch 0 runs the agent with the atomic tools on the training tasks (the
optimization split, optionally a seeded sample): its trajectories are the
constructor's input, and its scores are the atomic baseline. Mini-batches of
those tasks (seeded) feed the constructor, one batch per epoch for the first
`construct_epochs` epochs — the only place new SOPs enter. Every epoch then
merges overlapping SOPs (the parts stay), re-runs all training tasks with the
atomic tools plus the current SOPs through the evaluation seam, labels every
SOP invocation, prunes (error rate, interference, redundancy, utility) and
stores the epoch. The final toolset is the evaluated toolset of the epoch
with the best training success (ties: fewer SOPs, fewer reasoning rounds,
earlier). With `test`, that toolset and the atomic tools are evaluated on the
held-out test split — the only time test tasks are touched.

Ground truth: `ground_truth(run_id, split, tasks)` builds the caller's
audited accessor (DocsChisel's `GroundTruth`, which serves the optimization
split only and logs each read in `chisel_gt_access`); this layer cannot import
the optimizer, so the caller passes it. Without it, SOPs come from successful
trajectories alone and the reviewer judges writes without ground truth.

Variants (Table 1 / Fig. 3): `full`; `no-merge`; `no-review` (nothing is
pruned); `asi` (one-shot induction from every training trajectory at once,
one epoch, no merge, no review).

Resumable like every run: the run id is a hash of the configuration, every
evaluation reuses stored episodes, an epoch is stored in one transaction, and
a re-run continues after the last stored epoch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from core.agents.base import AgentConfig
from core.benchmarks.base import Benchmark, Call, Task
from core.benchmarks.meta import read_only_tools
from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
from core.benchmarks.splits import Split, get_or_create_split
from core.docs import DocSet
from core.evaluation import EvalBatch, RunnerEvaluator, error_output_check
from core.sop.bench import SopBenchmark, tracing_factory
from core.sop.config import (
    ALGORITHM_VERSION,
    VARIANTS,
    GoldAccess,
    GoldFactory,
    Log,
    SopConfig,
    SopResult,
    batches,
    cap_tasks,
    select_epoch,
)
from core.sop.engines import Constructor, EvidenceReviewer, Merger, Reviewer, make_engines
from core.sop.mining import Experience
from core.sop.model import Toolset, is_sop_tool
from core.sop.review import Decision, aggregate, invocations_of, prune, writes_check
from core.sop.store import EpochSummary, RunState, epoch_rows, load_state
from core.warehouse.rows import SopResultRow

__all__ = [
    "ALGORITHM_VERSION",
    "VARIANTS",
    "Evolution",
    "GoldAccess",
    "SopConfig",
    "SopResult",
    "evolve",
    "select_epoch",
]


def _summary(epoch: int, batch: EvalBatch, toolset: Toolset, **kw: Any) -> EpochSummary:
    n = len(batch.traces)
    rounds = sum(t.n_model_calls for t in batch.traces) / n if n else 0.0
    tokens = sum(t.tokens for t in batch.traces) / n if n else 0.0
    calls = sum(1 for t in batch.traces for s in t.steps if is_sop_tool(s.tool))
    return EpochSummary(
        epoch=epoch,
        toolset_id=toolset.toolset_id,
        evaluated=tuple(toolset.ids),
        ts=batch.ts,
        tc=batch.tc,
        rounds=rounds,
        n_episodes=n,
        sop_calls=calls,
        eval_run=batch.run_id,
        tokens=tokens,
        **kw,
    )


def _no_headroom(base: EpochSummary, n_train: int) -> str:
    """Why a run whose atomic agent solves none (or all) of its training tasks can hardly measure SOPs.

    The best epoch is chosen by training TS: at 0 % an SOP must solve a
    task the agent never solves alone to count at all, at 100 % nothing can
    be gained, so every epoch ties and the held-out test compares toolsets
    that were not selected for anything.
    """
    solved = "none" if base.ts == 0.0 else "all"
    return (
        f"  note: the agent solves {solved} of the {n_train} training tasks with the atomic tools "
        f"(TS {base.ts:.2f}, TC {base.tc:.2f}), so training success cannot tell SOP toolsets apart and "
        "the best epoch is a tie; domains where the agent sometimes succeeds, or a stronger agent, "
        "give the run something to measure"
    )


class Evolution:
    """One evolve run; `run()` does everything and returns the result."""

    def __init__(
        self,
        warehouse: Any,
        config: SopConfig,
        *,
        benchmark: Benchmark | None = None,
        data_dir: str | None = None,
        ground_truth: GoldFactory | None = None,
        engines: tuple[Constructor, Merger, Reviewer] | None = None,
        agent_factory: Callable | None = None,
        concurrency: int = 2,
        log: Log | None = None,
        progress: Callable[[int, int, str], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        self.wh = warehouse
        self.config = config
        self.base = benchmark or get_benchmark(config.benchmark, data_dir)
        self.key = benchmark_key(self.base)
        self.read_only = read_only_tools(self.base)
        self.ground_truth = ground_truth
        self.constructor, self.merger, self.reviewer = engines or make_engines(
            config.constructor,
            model=config.model,
            reviewer=config.reviewer,
            max_new=config.max_new,
            max_len=config.max_len,
            min_support=config.min_support,
            seed=config.seed,
            doc_links=config.doc_links,
            read_only=self.read_only,
        )
        self.agent_factory = agent_factory
        self.concurrency = concurrency
        self.log = log or (lambda _m: None)
        self.progress = progress
        self.cancelled = cancelled
        self.atomic = DocSet(self.base.original_docs().values(), name="original")
        self.is_error = error_output_check(self.base)
        self.writes = writes_check(self.base)
        self.gold: GoldAccess | None = None
        self.run_id = ""

    # ------------------------------------------------------------------ evaluation
    def _evaluate(
        self,
        toolset: Toolset,
        tasks: Sequence[Task],
        part: str,
        kind: str,
        label: dict,
        agent: AgentConfig | None = None,
    ) -> EvalBatch:
        withhold = toolset.wrapped_writes(self.read_only) if self.config.offer == "instead" else frozenset()
        bench: Benchmark = (
            self.base
            if not len(toolset)
            else SopBenchmark(self.base, toolset, limits=self.config.limits, withhold=withhold)
        )
        docs = self.atomic if not len(toolset) else toolset.docset(self.atomic)
        evaluator = RunnerEvaluator(
            self.wh,
            bench,
            agent or self.config.agent,
            repeats=self.config.repeats,
            concurrency=self.concurrency,
            agent_factory=tracing_factory(self.agent_factory) if len(toolset) else self.agent_factory,
            parent_run=self.run_id,
            extra={"sop_run": self.run_id},
            cancelled=self.cancelled,
        )
        return evaluator.evaluate(docs, tasks, part, kind=kind, label=label)

    def _gold(self, task_id: str, purpose: str) -> tuple[Call, ...] | None:
        return self.gold.calls(task_id, purpose) if self.gold is not None else None

    # ------------------------------------------------------------------ main
    def run(self) -> SopResult:
        cfg = self.config
        all_tasks = self.base.tasks()
        tasks = select_tasks(self.base, all_tasks, domains=list(cfg.domains) or None)
        split = get_or_create_split(
            self.wh, self.key, all_tasks, seed=cfg.split_seed, grouping=cfg.split_grouping
        )
        train = cap_tasks(split.tasks(tasks, "opt"), cfg.max_train_tasks, cfg.seed, "opt")
        if not train:
            raise ValueError(
                f"no training (opt split) tasks for {self.key} {list(cfg.domains) or 'all domains'}"
            )
        run_config = {**cfg.key(self.key), "split_id": split.split_id, "engines": self._engine_names()}
        self.run_id = self.wh.start_run(
            "sop", run_config, name=cfg.name or f"evosop {cfg.variant} {self.key}", benchmark=self.base.name
        )
        self.gold = self.ground_truth(self.run_id, split, all_tasks) if self.ground_truth else None
        self.log(
            f"evosop run {self.run_id}: {cfg.variant}, {len(train)} training tasks, split {split.split_id}"
        )
        state = load_state(self.wh, self.run_id)
        done = {e.epoch for e in state.epochs}
        total = cfg.n_epochs + 1 + (2 if cfg.test else 0)
        atomic_batch = self._evaluate(Toolset(), train, "opt", "sop-eval", {"epoch": 0})
        if 0 not in done:
            summary = _summary(0, atomic_batch, Toolset(), kept=())
            self.wh.record(epoch_rows(self.run_id, summary, [], {}, [], []))
            state.epochs.append(summary)
        self._progress(1, total, "epoch 0: atomic tools")
        base = next(e for e in state.epochs if e.epoch == 0)
        if base.ts in (0.0, 1.0):
            self.log(_no_headroom(base, len(train)))
        chunks = batches(
            train, len(train) if cfg.variant == "asi" else cfg.batch_size, cfg.construct_epochs, cfg.seed
        )
        batched = [t for chunk in chunks for t in chunk]
        explored = None
        if cfg.explorer is not None:
            explored = self._evaluate(
                Toolset(),
                batched,
                "opt",
                "sop-explore",
                {"epoch": 0, "explorer": cfg.explorer.model},
                agent=cfg.explorer,
            )
            if explored.cancelled:
                return self._finish(state, cancelled=True)
        experiences = self._experiences(atomic_batch, batched, explored)
        current = state.toolset(state.epochs[-1].kept) if state.epochs else Toolset()
        for epoch in range(1, cfg.n_epochs + 1):
            if self._stopped():
                return self._finish(state, cancelled=True)
            if epoch in done:
                current = state.toolset(next(e.kept for e in state.epochs if e.epoch == epoch))
                continue
            chunk = chunks[epoch - 1] if epoch - 1 < len(chunks) else []
            current = self._epoch(epoch, current, [experiences[t.task_id] for t in chunk], train, state)
            self._progress(epoch + 1, total, f"epoch {epoch}: {len(current)} SOPs kept")
        return self._finish(state, split=split, tasks=tasks, total=total)

    def _engine_names(self) -> dict[str, str]:
        return {
            "constructor": getattr(self.constructor, "name", "custom"),
            "merger": getattr(self.merger, "name", "custom"),
            "reviewer": getattr(self.reviewer, "name", "custom"),
        }

    def _experiences(
        self, batch: EvalBatch, tasks: Sequence[Task], explored: EvalBatch | None = None
    ) -> dict[str, list[Experience]]:
        """task id -> its epoch-0 traces (the target's, then the explorer's) with the gold calls (audited)."""
        out: dict[str, list[Experience]] = {t.task_id: [] for t in tasks}
        gold = {t.task_id: self._gold(t.task_id, "sop-construct") or () for t in tasks}
        traces = [*batch.traces, *(explored.traces if explored is not None else ())]
        for trace in traces:
            if trace.task_id not in out:
                continue
            out[trace.task_id].append(Experience(trace.task_id, trace, gold.get(trace.task_id, ())))
        queries = {t.task_id: t.query for t in tasks}
        for tid, exps in out.items():
            if not exps:
                exps.append(Experience(tid, None, gold.get(tid, ()), queries.get(tid, "")))
        return out

    def _epoch(
        self,
        epoch: int,
        current: Toolset,
        exps: list[list[Experience]],
        train: Sequence[Task],
        state: RunState,
    ) -> Toolset:
        cfg = self.config
        flat = [e for group in exps for e in group]
        new, rejected = ([], [])
        if flat:
            new, rejected = self.constructor.construct(
                flat, self.atomic, current, run_id=self.run_id, epoch=epoch
            )
        banned = _pruned_before(state)
        new = [s for s in new if s.tool not in current and not _is_banned(s, banned)]
        grown = current.union(new)
        merged = []
        if cfg.merge:
            merged, merge_rejected = self.merger.merge(grown, self.atomic, run_id=self.run_id, epoch=epoch)
            merged = [s for s in merged if s.tool not in grown and not _is_banned(s, banned)]
            rejected = [*rejected, *merge_rejected]
        evaluated = grown.union(merged)
        for s in (*new, *merged):
            state.born.setdefault(s.sop_id, epoch)
        batch = self._evaluate(evaluated, train, "opt", "sop-eval", {"epoch": epoch})
        if batch.cancelled:
            raise _Cancelled
        invocations = invocations_of(self.wh, batch, evaluated)
        gold = {tid: self._gold(tid, "sop-review") for tid in sorted({inv.task_id for inv in invocations})}
        by_tool = {s.tool: s for s in evaluated}
        # without the Reviewer (ablation) invocations are still labelled from the evidence, for the record
        reviewer = self.reviewer if cfg.review else EvidenceReviewer()
        reviews = [
            reviewer.review(
                inv,
                by_tool[inv.tool],
                writes=self.writes,
                is_error=self.is_error,
                gold=gold.get(inv.task_id),
                run_id=self.run_id,
            )
            for inv in invocations
        ]
        usage = aggregate(reviews, invocations, evaluated)
        state.history.append(usage)
        if cfg.review:
            decisions = prune(evaluated, state.history, cfg.rules, state.born, epoch)
        else:
            decisions = [
                Decision(s.sop_id, "kept", "no reviewer (ablation): nothing is pruned") for s in evaluated
            ]
        pruned = tuple(d.sop_id for d in decisions if d.action == "pruned")
        kept = evaluated.without(pruned)
        summary = _summary(
            epoch,
            batch,
            evaluated,
            kept=tuple(kept.ids),
            added=tuple(s.sop_id for s in new),
            merged=tuple(s.sop_id for s in merged),
            pruned=pruned,
            detail={"batch": sorted({e.task_id for e in flat}), "rejected": len(rejected)},
        )
        self.wh.record(epoch_rows(self.run_id, summary, list(evaluated), usage, reviews, decisions, rejected))
        if self.gold is not None:
            self.gold.flush()
        state.epochs.append(summary)
        state.sops.update(evaluated.by_id())
        self.log(
            f"epoch {epoch}: TS {summary.ts:.2f}, {len(evaluated)} SOPs evaluated (+{len(new)} new, "
            f"+{len(merged)} merged), {len(invocations)} invocations, pruned {len(pruned)}, "
            f"{summary.rounds:.2f} rounds/episode"
        )
        return kept

    def _stopped(self) -> bool:
        return bool(self.cancelled and self.cancelled())

    def _progress(self, done: int, total: int, message: str) -> None:
        if self.progress:
            self.progress(done, total, message)

    def _finish(
        self,
        state: RunState,
        *,
        cancelled: bool = False,
        split: Split | None = None,
        tasks: Sequence[Task] = (),
        total: int = 0,
    ) -> SopResult:
        best = select_epoch(state.epochs)
        toolset = state.toolset(best.evaluated) if best else Toolset()
        result = SopResult(
            self.run_id, list(state.epochs), best.epoch if best else 0, toolset, cancelled=cancelled
        )
        if cancelled:
            self.wh.set_run_status(self.run_id, "cancelled", {"epochs": len(state.epochs)})
            return result
        if self.config.test and split is not None:
            result.test = self._test(split, tasks, toolset)
            self._progress(total, total, "held-out test evaluated")
        base = next((e for e in state.epochs if e.epoch == 0), None)
        self.wh.record([self._result_row(result, best, base)])
        self.wh.set_run_status(
            self.run_id,
            "finished",
            {
                "best_epoch": result.best_epoch,
                "toolset_id": toolset.toolset_id,
                "n_sops": len(toolset),
                "train_ts": best.ts if best else None,
                "test": result.test,
            },
        )
        return result

    def _test(self, split: Split, tasks: Sequence[Task], toolset: Toolset) -> dict[str, Any]:
        """The final evaluation: atomic tools and the selected toolset on the same held-out test tasks."""
        test = cap_tasks(split.tasks(tasks, "test"), self.config.max_test_tasks, self.config.seed, "test")
        out: dict[str, Any] = {"n": len(test)}
        for label, ts in (("atomic", Toolset()), ("sop", toolset)):
            batch = self._evaluate(ts, test, "test", "sop-test", {"docs": label})
            n = len(batch.traces)
            out[label] = {
                "run_id": batch.run_id,
                "ts": batch.ts,
                "tc": batch.tc,
                "rounds": sum(t.n_model_calls for t in batch.traces) / n if n else 0.0,
                "n": n,
            }
        return out

    def _result_row(
        self, result: SopResult, best: EpochSummary | None, base: EpochSummary | None
    ) -> SopResultRow:
        test = result.test or {}
        sop, atomic = test.get("sop") or {}, test.get("atomic") or {}
        return SopResultRow(
            run_id=self.run_id,
            benchmark=self.key,
            variant=self.config.variant,
            engine=self.config.constructor,
            model=self.config.agent.model,
            seed=self.config.seed,
            best_epoch=result.best_epoch,
            toolset_id=result.toolset.toolset_id,
            n_sops=len(result.toolset),
            train_ts=best.ts if best else 0.0,
            base_train_ts=base.ts if base else 0.0,
            test_ts=sop.get("ts"),
            base_test_ts=atomic.get("ts"),
            test_rounds=sop.get("rounds"),
            base_test_rounds=atomic.get("rounds"),
            n_test=int(test.get("n") or 0),
            test_run=sop.get("run_id"),
            base_test_run=atomic.get("run_id"),
            detail={"domains": list(self.config.domains), "reviewer": self.config.reviewer},
        )


def _pruned_before(state: RunState) -> tuple[set[str], set[str]]:
    """(ids, pattern keys) of every SOP pruned in an earlier epoch: once crossed out, never back (Fig. 4)."""
    ids = {i for e in state.epochs for i in e.pruned}
    patterns = {state.sops[i].pattern for i in ids if i in state.sops and state.sops[i].pattern}
    return ids, patterns


def _is_banned(sop: Any, banned: tuple[set[str], set[str]]) -> bool:
    return sop.sop_id in banned[0] or bool(sop.pattern and sop.pattern in banned[1])


class _Cancelled(Exception):
    """An evaluation stopped because the job was cancelled."""


def evolve(warehouse: Any, config: SopConfig, **kw: Any) -> SopResult:
    """Run (or resume) one evolve run; see `Evolution`."""
    evo = Evolution(warehouse, config, **kw)
    try:
        return evo.run()
    except _Cancelled:
        state = load_state(warehouse, evo.run_id)
        return evo._finish(state, cancelled=True)


def with_variant(config: SopConfig, variant: str, seed: int | None = None) -> SopConfig:
    """The same run as another variant (and seed): what the ablation compares."""
    return replace(config, variant=variant, seed=config.seed if seed is None else seed)
