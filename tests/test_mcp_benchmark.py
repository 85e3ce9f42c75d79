"""An MCP server as a benchmark: tools from tools/list, calls through tools/call, isolated episodes.

The server is tests/fixtures/mcp/notes_server.py, a real stdio (and streamable
HTTP) server written with the `mcp` SDK's server API.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.mcphelp import NOTES_SERVER, NOTES_TASKS, descendants, free_port, notes_command, settle, start

pytest.importorskip("mcp")


@pytest.fixture(scope="module")
def bench():
    from core.benchmarks.registry import get_benchmark

    b = get_benchmark(notes_command(), tasks=str(NOTES_TASKS))
    yield b
    b.close()


def _folder(tmp_path: Path, task_ids: list[str], manifest: dict | None = None) -> Path:
    """A tasks folder with some of the fixture's tasks and an optional manifest."""
    lines = [ln for ln in NOTES_TASKS.read_text().splitlines() if json.loads(ln)["id"] in task_ids]
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    if manifest is not None:
        (folder / "benchmark.json").write_text(json.dumps(manifest))
    return folder


def _agent(name: str):
    """A scripted native agent: one call per task, then a final answer."""
    from core.llm import script, tool_call

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        query = next(m["content"] for m in messages if m["role"] == "user")
        if "Call Bob" in query:
            return tool_call("add_note", title="Call Bob", body="about the offsite", folder="work")
        if "note 3" in query:  # the wrong folder: the end state differs from the gold one
            return tool_call("move_note", note_id=3, folder="personal")
        if "dentist" in query:
            return tool_call("search_notes", query="dentist")
        return "I cannot help."

    return script(reply, name=name)


def test_tools_come_from_tools_list_with_every_field(bench) -> None:
    docs = bench.original_docs()
    assert set(bench.tool_names()) == {
        "list_folders", "add_note", "search_notes", "get_note", "move_note", "tag_note", "delete_note",
        "export_notebook", "reset_notebook",
    }  # fmt: skip
    add = docs["add_note"]
    assert add.description.startswith("Create a note and return its id.")
    assert [(p.name, p.type, p.required) for p in add.parameters] == [
        ("title", "str", True),
        ("body", "str", True),
        ("folder", "str", False),
    ]
    assert add.parameters[2].default == "inbox"
    assert add.returns[0].type == "int"  # from the outputSchema
    assert bench.tool_definition("add_note")["inputSchema"]["required"] == ["title", "body"]
    assert bench.key.startswith("mcp/notes-mcp@")
    modes = {t.task_id: bench.mode_for(t) for t in bench.tasks()}
    assert modes["add-1"] == "state" and modes["search-1"] == "calls"


def test_bench_check_replays_gold_on_fresh_servers(tmp_path: Path) -> None:
    from core.cli.main import cli

    folder = _folder(tmp_path, ["tag-1", "folders-1"])
    before = descendants()
    res = CliRunner().invoke(cli, ["bench", "check", notes_command(), "--tasks", str(folder / "tasks.jsonl")])
    assert res.exit_code == 0, res.output
    assert "gold calls executed 2/2" in res.output and "own gold 2/2" in res.output
    assert not settle(before), "bench check left server processes behind"


@pytest.mark.slow
def test_scripted_eval_scores_end_state_and_calls_and_leaks_nothing(tmp_path: Path, warehouse) -> None:
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.runner import RunPlan, run

    folder = _folder(tmp_path, ["add-1", "move-1", "search-1"])
    before = descendants()
    bench = get_benchmark(notes_command(), tasks=str(folder))
    plan = RunPlan(
        bench, bench.original_docs(), AgentConfig(model=_agent("mcp-notes").model, max_steps=3), bench.tasks()
    )
    result = run(warehouse, plan, concurrency=2)
    assert result.ran == 3 and result.metrics.ts == pytest.approx(2 / 3)
    rows = warehouse.query("SELECT task_id, success, score FROM episodes ORDER BY task_id")
    outcome = dict(zip(rows["task_id"], rows["success"], strict=True))
    assert outcome == {"add-1": True, "move-1": False, "search-1": True}
    move = json.loads(rows[rows.task_id == "move-1"]["score"].iloc[0])
    assert move["mode"] == "state" and move["state_match"] is False and '"personal"' in move["check_answer"]
    events = warehouse.query("SELECT tool, output FROM events WHERE kind = 'tool_call' ORDER BY tool")
    assert events["output"].iloc[0] == "4"  # add_note answered the new id through tools/call
    bench.close()
    assert not settle(before), "episodes left server processes behind"


