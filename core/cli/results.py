"""`docschisel results`: regenerate docs/RESULTS.md from the warehouse."""

from __future__ import annotations

import click

from core.cli.common import open_warehouse, warehouse_option


@click.command()
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Default: docs/RESULTS.md")
@click.option(
    "--also",
    "also",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True),
    help="Further warehouse files to report (e.g. data/study.duckdb); repeatable.",
)
@click.option(
    "--drop-missing",
    is_flag=True,
    help="Drop sections none of the given warehouses can produce (by default they are carried over from "
    "the existing document, marked with where they came from).",
)
@warehouse_option
def command(out: str | None, also: tuple[str, ...], drop_missing: bool, warehouse: str | None) -> None:
    """Regenerate the results document from the runs stored in the warehouse(s)."""
    from core.reports import write_results

    whs = [open_warehouse(warehouse, llm=False)] + [open_warehouse(p, llm=False) for p in also]
    path = write_results(whs, out, keep_missing=not drop_missing)
    click.echo(f"wrote {path}")
