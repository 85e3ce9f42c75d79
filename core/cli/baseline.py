"""`docschisel baseline`: generate EasyTool or DRAFT documentation for a benchmark."""

from __future__ import annotations

import json

import click

from core.cli.common import benchmark_option, data_dir_option, open_warehouse, split_csv, warehouse_option


@click.command(context_settings={"show_default": True})
@click.argument("method", type=click.Choice(["easytool", "draft"]))
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
@click.option("--temperature", type=float, default=None, help="Sampling temperature (EasyTool 0, DRAFT 0.2).")
@click.option("--show", is_flag=True, help="Print the generated docs as prompt text.")
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
    episodes: int | None,
    stop: float | None,
    diversity: float | None,
    temperature: float | None,
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
    if method == "easytool" and set(options) - {"temperature"}:
        raise click.UsageError("--episodes/--stop/--diversity apply to draft only")
    wh = open_warehouse(warehouse)
    out = generate_baseline(
        wh,
        method,
        benchmark,
        domains=split_csv(domains),
        tools=split_csv(tools),
        model=model or default_optimizer_model(),
        seed=seed,
        split_seed=split_seed,
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
