"""The command line keeps the promises its README and help make."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
from click.testing import CliRunner

from core.cli.main import cli

NOTES = Path(__file__).parent / "fixtures" / "userbench" / "notes"


def _leaves(
    cmd: click.Command, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    if isinstance(cmd, click.Group):
        ctx = click.Context(cmd)
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            assert sub is not None, name
            yield from _leaves(sub, (*path, name))
    else:
        yield path, cmd


def test_every_command_accepts_warehouse_or_says_why_not() -> None:
    leaves = list(_leaves(cli))
    assert len(leaves) > 20 and ("rescore",) in [p for p, _ in leaves]
    for path, cmd in leaves:
        option = next((p for p in cmd.params if "--warehouse" in getattr(p, "opts", ())), None)
        assert option is not None, f"docschisel {' '.join(path)} does not accept --warehouse"
        if not option.expose_value:  # accepted but unused: the help must say why
            assert "never touches a warehouse" in (option.help or ""), path


def test_commands_without_a_warehouse_accept_the_option() -> None:
    runner = CliRunner()
    out = runner.invoke(cli, ["fields", "list", "--warehouse", "x.duckdb", "--format", "csv"])
    assert out.exit_code == 0 and out.output.startswith("code,field")
    out = runner.invoke(cli, ["bench", "check", "--help"])
    assert "never touches a warehouse" in out.output


def test_fields_coverage_reads_a_user_folders_tools() -> None:
    out = CliRunner().invoke(cli, ["fields", "coverage", str(NOTES), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert '"notes-example"' in out.output and '"tools": 4' in out.output


def test_optimize_log_and_candidate_export_when_the_original_is_kept(tmp_path: Path, data_dir: Path) -> None:
    """A scripted agent that never improves: candidates pass the acceptance rule, the original is kept
    (and named), and each candidate is still exportable by the id the log printed."""
    import json
    import re

    from core.llm import current, script, use

    def step(messages):  # always QueryStock without the date
        return json.dumps({"thought": "t", "action": "QueryStock", "action_input": {"stock_code": "AMZN"}})

    previous = current()
    model = script(step, name="promises-agent")
    wh = str(tmp_path / "promises.duckdb")
    runner = CliRunner()
    try:
        out = runner.invoke(
            cli,
            ["optimize", "-b", "api-bank", "-d", "finance", "--tools", "QueryStock", "--iterations", "1",
             "--max-opt-tasks", "3", "--max-val-tasks", "1", "--headroom", "none", "--repeats", "1",
             "--temperature", "0", "--engine", "evidence", "--min-val-tasks", "0", "--model", model.model,
             "--doc-mode", "text", "--max-steps", "1", "--warehouse", wh, "--data-dir", str(data_dir)],
            catch_exceptions=False,
        )  # fmt: skip
    finally:
        use(previous)
    assert out.exit_code == 0, out.output
    assert "passed the acceptance rule" in out.output and "-> accepted" not in out.output
    original = re.search(r"selected the original (\w+)", out.output)
    assert original is not None, out.output
    assert "selected: QueryStock: original kept" in out.output  # the end of the log names the choice
    candidate = re.search(r"-> candidate (\w+)", out.output).group(1)
    exported = runner.invoke(
        cli, ["export", candidate, "--changed-only", "--format", "openai", "--warehouse", wh]
    )
    assert exported.exit_code == 0, exported.output
    assert [s["function"]["name"] for s in json.loads(exported.output)] == ["QueryStock"]
    bad = runner.invoke(cli, ["export", "0123456789abcdef", "--warehouse", wh])
    assert bad.exit_code == 2 and "candidate (doc) id" in bad.output


def test_eval_prints_ts_and_tc_per_tool(tmp_path: Path) -> None:
    from core.llm import current, script, tool_call, use

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        return tool_call("search_notes", query="coffee")

    previous = current()
    model = script(reply, name="promises-eval")
    try:
        out = CliRunner().invoke(
            cli,
            ["eval", "-b", str(NOTES), "--split", "all", "--domain", "lookup", "--model", model.model,
             "--max-steps", "2", "--warehouse", str(tmp_path / "eval.duckdb")],
            catch_exceptions=False,
        )  # fmt: skip
    finally:
        use(previous)
    assert out.exit_code == 0, out.output
    assert "per tool" in out.output
    assert any(line.strip().startswith("search_notes") and "TC" in line for line in out.output.splitlines())
    assert "per tool" in CliRunner().invoke(cli, ["eval", "--help"]).output
