"""`docschisel compare`: OG / EasyTool / DRAFT / DocsChisel / GEPA on the same held-out test tasks.

`docschisel compare --benchmark ... [options]` runs (or resumes) a comparison
and prints its tables; `docschisel compare show` prints the stored latest one.
"""

from __future__ import annotations

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
    warehouse_option,
)

METHOD_CHOICES = ("og", "et", "drt", "dc", "gepa")


def _methods(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    chosen = tuple(split_csv(value.lower()))
    bad = [m for m in chosen if m not in METHOD_CHOICES]
    if bad or not chosen:
        raise click.BadParameter(
            f"{', '.join(bad) or 'nothing given'}: choose from {', '.join(METHOD_CHOICES)}", ctx, param
        )
    return chosen


@click.group(invoke_without_command=True, context_settings={"show_default": True})
@benchmark_option
@click.option("--domain", "-d", "domains", default="", help="Comma-separated task domains (default: all).")
@click.option(
    "--methods",
    default="og,et,drt,dc",
    callback=_methods,
    help="Methods to compare: og, et, drt, dc, gepa (GEPA gets the target-agent episodes the DocsChisel run "
    "with the same seed spent, and reflects with DocsChisel's optimizer model).",
)
@click.option("--opt-runs", type=click.IntRange(min=1), default=3, help="Optimization runs per method.")
@click.option(
    "--eval-runs", type=click.IntRange(min=1), default=5, help="Evaluation runs per doc set (seed = run)."
)
@click.option(
    "--og-eval-runs",
    type=click.IntRange(min=0),
    default=0,
    help="Evaluation runs of the original docs (0 = --eval-runs). OG has one doc set where the others have "
    "--opt-runs: --opt-runs × --eval-runs measures its per-task rate on as many samples as theirs.",
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=20, help="Seeded sample of N test tasks (0 = all)."
)
@click.option(
    "--limit-tools",
    type=click.IntRange(min=1),
    default=None,
    help="Per domain, only the N tools with the most opt/val tasks (DocsChisel's --limit-tools); EasyTool and "
    "DRAFT document the same tools and the test tasks are those that use them.",
)
@target_agent_options
@click.option(
    "--temperature",
    type=click.FloatRange(min=0, min_open=True),
    default=0.7,
    help="Sampling temperature of the evaluation runs.",
)
@click.option(
    "--iterations", "-n", type=click.IntRange(min=0), default=5, help="DocsChisel iterations per tool."
)
@click.option(
    "--optimizer-model",
    "optimizer_models",
    multiple=True,
    help="DocsChisel optimizer model; repeat for the per-model table (Table IV); 'evidence' is the evidence "
    "engine. Default: the optimizer's.",
)
@click.option("--engine", type=click.Choice(["auto", "evidence", "llm"]), default="auto")
@click.option(
    "--baseline-model",
    default=None,
    help="Model of EasyTool and DRAFT (default: the optimizer model, local/qwen2.5-coder-1.5b).",
)
@click.option(
    "--max-opt-tasks", type=click.IntRange(min=1), default=None, help="DocsChisel: opt tasks per tool."
)
@click.option(
    "--max-val-tasks", type=click.IntRange(min=1), default=None, help="DocsChisel: val tasks per tool."
)
@click.option(
    "--max-traces",
    type=click.IntRange(min=1),
    default=None,
    help="DocsChisel's LLM engine: failed traces diagnosed per iteration (each is a model call; seeded "
    "sample). The evidence engine reads them all.",
)
@click.option(
    "--selection",
    type=click.Choice(["evidence", "paper"]),
    default="evidence",
    help="DocsChisel's selection rule (see `docschisel optimize --help`).",
)
@headroom_option
@click.option(
    "--profile-repeats",
    type=click.IntRange(min=1),
    default=3,
    help="Samples per task when profiling the original docs and judging DocsChisel's candidates.",
)
@click.option(
    "--min-val-tasks",
    type=click.IntRange(min=0),
    default=4,
    help="DocsChisel: a tool with fewer validation tasks is judged on its domain's pooled ones (0: never).",
)
@guard_val_option
@misuse_option
@misused_option
@cross_val_option
@in_context_option
@click.option(
    "--guard-limit",
    type=click.IntRange(min=0),
    default=12,  # core.study.compare_spec.GUARD_LIMIT
    show_default=True,
    help="Regression guard: test tasks of the domains that use none of the compared tools (those whose "
    "right outcome is to call nothing included), evaluated for every method and reported apart (0: none).",
)
@click.option("--no-memory-ablation", is_flag=True, help="Skip the DocsChisel run without memory (Fig. 10).")
@click.option(
    "--curve-eval-runs",
    type=click.IntRange(min=0),
    default=1,
    help="Evaluation runs per iteration budget of the curves (0 = no curves).",
)
@click.option("--split-seed", type=int, default=0, help="Seed of the stored split and of the test sample.")
@split_grouping_option
@click.option("--concurrency", "-j", type=click.IntRange(min=1), default=1)
@executor_options
@warehouse_option
@data_dir_option
@click.pass_context
def command(ctx: click.Context, **opts) -> None:
    """Compare doc optimizers on held-out test tasks: TS/TC, Mann–Whitney U with Holm, cost, curves."""
    if ctx.invoked_subcommand is not None:
        return
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.cli.evaluate import job_hooks
    from core.llm import default_model
    from core.study.compare import CompareCancelled, CompareSpec, run_compare
    from core.study.compare_report import stored_comparisons, text

    try:
        bench = get_benchmark(opts["benchmark"], opts["data_dir"])
    except KeyError as exc:
        raise click.BadParameter(str(exc.args[0]), param_hint="--benchmark") from exc
    domains = tuple(split_csv(opts["domains"]))
    unknown = sorted(set(domains) - set(bench.domains()))
    if unknown:
        raise click.BadParameter(
            f"unknown domain(s) {', '.join(unknown)}; domains are {', '.join(bench.domains())}",
            param_hint="--domain",
        )
    if opts["misused_tools"] and not opts["misuse_tasks"]:
        raise click.UsageError(
            "--misused-tools needs --misuse-tasks: a misused tool is judged on its misuse tasks"
        )
    spec = CompareSpec(
        benchmark=opts["benchmark"],
        domains=domains,
        methods=opts["methods"],
        opt_runs=opts["opt_runs"],
        eval_runs=opts["eval_runs"],
        og_eval_runs=opts["og_eval_runs"],
        limit=opts["limit"] or None,
        limit_tools=opts["limit_tools"],
        agent=AgentConfig(
            paradigm=opts["paradigm"],
            model=opts["model"] or default_model(),
            doc_mode=opts["doc_mode"],
            max_steps=opts["max_steps"],
            time_limit_s=opts["time_limit"],
        ),
        temperature=opts["temperature"],
        iterations=opts["iterations"],
        optimizer_models=tuple(opts["optimizer_models"]),
        engine=opts["engine"],
        max_opt_tasks=opts["max_opt_tasks"],
        max_val_tasks=opts["max_val_tasks"],
        max_traces=opts["max_traces"],
        selection=opts["selection"],
        memory_ablation=not opts["no_memory_ablation"],
        curve_eval_runs=opts["curve_eval_runs"],
        baseline_model=opts["baseline_model"],
        split_seed=opts["split_seed"],
        split_grouping=opts["split_grouping"],
        headroom=opts["headroom"],
        profile_repeats=opts["profile_repeats"],
        min_val_tasks=opts["min_val_tasks"],
        guard_val_tasks=opts["guard_val_tasks"],
        guard_limit=opts["guard_limit"],
        misuse_tasks=opts["misuse_tasks"],
        misused_tools=opts["misused_tools"],
        cross_val_tasks=opts["cross_val_tasks"],
        in_context=opts["in_context"],
    )
    wh = open_warehouse(opts["warehouse"])
    progress, cancelled = job_hooks(wh)
    try:
        result = run_compare(
            wh,
            spec,
            bench=bench,
            log=click.echo,
            concurrency=opts["concurrency"],
            progress=progress,
            cancelled=cancelled,
        )
    except ValueError as exc:  # e.g. no test tasks in these domains: a usage problem, not a crash
        raise click.UsageError(str(exc)) from exc
    except CompareCancelled as exc:
        raise click.ClickException(f"{exc}; run the same command again to resume") from exc
    click.echo("")
    click.echo(text(stored_comparisons(wh, result.compare_id)[0]))


@command.command("show")
@click.option("--id", "compare_id", default=None, help="A comparison id (default: the latest).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown"]), default="table")
@click.option(
    "--task",
    default=None,
    help="A test task id (or the start of one): print its request and every episode of it under each "
    "method's doc sets - the calls behind a flip - instead of the tables.",
)
@warehouse_option
def show_cmd(compare_id: str | None, fmt: str, task: str | None, warehouse: str | None) -> None:
    """Print the stored latest comparison (or the one given by --id)."""
    from core.study.compare_report import markdown, stored_comparisons, text

    wh = open_warehouse(warehouse, llm=False)
    found = stored_comparisons(wh, compare_id)
    if not found:
        raise click.ClickException(
            "no comparison in this warehouse"
            + (f" with id {compare_id}" if compare_id else "")
            + "; run `docschisel compare --benchmark ...` first"
        )
    if task is not None:
        from core.study.compare_traces import task_text

        try:
            click.echo(task_text(wh, found[0], task))
        except ValueError as exc:
            raise click.UsageError(f"--task {exc}") from exc
        return
    click.echo(markdown(found[0]) if fmt == "markdown" else text(found[0]))
