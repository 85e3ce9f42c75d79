"""`docschisel study`: the field-impact study (add/remove one field, measure ΔTS) and its tables."""

from __future__ import annotations

import click

from core.cli.common import (
    benchmark_option,
    data_dir_option,
    executor_options,
    open_warehouse,
    split_csv,
    warehouse_option,
)


@click.group()
def command() -> None:
    """Empirical studies: which documentation fields help which agent (the paper's RQ2)."""


WHY_HELP = "Also the tasks each variant moved, the tasks none moves, and the detectable effect."


@command.command("fields", context_settings={"show_default": True})
@benchmark_option
@click.option("--domain", "-d", "domains", required=True, help="Domain(s), comma-separated; one study each.")
@click.option(
    "--model",
    "-m",
    "models",
    default=None,
    help="Backbone(s), comma-separated (default: $DOCSCHISEL_MODEL or local/qwen2.5-coder-0.5b).",
)
@click.option("--agent", "agents", default="react", help="Paradigm(s): react, multi or react,multi.")
@click.option("--doc-mode", type=click.Choice(["native", "text"]), default="native")
@click.option("--repeats", "-r", type=int, default=3, help="Repeats; repeat r samples with seed SEED+r.")
@click.option("--limit", type=int, default=20, help="Seeded sample of N measured tasks (0 = all).")
@click.option("--seed", type=int, default=0, help="Seed of the split, the task sample and the agent.")
@click.option("--temperature", type=float, default=0.7, help="Agent sampling temperature for the repeats.")
@click.option("--fields", "fields", default="", help="Only these field codes (default: all 17).")
@click.option("--measure", "measure_part", type=click.Choice(["opt", "val", "test"]), default="test")
@click.option(
    "--evidence",
    "evidence_part",
    type=click.Choice(["opt", "val", "test"]),
    default="opt",
    help="Split part the supplemented fields are derived from (must differ from --measure).",
)
@click.option("--max-steps", type=int, default=6)
@click.option(
    "--time-limit",
    type=float,
    default=1800.0,
    help="Seconds per episode (generous: a timeout measures the machine, not the docs).",
)
@click.option("--concurrency", "-j", type=int, default=1)
@click.option("--format", "fmt", type=click.Choice(["table", "markdown"]), default="table")
@click.option("--why", is_flag=True, help=WHY_HELP)
@executor_options
@warehouse_option
@data_dir_option
def fields_cmd(
    benchmark: str,
    domains: str,
    models: str | None,
    agents: str,
    doc_mode: str,
    repeats: int,
    limit: int,
    seed: int,
    temperature: float,
    fields: str,
    measure_part: str,
    evidence_part: str,
    max_steps: int,
    time_limit: float,
    concurrency: int,
    fmt: str,
    why: bool,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Run (or resume) the field-impact study for each domain × model × agent and print ΔTS per field."""
    from core.benchmarks.registry import get_benchmark
    from core.cli.evaluate import job_hooks
    from core.fields import CODES, field
    from core.llm import default_model
    from core.study import report
    from core.study.fields import StudySpec, run_study

    wh = open_warehouse(warehouse)
    bench = get_benchmark(benchmark, data_dir)
    codes = tuple(field(c).code for c in split_csv(fields)) or CODES
    for domain in split_csv(domains):
        for model in split_csv(models) or [default_model()]:
            for agent in split_csv(agents):
                spec = StudySpec(
                    benchmark=benchmark,
                    domain=domain,
                    model=model,
                    paradigm=agent,
                    doc_mode=doc_mode,
                    repeats=repeats,
                    limit=limit or None,
                    seed=seed,
                    temperature=temperature,
                    measure_part=measure_part,
                    evidence_part=evidence_part,
                    fields=codes,
                    max_steps=max_steps,
                    time_limit_s=time_limit,
                )
                steps, cancelled = job_hooks(wh)
                rows = run_study(
                    wh, spec, bench=bench, concurrency=concurrency, progress=click.echo, steps=steps,
                    cancelled=cancelled,
                )  # fmt: skip
                click.echo(f"\n{report.title(rows)}  (study {spec.study_id})")
                click.echo(report.markdown(rows) if fmt == "markdown" else report.text(rows))
                if why:
                    _echo_why(wh, spec.study_id)
                click.echo("")


@command.command("show")
@click.option("--study", "study_id", default=None, help="One study id (default: every study).")
@click.option("--format", "fmt", type=click.Choice(["table", "markdown"]), default="table")
@click.option("--why", is_flag=True, help=WHY_HELP)
@warehouse_option
def show_cmd(study_id: str | None, fmt: str, why: bool, warehouse: str | None) -> None:
    """Print the stored field-impact tables (latest row per study and field)."""
    from core.study import report
    from core.study.report import latest_impacts

    wh = open_warehouse(warehouse)
    frame = latest_impacts(wh, study_id)
    if frame.empty:
        raise click.ClickException(
            "no field-impact rows in this warehouse; run `docschisel study fields` first"
        )
    for sid, rows in frame.groupby("study_id", sort=False):
        click.echo(f"\n{report.title(rows)}  (study {sid})")
        click.echo(report.markdown(rows) if fmt == "markdown" else report.text(rows))
        if why:
            _echo_why(wh, str(sid))


def _echo_why(wh, study_id: str) -> None:  # noqa: ANN001
    """Where a study's numbers come from (core.study.moves), below its table."""
    from core.study import moves
    from core.study.report import latest_impacts
    from core.tables import markdown_table

    click.echo("\n" + moves.markdown(moves.explain(wh, latest_impacts(wh, study_id)), markdown_table))


@command.command("attribute", context_settings={"show_default": True})
@click.option("--compare", "compare_id", required=True, help="The comparison whose doc set is attributed.")
@click.option("--method", required=True, help="Its method whose doc set is the target (e.g. dc, gepa).")
@click.option("--opt-run", type=int, default=0, help="Which optimization run's doc set.")
@click.option("--base-method", default="og", help="The method whose doc set is the base.")
@click.option(
    "--leave-one-out/--no-leave-one-out",
    default=True,
    help="Also run the target without each changed doc (with two or more changed docs).",
)
@click.option("--concurrency", "-j", type=int, default=1)
@click.option("--format", "fmt", type=click.Choice(["table", "markdown"]), default="table")
@warehouse_option
@data_dir_option
def attribute_cmd(
    compare_id: str,
    method: str,
    opt_run: int,
    base_method: str,
    leave_one_out: bool,
    concurrency: int,
    fmt: str,
    warehouse: str | None,
    data_dir: str | None,
) -> None:
    """Which changed doc moved a comparison's result: each changed doc alone on the base docs, and the
    target without it, on the comparison's test tasks and evaluation runs (its own episodes are reused).
    ΔTS is split into the tasks whose ground truth uses the changed tool and the others."""
    from core.cli.evaluate import job_hooks
    from core.study.attribution import AttributionError, from_comparison, run_attribution, table_frame, title
    from core.tables import markdown_table

    wh = open_warehouse(warehouse)
    try:
        spec = from_comparison(wh, compare_id, method, opt_run, base_method, leave_one_out)
        _, cancelled = job_hooks(wh)
        rows = run_attribution(
            wh, spec, data_dir=data_dir, concurrency=concurrency, log=click.echo, cancelled=cancelled
        )
    except AttributionError as exc:
        raise click.ClickException(str(exc)) from exc
    if rows.empty:
        raise click.ClickException("no variant was paired with the base docs (cancelled before one finished)")
    frame = table_frame(rows)
    click.echo("\n" + title(rows))
    click.echo(markdown_table(frame) if fmt == "markdown" else frame.to_string(index=False))
