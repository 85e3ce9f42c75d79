"""`docschisel import workbench-results [DIR]`: real recorded agent traces into the warehouse."""

from __future__ import annotations

import click

from core.cli.common import data_dir_option, open_warehouse, warehouse_option


@click.group()
def command() -> None:
    """Import recorded agent runs into the warehouse."""


@command.command("workbench-results")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@warehouse_option
@data_dir_option
def workbench_results(directory: str | None, warehouse: str | None, data_dir: str | None) -> None:
    """Import the 48 WorkBench results files (GPT-4, GPT-3.5, Claude-2, Llama-2-70B, Mixtral).

    DIRECTORY is the benchmark data directory (holding workbench/) or the WorkBench folder itself;
    default: --data-dir. Re-importing is a no-op: episodes are identified by content.
    """
    from pathlib import Path

    from core.benchmarks.workbench.importer import import_workbench_results

    root = directory or data_dir
    if root and (Path(root) / "data" / "results").is_dir():  # the WorkBench folder itself
        root = str(Path(root).parent)
    wh = open_warehouse(warehouse)
    summary = import_workbench_results(wh, root)
    click.echo(
        f"{summary['episodes']} recorded episodes ({summary['written']} new), {summary['events']} events "
        f"in {summary['total_s']} s -> {wh.path}"
    )
    for rid, info in summary["runs"].items():
        click.echo(f"  run {rid}  {info['model']:<24} {info['variant']:<8} {info['episodes']} episodes")
