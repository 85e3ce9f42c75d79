"""`docschisel rescore`: score every stored episode again from its trace, under the current rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import click

from core.cli.common import data_dir_option, open_warehouse, warehouse_option

if TYPE_CHECKING:
    from core.benchmarks.base import Benchmark
    from core.runner.rescore import Resolver
    from core.warehouse import Warehouse


@click.command()
@click.option(
    "--benchmark",
    "-b",
    "benchmarks",
    multiple=True,
    help="Only episodes of this stored benchmark name or key (repeatable; default: every benchmark).",
)
@click.option("--force", is_flag=True, help="Also re-score episodes already scored under the current rules.")
@click.option("--dry-run", is_flag=True, help="Score and count what would change, but write nothing.")
@warehouse_option
@data_dir_option
def command(
    benchmarks: tuple[str, ...], force: bool, dry_run: bool, warehouse: str | None, data_dir: str | None
) -> None:
    """Re-score stored episodes from their traces (no agent runs again).

    Each episode's stored calls and answer are scored by its benchmark under the
    current scoring rules (calls that raised are learnt from the trace's events).
    The episode row takes the new score; the previous one stays in the
    warehouse's score history (table episode_scores). Episodes whose benchmark
    cannot be loaded again (missing data, a folder that changed since) are
    skipped and counted. Prints one line per benchmark, then the totals; run
    `docschisel results` afterwards to regenerate the results document.
    """
    from core.runner.rescore import rescore

    wh = open_warehouse(warehouse, llm=False)
    report = rescore(
        wh,
        benchmarks=set(benchmarks) or None,
        resolver=resolver(wh, data_dir),
        force=force,
        dry_run=dry_run,
    )
    for line in report.lines():
        click.echo(line)
    if dry_run:
        click.echo("dry run: nothing was written")


def resolver(wh: Warehouse, data_dir: str | None) -> Resolver:
    """The runner's resolver, plus EvoSOP benchmarks (`<base>+sop`): their episodes are scored from
    the base benchmark as the SOP benchmark scores them (core.sop.bench.StoredSopScoring)."""
    from core.runner.rescore import default_resolver
    from core.sop.bench import StoredSopScoring
    from core.warehouse.reads import benchmark_infos

    plain = default_resolver(data_dir)
    infos = benchmark_infos(wh)

    def resolve(name: str, variant: str, info: Mapping[str, Any]) -> Benchmark:
        if "+sop:" not in variant:
            return plain(name, variant, info)
        base_name, base_variant = name.removesuffix("+sop"), variant.split("+sop:", 1)[0]
        return StoredSopScoring(plain(base_name, base_variant, infos.get(base_name, {})))

    return resolve
