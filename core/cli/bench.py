"""`docschisel bench list|check`: what benchmarks exist and whether their gold answers replay."""

from __future__ import annotations

import json

import click

from core.cli.common import data_dir_option, no_warehouse_option, tasks_option, with_tasks


@click.group()
def command() -> None:
    """Benchmarks: list them, check that their ground truth replays."""


@command.command("list")
@data_dir_option
@no_warehouse_option("it lists the built-in benchmarks from their data")
def list_cmd(data_dir: str | None) -> None:
    """Built-in benchmarks with their size, and whether their data is present."""
    from core.benchmarks.registry import BUILTIN, get_benchmark
    from core.config import DataDirError

    for name, about in BUILTIN.items():
        try:
            bench = get_benchmark(name, data_dir)
            tasks = bench.tasks()
            status = (
                f"{len(tasks)} tasks, {len(bench.tool_names())} tools, domains: {', '.join(bench.domains())}"
            )
        except DataDirError as exc:
            status = f"data missing — {str(exc).splitlines()[0]}"
        click.echo(f"{name:<18} {about}\n{'':<18} {status}")
    click.echo("A folder in the user benchmark format (docs/user-benchmarks.md) works wherever a name does.")
    click.echo(
        "So does an MCP server with a tasks file: mcp:<command> or mcp+http://host:port/mcp, with --tasks "
        "on bench check, eval and optimize (docs/user-benchmarks.md, MCP servers)."
    )


@command.command("check")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the full report as JSON.")
@tasks_option
@data_dir_option
@no_warehouse_option("it replays the gold answers in memory and stores nothing")
def check_cmd(name: str, as_json: bool, tasks_file: str | None, data_dir: str | None) -> None:
    """Replay every gold answer of NAME and report (exit 1 if any fails)."""
    from core.benchmarks.mcp import McpBenchmark
    from core.benchmarks.registry import get_benchmark

    bench = get_benchmark(with_tasks(name, tasks_file), data_dir)
    if name.startswith("workbench"):
        from core.benchmarks.workbench import check

        report = check(bench)
        text = (
            f"WorkBench ({report['data_dir']}): {report['tasks']} tasks, {report['tools']} tools\n"
            f"gold calls executed: {report['gold_calls_ok']}/{report['gold_calls']}\n"
            f"tasks correct against their own gold: {report['self_correct']}/{report['tasks']}\n"
            f"spot checks: {sum(report['spot_checks'].values())}/{len(report['spot_checks'])} "
            f"({report['seconds']} s)"
        )
        ok = report["ok"]
    elif isinstance(bench, McpBenchmark):
        from core.benchmarks.mcp import check as mcp_check

        try:
            report = mcp_check(bench)
        finally:
            bench.close()
        text = (
            f"{bench.name} (MCP server {report['server']}; {report['tasks']} tasks, {report['tools']} tools): "
            f"gold calls executed {report['gold_calls_ok']}/{report['gold_calls']}, tasks correct against "
            f"their own gold {report['self_correct']}/{report['tasks']} ({report['seconds']} s)"
        )
        ok = report["ok"]
    elif name.startswith("api-bank") or name == "apibank":
        from core.benchmarks.apibank import check

        report = check(bench)
        text, ok = report.to_text(), report["ok"]
    else:
        from core.benchmarks.userfolder import check as user_check

        report = user_check(bench)
        text = (
            f"{bench.name} ({report.get('tasks')} tasks, {report.get('tools')} tools): gold calls executed "
            f"{report.get('gold_calls_ok')}/{report.get('gold_calls')}, tasks correct against their own gold "
            f"{report.get('self_correct')}/{report.get('tasks')}"
        )
        ok = report["ok"]
    if as_json:
        click.echo(
            json.dumps(dict(report) if not isinstance(report, dict) else report, indent=2, default=str)
        )
    else:
        click.echo(text)
        for f in (report.get("failures") or [])[:20] if isinstance(report, dict) else []:
            click.echo(f"  FAIL {f}")
    if not ok:
        raise SystemExit(1)
