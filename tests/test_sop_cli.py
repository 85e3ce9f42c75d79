"""`docschisel sop evolve / show / export` on WorkBench with a scripted native-tool-calling agent."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from core.llm import current, script, tool_call, use


@pytest.fixture
def restore_gateway():
    """The CLI installs a gateway on its warehouse; put the test's own back afterwards."""
    previous = current()
    yield
    use(previous)


def _agent(messages, params):
    """Search the sender's emails; offered an SOP that ends in delete_email, use it on delete requests."""
    if messages[-1]["role"] == "tool":
        return "done"
    names = [t["function"]["name"] for t in params.get("tools") or []]
    user = next(m["content"] for m in messages if m["role"] == "user")
    found = re.search(r"from (\w+)", user)
    query = found.group(1) if found else user.split()[-1]
    sops = [n for n in names if n.endswith("_then_delete_email")]
    if sops and "elete" in user:
        return tool_call(sops[0], query=query)
    return tool_call("email__search_emails", query=query)


@pytest.mark.slow
def test_evolve_show_and_export_from_the_command_line(tmp_path, data_dir, restore_gateway) -> None:
    from core.cli.main import cli

    model = script(_agent, name="sop-cli-agent")
    wh = str(tmp_path / "sop.duckdb")
    runner = CliRunner()
    args = [
        "sop", "evolve", "--benchmark", "workbench", "--domain", "email", "--model", model.model,
        "--max-steps", "3", "--max-train-tasks", "12", "--epochs", "2", "--batch-size", "12",
        "--construct-epochs", "1", "--max-test-tasks", "3", "--concurrency", "1", "--warehouse", wh,
        "--data-dir", str(data_dir),
    ]  # fmt: skip
    out = runner.invoke(cli, args)
    assert out.exit_code == 0, out.output
    run_id = re.search(r"run id: (\w+)", out.output).group(1)
    assert "search_emails_then_delete_email" in out.output, "a WorkBench routine became an SOP"
    epochs = [line.split() for line in out.output.splitlines() if re.match(r"^\s+[012]\s+\d", line)]
    assert float(epochs[1][1]) > float(epochs[0][1]), "training TS rises once the SOP is offered"
    assert "held-out test (3 tasks)" in out.output

    shown = runner.invoke(cli, ["sop", "show", "--warehouse", wh])
    assert shown.exit_code == 0 and run_id in shown.output
    detail = runner.invoke(cli, ["sop", "show", run_id, "--code", "--warehouse", wh])
    assert detail.exit_code == 0, detail.output
    assert "SOP lifetimes" in detail.output and 'tools.call("email.search_emails"' in detail.output
    assert "Uptake (episodes that called an SOP" in detail.output and "| test |" in detail.output

    target = tmp_path / "sops.json"
    exported = runner.invoke(
        cli, ["sop", "export", run_id, "--format", "mcp", "-o", str(target), "--warehouse", wh]
    )
    assert exported.exit_code == 0, exported.output
    data = json.loads(target.read_text())
    assert data["tools"] and all("inputSchema" in t for t in data["tools"])
    assert {s["name"] for s in data["sops"]} == {t["name"] for t in data["tools"]}
    assert all(s["code"].startswith("def ") for s in data["sops"])

    again = runner.invoke(cli, args)  # resumes: the same run, nothing new
    assert again.exit_code == 0 and f"run id: {run_id}" in again.output
