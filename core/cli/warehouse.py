"""`docschisel warehouse`: inspect the trace warehouse, apply migrations, and check the job runner.

`selftest-job` is a tiny command that behaves like a real long job (progress,
cooperative cancellation) without a model or benchmark data, so the dashboard's
job machinery can be exercised on any machine.
"""

from __future__ import annotations

import time

import click

from core.config import warehouse_path

TABLES = (
    "benchmarks",
    "tools",
    "tasks",
    "splits",
    "doc_versions",
    "doc_sets",
    "runs",
    "episodes",
    "episode_scores",
    "events",
    "evaluations",
    "diagnoses",
    "plans",
    "candidates",
    "memories",
    "approvals",
    "field_impact",
    "llm_calls",
    "jobs",
    "infra_failures",
)


@click.group()
def command() -> None:
    """Inspect and maintain the trace warehouse."""


def _warehouse_option(f):  # type: ignore[no-untyped-def]
    return click.option(
        "--warehouse",
        "warehouse",
        default=None,
        help="Warehouse file (default: $DOCSCHISEL_WAREHOUSE or data/warehouse.duckdb).",
    )(f)


@command.command("stats")
@_warehouse_option
def stats(warehouse: str | None) -> None:
    """Row counts per table and the schema version."""
    from core.warehouse import Warehouse

    wh = Warehouse(warehouse)
    click.echo(f"warehouse  {wh.path}")
    click.echo(f"schema     version {wh.scalar('SELECT max(version) FROM schema_version')}")
    for table in TABLES:
        click.echo(f"{table:<14} {wh.scalar(f'SELECT count(*) FROM {table}'):>10,}")


@command.command("migrate")
@_warehouse_option
def migrate(warehouse: str | None) -> None:
    """Create the warehouse or apply missing migrations."""
    from core.warehouse import Warehouse

    wh = Warehouse(warehouse)
    click.echo(f"{wh.path}: schema version {wh.migrate()}")


@command.command("failures")
@click.option("--run", "run_id", default=None, help="Only this run's failures.")
@click.option("--limit", type=int, default=20)
@_warehouse_option
def failures(run_id: str | None, limit: int, warehouse: str | None) -> None:
    """Episodes that failed outside the agent (provider, sandbox): not counted, retried on the next run."""
    from core.warehouse import Warehouse

    wh = Warehouse(warehouse)
    wh.mark_interrupted()
    rows = wh.infra_failures(run_id)
    if not rows:
        click.echo("no infrastructure failures recorded")
        return
    for r in rows[:limit]:
        click.echo(
            f"{r['ts']}  {r['error_class']:<15} {r['benchmark']} {r['task_id']} #{r['repeat']}  {r['error']}"
        )
    if len(rows) > limit:
        click.echo(f"... and {len(rows) - limit} more")


@command.command("selftest-job", hidden=True)
@click.option("--steps", type=int, default=10, show_default=True)
@click.option("--delay", type=float, default=0.2, show_default=True, help="Seconds per step.")
@click.option("--fail-at", type=int, default=None, help="Fail at this step (tests the failure path).")
@click.option("--ignore-cancel", is_flag=True, help="Ignore cancel requests (tests the SIGTERM fallback).")
@_warehouse_option
def selftest_job(
    steps: int, delay: float, fail_at: int | None, ignore_cancel: bool, warehouse: str | None
) -> None:
    """Report progress for STEPS steps and honour cancellation, like a real job."""
    from core.jobs import cancel_requested, current_job, report_progress
    from core.warehouse import Warehouse

    job = current_job()
    wh, job_id = job if job else (Warehouse(warehouse_path(warehouse)), None)
    for i in range(steps):
        if job_id and not ignore_cancel and cancel_requested(wh, job_id):
            click.echo(f"cancelled after {i} of {steps} steps")
            return
        if fail_at is not None and i == fail_at:
            raise click.ClickException(f"selftest failure at step {i}")
        time.sleep(delay)
        if job_id:
            report_progress(wh, job_id, i + 1, steps, f"step {i + 1} of {steps}")
        click.echo(f"step {i + 1}/{steps}")
    click.echo("selftest finished")


@command.command("import-workbench", hidden=True)
@click.option("--data-dir", default=None, help="Benchmark data directory (default: $DOCSCHISEL_DATA_DIR).")
@_warehouse_option
def import_workbench(data_dir: str | None, warehouse: str | None) -> None:
    """Import the recorded WorkBench results (the dashboard's Data page runs this as a job)."""
    from core.benchmarks.workbench.importer import import_workbench_results
    from core.jobs import current_job, report_progress
    from core.warehouse import Warehouse

    job = current_job()
    wh = job[0] if job else Warehouse(warehouse_path(warehouse))
    if job:
        report_progress(wh, job[1], 0, 2, "parsing recorded results")
    summary = import_workbench_results(wh, data_dir)
    if job:
        report_progress(wh, job[1], 2, 2, f"{summary.get('written', 0):,} new episodes")
    click.echo(
        f"imported {summary.get('episodes', 0):,} episodes ({summary.get('written', 0):,} new), "
        f"{summary.get('events', 0):,} events"
    )


@command.command("archive")
@click.option(
    "--to",
    "folder",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder of the run archive, e.g. docs/results/runs/study-backbones (created if missing).",
)
@_warehouse_option
def archive_cmd(folder: str, warehouse: str | None) -> None:
    """Keep the runs, episode outcomes and field-study rows (no traces, calls or answers) in a versionable folder.

    A fresh checkout restores them with `warehouse restore` and resumes the
    experiment where it stopped: stored episodes are reused by their id.
    """
    from core.warehouse import Warehouse
    from core.warehouse.archive import ArchiveError, archive_runs

    wh = Warehouse(warehouse_path(warehouse))
    try:
        counts = archive_runs(wh, folder)
    except ArchiveError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{folder}: " + ", ".join(f"{n:,} {t}" for t, n in counts.items()))


@command.command("restore")
@click.option(
    "--from",
    "folder",
    required=True,
    type=click.Path(file_okay=False, exists=True),
    help="A folder written by `warehouse archive`.",
)
@_warehouse_option
def restore_cmd(folder: str, warehouse: str | None) -> None:
    """Insert archived runs, episode outcomes and field-study rows into the warehouse (rows it holds are kept)."""
    from core.warehouse import Warehouse
    from core.warehouse.archive import ArchiveError, restore_runs

    wh = Warehouse(warehouse_path(warehouse))
    try:
        counts = restore_runs(folder, wh)
    except ArchiveError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"{wh.path}: " + ", ".join(f"{n:,} {t} added" for t, n in counts.items()))
