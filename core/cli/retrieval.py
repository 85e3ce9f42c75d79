"""`docschisel retrieval eval`: tool-retrieval metrics of a doc set, optionally with the field ablation.

    docschisel retrieval eval --benchmark workbench,api-bank --docs expanded --ablation

`--docs` is `original`, `expanded` (the latest Tool-REX doc set of the
benchmark), a doc-set id or a doc JSON file. The original docs are always
evaluated too, as the reference.
"""

from __future__ import annotations

import click

from core.cli.common import benchmarks_option, data_dir_option, open_warehouse, split_csv, warehouse_option


@click.group()
def command() -> None:
    """Tool retrieval: sparse/dense retrievers, nDCG / Recall / Comprehensiveness."""


@command.command("eval", context_settings={"show_default": True})
@benchmarks_option
@click.option(
    "--docs",
    default="original",
    help="original | expanded (latest expansion) | expansion run id | doc-set id | doc JSON file.",
)
@click.option("--retriever", "retrievers", default="bm25,dense", help="Comma-separated: bm25, dense.")
@click.option("--k", "ks", default="10", help="Cut-offs, comma-separated (e.g. 5,10).")
@click.option("--ablation", is_flag=True, help="Add-one / one-out over the Tool-REX profile fields.")
@warehouse_option
@data_dir_option
def eval_command(
    benchmarks: str,
    docs: str,
    retrievers: str,
    ks: str,
    ablation: bool,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Retrieve each task's gold tools from the benchmark's whole tool pool and score the rankings."""
    from core.benchmarks.registry import get_benchmark
    from core.expansion.experiment import retrieval_eval
    from core.retrieval import RETRIEVERS

    chosen = split_csv(retrievers)
    bad = sorted(set(chosen) - set(RETRIEVERS))
    if bad:
        raise click.UsageError(f"unknown retriever(s) {bad}; use {', '.join(RETRIEVERS)}")
    try:
        cutoffs = [int(k) for k in split_csv(ks)]
    except ValueError as exc:
        raise click.UsageError(f"--k must be integers, got {ks!r}") from exc
    wh = open_warehouse(warehouse, llm=False)
    for name in split_csv(benchmarks):
        bench = get_benchmark(name, data_dir)
        click.echo(f"{bench.name}: {len(bench.original_docs())} tools, docs {docs}")
        try:
            out = retrieval_eval(
                wh, bench, docs=docs, retrievers=chosen, ks=cutoffs, ablation=ablation, log=click.echo
            )
        except (KeyError, ValueError) as exc:
            raise click.UsageError(str(exc).strip("'\"")) from exc
        click.echo(f"{bench.name}: {out['queries']} queries; run id: {out['run_id']}")
