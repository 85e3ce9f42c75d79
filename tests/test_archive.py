"""The run archive: an experiment resumes in a fresh checkout from versioned episode outcomes."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from core.agents import AgentConfig
from core.cli.main import cli
from core.llm import script, tool_call
from core.runner import RunPlan, run
from core.warehouse import Warehouse
from core.warehouse.reads import episode_groups
from tests.toybench import ToyBench


def _plan(model: str) -> RunPlan:
    bench = ToyBench(n=3)
    config = AgentConfig(model=model, max_steps=3, temperature=0.7)
    return RunPlan(bench, bench.original_docs(), config, bench.tasks(), repeats=2)


def test_a_fresh_warehouse_restored_from_the_archive_reuses_every_episode(tmp_path: Path) -> None:
    model = script(
        lambda m: "Done." if m[-1]["role"] == "tool" else tool_call("math__add", x=1), name="adder"
    )
    first = Warehouse(tmp_path / "monday.duckdb")
    before = run(first, _plan(model.model), concurrency=1)
    assert before.ran == 6
    folder = tmp_path / "runs" / "study"
    runner = CliRunner()
    res = runner.invoke(cli, ["warehouse", "archive", "--to", str(folder), "--warehouse", str(first.path)])
    assert res.exit_code == 0, res.output
    again = runner.invoke(cli, ["warehouse", "archive", "--to", str(folder), "--warehouse", str(first.path)])
    assert again.output == res.output  # the same rows twice are one archive

    # nothing that quotes a task reaches the archive: no calls, answers or errors, no gold in scores
    episodes = pd.read_parquet(folder / "episodes.parquet")
    assert {"calls", "final_answer", "error"}.isdisjoint(episodes.columns) and len(episodes) == 6
    assert all(set(json.loads(s)) <= {"scoring", "reason", "partial", "correct"} for s in episodes["score"])

    fresh = tmp_path / "tuesday.duckdb"
    res = runner.invoke(cli, ["warehouse", "restore", "--from", str(folder), "--warehouse", str(fresh)])
    assert res.exit_code == 0 and "6 episodes added" in res.output, res.output
    restored = Warehouse(fresh)
    # no calls or trace to score again: re-scoring leaves them as they were measured
    assert restored.scalar("SELECT count(*) FROM episodes WHERE source = 'archive'") == 6
    assert episode_groups(restored) == []
    again = runner.invoke(cli, ["warehouse", "restore", "--from", str(folder), "--warehouse", str(fresh)])
    assert again.exit_code == 0 and "0 episodes added" in again.output, again.output  # nothing twice
    after = run(restored, _plan(model.model), concurrency=1)
    assert (after.ran, after.reused) == (0, 6)
    assert (after.metrics.ts, after.metrics.tc) == (before.metrics.ts, before.metrics.tc)


def test_a_caller_that_reads_traces_runs_archived_episodes_again_and_gets_their_trace(tmp_path: Path) -> None:
    """An optimizer diagnosing a restored episode would read "no tool call" into an outcome stored without
    its calls: evaluations that read traces run it again, and the full episode replaces the archived row."""
    from core.evaluation import RunnerEvaluator
    from core.warehouse.archive import archive_runs, restore_runs

    model = script(
        lambda m: "Done." if m[-1]["role"] == "tool" else tool_call("math__add", x=1), name="adder"
    )
    first = Warehouse(tmp_path / "monday.duckdb")
    plan = _plan(model.model)

    def evaluate(wh: Warehouse):
        evaluator = RunnerEvaluator(wh, plan.benchmark, plan.config, repeats=2, concurrency=1)
        return evaluator.evaluate(plan.docset, plan.tasks, "test")

    measured = evaluate(first)
    assert measured.ran == 6 and all(t.steps for t in measured.traces)
    archive_runs(first, tmp_path / "runs")
    restored = Warehouse(tmp_path / "tuesday.duckdb")
    restore_runs(tmp_path / "runs", restored)

    outcomes = run(restored, plan, concurrency=1)  # outcomes only: the archived ones stand
    assert (outcomes.ran, outcomes.reused) == (0, 6)
    again = evaluate(restored)
    assert (again.ran, again.reused) == (6, 0)
    assert [t.steps for t in again.traces] == [t.steps for t in measured.traces]
    assert [t.success for t in again.traces] == [t.success for t in measured.traces]
    assert restored.scalar("SELECT count(*) FROM episodes WHERE source = 'archive'") == 0
    assert restored.scalar("SELECT count(*) FROM episodes") == 6  # replaced under the same ids
    assert (evaluate(restored).ran, run(restored, plan, concurrency=1).ran) == (0, 0)


def test_restoring_from_a_folder_without_an_archive_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = CliRunner().invoke(
        cli,
        [
            "warehouse",
            "restore",
            "--from",
            str(tmp_path / "empty"),
            "--warehouse",
            str(tmp_path / "w.duckdb"),
        ],
    )
    assert res.exit_code != 0 and "no archived runs here" in res.output


def test_a_rescored_episode_reaches_the_archive_with_its_new_score(tmp_path: Path) -> None:
    """Archiving again after a rescore keeps the current score, not the first one archived."""
    from core.warehouse.archive import archive_runs

    model = script(lambda m: "Done.", name="idle")
    wh = Warehouse(tmp_path / "w.duckdb")
    run(wh, _plan(model.model), concurrency=1)
    folder = tmp_path / "runs"
    archive_runs(wh, folder)
    eid, success, tc, raw = wh.rows("SELECT episode_id, success, tool_correct, score FROM episodes LIMIT 1")[
        0
    ]
    score = json.loads(raw)
    wh.record_rescores(
        [
            {
                "episode_id": eid,
                "scoring": score.get("scoring", 1),
                "success": not success,
                "tool_correct": tc,
                "score": {**score, "reason": "re-derived"},
                "old_scoring": score.get("scoring", 1),
                "old_success": success,
                "old_tool_correct": tc,
                "old_score": score,
            }
        ]
    )
    counts = archive_runs(wh, folder)
    assert counts["episodes"] == 6  # the same episodes, not a second copy of one
    kept = pd.read_parquet(folder / "episodes.parquet").set_index("episode_id").loc[eid]
    assert bool(kept["success"]) is (not success) and json.loads(kept["score"])["reason"] == "re-derived"


def test_splits_travel_with_the_archive_as_task_ids_only(tmp_path: Path) -> None:
    first = Warehouse(tmp_path / "monday.duckdb")
    first.insert(
        "splits", [{"split_id": "s1", "benchmark": "api-bank/domain", "seed": 0, "ratios": "[1,1,1]"}]
    )
    first.insert(
        "split_assignments",
        [{"split_id": "s1", "task_id": t, "part": p} for t, p in [("a", "opt"), ("b", "test")]],
    )
    folder = tmp_path / "runs" / "study"
    runner = CliRunner()
    res = runner.invoke(cli, ["warehouse", "archive", "--to", str(folder), "--warehouse", str(first.path)])
    assert res.exit_code == 0, res.output
    assert set(pd.read_parquet(folder / "split_assignments.parquet").columns) == {
        "split_id",
        "task_id",
        "part",
    }
    fresh = tmp_path / "tuesday.duckdb"
    res = runner.invoke(cli, ["warehouse", "restore", "--from", str(folder), "--warehouse", str(fresh)])
    assert res.exit_code == 0, res.output
    restored = Warehouse(fresh)
    assert sorted(restored.rows("SELECT task_id, part FROM split_assignments WHERE split_id = 's1'")) == [
        ("a", "opt"),
        ("b", "test"),
    ]
