"""`docschisel results`: regenerate docs/RESULTS.md from the warehouse."""

from __future__ import annotations

import click

from core.cli.common import open_warehouse, warehouse_option


@click.command()
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Default: docs/RESULTS.md")
@warehouse_option
def command(out: str | None, warehouse: str | None) -> None:
    """Regenerate the results document from the runs stored in the warehouse."""
    from core.reports import write_results

    path = write_results(open_warehouse(warehouse), out)
    click.echo(f"wrote {path}")