@pytest.mark.parametrize(
    ("flag", "manifest", "error_class"),
    [("--crash-on", {}, "mcp_crash"), ("--hang-on", {"call_timeout_s": 2}, "mcp_timeout")],
)
def test_a_failing_server_fails_the_episode_not_the_run(
    tmp_path: Path, warehouse, flag: str, manifest: dict, error_class: str
) -> None:
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.runner import RunPlan, run

    folder = _folder(tmp_path, ["add-1", "search-1"], manifest)
    before = descendants()
    bench = get_benchmark(notes_command(flag, "add_note"), tasks=str(folder))
    plan = RunPlan(
        bench,
        bench.original_docs(),
        AgentConfig(model=_agent(f"mcp-{flag}").model, max_steps=3),
        bench.tasks(),
    )
    result = run(warehouse, plan, concurrency=1)
    assert result.ran == 2 and not result.cancelled
    rows = warehouse.query("SELECT task_id, success, error_class, error FROM episodes ORDER BY task_id")
    add, search = rows.to_dict("records")
    assert (add["success"], add["error_class"]) == (False, error_class)
    assert "add_note" in add["error"]
    assert search["success"] and not isinstance(
        search["error_class"], str
    )  # the next episode: a fresh server
    ev = warehouse.query("SELECT error_class FROM events WHERE kind = 'tool_call' AND tool = 'add_note'")
    assert list(ev["error_class"]) == [error_class]
    assert not settle(before), "a failed server was left running"


def test_a_shared_http_server_is_reset_before_each_episode(tmp_path: Path, warehouse) -> None:
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.runner import RunPlan, run

    port = free_port()
    proc = start([sys.executable, str(NOTES_SERVER), "--http", str(port)], port)
    try:
        url = f"mcp+http://127.0.0.1:{port}/mcp"
        folder = _folder(tmp_path, ["add-1"], {"reset_tool": "reset_notebook"})
        bench = get_benchmark(url, tasks=str(folder))
        assert "reset_notebook" not in bench.tools_for(bench.tasks()[0])
        plan = RunPlan(
            bench,
            bench.original_docs(),
            AgentConfig(model=_agent("mcp-http").model),
            bench.tasks(),
            repeats=2,
        )
        result = run(warehouse, plan, concurrency=2)
        assert result.ran == 2 and result.metrics.ts == 1.0  # without the reset the second note gets id 5
        bench.close()
        no_reset = _folder(tmp_path / "x", ["add-1"]) if (tmp_path / "x").mkdir() is None else None
        from core.benchmarks.userfolder import BenchmarkFolderError

        with pytest.raises(BenchmarkFolderError, match="reset_tool"):
            get_benchmark(url, tasks=str(no_reset))
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_defects_are_one_clear_error_each(tmp_path: Path) -> None:
    from core.benchmarks.registry import UnknownBenchmarkError, get_benchmark
    from core.benchmarks.userfolder import BenchmarkFolderError

    folder = _folder(tmp_path, ["add-1", "search-1"])
    lines = (folder / "tasks.jsonl").read_text().splitlines()
    bad = json.loads(lines[0])
    bad["check"] = {"tool": "export_everything"}
    lines[0] = json.dumps(bad)
    (folder / "tasks.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(BenchmarkFolderError) as err:
        get_benchmark(notes_command(), tasks=str(folder))
    assert str(err.value).startswith(f"{folder}/tasks.jsonl:1: check: unknown tool 'export_everything'")
    with pytest.raises(BenchmarkFolderError, match="did not start"):
        get_benchmark("mcp:docschisel-no-such-server --x", tasks=str(folder))
    with pytest.raises(UnknownBenchmarkError, match="--tasks"):
        get_benchmark(notes_command())


def test_a_folder_whose_manifest_names_the_server_is_a_benchmark(tmp_path: Path) -> None:
    from core.benchmarks.registry import get_benchmark

    folder = _folder(
        tmp_path, ["folders-1"], {"name": "notes-here", "server": [sys.executable, "notes_server.py"]}
    )
    shutil.copy(NOTES_SERVER, folder / "notes_server.py")  # the server runs in the folder
    bench = get_benchmark(str(folder))
    assert bench.display_name == "notes-here" and bench.spec.cwd == str(folder.resolve())
    sandbox = bench.new_sandbox(bench.tasks()[0])
    try:
        from core.benchmarks.base import Call

        # a list comes back as one text block per item, as the agent would read it in any MCP client
        assert sandbox.execute(Call("list_folders", {})).split("\n") == [
            "inbox",
            "work",
            "personal",
            "archive",
        ]
    finally:
        sandbox.close()


def test_a_protocol_violation_fails_the_episode_with_its_class(tmp_path: Path, warehouse) -> None:
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.llm import script, tool_call
    from core.runner import RunPlan, run

    (tmp_path / "tasks.jsonl").write_text(
        json.dumps({"id": "echo-1", "query": "Echo hello.", "gold": ["echo(text='hello')"]}) + "\n"
    )
    server = Path(__file__).parent / "fixtures" / "mcp" / "broken_server.py"
    before = descendants()
    bench = get_benchmark(f"mcp:{sys.executable} {server}", tasks=str(tmp_path))
    model = script(
        lambda m: "Done." if m[-1]["role"] == "tool" else tool_call("echo", text="hello"), name="mcp-broken"
    )
    result = run(
        warehouse, RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model), bench.tasks())
    )
    assert result.ran == 1
    row = warehouse.query("SELECT success, error_class, error FROM episodes").iloc[0]
    assert (row["success"], row["error_class"]) == (False, "mcp_protocol")
    assert "not valid MCP during tools/call echo" in row["error"]
    assert not settle(before)
