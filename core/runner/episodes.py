"""Run one episode end to end and turn it into an immutable trace record.

Whatever happens inside the agent — malformed model output, unknown tools, bad
arguments, tool exceptions, a timeout, even a bug in the agent — the result is a
scored Episode with its error class, never an exception that stops a run.
The one exception is a failure outside the agent (core.runner.infra): then the
result is an `InfraFailure`, which the runner records apart from episodes.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from core.agents.base import Agent, AgentConfig, EpisodeContext, EpisodeFailure
from core.agents.tooling import rendering_id
from core.benchmarks.base import SCORING_VERSION, Benchmark, Call, InfrastructureError, Score, Task
from core.benchmarks.credit import partial_credit
from core.benchmarks.registry import benchmark_key
from core.docs import DocSet
from core.redaction import redact
from core.runner.infra import InfraFailure, classify
from core.warehouse.records import Episode, Event, content_hash, now

AgentFactory = Callable[[AgentConfig], Agent]


def offered_docs(benchmark: Benchmark, task: Task, docset: DocSet, config: AgentConfig):
    """The docs of the tools offered for this task (optionally narrowed by a retriever)."""
    tools = [t for t in benchmark.tools_for(task) if t in docset]
    docs = [docset[t] for t in tools]
    if config.retrieval_k:
        from core.retrieval import top_k_docs  # retrievers live below the runner

        docs = top_k_docs(task.query, docs, k=config.retrieval_k, retriever=config.retriever or "bm25")
    return docs


def episode_config(config: AgentConfig, task_id: str, repeat: int) -> AgentConfig:
    """The configuration one episode samples with: a seed of its own, drawn from the configured
    seed, the repeat and the task (`SEEDING` in the identity says so).

    Why per task: with one seed per repeat, every task of a repeat would start from the same
    random draws, so at T > 0 their outcomes move together (one seed where the model tends to
    answer in text fails many tasks at once) and an interval that resamples tasks as independent
    would be too narrow. Repeat r of a run and a run configured with seed + r draw the same
    samples, and two doc sets evaluated with one configuration share them task by task (their
    comparison is paired). The episode is still stored under the base configuration and its
    repeat index.
    """
    if config.temperature <= 0:
        return config if repeat == 0 else replace(config, seed=config.seed + repeat)
    digest = content_hash("episode-seed", config.seed + repeat, task_id, n=8)
    return replace(config, seed=int(digest, 16) & 0x7FFFFFFF)


def run_episode(
    benchmark: Benchmark,
    task: Task,
    docset: DocSet,
    config: AgentConfig,
    repeat: int,
    *,
    run_id: str,
    agent: Agent,
    split: str = "",
    variant: str = "",
    identity: AgentConfig | None = None,
    max_calls_per_reply: int | None = None,
) -> tuple[Episode, list[Event]] | InfraFailure:
    """Execute and score one episode; never raises for agent or tool failures.

    Returns an `InfraFailure` instead of an episode when the episode failed
    for a reason outside the agent (no episode is made of it).

    `config` is what the agent runs with; `identity` (default: `config`) is
    the configuration the episode is stored under. They differ for repeats,
    which sample with their own seed (see `episode_config`).
    """
    identity = identity or config
    started_at = now()
    t0 = time.monotonic()
    docset_id, config_id = docset.docset_id, identity.config_id  # hashes: computed once
    episode_id = Episode.make_id(
        benchmark_key(benchmark),
        task.task_id,
        docset_id,
        config_id,
        repeat,
        rendering_id(docset, identity.doc_mode),
    )

    def infra(exc: InfrastructureError) -> InfraFailure:
        return InfraFailure(
            episode_id,
            benchmark.name,
            task.task_id,
            repeat,
            config.model,
            exc.error_class,
            str(redact(str(exc))),
            exc.fatal,
        )

    try:
        sandbox = benchmark.new_sandbox(task)
    except InfrastructureError as exc:
        return infra(exc)
    ctx = EpisodeContext(
        task=task,
        benchmark=benchmark,
        docs=offered_docs(benchmark, task, docset, config),
        sandbox=sandbox,
        system_prompt=benchmark.system_prompt(task),
        config=config,
        run_id=run_id,
    )
    if max_calls_per_reply is not None:
        ctx.max_calls_per_reply = max_calls_per_reply
    final: str | None = None
    error: str | None = None
    error_class: str | None = None
    try:
        final = agent.run(ctx)
        ctx.check_time()
    except EpisodeFailure as exc:
        error, error_class = str(exc), exc.error_class
    except Exception as exc:  # noqa: BLE001 - an agent bug is recorded, the run goes on
        outside = classify(exc, config.model)
        if outside is not None:
            close_sandbox(sandbox)
            return infra(outside)
        error = f"{type(exc).__name__}: {exc}"
        error_class = _classify_exception(exc)
        ctx.recorder.add("error", error=error, payload={"traceback": traceback.format_exc(limit=8)})
    else:
        if final is not None:
            ctx.recorder.add("final_answer", text=final)
    if error is not None and not any(e.kind == "error" for e in ctx.recorder.events):
        ctx.recorder.add("error", error=error, text=error_class)
    try:
        score = benchmark.score(task, list(ctx.calls), final, sandbox)
    except InfrastructureError as exc:  # e.g. the gold replay's sandbox did not start
        return infra(exc)
    except Exception as exc:  # noqa: BLE001 - a scorer failure marks the episode, it does not stop the run
        score = Score(False, False, {"error": f"scorer failed: {type(exc).__name__}: {exc}"})
        error = error or str(score.details["error"])
        error_class = error_class or "scorer_error"
    finally:
        close_sandbox(sandbox)
    details = complete_details(task, ctx.calls, score.details)
    if error_class is None and details.get("error_class"):  # the tools' server failed (an MCP crash)
        error, error_class = str(details.get("error") or details["error_class"]), str(details["error_class"])
    rec = ctx.recorder
    steps = sum(1 for e in rec.events if e.kind == "model_call")
    episode = Episode(
        episode_id=episode_id,
        run_id=run_id,
        benchmark=benchmark.name,
        task_id=task.task_id,
        domain=task.domain,
        docset_id=docset_id,
        config_id=config_id,
        repeat=repeat,
        model=config.model,
        paradigm=config.label,
        variant=variant or getattr(benchmark, "key", ""),
        split=split,
        success=bool(score.success),
        tool_correct=bool(score.tool_correct),
        score=details,
        calls=[c.to_json() for c in ctx.calls],
        final_answer=final,
        error=error,
        error_class=error_class,
        n_steps=steps,
        tokens_in=rec.tokens_in,
        tokens_out=rec.tokens_out,
        cost=rec.cost,
        latency_s=time.monotonic() - t0,
        source="run",
        started_at=started_at,
        finished_at=now(),
    )
    return episode, rec.events


def complete_details(task: Task, calls: Sequence[Call], details: Mapping[str, Any]) -> dict[str, Any]:
    """A benchmark's score details with what every stored score carries: the call-level partial
    credit that breaks ties between equal task success (core.benchmarks.credit) and the version of
    the scoring rules (so a re-score knows which episodes it brought up to date)."""
    out = dict(details)
    out.setdefault("partial", round(partial_credit(task.gold, list(calls)), 4))
    out["scoring"] = SCORING_VERSION
    return out


def close_sandbox(sandbox: object) -> None:
    """Sandboxes that hold a process (an MCP server) release it when their episode ends."""
    close = getattr(sandbox, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001, S110 - closing never fails an episode
            pass


def _classify_exception(exc: Exception) -> str:
    name = type(exc).__name__.lower()
    if "timeout" in name:
        return "timeout"
    if "json" in name or "parse" in name or "validation" in name:
        return "parse_error"
    if "ratelimit" in name or "connection" in name or "serviceunavailable" in name:
        return "provider_error"
    return "agent_error"
