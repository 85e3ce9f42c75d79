"""Options shared by every command (warehouse, data directory, benchmark, agent)."""

from __future__ import annotations

import click

warehouse_option = click.option(
    "--warehouse",
    "warehouse",
    type=click.Path(dir_okay=False),
    default=None,
    envvar="DOCSCHISEL_WAREHOUSE",
    help="DuckDB warehouse file (default: $DOCSCHISEL_WAREHOUSE or data/warehouse.duckdb).",
)
data_dir_option = click.option(
    "--data-dir",
    "data_dir",
    type=click.Path(file_okay=False),
    default=None,
    envvar="DOCSCHISEL_DATA_DIR",
    help="Benchmark data directory (default: $DOCSCHISEL_DATA_DIR or ../shared/benchmarks).",
)


def split_csv(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def open_warehouse(path: str | None):
    from core.warehouse import Warehouse

    return Warehouse(path)
