"""`docschisel sop`: synthesise higher-order tools (SOPs) from trajectories with EvoSOP, show and export them.

docschisel sop evolve --benchmark workbench --domain email --max-train-tasks 25
docschisel sop compare --benchmark workbench --domain email --seeds 0,1,2
docschisel sop show <run-id>
docschisel sop export <run-id> --format openai -o sops.json
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from core.cli.common import (
    benchmark_option,
    data_dir_option,
    executor_options,
    open_warehouse,
    split_csv,
    split_grouping_option,
    target_agent_options,
    warehouse_option,
)

VARIANTS = ("full", "no-merge", "no-review", "asi")

_EVOLVE = (
    benchmark_option,
    click.option(
        "--domain", "-d", "domains", default="", help="Comma-separated task domains (default: all)."
    ),
    target_agent_options,
    click.option("--temperature", type=float, default=0.0, help="The target agent's sampling temperature."),
    click.option(
        "--repeats", "-r", type=click.IntRange(min=1), default=1, help="Samples per task per evaluation."
    ),
    click.option(
        "--constructor",
        type=click.Choice(["composer", "llm"]),
        default="composer",
        help="composer: offline pattern mining + code template (deterministic, no LLM); llm: the model writes the code.",
    ),
    click.option(
        "--reviewer",
        type=click.Choice(["evidence", "llm"]),
        default="evidence",
        help="evidence: labels from execution evidence; llm: the model labels each invocation.",
    ),
    click.option("--optimizer-model", default=None, help="Model of the LLM constructor / merger / reviewer."),
    click.option(
        "--explore-model",
        default=None,
        help="Also run this model (e.g. a stronger one) on the training tasks; its trajectories join the "
        "construction material. SOPs are still evaluated and tested with the target agent.",
    ),
    click.option(
        "--doc-links",
        is_flag=True,
        help="The composer also links lookup -> write routines the training tasks' writes need through the "
        "read-only tools' docs (for an agent that never looks anything up; off: from trajectories only).",
    ),
    click.option(
        "--offer",
        type=click.Choice(["beside", "instead"]),
        default="beside",
        help="beside: SOPs next to every atomic tool (the paper); instead: an ablation that withholds the "
        "atomic writes an offered SOP wraps (read-only tools stay).",
    ),
    click.option("--epochs", "-n", type=click.IntRange(min=1), default=10, help="Epochs (the paper: 10)."),
    click.option(
        "--batch-size", type=click.IntRange(min=1), default=5, help="Training tasks per mini-batch."
    ),
    click.option(
        "--construct-epochs",
        type=click.IntRange(min=0),
        default=5,
        help="Epochs that construct new SOPs (one mini-batch each); later epochs only merge, evaluate, review.",
    ),
    click.option("--max-new", type=click.IntRange(min=1), default=3, help="New SOPs per mini-batch at most."),
    click.option(
        "--seed", type=int, default=0, help="Seed of the batches, task samples and the agent's sampling."
    ),
    click.option(
        "--split-seed", type=int, default=0, help="Seed of the stored opt/val/test split (as optimize)."
    ),
    split_grouping_option,
    click.option(
        "--max-train-tasks", type=click.IntRange(min=1), default=None, help="Seeded sample of training tasks."
    ),
    click.option(
        "--max-test-tasks", type=click.IntRange(min=1), default=None, help="Seeded sample of test tasks."
    ),
    click.option("--no-test", is_flag=True, help="Skip the final held-out test evaluation."),
    click.option("--cpu-s", type=float, default=2.0, help="CPU seconds per SOP invocation (worker limit)."),
    click.option("--wall-s", type=float, default=20.0, help="Wall seconds per SOP invocation."),
    click.option("--memory-mb", type=int, default=256, help="Address space of the SOP worker (MB)."),
    click.option("--concurrency", "-j", type=int, default=2),
    executor_options,
    warehouse_option,
    data_dir_option,
)


def evolve_options(fn):
    for option in reversed(_EVOLVE):
        fn = option(fn)
    return fn


@click.group()
def command() -> None:
    """EvoSOP: higher-order tools (SOPs) synthesised from agent trajectories, merged, evaluated, reviewed."""


def _config(kw: dict, variant: str, seed: int):
    from dataclasses import replace

    from core.agents import AgentConfig
    from core.llm import default_model
    from core.sop.evolve import SopConfig
    from core.sop.executor import Limits

    agent = AgentConfig(
        paradigm=kw["paradigm"],
        model=kw["model"] or default_model(),
        doc_mode=kw["doc_mode"],
        max_steps=kw["max_steps"],
        time_limit_s=kw["time_limit"],
        temperature=kw["temperature"],
        seed=seed,
    )
    explorer = replace(agent, model=kw["explore_model"]) if kw.get("explore_model") else None
    return SopConfig(
        benchmark=kw["benchmark"],
        domains=tuple(split_csv(kw["domains"])),
        agent=agent,
        variant=variant,
        constructor=kw["constructor"],
        reviewer=kw["reviewer"],
        model=kw["optimizer_model"],
        epochs=kw["epochs"],
        batch_size=kw["batch_size"],
        construct_epochs=kw["construct_epochs"],
        max_new=kw["max_new"],
        repeats=kw["repeats"],
        seed=seed,
        split_seed=kw["split_seed"],
        split_grouping=kw["split_grouping"],
        max_train_tasks=kw["max_train_tasks"],
        max_test_tasks=kw["max_test_tasks"],
        test=not kw["no_test"],
        limits=Limits(cpu_s=kw["cpu_s"], wall_s=kw["wall_s"], memory_mb=kw["memory_mb"]),
        explorer=explorer,
        doc_links=bool(kw.get("doc_links")),
        offer=kw.get("offer") or "beside",
        name=kw.get("name") or "",
    )


def _run(wh, config, kw: dict):
    from core.chisel.access import GroundTruth
    from core.cli.evaluate import job_hooks
    from core.sop.evolve import evolve

    progress, cancelled = job_hooks(wh)
    try:
        return evolve(
            wh,
            config,
            data_dir=kw["data_dir"],
            # the audited accessor of DocsChisel: the optimization split only, every read logged
            ground_truth=lambda run_id, split, tasks: GroundTruth(wh, run_id, split, tasks, allowed=("opt",)),
            concurrency=kw["concurrency"],
            log=click.echo,
            progress=progress,
            cancelled=cancelled,
        )
    except KeyError as exc:
        raise click.UsageError(str(exc.args[0] if exc.args else exc)) from exc


def _print_result(res) -> None:
    click.echo("")
    click.echo(f"{'epoch':>5} {'TS':>6} {'rounds':>7} {'SOPs':>5} {'added':>6} {'merged':>7} {'pruned':>7}")
    for e in res.epochs:
        click.echo(
            f"{e.epoch:>5} {e.ts:>6.2f} {e.rounds:>7.2f} {len(e.evaluated):>5} {len(e.added):>6} "
            f"{len(e.merged):>7} {len(e.pruned):>7}"
        )
    click.echo(
        f"best epoch: {res.best_epoch} ({len(res.toolset)} SOPs: {', '.join(s.name for s in res.toolset) or '-'})"
    )
    if res.test:
        t = res.test
        click.echo(
            f"held-out test ({t['n']} tasks): atomic TS {t['atomic']['ts']:.2f} ({t['atomic']['rounds']:.2f} rounds), "
            f"with SOPs TS {t['sop']['ts']:.2f} ({t['sop']['rounds']:.2f} rounds)"
        )
    if res.cancelled:
        click.echo("cancelled: run the same command again to resume")
    click.echo(f"run id: {res.run_id}")


@command.command("evolve", context_settings={"show_default": True})
@evolve_options
@click.option("--variant", type=click.Choice(VARIANTS), default="full", help="full EvoSOP or an ablation.")
@click.option("--name", default="", help="Label of the run.")
def evolve_cmd(**kw) -> None:
    """Run (or resume) one EvoSOP run: prints each epoch, the selected toolset and the held-out test scores."""
    wh = open_warehouse(kw["warehouse"])
    res = _run(wh, _config(kw, kw["variant"], kw["seed"]), kw)
    _print_result(res)


@command.command("compare", context_settings={"show_default": True})
@evolve_options
@click.option(
    "--variants",
    default="asi,no-merge,no-review,full",
    help="Comma-separated among full, no-merge, no-review, asi (ReAct with atomic tools is every run's epoch 0).",
)
@click.option("--seeds", default="0,1,2", help="Comma-separated seeds: each variant runs once per seed.")
def compare_cmd(variants: str, seeds: str, **kw) -> None:
    """Table 1 / Fig. 3: ReAct (atomic tools), ASI-like one-shot SOPs, EvoSOP without merger / reviewer, EvoSOP."""
    from core.sop.report import table1
    from core.tables import markdown_table

    chosen = split_csv(variants)
    bad = sorted(set(chosen) - set(VARIANTS))
    if bad:
        raise click.BadParameter(
            f"unknown variant(s) {bad}; choose from {', '.join(VARIANTS)}", param_hint="--variants"
        )
    wh = open_warehouse(kw["warehouse"])
    for seed in [int(s) for s in split_csv(seeds)]:
        for variant in chosen:
            click.echo(f"== {variant}, seed {seed}")
            res = _run(wh, _config(kw, variant, seed), kw)
            if res.cancelled:
                click.echo("cancelled: run the same command again to resume")
                return
    click.echo("")
    click.echo(markdown_table(table1(wh)))


@command.command("show")
@click.argument("run_id", required=False)
@click.option("--code", is_flag=True, help="Print the final toolset's code.")
@warehouse_option
def show_cmd(run_id: str | None, code: bool, warehouse: str | None) -> None:
    """List evolve runs, or show one: epochs, SOP lifetimes, decisions and the final toolset."""
    from core.sop import report
    from core.tables import markdown_table

    wh = open_warehouse(warehouse, llm=False)
    if not run_id:
        df = report.runs(wh)
        if df.empty:
            click.echo("no EvoSOP runs yet: docschisel sop evolve ...")
            return
        cols = ["run_id", "method", "benchmark", "domains", "model", "seed", "status", "epochs", "best_epoch",
                "n_sops", "train_ts", "test_ts", "base_test_ts"]  # fmt: skip
        click.echo(markdown_table(df[cols], floatfmt=".2f"))
        return
    epochs = report.epochs_frame(wh, run_id)
    if epochs.empty:
        raise click.UsageError(f"no EvoSOP run {run_id!r} in {wh.path}")
    click.echo(markdown_table(epochs.drop(columns=["eval_run", "toolset_id"]), floatfmt=".2f"))
    life = report.lifecycle_frame(wh, run_id)
    if not life.empty:
        click.echo("\nSOP lifetimes (successes/invocations per epoch, x = pruned):")
        for name, g in life.groupby("name", sort=True):
            cells = " ".join(
                f"e{r.epoch}:{r.successes}/{r.invocations}{'x' if r.pruned else ''}" for r in g.itertuples()
            )
            click.echo(f"  {name}: {cells}")
    uptake = report.uptake_frame(wh, run_id)
    if not uptake.empty:
        click.echo("\nUptake (episodes that called an SOP; the agent's own calls in the others):")
        click.echo(markdown_table(uptake))
    dec = report.decisions_frame(wh, run_id)
    if not dec.empty:
        click.echo("\n" + markdown_table(dec.drop(columns=["sop_id"])))
    best, toolset = report.final_toolset(wh, run_id)
    click.echo(f"\nfinal toolset (epoch {best}): {', '.join(s.name for s in toolset) or '-'}")
    if code:
        for s in toolset:
            click.echo(f"\n# {s.tool}  ({s.origin}; calls {' -> '.join(s.uses)})\n{s.code}")


@command.command("export", context_settings={"show_default": True})
@click.argument("run_id")
@click.option("--format", "fmt", type=click.Choice(["openai", "mcp"]), default="openai")
@click.option("--output", "-o", type=click.Path(dir_okay=False), default=None, help="File (default: stdout).")
@warehouse_option
def export_cmd(run_id: str, fmt: str, output: str | None, warehouse: str | None) -> None:
    """Export the final SOP toolset of RUN_ID: tool definitions (OpenAI or MCP) plus each SOP's code."""
    from core.sop.report import export_toolset, final_toolset

    wh = open_warehouse(warehouse, llm=False)
    best, toolset = final_toolset(wh, run_id)
    if not best:
        raise click.UsageError(f"no finished epoch of EvoSOP run {run_id!r} in {wh.path}")
    text = json.dumps(
        {"run_id": run_id, "epoch": best, **export_toolset(toolset, fmt)}, indent=2, ensure_ascii=False
    )
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        click.echo(f"wrote {len(toolset)} SOPs as {fmt} to {output}", err=True)
    else:
        click.echo(text)
