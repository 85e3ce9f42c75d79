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
@click.option(
    "--archive",
    "archive_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Results archive folder (e.g. docs/results): the warehouses' measured rows (field study, bench "
    "figures) are merged into it, and those sections are built from everything it holds, so results "
    "measured on another machine or in another session stay in the document.",
)
@warehouse_option
def command(
    out: str | None, also: tuple[str, ...], drop_missing: bool, archive_dir: str | None, warehouse: str | None
) -> None:
    """Regenerate the results document from the runs stored in the warehouse(s)."""
    from core.reports import write_results
    from core.warehouse.archive import ArchiveError

    whs = [open_warehouse(warehouse, llm=False)] + [open_warehouse(p, llm=False) for p in also]
    try:
        path = write_results(whs, out, keep_missing=not drop_missing, archive_dir=archive_dir)
    except ArchiveError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"wrote {path}")
