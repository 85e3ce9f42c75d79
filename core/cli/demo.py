"""`docschisel demo`: a useful dashboard on a fresh machine, with no API keys.

It fills the warehouse with real data at once — the 5,520 recorded WorkBench
agent traces, scored by our scorer, and the evidence-engine diagnosis of their
failures — then starts background jobs with the offline local model (an
evaluation, a short DocsChisel optimization, a small field-impact study) and
opens the app. The pages are useful immediately and fill in as the jobs run.
"""

from __future__ import annotations

import contextlib
import importlib.util
import time
from collections.abc import Iterator

import click

from core.cli.common import data_dir_option, open_warehouse, warehouse_option


def demo_jobs(data_dir: str | None) -> list[tuple[str, list[str]]]:
    """(kind, argv) of the background jobs the demo starts, skipping parts not installed."""
    dd = ["--data-dir", data_dir] if data_dir else []
    jobs: list[tuple[str, list[str]]] = [
        (
            "eval",
            [
                "eval",
                "--benchmark",
                "api-bank",
                "--domain",
                "finance",
                "--split",
                "test",
                "--limit",
                "6",
                "--concurrency",
                "1",
                "--max-steps",
                "1",
                *dd,
            ],
        ),
    ]
    if importlib.util.find_spec("core.cli.optimize"):
        jobs.append(
            (
                "optimize",
                [
                    "optimize",
                    "--benchmark",
                    "api-bank",
                    "--domain",
                    "finance",
                    "--iterations",
                    "2",
                    "--limit-tools",
                    "2",
                    *dd,
                ],
            )
        )
    if importlib.util.find_spec("core.cli.study"):
        jobs.append(
            (
                "study",
                [
                    "study",
                    "fields",
                    "--benchmark",
                    "workbench",
                    "--domain",
                    "calendar",
                    "--limit",
                    "4",
                    "--repeats",
                    "1",
                    *dd,
                ],
            )
        )
    return jobs


@contextlib.contextmanager
def phase(n: int, total: int, title: str) -> Iterator[None]:
    """Print a step's name when it starts and its duration when it ends, so a newcomer sees progress."""
    click.echo(f"[{n}/{total}] {title} ...")
    t0 = time.monotonic()
    yield
    click.echo(f"[{n}/{total}] {title}: done in {time.monotonic() - t0:.0f} s")


def where_to_watch(url: str, started: list[str]) -> str:
    """The closing note: where the jobs show, how long they take, and what Ctrl-C does to them."""
    if not started:
        return f"Dashboard: {url}"
    return (
        f"{len(started)} background job(s) run with the offline local model: watch them at {url}/re_evaluation "
        "(each card shows done / total, its phase and an estimate of the time left; on a 2-core machine "
        "the evaluation takes minutes, the optimization and the field study up to an hour). "
        "Ctrl-C stops the dashboard only: the jobs keep running in the background; cancel one from its card."
    )


def diagnose_imported(wh, limit: int) -> int:
    """Evidence-engine diagnoses of recorded failed traces (offline, deterministic)."""
    from core.chisel.recorded import diagnose_recorded

    return diagnose_recorded(wh, limit=limit)


@click.command()
@click.option("--app/--no-app", default=True, help="Open the dashboard when the warehouse is ready.")
@click.option("--jobs/--no-jobs", default=True, help="Start the local-model background jobs.")
@click.option("--port", type=int, default=8501)
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Dashboard address (see `docschisel app`)."
)
@click.option("--diagnose-limit", type=int, default=500, help="Recorded failed traces to diagnose.")
@warehouse_option
@data_dir_option
def command(
    app: bool,
    jobs: bool,
    port: int,
    host: str,
    diagnose_limit: int,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Build the demo warehouse (real recorded traces + local-model jobs) and open the dashboard."""
    from core.benchmarks.workbench.importer import import_workbench_results

    if app:
        from core.cli.app import check_exposure

        check_exposure(host)  # refuse an exposed dashboard without a token before the long import
    wh = open_warehouse(warehouse)
    click.echo(f"warehouse: {wh.path}")
    steps = 2 + int(jobs) + int(app)
    with phase(1, steps, "importing the recorded WorkBench traces"):
        summary = import_workbench_results(wh, data_dir)
        click.echo(f"recorded WorkBench traces: {summary['episodes']} episodes ({summary['written']} new)")
    with phase(2, steps, "diagnosing recorded failures (evidence engine, offline)"):
        n = diagnose_imported(wh, diagnose_limit)
        if n:
            click.echo(f"evidence-engine diagnoses of recorded failures: {n}")
    started: list[str] = []
    if jobs:
        from core.jobs import start_job

        with phase(3, steps, "starting the local-model background jobs"):
            for kind, argv in demo_jobs(data_dir):
                job_id = start_job(wh, kind, [*argv, "--warehouse", str(wh.path)], {"demo": True})
                started.append(job_id)
                click.echo(f"started background job {job_id}: docschisel {' '.join(argv)}")
    click.echo(where_to_watch(f"http://{host}:{port}", started))
    if not app:
        return
    click.echo(f"[{steps}/{steps}] opening the dashboard")
    from core.cli.app import launch

    raise SystemExit(launch(host, port, str(wh.path)))
