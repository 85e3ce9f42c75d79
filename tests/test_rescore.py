"""Re-scoring stored episodes from their traces: no agent runs, old scores kept, results regenerated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from core.benchmarks.base import SCORING_VERSION
from core.benchmarks.userfolder import load_user_benchmark

EXAMPLE = Path(__file__).parent / "fixtures" / "userbench" / "notes"


def _run_scripted(warehouse) -> None:
    """Three episodes: a call that raises (old TC = 1), a write without the gold's look-up, a right one."""
    from core.agents import AgentConfig
    from core.llm import script, tool_call
    from core.runner import RunPlan, run

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        query = next(m["content"] for m in messages if m["role"] == "user")
        if "Call plumber" in query:  # a folder that does not exist: the only call raises
            return tool_call("add_note", title="Call plumber", body="x", folder="archive")
        if "offsite" in query:  # the right write, without the gold's search
            return tool_call("tag_note", note_id=4, tag="team")
        return tool_call("tag_note", note_id=2, tag="q3")

    bench = load_user_benchmark(EXAMPLE)
    try:
        model = script(reply, name="rescore-notes")
        tasks = [bench.task(t) for t in ("capture-1", "organize-3", "organize-1")]
        plan = RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model, max_steps=3), tasks)
        assert run(warehouse, plan, concurrency=1).ran == 3
    finally:
        bench.close()


def _make_legacy(warehouse) -> None:
    """Turn the stored scores into what the earlier rules stored: no version, no error marks, every
    call in TC's predicted set, every gold tool required."""
    rows = warehouse.rows("SELECT episode_id, task_id, calls, score FROM episodes")
    gold_tools = {
        "capture-1": {"add_note"},
        "organize-3": {"search_notes", "tag_note"},
        "organize-1": {"tag_note"},
    }
    with warehouse.transaction() as con:
        for eid, task_id, calls, score in rows:
            plain = [{"tool": c["tool"], "args": c["args"]} for c in json.loads(calls)]
            details = {k: v for k, v in json.loads(score).items() if k != "scoring"}
            tc = {c["tool"] for c in plain} == gold_tools[task_id]
            con.execute(
                "UPDATE episodes SET calls = ?, score = ?, tool_correct = ? WHERE episode_id = ?",
                [json.dumps(plain), json.dumps(details), tc, eid],
            )


def _scores(warehouse) -> dict[str, tuple[bool, bool]]:
    return {t: (s, tc) for t, s, tc in warehouse.rows("SELECT task_id, success, tool_correct FROM episodes")}


def test_rescore_from_traces_keeps_history_and_is_idempotent(warehouse) -> None:
    from core.runner.rescore import rescore

    _run_scripted(warehouse)
    stored = warehouse.rows("SELECT calls, score FROM episodes WHERE task_id = 'capture-1'")[0]
    assert json.loads(stored[0])[0]["error"].startswith("ValueError")  # new episodes carry the mark
    assert json.loads(stored[1])["scoring"] == SCORING_VERSION
    fresh = _scores(warehouse)
    assert fresh == {"capture-1": (False, False), "organize-3": (True, True), "organize-1": (True, True)}

    _make_legacy(warehouse)
    assert _scores(warehouse)["capture-1"] == (False, True)  # the old rules: a raised call counted
    assert _scores(warehouse)["organize-3"] == (True, False)  # and the look-up was required
    events_before = warehouse.scalar("SELECT count(*) FROM events")

    preview = rescore(warehouse, dry_run=True)
    assert (preview.rescored, preview.tc_changed) == (3, 2)
    assert _scores(warehouse)["capture-1"] == (False, True)  # a dry run writes nothing
    report = rescore(warehouse)
    assert (report.examined, report.rescored, report.tc_changed, report.success_changed) == (3, 3, 2, 0)
    assert _scores(warehouse) == fresh  # the same verdicts as the runner gives today
    assert warehouse.scalar("SELECT count(*) FROM events") == events_before  # the trace is untouched
    history = warehouse.rows(
        "SELECT s.scoring, s.tool_correct FROM episode_scores s JOIN episodes e USING (episode_id) "
        "WHERE e.task_id = 'capture-1' ORDER BY s.scoring"
    )
    assert history == [(1, True), (SCORING_VERSION, False)]
    calls = json.loads(warehouse.scalar("SELECT calls FROM episodes WHERE task_id = 'capture-1'"))
    assert "error" not in calls[0]  # stored calls are the trace: the re-score does not rewrite them

    again = rescore(warehouse)
    assert again.rescored == 0 and again.skipped["already scored under the current rules"] == 3
    assert warehouse.scalar("SELECT count(*) FROM episode_scores") == 6


