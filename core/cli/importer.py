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


@command.command("traces")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["auto", "otlp", "phoenix", "langfuse"]),
    default="auto",
    show_default=True,
    help="otlp: OTLP JSON with OpenInference attributes; phoenix: Phoenix span export; langfuse: trace export.",
)
@click.option("--name", default=None, help="Label of the imported traces (default: the file's name).")
@click.option("--no-diagnose", is_flag=True, help="Store the episodes only; skip the diagnosis without gold.")
@warehouse_option
def traces(path: str, fmt: str, name: str | None, no_diagnose: bool, warehouse: str | None) -> None:
    """Import production agent traces: each trace an episode, diagnosed from what the trace proves.

    A malformed file is one error naming the span, and nothing is stored.
    """
    from core.traces import TraceFileError, import_traces

    wh = open_warehouse(warehouse, llm=False)
    try:
        summary = import_traces(wh, path, fmt=fmt, name=name)
    except TraceFileError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(
        f"{summary['episodes']} {summary['source']} traces ({summary['written']} new), {summary['tool_calls']} tool "
        f"calls, {summary['tools_seen']} tools -> run {summary['run_id']} (benchmark {summary['benchmark']})"
    )
    if not no_diagnose:
        from core.chisel.nogold import diagnose_nogold

        n = diagnose_nogold(wh, summary["run_id"])
        click.echo(f"{n} diagnoses without ground truth (Diagnoses page, run {summary['run_id']})")
