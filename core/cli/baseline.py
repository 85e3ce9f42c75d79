"""`docschisel baseline`: generate EasyTool, DRAFT or GEPA documentation for a benchmark."""

from __future__ import annotations

import json

import click

from core.cli.common import (
    benchmark_option,
    data_dir_option,
    executor_options,
    open_warehouse,
    split_csv,
    split_grouping_option,
    warehouse_option,
)


@click.command(context_settings={"show_default": True})
@click.argument("method", type=click.Choice(["easytool", "draft", "gepa"]))
@benchmark_option
@click.option(
    "--domain", "-d", "domains", default="", help="Only the tools of these domains (comma-separated)."
)
@click.option("--tools", default="", help="Only these tools (comma-separated); overrides --domain.")
@click.option(
    "--model",
    "-m",
    default=None,
    help="Optimizer model (default: $DOCSCHISEL_OPTIMIZER_MODEL, $DOCSCHISEL_MODEL or local/qwen2.5-coder-1.5b).",
)
@click.option(
    "--seed", type=int, default=0, help="Seed of this optimisation run (another seed = an independent run)."
)
@click.option(
    "--split-seed", type=int, default=0, help="Seed of the stored split (DRAFT executes tools in opt tasks)."
)
@split_grouping_option
@click.option("--episodes", type=int, default=None, help="DRAFT: episodes per tool (default 5).")
@click.option(
    "--stop", type=float, default=None, help="DRAFT: stop threshold on (BLEU + cosine) / 2 (default 0.75)."
)
@click.option(
    "--diversity",
    type=float,
    default=None,
    help="DRAFT: cosine at which a query is too similar (default 0.9).",
)
@click.option(
    "--temperature",
    type=float,
    default=None,
    help="Sampling temperature of the optimizer model (EasyTool 0.7, DRAFT 0.2, GEPA's reflection 0.7).",
)
@click.option(
    "--budget",
    type=click.IntRange(min=1),
    default=None,
    help="GEPA (required): target-agent episodes it may spend (max_metric_calls).",
)
@click.option(
    "--agent-model",
    default=None,
    help="GEPA: the target agent's model (default: $DOCSCHISEL_MODEL or local/qwen2.5-coder-0.5b).",
)
@click.option(
    "--agent-temperature",
    type=click.FloatRange(min=0),
    default=0.7,
    help="GEPA: the target agent samples at this temperature with seed --seed (as DocsChisel's runs do).",
)
@click.option(
    "--minibatch", type=click.IntRange(min=1), default=3, help="GEPA: tasks per reflection minibatch."
)
@click.option("--max-opt-tasks", type=click.IntRange(min=1), default=None, help="GEPA: opt tasks per tool.")
@click.option("--max-val-tasks", type=click.IntRange(min=1), default=None, help="GEPA: val tasks per tool.")
@click.option("--show", is_flag=True, help="Print the generated docs as prompt text.")
@executor_options
@warehouse_option
@data_dir_option
def command(
    method: str,
    benchmark: str,
    domains: str,
    tools: str,
    model: str | None,
    seed: int,
    split_seed: int,
    split_grouping: str,
    episodes: int | None,
    stop: float | None,
    diversity: float | None,
    temperature: float | None,
    budget: int | None,
    agent_model: str | None,
    agent_temperature: float,
    minibatch: int,
    max_opt_tasks: int | None,
    max_val_tasks: int | None,
    show: bool,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Run a documentation-optimisation baseline and store its doc set; prints the doc-set id."""
    from core.baselines.service import generate_baseline
    from core.docs.render import render_text
    from core.llm import default_optimizer_model

    options = {
        k: v
        for k, v in {
            "episodes": episodes,
            "stop": stop,
            "diversity": diversity,
            "temperature": temperature,
        }.items()
        if v is not None
    }
    if method != "draft" and set(options) - {"temperature"}:
        raise click.UsageError("--episodes/--stop/--diversity apply to draft only")
    if (method == "gepa") != (budget is not None):
        raise click.UsageError("--budget is required for gepa and applies to gepa only")
    wh = open_warehouse(warehouse)
    if method == "gepa":
        out = _gepa(
            wh,
            benchmark=benchmark,
            domains=domains,
            tools=tools,
            model=model,
            seed=seed,
            split_seed=split_seed,
            split_grouping=split_grouping,
            data_dir=data_dir,
            budget=budget or 1,
            temperature=temperature,
            agent_model=agent_model,
            agent_temperature=agent_temperature,
            minibatch=minibatch,
            max_opt_tasks=max_opt_tasks,
            max_val_tasks=max_val_tasks,
        )
    else:
        out = generate_baseline(
            wh,
            method,
            benchmark,
            domains=split_csv(domains),
            tools=split_csv(tools),
            model=model or default_optimizer_model(),
            seed=seed,
            split_seed=split_seed,
            split_grouping=split_grouping,
            data_dir=data_dir,
            options=options,
            progress=click.echo,
        )
    calls = sum(c.get("calls", 0) for c in out.costs.values())
    tokens = sum(c.get("tokens", 0) for c in out.costs.values())
    click.echo(
        f"{method}: {len(out.tools)} tools, {calls:.0f} calls, {tokens:.0f} tokens"
        + (" (stored result reused)" if out.reused else "")
    )
    if show:
        for t in out.tools:
            click.echo("\n" + render_text(out.docset[t]))
    click.echo(json.dumps({"docset_id": out.docset_id, "run_id": out.run_id}))


def _gepa(
    wh,  # noqa: ANN001 - the warehouse
    *,
    benchmark: str,
    domains: str,
    tools: str,
    model: str | None,
    seed: int,
    split_seed: int,
    split_grouping: str,
    data_dir: str | None,
    budget: int,
    temperature: float | None,
    agent_model: str | None,
    agent_temperature: float,
    minibatch: int,
    max_opt_tasks: int | None,
    max_val_tasks: int | None,
):
    """GEPA on the tools' opt / val tasks (DocsChisel's grouping), the agent sampling with seed `seed`."""
    from core.agents import AgentConfig
    from core.baselines.gepa_run import GepaConfig, generate_gepa
    from core.benchmarks.registry import get_benchmark
    from core.llm import default_model, default_optimizer_model
    from core.study.gepa_budget import task_groups

    bench = get_benchmark(benchmark, data_dir)
    try:
        split, groups = task_groups(
            wh,
            bench,
            domains=split_csv(domains),
            tools=split_csv(tools) or None,
            split_seed=split_seed,
            split_grouping=split_grouping,
            max_opt=max_opt_tasks,
            max_val=max_val_tasks,
            seed=seed,
        )
    except KeyError as exc:
        raise click.BadParameter(str(exc.args[0]), param_hint="--tools") from exc
    agent = AgentConfig(model=agent_model or default_model(), temperature=agent_temperature, seed=seed)
    config = GepaConfig(
        model=model or default_optimizer_model(),
        budget=budget,
        seed=seed,
        minibatch=minibatch,
        **({"temperature": temperature} if temperature is not None else {}),
    )
    click.echo(
        f"gepa: {len(groups)} tools, {sum(len(g.opt) for g in groups)} opt / {sum(len(g.val) for g in groups)} "
        f"val task slots, budget {budget} episodes, agent {agent.model}, reflection {config.model}"
    )
    return generate_gepa(wh, bench, groups, split, agent, config, log=click.echo)