def test_rescore_skips_a_benchmark_that_cannot_be_loaded(warehouse) -> None:
    from core.runner.rescore import rescore

    _run_scripted(warehouse)

    def gone(name, variant, info):
        raise FileNotFoundError("no such folder")

    report = rescore(warehouse, resolver=gone, force=True)
    assert report.rescored == 0 and sum(report.skipped.values()) == 3
    assert "cannot load the benchmark" in next(iter(report.skipped))


def test_rescore_and_results_commands(warehouse, tmp_path: Path) -> None:
    from core.cli.main import cli

    _run_scripted(warehouse)
    _make_legacy(warehouse)
    path = str(warehouse.path)
    doc = tmp_path / "RESULTS.md"
    res = CliRunner().invoke(cli, ["results", "--warehouse", path, "--out", str(doc), "--drop-missing"])
    assert res.exit_code == 0 and "3 episode(s) still carry scores of earlier rules" in doc.read_text()
    dry = CliRunner().invoke(cli, ["rescore", "--warehouse", path, "--dry-run"])
    assert dry.exit_code == 0 and "dry run: nothing was written" in dry.output
    out = CliRunner().invoke(cli, ["rescore", "--warehouse", path])
    assert out.exit_code == 0, out.output
    assert "3 of 3 episodes re-scored" in out.output and "TC on 2" in out.output
    res = CliRunner().invoke(cli, ["results", "--warehouse", path, "--out", str(doc), "--drop-missing"])
    assert res.exit_code == 0, res.output
    text = doc.read_text()
    assert f"Scores follow scoring rules version {SCORING_VERSION}" in text and "still carry" not in text


@pytest.mark.parametrize("variant", ["workbench/all+sop:abc", "user/x@1+sop:abc"])
def test_composite_tool_episodes_are_not_rescored_here(variant: str) -> None:
    from core.runner.rescore import default_resolver

    with pytest.raises(LookupError, match="EvoSOP"):
        default_resolver()("x+sop", variant, {})


def test_imported_episodes_keep_their_scores(warehouse) -> None:
    from core.runner.rescore import rescore

    _run_scripted(warehouse)
    _make_legacy(warehouse)
    with warehouse.transaction() as con:
        con.execute("UPDATE episodes SET source = 'import' WHERE task_id = 'capture-1'")
    report = rescore(warehouse)
    assert (
        report.rescored == 2
        and report.skipped["imported or archived episodes keep the scores they were stored with"] == 1
    )
    assert _scores(warehouse)["capture-1"] == (False, True)  # as its source scored it


def test_rescore_reloads_a_built_in_benchmark(warehouse, data_dir: Path) -> None:
    """API-Bank episodes are re-scored through the benchmark their key names (`api-bank/domain`)."""
    from core.agents import AgentConfig
    from core.benchmarks.registry import get_benchmark
    from core.llm import script, tool_call
    from core.runner import RunPlan, run
    from core.runner.rescore import default_resolver, rescore

    bench = get_benchmark("api-bank", data_dir)
    tasks = [t for t in bench.tasks() if t.gold[0].tool == "QueryStock"][:2]

    def reply(messages):
        if messages[-1]["role"] == "tool":
            return "Done."
        return tool_call("QueryStock", stock_code="AMZN")  # the date is missing: the API raises

    model = script(reply, name="rescore-apibank")
    plan = RunPlan(bench, bench.original_docs(), AgentConfig(model=model.model, max_steps=2), tasks)
    assert run(warehouse, plan, concurrency=1).ran == 2
    before = _scores(warehouse)
    with warehouse.transaction() as con:  # as stored before scores carried their version
        con.execute("UPDATE episodes SET score = json_remove(score, '$.scoring')")
    report = rescore(warehouse, resolver=default_resolver(str(data_dir)))
    assert report.rescored == 2 and not report.skipped
    assert _scores(warehouse) == before


def test_rescore_scores_evosop_episodes_from_their_base_benchmark(warehouse) -> None:
    """Episodes of `<base>+sop` are scored as the SOP benchmark scores them: its atomic calls only."""
    from core.cli.main import cli

    _run_scripted(warehouse)
    fresh = _scores(warehouse)
    _make_legacy(warehouse)
    sop_call = {"tool": "sop.find_and_tag", "args": {"query": "offsite"}}
    with warehouse.transaction() as con:
        con.execute(
            "UPDATE episodes SET benchmark = benchmark || '+sop', variant = variant || '+sop:abc', "
            "calls = json_array(json(?), calls->0), tool_correct = false WHERE task_id = 'organize-3'",
            [json.dumps(sop_call)],
        )
    out = CliRunner().invoke(cli, ["rescore", "--warehouse", str(warehouse.path)])
    assert out.exit_code == 0, out.output
    assert "3 of 3 episodes re-scored" in out.output, out.output
    assert _scores(warehouse) == fresh
