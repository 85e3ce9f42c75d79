"""Options shared by every command (warehouse, data directory, benchmark, agent)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import click

warehouse_option = click.option(
    "--warehouse",
    "warehouse",
    type=click.Path(dir_okay=False),
    default=None,
    envvar="DOCSCHISEL_WAREHOUSE",
    help="DuckDB warehouse file (default: $DOCSCHISEL_WAREHOUSE or data/warehouse.duckdb).",
)


def no_warehouse_option(why: str):  # noqa: ANN201 - a click decorator
    """`--warehouse` on a command that never opens one: accepted, so a script can pass it to every
    command, and its help says why it is not used."""
    return click.option(
        "--warehouse",
        "warehouse",
        type=click.Path(dir_okay=False),
        default=None,
        envvar="DOCSCHISEL_WAREHOUSE",
        expose_value=False,
        help=f"Accepted like on every command; not used: this command never touches a warehouse ({why}).",
    )


data_dir_option = click.option(
    "--data-dir",
    "data_dir",
    type=click.Path(file_okay=False),
    default=None,
    envvar="DOCSCHISEL_DATA_DIR",
    help="Benchmark data directory (default: $DOCSCHISEL_DATA_DIR or ../shared/benchmarks).",
)


def executor_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--executor, --ray-address: where the command's episodes run; installed before the command runs.

    Every run below the command (an evaluation, each step of an optimization,
    a study's variants) uses the installed executor (core.runner.executors);
    the warehouse stays with this process either way (docs/scale-out.md).
    """

    @functools.wraps(fn)
    def command(*args: Any, executor: str | None, ray_address: str | None, **kwargs: Any) -> Any:
        from core.runner.executors import make_executor, use

        try:
            use(make_executor(executor, ray_address))
        except (ValueError, RuntimeError) as exc:
            raise click.UsageError(str(exc)) from exc
        return fn(*args, **kwargs)

    command = click.option(
        "--ray-address",
        default=None,
        envvar="DOCSCHISEL_RAY_ADDRESS",
        help="Ray cluster for --executor ray: auto, ray://host:10001 or host:6379 "
        "(default: $DOCSCHISEL_RAY_ADDRESS, $RAY_ADDRESS, else a local Ray instance).",
    )(command)
    return click.option(
        "--executor",
        type=click.Choice(["local", "ray"]),
        default=None,
        envvar="DOCSCHISEL_EXECUTOR",
        help="Where episodes run: local threads, or actors of a Ray cluster "
        "(default: $DOCSCHISEL_EXECUTOR, else local).",
    )(command)


def parse_band(ctx, param, value: str | None):  # noqa: ANN001 - click callback
    """`low,high` (a TS⁰ band) or `none`."""
    if value is None or value.strip().lower() in ("none", "off", ""):
        return None
    try:
        lo, hi = (float(v) for v in value.split(","))
    except ValueError as exc:
        raise click.BadParameter(f"expected low,high (e.g. 0.15,0.85) or none, not {value!r}") from exc
    if not 0.0 <= lo <= hi <= 1.0:
        raise click.BadParameter(f"the band must satisfy 0 <= low <= high <= 1, not {value!r}")
    return (lo, hi)


headroom_option = click.option(
    "--headroom",
    default="0.15,0.85",
    callback=parse_band,
    help="Optimize only tools whose TS⁰ (original docs, opt + val tasks, all samples) lies in this band; "
    "'none' optimizes every tool.",
)

split_grouping_option = click.option(
    "--split-grouping",
    type=click.Choice(["gold", "task"]),  # core.benchmarks.splits.GROUPINGS
    default="gold",
    show_default=True,
    help="gold: tasks that share a gold call stay in one part of the opt/val/test split, so no held-out task "
    "repeats a request optimized on; task: the task-level split of runs made before grouping existed.",
)

guard_val_option = click.option(
    "--guard-val-tasks",
    type=click.IntRange(min=0),
    default=4,  # core.chisel.config.GUARD_VAL_TASKS (a literal: the CLI loads no model stack)
    show_default=True,
    help="DocsChisel: validation tasks of the domain whose right outcome is to call no tool, added to every "
    "tool's validation, so a doc that makes the agent act when nothing should be done is not accepted "
    "(0: none).",
)

