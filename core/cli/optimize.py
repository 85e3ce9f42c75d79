"""`docschisel optimize`: run DocsChisel on a benchmark's tools and print per-tool results."""

from __future__ import annotations

import shlex

import click

from core.cli.common import (
    benchmark_option,
    cross_val_option,
    data_dir_option,
    executor_options,
    guard_val_option,
    headroom_option,
    in_context_option,
    misuse_option,
    misused_option,
    open_warehouse,
    split_csv,
    split_grouping_option,
    target_agent_options,
    tasks_option,
    warehouse_option,
    with_tasks,
)


@click.command(context_settings={"show_default": True})
@benchmark_option
@tasks_option
@click.option("--domain", "-d", "domains", default="", help="Comma-separated task domains (default: all).")
@click.option("--tools", "tools", default="", help="Only optimize these tools (comma-separated).")
@click.option(
    "--limit-tools", type=int, default=None, help="At most N tools per domain (those with the most tasks)."
)
@target_agent_options
@click.option("--iterations", "-n", type=int, default=5, help="Optimization iterations per tool.")
@click.option("--no-memory", is_flag=True, help="Disable the domain memories (the paper's NoMem ablation).")
@click.option(
    "--engine",
    type=click.Choice(["auto", "evidence", "llm"]),
    default="auto",
    help="auto: the LLM engine whenever the optimizer model can run (hosted, or a local model that is installed), else the evidence engine.",
)
@click.option("--optimizer-model", default=None, help="Model of the LLM engine (any litellm model).")
@click.option(
    "--seed", type=int, default=0, help="Optimizer seed (task samples, example choice, LLM sampling)."
)
@click.option(
    "--split-seed",
    type=int,
    default=0,
    help="Seed of the stored opt/val/test split (eval --seed must match).",
)
@click.option(
    "--repeats", "-r", type=int, default=3, help="Samples per task in profiling and candidate evaluation."
)
@click.option(
    "--temperature",
    type=float,
    default=0.7,
    help="The target agent's sampling temperature (each repeat its own seed).",
)
@headroom_option
@split_grouping_option
@click.option(
    "--min-val-tasks",
    type=int,
    default=4,
    help="A tool with fewer validation tasks is judged on its domain's pooled validation tasks (0: never).",
)
@click.option(
    "--pool-domain-val",
    is_flag=True,
    help="Pool from every validation task of the domain that calls a tool, not only from the tools optimized "
    "together (for a tool optimized alone with --tools).",
)
@guard_val_option
@misuse_option
@misused_option
@cross_val_option
@in_context_option
@click.option("--max-opt-tasks", type=int, default=None, help="Seeded cap on optimization tasks per tool.")
@click.option("--max-val-tasks", type=int, default=None, help="Seeded cap on validation tasks per tool.")
@click.option(
    "--max-traces", type=int, default=None, help="Failed traces diagnosed per iteration (seeded sample)."
)
@click.option(
    "--selection",
    type=click.Choice(["evidence", "paper"]),
    default="evidence",
    help="paper: best validation TS, ties to the shortest; evidence (default): validation ties broken by "
    "the optimization set, and a candidate that improves neither is not selected.",
)
@click.option("--concurrency", "-j", type=int, default=2)
@click.option("--name", default="", help="Label of the run and of the optimized doc set.")
@executor_options
@warehouse_option
@data_dir_option
def command(
    benchmark: str,
    tasks_file: str | None,
    domains: str,
    tools: str,
    limit_tools: int | None,
    model: str | None,
    paradigm: str,
    doc_mode: str,
    max_steps: int,
    time_limit: float,
    iterations: int,
    no_memory: bool,
    engine: str,
    optimizer_model: str | None,
    seed: int,
    split_seed: int,
    split_grouping: str,
    repeats: int,
    temperature: float,
    headroom: tuple[float, float] | None,
    min_val_tasks: int,
    pool_domain_val: bool,
    guard_val_tasks: int,
    misuse_tasks: int,
    misused_tools: int,
    cross_val_tasks: int,
    in_context: bool,
    max_opt_tasks: int | None,
    max_val_tasks: int | None,
    max_traces: int | None,
    selection: str,
    concurrency: int,
    name: str,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Optimize tool docs with DocsChisel; prints per-tool results, the run id and the doc-set id.

    Evaluate the result on the held-out test split with
    `docschisel eval --docs <run-id> --split test --seed <split-seed> --split-grouping <grouping>`.
    """
    from core.agents import AgentConfig
    from core.chisel import OptimizeConfig
    from core.chisel.loop import Optimizer
    from core.cli.evaluate import job_hooks
    from core.llm import default_model

    wh = open_warehouse(warehouse)
    given, benchmark = benchmark, with_tasks(benchmark, tasks_file)
    agent = AgentConfig(
        paradigm=paradigm,
        model=model or default_model(),
        doc_mode=doc_mode,
        max_steps=max_steps,
        time_limit_s=time_limit,
        temperature=temperature,
    )
    if misused_tools and not misuse_tasks:
        raise click.UsageError(
            "--misused-tools needs --misuse-tasks: a misused tool is judged on its misuse tasks"
        )
    try:
        config = OptimizeConfig(
            benchmark=benchmark,
            domains=tuple(split_csv(domains)),
            tools=tuple(split_csv(tools)),
            limit_tools=limit_tools,
            agent=agent,
            iterations=iterations,
            memory=not no_memory,
            engine=engine,
            optimizer_model=optimizer_model,
            seed=seed,
            split_seed=split_seed,
            split_grouping=split_grouping,
            repeats=repeats,
            max_opt_tasks=max_opt_tasks,
            max_val_tasks=max_val_tasks,
            max_traces=max_traces,
            selection=selection,
            headroom=headroom,
            min_val_tasks=min_val_tasks,
            pool_domain_val=pool_domain_val,
            guard_val_tasks=guard_val_tasks,
            misuse_tasks=misuse_tasks,
            misused_tools=misused_tools,
            cross_val_tasks=cross_val_tasks,
            in_context=in_context,
            name=name,
        )
    except ValueError as exc:  # settings that cannot go together: a usage problem, not a crash
        raise click.UsageError(str(exc)) from exc
    progress, cancelled = job_hooks(wh)
    opt = Optimizer(
        wh,
        config,
        data_dir=data_dir,
        concurrency=concurrency,
        log=click.echo,
        progress=progress,
        cancelled=cancelled,
    )
    try:
        result = opt.run()
    except KeyError as exc:  # unknown domain or tool: a usage problem, not a crash
        raise click.UsageError(str(exc.args[0] if exc.args else exc)) from exc
    click.echo("")
    click.echo(
        f"{'tool':<40} {'domain':<14} {'opt':>4} {'val':>4} {'TS0 val':>8} {'best val':>8} {'tokens':>11} {'min':>6}"
    )
    for r in result.tools:
        from core.docs.tokens import token_length

        tokens = f"{token_length(r.original)}->{token_length(r.selected)}"
        click.echo(
            f"{r.tool:<40} {r.domain:<14} {r.n_opt:>4} {r.n_val:>4} {r.base_val_ts:>8.2f} {r.best_val_ts:>8.2f} "
            f"{tokens:>11} {r.minutes:>6.1f}  {'changed' if r.changed else 'original'}"
        )
    skipped = [r for r in result.tools if r.reason.startswith("skipped:")]
    if skipped:
        click.echo("")
        click.echo(f"skipped {len(skipped)} tool(s) without headroom (--headroom none optimizes them too):")
        for r in skipped:
            click.echo(f"  {r.tool}: {r.reason.removeprefix('skipped: ')}")
    click.echo("")
    click.echo(f"run id: {result.run_id}")
    click.echo(f"optimized doc set: {result.docset_id}")
    click.echo(
        f"next: docschisel eval --benchmark {shlex.quote(given)}"
        + (f" --tasks {shlex.quote(tasks_file)}" if tasks_file else "")
        + f" --docs {result.run_id} --split test --seed {split_seed} --split-grouping {split_grouping}"
        + (f" --domain {domains}" if domains else "")
    )
