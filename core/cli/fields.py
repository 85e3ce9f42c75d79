"""`docschisel fields`: the 17 documentation fields and their coverage in doc collections."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pandas as pd

from core.cli.common import no_warehouse_option
from core.fields import FIELDS

FORMATS = ("table", "markdown", "csv", "json")


def _percent(value: float) -> str:
    return "–" if pd.isna(value) else f"{value * 100:.0f}%"


def _text_table(header: list[str], rows: list[list[str]], numeric: bool = True) -> str:
    """First column left-aligned; the others right-aligned when `numeric`, like the paper's tables."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = [c.rjust(w) if numeric else c.ljust(w) for c, w in zip(cells[1:], widths[1:], strict=True)]
        return "  ".join([first, *rest]).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), rule, *(line(r) for r in rows)])


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    align = ["---"] + ["---:"] * (len(header) - 1)
    return "\n".join("| " + " | ".join(r) + " |" for r in [header, align, *rows])


@click.group()
def command() -> None:
    """The 17 documentation fields (the paper's Table II) and their coverage."""


@command.command("list")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@no_warehouse_option("the 17 fields are fixed by the taxonomy")
def list_fields(fmt: str) -> None:
    """Print the 17 fields: code, name, meaning and prevalence in the paper's 14 datasets."""
    header = ["code", "field", "meaning", "prevalence", "scope"]
    rows = [[f.code, f.name, f.meaning, f.prevalence_text, f.scope.value] for f in FIELDS]
    if fmt == "json":
        click.echo(json.dumps([dict(zip(header, r, strict=True)) for r in rows], indent=2))
    elif fmt == "csv":
        click.echo(pd.DataFrame(rows, columns=header).to_csv(index=False), nl=False)
    elif fmt == "markdown":
        click.echo(_markdown(header, rows))
    else:
        click.echo(_text_table(header, rows, numeric=False))


@command.command("coverage")
@click.argument("paths", nargs=-1, required=False, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--docset", "docsets", multiple=True, help="A warehouse doc-set id (or the run that made it); repeatable."
)
@click.option(
    "--warehouse",
    default=None,
    envvar="DOCSCHISEL_WAREHOUSE",
    type=click.Path(dir_okay=False),
    help="Warehouse holding the --docset doc sets.",
)
def coverage_cmd(paths: tuple[str, ...], fmt: str, docsets: tuple[str, ...], warehouse: str | None) -> None:
    """Share of tools providing each field, per doc collection.

    Each PATH is a doc file (any supported format) or a folder. A benchmark
    data folder (holding workbench/ and api-bank/) is split into its datasets;
    a benchmark folder of your own tools (tools.py + tasks.jsonl) is one
    collection: its tools' original docs. Each --docset adds a generated doc
    set from the warehouse (only the tools its method worked on).
    """
    from core.docs.coverage import coverage_matrix, field_label

    if not paths and not docsets:
        raise click.UsageError("give at least one PATH or --docset")
    collections: dict = {}
    sources = [_collections(path) for path in paths]
    if docsets:
        from core.study.composition import warehouse_collections
        from core.warehouse import Warehouse

        sources.append(warehouse_collections(Warehouse(warehouse), list(docsets)))
    for found in sources:
        for name, docs in found.items():
            key = name
            while key in collections:
                key += "'"
            collections[key] = docs
    matrix = coverage_matrix(collections)
    counts = {name: len(docs) for name, docs in collections.items()}
    if fmt == "json":
        payload = {
            name: {"tools": counts[name], "coverage": {c: _round(v) for c, v in matrix[name].items()}}
            for name in matrix.columns
        }
        click.echo(json.dumps(payload, indent=2))
        return
    if fmt == "csv":
        frame = matrix.copy()
        frame.loc["tools"] = [counts[n] for n in frame.columns]
        click.echo(frame.to_csv(), nl=False)
        return
    header = ["Information field", *matrix.columns]
    rows = [[field_label(code), *(_percent(v) for v in matrix.loc[code])] for code in matrix.index]
    rows.append(["Tools", *(str(counts[n]) for n in matrix.columns)])
    click.echo(_markdown(header, rows) if fmt == "markdown" else _text_table(header, rows))


def _collections(path: str) -> dict:
    """The doc collections of PATH; a user benchmark folder's are its tools' docs (from tools.py and
    tools/*.json), not the folder's JSON files, which tasks.jsonl is not."""
    from core.docs.coverage import collections_from_path

    folder = Path(path)
    if folder.is_dir() and (folder / "tools.py").is_file() and (folder / "tasks.jsonl").is_file():
        from core.benchmarks.userfolder import load_user_benchmark

        bench = load_user_benchmark(folder)
        try:
            return {bench.display_name: list(bench.original_docs().values())}
        finally:
            bench.close()
    return collections_from_path(path)


def _round(value: float) -> float | None:
    return None if pd.isna(value) else round(float(value), 4)
