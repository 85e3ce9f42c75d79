"""`docschisel optimize`, `export` and `eval --docs <run-id>` end to end with a scripted model."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from core.llm import current, script, use


@pytest.fixture
def restore_gateway():
    """The CLI installs a gateway on its warehouse; put the test's own back afterwards."""
    previous = current()
    yield
    use(previous)


def _step(messages):
    """A text-ReAct 'model' that always asks QueryStock for AMZN, leaving out the date."""
    return json.dumps(
        {"thought": "look it up", "action": "QueryStock", "action_input": {"stock_code": "AMZN"}}
    )


def test_optimize_export_and_eval_from_the_command_line(tmp_path, data_dir, restore_gateway) -> None:
    from core.cli.main import cli

    model = script(_step, name="cli-agent")
    wh = str(tmp_path / "cli.duckdb")
    common = ["--warehouse", wh, "--data-dir", str(data_dir)]
    agent = ["--model", model.model, "--doc-mode", "text", "--max-steps", "1"]
    runner = CliRunner()
    out = runner.invoke(
        cli,
        [
            "optimize",
            "--benchmark",
            "api-bank",
            "--domain",
            "finance",
            "--tools",
            "QueryStock",
            "--iterations",
            "1",
            "--max-opt-tasks",
            "3",
            "--max-val-tasks",
            "1",
            # this scripted agent never succeeds: no headroom, so optimize regardless; deterministic
            "--headroom",
            "none",
            "--repeats",
            "1",
            "--temperature",
            "0",
            "--engine",
            "evidence",
            "--min-val-tasks",
            "0",
            # the scripted agent never improves, so only the paper's rule (ties to the shortest) changes the doc
            "--selection",
            "paper",
            *agent,
            *common,
        ],
        catch_exceptions=False,
    )
    assert out.exit_code == 0, out.output
    run_id = re.search(r"run id: (\w+)", out.output).group(1)
    docset_id = re.search(r"optimized doc set: (\w+)", out.output).group(1)
    assert "QueryStock" in out.output and "missing_argument" in out.output

    exported = runner.invoke(
        cli, ["export", run_id, "--format", "openai", "--warehouse", wh], catch_exceptions=False
    )
    assert exported.exit_code == 0, exported.output
    schemas = json.loads(exported.output)
    stock = next(s for s in schemas if s["function"]["name"] == "QueryStock")
    assert stock["function"]["parameters"]["required"] == ["stock_code", "date"]
    mcp = runner.invoke(cli, ["export", docset_id, "--format", "mcp", "--changed-only", "--warehouse", wh])
    assert [t["name"] for t in json.loads(mcp.output)["tools"]] == ["QueryStock"]

    evaluated = runner.invoke(
        cli,
        [
            "eval",
            "--benchmark",
            "api-bank",
            "--domain",
            "finance",
            "--docs",
            run_id,
            "--split",
            "test",
            "--limit",
            "2",
            *agent,
            *common,
        ],
        catch_exceptions=False,
    )
    assert evaluated.exit_code == 0, evaluated.output
    assert docset_id in evaluated.output
