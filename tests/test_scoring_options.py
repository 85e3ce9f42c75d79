"""Fair task scoring: TC over successful invocations only, and benchmark folders' per-task scoring options."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from core.benchmarks.base import Call, Score, Task
from core.benchmarks.outcomes import mark_raised
from core.benchmarks.userfolder import BenchmarkFolderError, UserBenchmark, load_user_benchmark

EXAMPLE = Path(__file__).parent / "fixtures" / "userbench" / "notes"
OFFSITE = ["search_notes(query='offsite')", "tag_note(note_id=4, tag='team')"]
TASKS = [
    {"id": "incidental", "query": "Find the offsite note and tag it 'team'.", "gold": OFFSITE},
    {"id": "reads-required", "query": "Search for the offsite note, then tag it.", "gold": OFFSITE,
     "scoring": {"reads": "required"}},
    {"id": "lookup-only", "query": "Do I have a note about coffee? Just tell me.", "gold": [],
     "scoring": {"allowed_reads": ["search_notes"]}},
    {"id": "no-tools", "query": "Say hello.", "gold": []},
    {"id": "free-text", "query": "Hand off: add a note 'Handoff' summarising the customer's request.",
     "gold": ["add_note(title='Handoff', body='Customer wants a refund for order 7')"],
     "scoring": {"ignore_args": {"add_note": ["body"]}}},
    {"id": "loose", "query": "Add a note 'Call Bob' saying 'about the offsite'.",
     "gold": ["add_note(title='Call Bob', body='about the offsite')"],
     "scoring": {"mode": "calls", "loose_args": {"add_note": ["title"]}}},
    {"id": "open-one", "query": "Find the note about the dentist (it may be filed under teeth).",
     "gold": ["search_notes(query='dentist')", "search_notes(query='teeth')"],
     "scoring": {"reads": "allowed", "required_reads": ["search_notes"]}},
]  # fmt: skip


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> UserBenchmark:
    folder = tmp_path_factory.mktemp("scoring") / "notes"
    shutil.copytree(EXAMPLE, folder)
    (folder / "tasks.jsonl").write_text(
        "\n".join(json.dumps({"domain": "organize", **t}) for t in TASKS) + "\n", encoding="utf-8"
    )
    loaded = load_user_benchmark(folder)
    yield loaded
    loaded.close()


def _score(bench: UserBenchmark, task_id: str, calls: list[Call]) -> Score:
    """Score live (the episode's sandbox) and from the stored calls; both must agree."""
    task = bench.task(task_id)
    sandbox = bench.new_sandbox(task)
    for call in calls:
        try:
            sandbox.execute(call)
        except Exception:  # noqa: BLE001, S110 - the agent would observe it
            pass
    live = bench.score(task, calls, None, sandbox)
    stored = bench.score(task, calls, None, None)
    assert (live.success, live.tool_correct) == (stored.success, stored.tool_correct)
    return live


def test_a_call_that_raised_is_not_an_invocation(bench: UserBenchmark) -> None:
    bad = Call("add_note", {"title": "Handoff", "body": "x", "folder": "archive"})  # no such folder: raises
    score = _score(bench, "free-text", [bad])
    assert not score.success and not score.tool_correct
    assert score.details["raised_calls"] == [bad.render()]
    # the same verdict when the stored call carries its error mark (an episode's calls)
    marked = bench.score(bench.task("free-text"), [Call(bad.tool, bad.args, "ValueError: no folder")], None)
    assert not marked.tool_correct


def test_incidental_reads_do_not_fail_an_efficient_agent_in_state_mode(bench: UserBenchmark) -> None:
    tag = Call("tag_note", {"note_id": 4, "tag": "team"})
    score = _score(bench, "incidental", [tag])
    assert score.success and score.tool_correct and score.details["mode"] == "state"
    assert score.details["gold_tools"] == ["tag_note"] and score.details["allowed_tools"] == ["search_notes"]
    # the diagnosis does not list the skipped read-only gold call as missing
    assert score.details["missing_gold_calls"] == []
    both = _score(bench, "incidental", [Call("search_notes", {"query": "team offsite"}), tag])
    assert both.success and both.tool_correct  # an extra look-up is allowed too


def test_required_reads_are_part_of_the_gold_tool_set(bench: UserBenchmark) -> None:
    tag = Call("tag_note", {"note_id": 4, "tag": "team"})
    score = _score(bench, "reads-required", [tag])
    assert not score.tool_correct and not score.success
    assert score.details["missing_gold_calls"] == ['search_notes(query="offsite")']
    full = _score(bench, "reads-required", [Call("search_notes", {"query": "offsite"}), tag])
    assert full.success and full.tool_correct


def test_an_empty_gold_with_allowed_reads_accepts_a_look_up(bench: UserBenchmark) -> None:
    look = [Call("search_notes", {"query": "coffee"})]
    score = _score(bench, "lookup-only", look)
    assert score.success and score.tool_correct and score.details["mode"] == "calls"
    assert _score(bench, "lookup-only", []).success  # answering without looking is fine as well
    strict = _score(bench, "no-tools", look)  # without the option, the empty gold means "no tool"
    assert not strict.success and not strict.tool_correct
    write = _score(bench, "lookup-only", [*look, Call("delete_note", {"note_id": 3})])
    assert not write.success and not write.tool_correct  # a write is never an allowed read


def test_ignored_free_text_arguments(bench: UserBenchmark) -> None:
    mine = Call("add_note", {"title": "Handoff", "body": "Refund requested for order #7, customer upset"})
    score = _score(bench, "free-text", [mine])
    assert score.success and score.tool_correct and score.details["differing_state"] == []
    wrong_title = _score(bench, "free-text", [Call("add_note", {"title": "Other", "body": "x"})])
    assert not wrong_title.success


def test_loose_arguments_ignore_case_and_spacing(bench: UserBenchmark) -> None:
    score = _score(bench, "loose", [Call("add_note", {"title": "call  bob", "body": "about the offsite"})])
    assert score.success and score.details["mode"] == "calls"
    body_differs = _score(
        bench, "loose", [Call("add_note", {"title": "Call Bob", "body": "About the offsite"})]
    )
    assert not body_differs.success  # only the listed argument is loose


def test_allowed_reads_need_not_open_every_looked_up_item(bench: UserBenchmark) -> None:
    score = _score(bench, "open-one", [Call("search_notes", {"query": "dentist"})])
    assert score.success and score.tool_correct and score.details["mode"] == "calls"
    assert not _score(bench, "open-one", []).tool_correct  # the look-up itself is required


def _problems(tmp_path: Path, scoring: object) -> str:
    folder = tmp_path / "bad"
    shutil.copytree(EXAMPLE, folder)
    line = {
        "id": "t",
        "domain": "lookup",
        "query": "q",
        "gold": ["search_notes(query='x')"],
        "scoring": scoring,
    }
    (folder / "tasks.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    with pytest.raises(BenchmarkFolderError) as err:
        load_user_benchmark(folder)
    return str(err.value)


def test_bad_options_name_file_line_and_field(tmp_path: Path) -> None:
    text = _problems(
        tmp_path,
        {"mode": "exact", "reads": "maybe", "allowed_reads": ["find"], "ignore_args": {"add_note": ["text"]}},
    )
    assert "tasks.jsonl:1: scoring: \"mode\" must be one of auto, state, calls, not 'exact'" in text
    assert '"reads" must be one of required, allowed' in text
    assert "\"allowed_reads\": unknown tool 'find'" in text
    assert "\"ignore_args.add_note\": add_note() has no argument 'text'" in text
    assert "unknown key(s) strict" in _problems(tmp_path / "2", {"strict": True})
    assert '"scoring" must be an object' in _problems(tmp_path / "3", "state")


def test_stored_calls_learn_which_raised_from_the_trace() -> None:
    calls = [Call("a", {"x": 1}), Call("b", {}), Call("a", {"x": 1})]
    attempts = [
        ("a", {"x": 1}, None, "too_many_calls"),  # cut by the cap: never ran, not one of the calls
        ("a", {"x": 1}, "boom", "tool_crash"),
        ("zz", {}, "Error: unknown tool", "unknown_tool"),  # never reached a tool
        ("b", {}, None, None),
        ("a", {"x": 1}, None, None),
    ]
    marked = mark_raised(calls, attempts)
    assert [c.error for c in marked] == ["boom", None, None]
    assert marked == calls  # the mark takes no part in equality
    assert Call.from_json(marked[0].to_json()).error == "boom" and "error" not in marked[1].to_json()


def test_workbench_and_api_bank_tc_skip_raised_calls() -> None:
    from core.benchmarks.workbench.scoring import tool_correct

    send = "email.send_email"
    assert tool_correct([Call(send, {"a": 1})], [send])
    assert not tool_correct([Call(send, {"a": 1}, "ToolCrash: bad")], [send])
    assert tool_correct([Call(send, {"a": 1}, "ToolCrash: bad")], [])


def test_the_episode_context_marks_calls_that_raised(bench: UserBenchmark) -> None:
    from core.agents.base import AgentConfig, EpisodeContext

    task = bench.task("free-text")
    ctx = EpisodeContext(
        task=task,
        benchmark=bench,
        docs=list(bench.original_docs().values()),
        sandbox=bench.new_sandbox(task),
        system_prompt="",
        config=AgentConfig(model="scripted/none"),
    )
    ctx.execute(Call("add_note", {"title": "t", "body": "b", "folder": "archive"}))
    ctx.execute(Call("add_note", {"title": "t", "body": "b"}))
    assert [c.error is not None for c in ctx.calls] == [True, False]
    assert "no folder" in (ctx.calls[0].error or "")


def test_task_scoring_options_round_trip_through_the_task(bench: UserBenchmark) -> None:
    task: Task = bench.task("open-one")
    assert task.meta["scoring"] == {"reads": "allowed", "required_reads": ["search_notes"]}


def test_every_option_is_documented() -> None:
    from core.benchmarks.userfolder.scoring import MODES, OPTION_KEYS, READS

    text = (Path(__file__).parents[1] / "docs" / "user-benchmarks.md").read_text(encoding="utf-8")
    for key in (*OPTION_KEYS, *MODES, *READS):
        assert f"`{key}`" in text or f'`"{key}"`' in text, key
    assert "### Per-task scoring options" in text


def test_the_differ_does_not_call_an_allowed_read_missing() -> None:
    from core.chisel.differ import diff_trace
    from core.evaluation.traces import Step, Trace

    gold = [Call("search_notes", {"query": "offsite"}), Call("tag_note", {"note_id": 4, "tag": "team"})]
    steps = (Step(tool="tag_note", args={"note_id": 2, "tag": "team"}, output="[]"),)

    def trace(score: dict) -> Trace:
        return Trace(episode_id="e", task_id="t", domain="d", query="q", success=False, tool_correct=True,
                     steps=steps, score=score)  # fmt: skip

    allowed = trace({"mode": "state", "allowed_tools": ["search_notes"]})
    # leaving out an allowed read is no failure of that tool: the failure lies with another tool
    assert [f.cls for f in diff_trace(allowed, gold, "search_notes")] == ["other_tool"]
    required = trace({"mode": "calls"})
    assert {f.cls for f in diff_trace(required, gold, "search_notes")} & {"missing_call", "wrong_tool"}


def test_manifest_task_scoring_sets_every_tasks_defaults(tmp_path: Path) -> None:
    folder = tmp_path / "defaults"
    shutil.copytree(EXAMPLE, folder)
    manifest = json.loads((folder / "benchmark.json").read_text(encoding="utf-8"))
    manifest["task_scoring"] = {"reads": "required", "loose_args": {"add_note": ["title"]}}
    (folder / "benchmark.json").write_text(json.dumps(manifest), encoding="utf-8")
    lines = [
        {"id": "a", "domain": "organize", "query": "q", "gold": OFFSITE},
        {"id": "b", "domain": "organize", "query": "q", "gold": OFFSITE, "scoring": {"reads": "allowed"}},
    ]
    (folder / "tasks.jsonl").write_text("\n".join(json.dumps(t) for t in lines) + "\n", encoding="utf-8")
    bench = load_user_benchmark(folder)
    try:
        assert bench.task("a").meta["scoring"] == {"reads": "required", "loose_args": {"add_note": ["title"]}}
        assert bench.task("b").meta["scoring"]["reads"] == "allowed"  # the task's own key wins
        tag = [Call("tag_note", {"note_id": 4, "tag": "team"})]
        assert not bench.score(bench.task("a"), tag, None).tool_correct
        assert bench.score(bench.task("b"), tag, None).tool_correct
    finally:
        bench.close()
    manifest["task_scoring"] = {"mode": "state", "ignore_args": {"nope": ["x"]}}
    (folder / "benchmark.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(BenchmarkFolderError, match='"task_scoring" cannot set "mode"'):
        load_user_benchmark(folder)
    manifest["task_scoring"] = {"ignore_args": {"nope": ["x"]}}
    (folder / "benchmark.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(
        BenchmarkFolderError, match="benchmark.json: task_scoring: \"ignore_args\": unknown tool 'nope'"
    ):
        load_user_benchmark(folder)


def test_bench_check_flags_options_the_gold_cannot_satisfy(tmp_path: Path) -> None:
    from core.benchmarks.userfolder import check

    folder = tmp_path / "check"
    shutil.copytree(EXAMPLE, folder)
    lines = [
        {"id": "ok", "domain": "organize", "query": "q", "gold": OFFSITE, "scoring": {"reads": "required"}},
        {"id": "bad", "domain": "organize", "query": "q", "gold": OFFSITE[1:], "scoring": {"required_reads": ["search_notes"]}},
    ]  # fmt: skip
    (folder / "tasks.jsonl").write_text("\n".join(json.dumps(t) for t in lines) + "\n", encoding="utf-8")
    bench = load_user_benchmark(folder)
    try:
        report = check(bench)
    finally:
        bench.close()
    assert not report["ok"] and report["self_correct"] == 1
    assert "bad" in str(report["failures"])


def test_the_trace_view_marks_an_allowed_read_as_optional_not_missing() -> None:
    from core.ui.callmatch import match_calls

    gold = [
        {"tool": "search_notes", "args": {"query": "offsite"}},
        {"tool": "tag_note", "args": {"note_id": 4}},
    ]
    made = [{"tool": "tag_note", "args": {"note_id": 4}}]
    _, checks = match_calls(made, gold, {"search_notes"})
    assert [c.status for c in checks] == ["optional", "match"]
    _, strict = match_calls(made, gold)
    assert [c.status for c in strict] == ["missing", "match"]


def test_mcp_tasks_take_the_same_scoring_options(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from core.benchmarks.registry import get_benchmark
    from tests.mcphelp import notes_command

    lines = [
        {"id": "add", "domain": "capture", "query": "Add a note 'Call Bob' about the offsite to work.",
         "gold": ["add_note(title='Call Bob', body='about the offsite', folder='work')"],
         "scoring": {"mode": "calls", "allowed_reads": ["search_notes"], "ignore_args": {"add_note": ["body"]}}},
    ]  # fmt: skip
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("\n".join(json.dumps(t) for t in lines) + "\n", encoding="utf-8")
    bench = get_benchmark(notes_command(), tasks=str(tasks))
    try:
        task = bench.task("add")
        calls = [
            Call("search_notes", {"query": "Bob"}),
            Call("add_note", {"title": "Call Bob", "body": "re: offsite", "folder": "work"}),
        ]
        score = bench.score(task, calls, None)
        assert score.success and score.tool_correct, score.details
        assert score.details["allowed_tools"] == ["search_notes"] and not bench.read_only("add_note")
        raised = bench.score(
            task, [Call("add_note", {"title": "x", "body": "y", "folder": "nope"}, "ToolError")], None
        )
        assert not raised.tool_correct
    finally:
        bench.close()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({**lines[0], "scoring": {"allowed_reads": ["nope"]}}) + "\n", encoding="utf-8")
    with pytest.raises(
        BenchmarkFolderError, match="bad.jsonl:1: scoring: \"allowed_reads\": unknown tool 'nope'"
    ):
        get_benchmark(notes_command(), tasks=str(bad))


def test_end_state_mode_judges_writes_by_their_outcome(tmp_path: Path) -> None:
    """The same end state reached through another write succeeds (TC still says the tool differed)."""
    folder = tmp_path / "kv"
    folder.mkdir()
    (folder / "tools.py").write_text(
        "def set_value(key: str, value: str, *, state: dict) -> str:\n"
        '    """Set one key."""\n'
        "    state[key] = value\n"
        "    return 'ok'\n\n\n"
        "def set_many(pairs: dict, *, state: dict) -> str:\n"
        '    """Set several keys."""\n'
        "    state.update(pairs)\n"
        "    return 'ok'\n",
        encoding="utf-8",
    )
    task = {"id": "t", "query": "Set colour to blue.", "gold": ["set_value(key='colour', value='blue')"]}
    (folder / "tasks.jsonl").write_text(json.dumps(task) + "\n", encoding="utf-8")
    bench = load_user_benchmark(folder)
    try:
        other = bench.score(bench.task("t"), [Call("set_many", {"pairs": {"colour": "blue"}})], None)
    finally:
        bench.close()
    assert other.success and not other.tool_correct and other.details["mode"] == "state"
