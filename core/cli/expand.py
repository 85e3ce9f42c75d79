"""`docschisel expand`: Tool-REX document expansion of a benchmark's tool docs.

    docschisel expand --benchmark api-bank [--model M] [--judge-model J|none] [--strong-model S]

Prints each tool's accepted and rejected profile fields (with the judge's
reason) and the id of the expanded doc set, usable as `--docs` of `eval` and
`retrieval eval`.
"""

from __future__ import annotations

import click

from core.cli.common import benchmarks_option, data_dir_option, open_warehouse, split_csv, warehouse_option


@click.command(context_settings={"show_default": True})
@benchmarks_option
@click.option(
    "--model",
    "-m",
    default=None,
    help="Expansion model; default $DOCSCHISEL_OPTIMIZER_MODEL, $DOCSCHISEL_MODEL or local/qwen2.5-coder-1.5b.",
)
@click.option(
    "--judge-model", default=None, help="LLM judge model; default: the expansion model; 'none' = rules only."
)
@click.option(
    "--strong-model", default=None, help="Regenerates the profiles the judge failed (none by default)."
)
@click.option("--tools", default="", help="Only these tools (comma-separated).")
@click.option("--limit", type=int, default=None, help="Only the first N tools (alphabetical).")
@click.option("--seed", type=int, default=0)
@click.option("--quiet", "-q", is_flag=True, help="Only the summary, not every tool.")
@warehouse_option
@data_dir_option
def command(
    benchmarks: str,
    model: str | None,
    judge_model: str | None,
    strong_model: str | None,
    tools: str,
    limit: int | None,
    seed: int,
    quiet: bool,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Expand each tool's doc into a grounded profile (judged; failures regenerated when configured)."""
    from core.benchmarks.registry import get_benchmark
    from core.expansion.run import run_expansion
    from core.llm import default_optimizer_model

    wh = open_warehouse(warehouse)
    model = model or default_optimizer_model()
    judge = None if (judge_model or "").lower() == "none" else (judge_model or model)
    for name in split_csv(benchmarks):
        bench = get_benchmark(name, data_dir)
        chosen = split_csv(tools) or sorted(bench.original_docs())
        if tools:
            unknown = sorted(set(chosen) - set(bench.original_docs()))
            if unknown:
                raise click.UsageError(f"{bench.name} has no tool(s) {unknown}")
        chosen = chosen[:limit] if limit else chosen
        click.echo(
            f"{bench.name}: expanding {len(chosen)} tools with {model}; judge {judge or 'rules only'}; "
            f"regeneration {strong_model or 'off'}"
        )

        def show(exp, done: int, total: int) -> None:
            if quiet:
                return
            final = ", ".join(exp.profile.fields()) or "-"
            click.echo(f"[{done}/{total}] {exp.tool}: accepted {final}")
            for att in exp.attempts:
                for v in att.verdicts:
                    if not v.accepted:
                        click.echo(
                            f"    rejected ({v.stage}, attempt {att.attempt}) {v.field}: {v.reason[:160]}"
                        )
                    elif v.stage == "rule" and v.reason != "ok":
                        click.echo(f"    kept {v.field}, dropped: {v.reason[:160]}")

        summary = run_expansion(
            wh,
            bench,
            model=model,
            judge_model=judge,
            strong_model=strong_model,
            tools=chosen,
            seed=seed,
            on_tool=show,
        )
        click.echo(
            f"{bench.name}: run {summary['run_id']}; {summary['tools']} tools, fields accepted "
            f"{summary['accepted']} / rejected {summary['rejected']}, regenerated {summary['regenerated']}; "
            f"mean doc tokens {summary['tokens_original']:.0f} -> {summary['tokens_expanded']:.0f}"
        )
        click.echo(f"expanded doc set: {summary['docset_id']}")
