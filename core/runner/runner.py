"""The evaluation runner: benchmark × doc set × agent config × tasks × repeats.

Episodes run concurrently up to a limit and are written to the warehouse as
they finish: finished episodes are grouped for at most `flush_s` (0.5 s) or 32
episodes per transaction, because a DuckDB commit costs milliseconds and with a
fast model one transaction per episode would dominate the step time. A kill
loses at most that window, and those episodes simply run again on resume.
An episode's identity is a content hash of (benchmark, task,
doc set, how its tools are rendered, agent config, repeat); before running, the runner asks the warehouse
which of the planned episodes already exist and runs only the rest. Re-running
the same command after a crash or Ctrl-C therefore finishes exactly what is
missing — nothing lost, nothing duplicated.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any

from core.agents.base import AgentConfig
from core.agents.tooling import rendering_id
from core.benchmarks.base import Benchmark, Task
from core.benchmarks.registry import benchmark_key
from core.docs import DocSet
from core.liveness import process_owner
from core.runner.episodes import AgentFactory
from core.runner.executors import EpisodeWork, Executor, default_agent_factory
from core.runner.executors import current as current_executor
from core.runner.infra import InfraFailure, RunAborted
from core.runner.metrics import Metrics, compute_metrics
from core.warehouse import Episode, Warehouse

Progress = Callable[[int, int, str], None]
FLUSH_S = 0.5
FLUSH_EPISODES = 32
CLAIM_S = 2.0  # episodes claimed at once: about this many seconds of work (see run)
WAIT_POLL_S = 0.5  # how often a run waiting for another run's episodes looks again
MAX_CONSECUTIVE_INFRA = 8  # infrastructure failures in a row that stop a run (the provider is down)
CANCEL_POLL_S = 0.5  # while episodes are in flight, how often a cancellable run asks whether to stop


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
    # tool calls executed per model reply; the excess is recorded, not run (not part of the run's key)
    max_calls_per_reply: int | None = None

    def rendering(self) -> str:
        """How the doc set's tools are shown to this config's agent (part of run and episode ids)."""
        return rendering_id(self.docset, self.config.doc_mode)

    def key(self) -> dict[str, Any]:
        return {
            "benchmark": benchmark_key(self.benchmark),
            "variant": self.variant,
            "docset_id": self.docset.docset_id,
            "rendering": self.rendering(),
            "agent": self.config.to_json(),
            # the settings' identity (model runtime, seeding): a run whose episodes would be new is a new run,
            # never one that links the earlier episodes beside them
            "config_id": self.config.config_id,
            "split": self.split,
            "tasks": sorted(t.task_id for t in self.tasks),
            "repeats": self.repeats,
            **self.extra,
        }

    def episode_ids(self) -> list[tuple[str, Task, int]]:
        out: list[tuple[str, Task, int]] = []
        if not self.tasks or self.repeats < 1:
            return out
        # hashed once, not once per episode
        bench, docset_id, config_id = (
            benchmark_key(self.benchmark),
            self.docset.docset_id,
            self.config.config_id,
        )
        rendering = self.rendering()
        for task in self.tasks:
            for r in range(self.repeats):
                eid = Episode.make_id(bench, task.task_id, docset_id, config_id, r, rendering)
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
    infra_failed: int = 0  # attempts that failed outside the agent: not episodes, run again next time


def _ledger_writes_to(ledger: Any, warehouse: Warehouse) -> bool:
    """Whether the gateway's accounting rows belong in this warehouse (its sink writes there)."""
    owner = getattr(getattr(ledger, "sink", None), "__self__", None)
    return owner is not None and getattr(owner, "path", None) == warehouse.path


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
    executor: Executor | None = None,
    traces: bool = False,
) -> RunResult:
    """Run every planned episode that is not already stored, then compute metrics.

    With `traces` the caller reads the episodes' traces, not only their outcomes: an episode restored
    from the results archive (its outcome without calls or events) is run again, and replaces the
    archived row.

    Episodes are claimed before they run (core.warehouse.runs): an identical
    run in another process skips what this one holds and reuses it when
    stored, and waits at the end for episodes another live run still holds.
    A fatal infrastructure failure (core.runner.infra) stops the run and
    raises `RunAborted`; other infrastructure failures are recorded apart and
    left for the next run.

    Episodes run on `executor` (default: the installed one, core.runner.executors);
    whichever it is, the finished records come back here and only this
    process writes them.
    """
    from core.llm import current

    bench_name = plan.benchmark.name
    warehouse.register_benchmark(bench_name, getattr(plan.benchmark, "warehouse_info", None))
    warehouse.register_docset(plan.docset, benchmark=bench_name, origin=plan.docset.name or "docset")
    _register_tools(warehouse, plan.benchmark)
    warehouse.register_tasks(bench_name, plan.tasks)
    warehouse.register_agent_config(plan.config.identity())
    warehouse.mark_interrupted()  # an earlier run of this command that was killed says so now
    run_id = warehouse.start_run(
        plan.kind, plan.key(), name=plan.name, benchmark=bench_name, parent_run=parent_run
    )

    planned = plan.episode_ids()
    done = warehouse.existing_episodes([eid for eid, _, _ in planned], traces=traces)
    warehouse.link_episodes(run_id, done)
    todo = [(eid, t, r) for eid, t, r in planned if eid not in done]
    total, finished = len(planned), len(done)
    bar = _bar(total, finished, show_progress)
    owner = f"{process_owner()}:{uuid.uuid4().hex[:8]}"  # this run; the process part tells liveness
    ledger = current().ledger
    ledger_here = _ledger_writes_to(ledger, warehouse)
    was_cancelled = False
    abort: str | None = None
    ran = reused_late = infra_failed = consecutive_infra = 0

    buffer: list = []
    infra_buffer: list[InfraFailure] = []
    claimed: set[str] = set()  # ours and not yet written
    oldest = 0.0  # when the oldest buffered result finished

    def flush() -> None:
        if not (buffer or infra_buffer):
            return
        pairs = list(buffer)
        failures = [f.row(run_id) for f in infra_buffer]
        ids = [ep.episode_id for ep, _ in pairs] + [f.episode_id for f in infra_buffer]

        def write(calls: list[dict[str, Any]]) -> None:
            warehouse.record_episodes(
                pairs, run_id=run_id, llm_calls=calls, infra_failures=failures, release=(owner, ids)
            )

        if ledger_here:
            ledger.flush_with(write)  # the calls made meanwhile land in the same transaction
        else:
            write([])
        buffer.clear()
        infra_buffer.clear()
        claimed.difference_update(ids)

    def note_progress(n: int, message: str = "") -> None:
        nonlocal finished
        finished += n
        if bar is not None and n:
            bar.update(n)
        if progress:
            progress(finished, total, message)

    queue = list(todo)
    ready: list[tuple[str, Task, int]] = []
    waiting: list[tuple[str, Task, int]] = []
    # Claims are small, so identical runs started together split the work finely, but cover
    # about CLAIM_S of work at the pace seen so far (at most FLUSH_EPISODES): a claim is a
    # transaction, and with a fast model one per few episodes cost a millisecond per step.
    base_chunk = chunk = max(4, 2 * max(1, concurrency))
    last_claim = 0.0

    def claim(items: list[tuple[str, Task, int]]) -> None:
        """Claim `items`: ours go to `ready`, stored ones are reused, held ones wait."""
        nonlocal reused_late
        by_id = {eid: (eid, t, r) for eid, t, r in items}
        got = warehouse.claim_episodes(list(by_id), run_id, owner, traces=traces)
        if got.done:
            warehouse.link_episodes(run_id, got.done)
            reused_late += len(got.done)
            note_progress(len(got.done), "reused from another run")
        claimed.update(got.mine)
        ready.extend(by_id[e] for e in got.mine)
        waiting.extend(by_id[e] for e in got.held)

    if progress:
        progress(finished, total, "resuming" if finished else "starting")
    work = EpisodeWork(
        plan.benchmark,
        plan.docset,
        plan.config,
        run_id,
        split=plan.split,
        variant=plan.variant,
        max_calls_per_reply=plan.max_calls_per_reply,
        agent_factory=agent_factory if agent_factory is not default_agent_factory else None,
    )
    session = (executor or current_executor()).open(work, max(1, concurrency)) if todo else None
    pending: set[Future] = set()
    stop = False
    try:
        while True:
            while not stop and session is not None and len(pending) < session.capacity:
                if not ready:
                    if not queue:
                        break
                    t = time.monotonic()
                    if last_claim:
                        pace = chunk / max(t - last_claim, 1e-3)  # episodes per second
                        chunk = max(base_chunk, min(FLUSH_EPISODES, int(pace * CLAIM_S)))
                    last_claim = t
                    claim(queue[:chunk])
                    del queue[:chunk]
                    continue
                if cancelled and cancelled():
                    was_cancelled = stop = True
                    break
                eid, task, r = ready.pop(0)
                pending.add(session.submit(eid, task, r))
            if not pending:
                if waiting and not stop:
                    flush()
                    if cancelled and cancelled():
                        was_cancelled = stop = True
                        continue
                    if progress:
                        progress(finished, total, f"waiting for {len(waiting)} episodes another run holds")
                    time.sleep(WAIT_POLL_S)
                    again, waiting[:] = list(waiting), []
                    claim(again)
                    continue
                break
            timeout = max(0.0, oldest + flush_s - time.monotonic()) if (buffer or infra_buffer) else None
            if cancelled is not None:
                timeout = CANCEL_POLL_S if timeout is None else min(timeout, CANCEL_POLL_S)
            finished_now, pending = wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)
            if (
                cancelled is not None
                and pending
                and (was_cancelled or (not finished_now and not stop and cancelled()))
            ):
                was_cancelled = stop = True
                if session is not None and session.abort():
                    pending = set()  # stopped where they ran: not stored, run again next time
            for fut in finished_now:
                # run_episode records agent and tool failures; an exception here is a real bug
                result = fut.result()
                if not (buffer or infra_buffer):
                    oldest = time.monotonic()
                if isinstance(result, InfraFailure):
                    infra_failed += 1
                    consecutive_infra += 1
                    if result.fatal:
                        abort = abort or result.error
                        stop = True
                    else:
                        infra_buffer.append(result)
                    if consecutive_infra >= MAX_CONSECUTIVE_INFRA and not stop:
                        abort = (
                            f"{consecutive_infra} episodes in a row failed outside the agent; "
                            f"the last: {result.error}"
                        )
                        stop = True
                    note_progress(0, result.error_class)
                    continue
                consecutive_infra = 0
                buffer.append(result)
                ran += 1
                note_progress(1)
            if (buffer or infra_buffer) and (
                len(buffer) + len(infra_buffer) >= FLUSH_EPISODES
                or time.monotonic() - oldest >= flush_s
                or not (pending or queue or ready)
            ):
                flush()
    except BaseException as exc:
        # a crash or Ctrl-C says so in the run's log at once (a kill is caught by the next command)
        status = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
        with contextlib.suppress(Exception):
            flush()
            warehouse.set_run_status(run_id, status, {"error": f"{type(exc).__name__}: {exc}"[:500]})
        raise
    finally:
        try:
            if session is not None:
                session.close()
        finally:
            flush()  # what finished is stored even when the run stops on an error
            unrun = claimed | {eid for eid, _, _ in ready}
            if unrun:
                warehouse.release_claims(unrun, owner)
    if bar is not None:
        bar.close()
    ledger.flush()  # accounting rows of this run reach the warehouse now, not at exit
    metrics = compute_metrics(warehouse, run_id)
    metrics.store(warehouse, run_id, plan.docset.docset_id, plan.split)
    summary = {
        "planned": total,
        "ran": ran,
        "ts": metrics.ts,
        "tc": metrics.tc,
        "infra_failures": infra_failed,
    }
    if abort is not None:
        warehouse.set_run_status(run_id, "failed", {**summary, "error": abort})
        raise RunAborted(abort)
    warehouse.set_run_status(run_id, "cancelled" if was_cancelled else "finished", summary)
    return RunResult(run_id, total, ran, len(done) + reused_late, was_cancelled, metrics, infra_failed)


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
