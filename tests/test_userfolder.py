"""Users' own benchmark folders: the worked example, scoring, the real runner, and load errors."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from core.benchmarks.base import Call
from core.benchmarks.registry import get_benchmark
from core.benchmarks.userfolder import BenchmarkFolderError, UserBenchmark, check, load_user_benchmark
from core.benchmarks.userfolder.toolkit import MODULE_PREFIX

EXAMPLE = Path(__file__).parent / "fixtures" / "userbench" / "notes"


@pytest.fixture(scope="module")
def bench() -> UserBenchmark:
    return load_user_benchmark(EXAMPLE)


# ---------------------------------------------------------------- the worked example
def test_example_loads_with_docs_from_each_source(bench: UserBenchmark) -> None:
    assert bench.display_name == "notes-example" and bench.name == f"notes-example@{bench.fingerprint[:8]}"
    assert bench.tool_names() == ["search_notes", "add_note", "tag_note", "delete_note"]
    assert len(bench.tasks()) == 12 and bench.domains() == ["lookup", "capture", "organize"]
    docs = bench.original_docs()
    add = docs["add_note"]  # from the signature + docstring; the state parameter is hidden
    assert [p.name for p in add.parameters] == ["title", "body", "folder"]
    assert add.parameters[2].default == "inbox" and add.returns[0].type == "int"
    assert docs["tag_note"].guidance and "idempotent" in docs["tag_note"].guidance  # MCP JSON
    assert docs["delete_note"].description == "Permanently delete a note."  # OpenAI JSON
    assert bench.tool("delete_note").doc_source == "tools/delete_note.json"
    assert bench.key.startswith("user/notes-example@")


def test_call_strings_read_positional_arguments(bench: UserBenchmark) -> None:
    assert bench.task("lookup-3").gold == (Call("search_notes", {"query": "dentist"}),)
    assert bench.task("organize-3").tools == ("search_notes", "tag_note")


def test_gold_replays_score_100_percent(bench: UserBenchmark) -> None:
    report = check(bench)
    assert report["ok"], report["failures"]
    assert report["self_correct"] == report["tasks"] == 12
    assert report["gold_calls_ok"] == report["gold_calls"] == 15
    assert report["modes"] == {"calls": 4, "state": 8}
    assert get_benchmark(str(EXAMPLE)).tool_names() == bench.tool_names()  # registry path
    load_user_benchmark(EXAMPLE, verify=True)


def test_state_is_fresh_per_episode_and_csv_cells_are_text(bench: UserBenchmark) -> None:
    task = bench.task("capture-1")
    a, b = bench.new_sandbox(task), bench.new_sandbox(task)
    assert a.execute(task.gold[0]) == "6"
    assert len(a.state["notes"]) == 6 and len(b.state["notes"]) == 5
    assert bench.initial_state["folders"][0] == {"name": "inbox", "description": "Unsorted notes"}


def _score(bench: UserBenchmark, task_id: str, calls: list[Call]):
    task = bench.task(task_id)
    sandbox = bench.new_sandbox(task)
    for call in calls:
        try:
            sandbox.execute(call)
        except Exception:  # noqa: BLE001 - the observation would go to the agent
            pass
    live = bench.score(task, calls, None, sandbox)
    replayed = bench.score(task, calls, None, None)  # the same verdict without the live sandbox
    assert (live.success, live.tool_correct) == (replayed.success, replayed.tool_correct)
    return live


def test_state_mode_compares_end_states(bench: UserBenchmark) -> None:
    gold = [Call("search_notes", {"query": "offsite"}), Call("tag_note", {"note_id": 4, "tag": "team"})]
    assert _score(bench, "organize-3", gold).success
    skip_search = _score(bench, "organize-3", gold[1:])
    # end state right; the gold's look-up is an allowed read in end-state mode, so the tool set is right too
    assert skip_search.success and skip_search.tool_correct
    assert (
        skip_search.details["gold_tools"] == ["tag_note"] and skip_search.details["missing_gold_calls"] == []
    )
    wrong = _score(bench, "organize-3", [Call("tag_note", {"note_id": 2, "tag": "team"})])
    assert not wrong.success and wrong.details["differing_state"] == ["notes"]
    extra = _score(bench, "capture-1", [*bench.task("capture-1").gold, Call("delete_note", {"note_id": 5})])
    assert not extra.success and not extra.tool_correct


def test_calls_mode_matches_arguments_with_defaults(bench: UserBenchmark) -> None:
    ok = _score(bench, "lookup-1", [Call("search_notes", {"query": "coffee", "folder": None})])
    assert ok.success and ok.tool_correct and ok.details["mode"] == "calls"
    retry = _score(
        bench,
        "lookup-1",
        [Call("search_notes", {"query": "cofee"}), Call("search_notes", {"query": "coffee"})],
    )
    assert retry.success
    wrong = _score(bench, "lookup-2", [Call("search_notes", {"query": "report"})])
    assert not wrong.success and wrong.tool_correct
    assert wrong.details["missing_gold_calls"] == ['search_notes(query="report", folder="work")']
    side_effect = _score(
        bench, "lookup-1", [Call("search_notes", {"query": "coffee"}), Call("delete_note", {"note_id": 3})]
    )
    assert not side_effect.success and not side_effect.details["state_match"]


def test_tool_errors_are_observations(bench: UserBenchmark) -> None:
    sandbox = bench.new_sandbox(bench.task("capture-1"))
    with pytest.raises(Exception, match="no folder 'archive'"):
        sandbox.execute(Call("add_note", {"title": "t", "body": "b", "folder": "archive"}))
    with pytest.raises(Exception, match="unexpected argument"):
        sandbox.execute(Call("add_note", {"title": "t", "text": "b"}))
    with pytest.raises(Exception, match="supplied by the benchmark"):
        sandbox.execute(Call("search_notes", {"query": "x", "state": {}}))
    assert sandbox.crashes == ["ValueError: no folder 'archive'; folders are inbox, work, personal"]


def test_runs_through_the_real_runner_with_a_scripted_agent(warehouse, bench: UserBenchmark) -> None:
    from core.agents import AgentConfig
    from core.llm import script, tool_call
    from core.runner import RunPlan, run

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        query = next(m["content"] for m in messages if m["role"] == "user")
        if "coffee" in query:
            return tool_call("search_notes", query="coffee")
        if "Call plumber" in query:  # wrong body: the end state differs from the gold one
            return tool_call("add_note", title="Call plumber", body="sink")
        return tool_call("tag_note", note_id=2, tag="q3")

    model = script(reply, name="userbench-notes")
    tasks = [bench.task(t) for t in ("lookup-1", "capture-1", "organize-1")]
    cfg = AgentConfig(model=model.model, max_steps=3)
    plan = RunPlan(bench, bench.original_docs(), cfg, tasks)
    res = run(warehouse, plan, concurrency=1)
    assert res.ran == 3 and res.metrics.ts == pytest.approx(2 / 3) and res.metrics.tc == 1.0
    again = run(warehouse, plan, concurrency=1)  # the same plan resumes: nothing re-runs
    assert (again.ran, again.reused) == (0, 3)
    rows = warehouse.query("SELECT task_id, success FROM episodes ORDER BY task_id")
    assert dict(zip(rows["task_id"], rows["success"], strict=True)) == {
        "capture-1": False,
        "lookup-1": True,
        "organize-1": True,
    }
    schema_names = [t["function"]["name"] for t in model.requests[0]["params"]["tools"]]
    assert schema_names == ["search_notes", "add_note", "tag_note", "delete_note"]


# ---------------------------------------------------------------- malformed folders
def _copy(tmp_path: Path) -> Path:
    dst = tmp_path / "bench"
    shutil.copytree(EXAMPLE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _edit_line(n: int, fn: Callable[[dict], object]) -> Callable[[Path], None]:
    """Rewrite task line n (1-based) of tasks.jsonl with fn(obj) (a dict or raw text)."""

    def edit(folder: Path) -> None:
        path = folder / "tasks.jsonl"
        lines = path.read_text().splitlines()
        new = fn(json.loads(lines[n - 1]))
        lines[n - 1] = new if isinstance(new, str) else json.dumps(new)
        path.write_text("\n".join(lines) + "\n")

    return edit


def _write(rel: str, text: str) -> Callable[[Path], None]:
    def edit(folder: Path) -> None:
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)

    return edit


def _set(key: str, value: object) -> Callable[[dict], dict]:
    return lambda obj: {**obj, key: value}


def _empty(folder: Path) -> None:
    shutil.rmtree(folder)
    folder.mkdir()


DEFECTS: dict[str, tuple[Callable[[Path], None], str, str, int | None]] = {
    # name: (break the folder, file named in the error, text in the error, line)
    "empty folder": (_empty, "bench", "the folder is empty", None),
    "no tools.py": (lambda f: (f / "tools.py").unlink(), "tools.py", "missing", None),
    "no tasks.jsonl": (lambda f: (f / "tasks.jsonl").unlink(), "tasks.jsonl", "missing", None),
    "tools.py syntax error": (_write("tools.py", "def f(:\n    pass\n"), "tools.py", "syntax error", 1),
    "tools.py raises on import": (
        _write("tools.py", "import os\n\nraise RuntimeError('boom')\n"),
        "tools.py",
        "RuntimeError: boom",
        3,
    ),
    "no tools": (_write("tools.py", "def _helper():\n    pass\n"), "tools.py", "defines no tools", None),
    "bad JSON in tasks.jsonl": (
        _edit_line(3, lambda o: '{"id": "x", "query": '),
        "tasks.jsonl",
        "invalid JSON",
        3,
    ),
    "task is not an object": (_edit_line(2, lambda o: "[1, 2]"), "tasks.jsonl", "must be a JSON object", 2),
    "missing query": (
        _edit_line(4, lambda o: {k: v for k, v in o.items() if k != "query"}),
        "tasks.jsonl",
        'missing "query"',
        4,
    ),
    "missing gold": (
        _edit_line(4, lambda o: {k: v for k, v in o.items() if k != "gold"}),
        "tasks.jsonl",
        'missing "gold"',
        4,
    ),
    "unknown task key": (
        _edit_line(5, lambda o: {**o, "qeury": "x"}),
        "tasks.jsonl",
        "unknown key(s) qeury",
        5,
    ),
    "duplicate task id": (
        _edit_line(6, _set("id", "lookup-1")),
        "tasks.jsonl",
        "duplicate task id 'lookup-1' (first on line 1)",
        6,
    ),
    "unknown tool in gold": (
        _edit_line(7, _set("gold", ["archive_note(note_id=1)"])),
        "tasks.jsonl",
        "unknown tool 'archive_note'",
        7,
    ),
    "wrong argument name": (
        _edit_line(8, _set("gold", [{"tool": "add_note", "args": {"title": "a", "text": "b"}}])),
        "tasks.jsonl",
        "unexpected argument(s) text",
        8,
    ),
    "missing required argument": (
        _edit_line(9, _set("gold", ["tag_note(note_id=2)"])),
        "tasks.jsonl",
        "missing required argument(s) tag",
        9,
    ),
    "bad call string": (
        _edit_line(10, _set("gold", ["delete_note(note_id=__import__('os').getpid())"])),
        "tasks.jsonl",
        "bad call string",
        10,
    ),
    "gold passes the state": (
        _edit_line(1, _set("gold", ["search_notes(query='x', state={})"])),
        "tasks.jsonl",
        "supplied by the benchmark",
        1,
    ),
    "domain not in manifest": (
        _edit_line(11, _set("domain", "archive")),
        "tasks.jsonl",
        "domain 'archive' is not listed",
        11,
    ),
    "empty tasks.jsonl": (_write("tasks.jsonl", "\n\n"), "tasks.jsonl", "holds no tasks", None),
    "JSON tool without implementation": (
        _write("tools/archive.json", json.dumps({"name": "archive_note", "inputSchema": {"type": "object"}})),
        "tools/archive.json",
        "has no implementation",
        None,
    ),
    "JSON doc with wrong parameter": (
        _write(
            "tools/delete_note.json",
            json.dumps(
                {
                    "name": "delete_note",
                    "inputSchema": {"type": "object", "properties": {"id": {"type": "integer"}}},
                }
            ),
        ),
        "tools/delete_note.json",
        "documents parameter(s) id",
        None,
    ),
    "tool JSON unparsable": (
        _write("tools/delete_note.json", '{"name": "delete_note",\n "inputSchema": }'),
        "tools/delete_note.json",
        "invalid JSON",
        2,
    ),
    "state JSON unreadable": (
        _write("state/notes.json", '[{"id": 1,\n\n}]'),
        "state/notes.json",
        "invalid JSON",
        3,
    ),
    "state CSV ragged": (
        _write("state/folders.csv", "name,description\ninbox\n"),
        "state/folders.csv",
        "row has 1 cells",
        2,
    ),
    "unsupported state file": (
        _write("state/notes.yaml", "a: 1\n"),
        "state/notes.yaml",
        "only .json and .csv",
        None,
    ),
    "manifest bad JSON": (_write("benchmark.json", '{"name": "x",}'), "benchmark.json", "invalid JSON", 1),
    "manifest bad scoring": (
        _write("benchmark.json", '{"scoring": "exact"}'),
        "benchmark.json",
        '"scoring" must be one of auto, state, calls',
        None,
    ),
    "manifest unknown key": (
        _write("benchmark.json", '{"nmae": "x"}'),
        "benchmark.json",
        "unknown key(s) nmae",
        None,
    ),
    "manifest domain lists unknown tool": (
        _write(
            "benchmark.json",
            json.dumps(
                {
                    "offer": "domain",
                    "domains": {
                        "lookup": ["search_notes", "find"],
                        "capture": ["add_note"],
                        "organize": ["search_notes", "tag_note", "delete_note", "add_note"],
                    },
                }
            ),
        ),
        "benchmark.json",
        "unknown tool(s) find",
        None,
    ),
}


@pytest.mark.parametrize("defect", list(DEFECTS))
def test_each_defect_gives_one_clear_error(tmp_path: Path, defect: str) -> None:
    breaker, file, text, line = DEFECTS[defect]
    folder = _copy(tmp_path)
    breaker(folder)
    with pytest.raises(BenchmarkFolderError) as info:
        load_user_benchmark(folder)
    err = info.value
    assert len(err.problems) == 1, str(err)
    assert text in str(err)
    assert err.file == str(folder / file) if file != "bench" else err.file == str(folder)
    assert err.line == line, str(err)
    assert isinstance(err, ValueError)
    assert not [m for m in sys.modules if m.startswith(MODULE_PREFIX) and str(folder) in str(sys.modules[m])]


def test_several_defects_are_reported_together(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit_line(2, _set("gold", ["nope()"]))(folder)
    _edit_line(5, lambda o: "not json")(folder)
    with pytest.raises(BenchmarkFolderError) as info:
        load_user_benchmark(folder)
    assert [p.line for p in info.value.problems] == [2, 5]
    assert str(info.value).startswith("2 problems in the benchmark folder:")


def test_verify_reports_a_failing_gold_call(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    _edit_line(10, _set("gold", ["delete_note(note_id=99)"]))(folder)
    load_user_benchmark(folder)  # statically valid
    with pytest.raises(
        BenchmarkFolderError, match=r"tasks.jsonl:10: task 'organize-2': a gold call fails: KeyError"
    ):
        load_user_benchmark(folder, verify=True)


def test_call_strings_are_never_evaluated(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    marker = tmp_path / "pwned"
    _edit_line(1, _set("gold", [f"search_notes(query=open({str(marker)!r}, 'w').name)"]))(folder)
    with pytest.raises(BenchmarkFolderError, match="bad call string"):
        load_user_benchmark(folder)
    assert not marker.exists()


def test_missing_folder_and_edits_change_the_key(tmp_path: Path, bench: UserBenchmark) -> None:
    with pytest.raises(BenchmarkFolderError, match="no such folder"):
        load_user_benchmark(tmp_path / "nowhere")
    folder = _copy(tmp_path)
    assert load_user_benchmark(folder).key == bench.key  # same content, same identity
    _edit_line(1, _set("query", "Find coffee notes."))(folder)
    assert load_user_benchmark(folder).key != bench.key


def test_docs_describe_every_key() -> None:
    from core.benchmarks.userfolder.manifest import KEYS, SCORING_MODES
    from core.benchmarks.userfolder.taskfile import TASK_KEYS

    text = (Path(__file__).parents[1] / "docs" / "user-benchmarks.md").read_text()
    for key in (*KEYS, *TASK_KEYS, *SCORING_MODES):
        assert f"`{key}`" in text or f'`"{key}"`' in text, key
    assert "tests/fixtures/userbench/notes/" in text


def test_import_user_folder_registers_docs_tasks_and_split(warehouse) -> None:
    from core.benchmarks.userfolder import import_user_folder

    folder = Path(__file__).parent / "fixtures" / "userbench" / "notes"
    summary = import_user_folder(warehouse, folder)
    assert summary["tasks"] == 12 and summary["tools"] == 4
    assert sum(summary["split"].values()) == 12
    assert warehouse.scalar("SELECT count(*) FROM tasks") == 12
    assert (
        warehouse.scalar("SELECT count(*) FROM doc_set_members WHERE docset_id = ?", [summary["docset_id"]])
        == 4
    )