misuse_option = click.option(
    "--misuse-tasks",
    type=click.IntRange(min=0),
    default=0,  # core.chisel.config.OptimizeConfig.misuse_tasks
    show_default=True,
    help="DocsChisel: add to each tool's optimization and validation sets up to N profiled tasks of its "
    "domain where the agent called it in another tool's place, so its doc can say which requests it is not "
    "for (and is judged on them); 0: only the tool's own tasks.",
)

misused_option = click.option(
    "--misused-tools",
    type=click.IntRange(min=0),
    default=0,  # core.chisel.config.OptimizeConfig.misused_tools
    show_default=True,
    help="DocsChisel: also optimize each other tool of the domain that the profile saw called in the "
    "optimized tools' place on at least N episodes (a tool the agent uses well on its own requests draws "
    "theirs), judged on those tasks and on its own; needs --misuse-tasks. 0: only the chosen tools.",
)

cross_val_option = click.option(
    "--cross-val-tasks",
    type=click.IntRange(min=0),
    default=0,  # core.chisel.config.OptimizeConfig.cross_val_tasks
    show_default=True,
    help="DocsChisel: add to each tool's validation up to N optimization tasks of the other tools optimized "
    "with it (round-robin over them), so a doc that moves the agent on other tools' requests is seen; "
    "0: none.",
)

in_context_option = click.option(
    "--in-context",
    is_flag=True,
    default=False,  # core.chisel.config.OptimizeConfig.in_context
    help="DocsChisel: judge each tool's candidates beside the docs already selected for the tools optimized "
    "before it in the run (their tasks rerun with those docs), not beside the original docs, so two docs "
    "that help alone but not together are not both kept.",
)

BENCHMARK_HELP = (
    "api-bank | api-bank-upstream | workbench | workbench-all | path to a benchmark folder | "
    "mcp:<server command> or mcp+http://host:port/mcp (with --tasks)."
)
benchmark_option = click.option("--benchmark", "-b", default="api-bank", help=BENCHMARK_HELP)
benchmarks_option = click.option(
    "--benchmark", "-b", "benchmarks", default="api-bank", help="Comma-separated: " + BENCHMARK_HELP
)


_TARGET_AGENT = (
    click.option(
        "--model",
        "-m",
        default=None,
        help="Target agent's model; default $DOCSCHISEL_MODEL or local/qwen2.5-coder-0.5b.",
    ),
    click.option("--agent", "paradigm", type=click.Choice(["react", "multi"]), default="react"),
    click.option("--doc-mode", type=click.Choice(["native", "text"]), default="native"),
    click.option("--max-steps", type=click.IntRange(min=1), default=6, help="Agent steps per episode."),
    click.option("--time-limit", type=float, default=180.0, help="Seconds per episode."),
)


tasks_option = click.option(
    "--tasks",
    "tasks_file",
    type=click.Path(exists=True),
    default=None,
    help="Tasks of an MCP benchmark (tasks.jsonl, or its folder with benchmark.json); see docs/user-benchmarks.md.",
)


def with_tasks(benchmark: str, tasks_file: str | None) -> str:
    """The benchmark name that carries an MCP server's tasks file (unchanged for other benchmarks)."""
    if tasks_file is None:
        return benchmark
    from core.benchmarks.mcp.loader import is_mcp_spec
    from core.benchmarks.registry import mcp_benchmark_name

    if not is_mcp_spec(benchmark):
        raise click.UsageError("--tasks goes with an MCP server benchmark (mcp:<command> or mcp+http://...)")
    return mcp_benchmark_name(benchmark, tasks_file)


def target_agent_options(fn):
    """--model, --agent, --doc-mode, --max-steps, --time-limit: the agent whose docs are optimized."""
    for option in reversed(_TARGET_AGENT):
        fn = option(fn)
    return fn


def split_csv(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def open_warehouse(path: str | None, *, llm: bool = True):
    """The warehouse; with `llm`, also install an LLM gateway whose cache and accounting live in it.

    Commands that call models get the persistent response cache (identical calls
    are never paid twice, across runs and processes) and per-call accounting
    rows. The gateway is created and installed here, at the command's entry,
    and nowhere below it.
    """
    from core.warehouse import Warehouse

    wh = Warehouse(path)
    if llm:
        from core.llm import Gateway, use

        use(Gateway.for_warehouse(wh))
    return wh
