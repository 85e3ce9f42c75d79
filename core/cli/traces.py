"""`docschisel export-traces RUN --format openinference`: a run's episodes as OTLP JSON spans."""

from __future__ import annotations

import json
from pathlib import Path

import click

from core.cli.common import open_warehouse, warehouse_option


@click.command(context_settings={"show_default": True})
@click.argument("run_id")
@click.option("--format", "fmt", type=click.Choice(["openinference"]), default="openinference")
@click.option(
    "--output", "-o", type=click.Path(dir_okay=False), default=None, help="File to write (default: stdout)."
)
@warehouse_option
def command(run_id: str, fmt: str, output: str | None, warehouse: str | None) -> None:
    """Write RUN's episodes as OTLP JSON (OpenInference conventions), for Phoenix or any OTel collector."""
    from core.traces import export_openinference

    wh = open_warehouse(warehouse, llm=False)
    try:
        data = export_openinference(wh, run_id)
    except KeyError as exc:
        raise click.UsageError(str(exc.args[0])) from exc
    text = json.dumps(data, ensure_ascii=False)
    n = sum(len(s["spans"]) for r in data["resourceSpans"] for s in r["scopeSpans"])
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        click.echo(f"wrote {n} spans of run {run_id} to {output}", err=True)
    else:
        click.echo(text)
