"""`docschisel eval`: run an agent on a benchmark split with a doc set and report TS/TC."""

from __future__ import annotations

import os
import random

import click

from core.cli.common import (
    benchmark_option,
    data_dir_option,
    executor_options,
    open_warehouse,
    split_csv,
    split_grouping_option,
    tasks_option,
    warehouse_option,
    with_tasks,
)


def sample_tasks(tasks: list, limit: int | None, seed: int) -> list:
    """A seeded sample of `limit` tasks (stable for a seed), in task-id order."""
    if not limit or limit >= len(tasks):
        return list(tasks)
    chosen = random.Random(seed).sample(sorted(tasks, key=lambda t: t.task_id), limit)
    return sorted(chosen, key=lambda t: t.task_id)


def job_hooks(warehouse):
    """Progress and cancellation hooks when running as a dashboard job (DOCSCHISEL_JOB_ID)."""
    job_id = os.environ.get("DOCSCHISEL_JOB_ID")
    if not job_id:
        return None, None
    from core.jobs import cancel_requested, report_progress

    def progress(done: int, total: int, message: str) -> None:
        report_progress(warehouse, job_id, done, total, message)

    return progress, (lambda: cancel_requested(warehouse, job_id))


@click.command(context_settings={"show_default": True})
@benchmark_option
@tasks_option
@click.option("--domain", "-d", "domains", default="", help="Comma-separated domains (default: all).")
@click.option("--tools", "tools", default="", help="Only tasks whose ground truth uses one of these tools.")
@click.option("--agent", "paradigm", type=click.Choice(["react", "multi"]), default="react")
@click.option(
    "--doc-mode",
    type=click.Choice(["native", "text"]),
    default="native",
    help="Docs as native tool schemas or as text in the prompt.",
)
@click.option(
    "--model",
    "-m",
    default=None,
    help="Any litellm model; default $DOCSCHISEL_MODEL or local/qwen2.5-coder-0.5b.",
)
@click.option(
    "--docs", default="original", help="original | doc-set id | optimize/eval run id | doc JSON file."
)
@click.option(
    "--against",
    default=None,
    help="Also run these docs (doc-set id, run id, file) first on the same tasks and seeds, for a paired comparison.",
)
@click.option("--split", type=click.Choice(["opt", "val", "test", "all"]), default="test")
@click.option("--repeats", "-r", type=int, default=1)
@click.option("--limit", type=int, default=None, help="Seeded sample of N tasks.")
@click.option("--seed", type=int, default=0, help="Seed of the split and of the task sample.")
@split_grouping_option
@click.option("--temperature", type=float, default=0.0)
@click.option("--max-steps", type=int, default=6)
@click.option("--time-limit", type=float, default=180.0, help="Seconds per episode.")
@click.option("--concurrency", "-j", type=int, default=2)
@click.option("--retrieval-k", type=int, default=None, help="Offer only the top-k retrieved tools.")
@click.option("--retriever", type=click.Choice(["bm25", "dense"]), default=None)
@click.option(
    "--max-calls-per-reply",
    type=click.IntRange(min=1),
    default=None,
    help="Tool calls run per model reply; the excess is recorded, not run "
    "(default $DOCSCHISEL_MAX_CALLS_PER_REPLY or 8).",
)
@executor_options
@warehouse_option
@data_dir_option
def command(
    benchmark: str,
    tasks_file: str | None,
    domains: str,
    tools: str,
    paradigm: str,
    doc_mode: str,
    model: str | None,
    docs: str,
    against: str | None,
    split: str,
    repeats: int,
    limit: int | None,
    seed: int,
    split_grouping: str,
    temperature: float,
    max_steps: int,
    time_limit: float,
    concurrency: int,
    retrieval_k: int | None,
    retriever: str | None,
    max_calls_per_reply: int | None,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Evaluate a doc set. Prints TS and TC overall, per domain (when there are several or --domain
    is given) and per tool (over the episodes of tasks whose ground truth uses the tool), then the
    run id."""
    from core.agents import AgentConfig
    from core.benchmarks.registry import benchmark_key, get_benchmark, select_tasks
    from core.benchmarks.splits import get_or_create_split
    from core.llm import default_model
    from core.runner import RunPlan, run
    from core.runner.docsource import resolve_docs

    wh = open_warehouse(warehouse)
    benchmark = with_tasks(benchmark, tasks_file)
    bench = get_benchmark(benchmark, data_dir)
    all_tasks = bench.tasks()
    tasks = select_tasks(bench, all_tasks, domains=split_csv(domains), tools=split_csv(tools))
    if split != "all":
        the_split = get_or_create_split(
            wh, benchmark_key(bench), all_tasks, seed=seed, grouping=split_grouping
        )
        tasks = the_split.tasks(tasks, split)
    tasks = sample_tasks(tasks, limit, seed)
    if not tasks:
        raise click.UsageError("no task matches the benchmark/domain/tools/split selection")
    docset = resolve_docs(wh, bench, docs)
    config = AgentConfig(
        paradigm=paradigm,
        model=model or default_model(),
        doc_mode=doc_mode,
        temperature=temperature,
        max_steps=max_steps,
        time_limit_s=time_limit,
        seed=seed,
        retrieval_k=retrieval_k,
        retriever=retriever,
    )
    click.echo(
        f"{benchmark_key(bench)}: {len(tasks)} tasks × {repeats} repeats, docs {docset.name or docs} "
        f"({docset.docset_id}), agent {config.label}, model {config.model}"
    )
    progress, cancelled = job_hooks(wh)

    def plan_for(ds, ref: str) -> RunPlan:
        return RunPlan(
            bench,
            ds,
            config,
            tasks,
            repeats=repeats,
            split=split,
            name=f"eval {benchmark} {','.join(split_csv(domains)) or 'all'} {ref}",
            extra={
                "split_seed": seed,
                "docs_ref": ds.docset_id,
                # evaluations on the task-level split keep the run ids they had before grouping existed
                **({"split_grouping": split_grouping} if split != "all" and split_grouping != "task" else {}),
            },
            max_calls_per_reply=max_calls_per_reply,
        )

    plan = plan_for(docset, docs)
    offset, grand = 0, len(tasks) * repeats * (2 if against else 1)
    if against:
        # the docs being replaced, on the same tasks with the same agent config (same seeds): the
        # episodes pair one to one, and stored ones are reused
        old = resolve_docs(wh, bench, against)
        say = progress and (lambda d, _t, m: progress(d, grand, f"old docs: {m}" if m else "old docs"))
        before = run(wh, plan_for(old, against), concurrency=concurrency, show_progress=progress is None,
                     progress=say, cancelled=cancelled)  # fmt: skip
        click.echo(f"old docs {old.docset_id} run {before.run_id}: {before.metrics.summary()}")
        offset = len(tasks) * repeats
        if before.cancelled:
            click.echo("cancelled before the new docs ran")
            return
    then = progress and (lambda d, _t, m: progress(offset + d, grand, f"new docs: {m}" if m else "new docs"))
    result = run(
        wh,
        plan,
        concurrency=concurrency,
        show_progress=progress is None,
        progress=then if against else progress,
        cancelled=cancelled,
    )
    m = result.metrics
    click.echo(
        f"run {result.run_id}: {m.summary()}  [{result.ran} run, {result.reused} reused"
        + (", cancelled" if result.cancelled else "")
        + "]"
    )
    if len(m.by_domain) > 1 or domains:
        for r in m.by_domain.itertuples(index=False):
            click.echo(f"  {r.domain:<24} TS {r.ts:6.1%}  TC {r.tc:6.1%}  n={r.n}")
    if len(m.by_tool):
        click.echo("  per tool (the episodes of tasks whose ground truth uses it):")
        for r in m.by_tool.itertuples(index=False):
            click.echo(f"    {r.tool:<30} TS {r.ts:6.1%}  TC {r.tc:6.1%}  n={r.n}")
    click.echo(f"run id: {result.run_id}")
    if result.infra_failed:
        # not the agent's failures: not counted in TS/TC, and the next run of this command retries them
        click.secho(
            f"{result.infra_failed} episode(s) failed outside the agent (provider or sandbox) and are not "
            "counted; run the same command again to retry them (see `docschisel warehouse failures`)",
            fg="yellow",
            err=True,
        )
        raise SystemExit(3)
