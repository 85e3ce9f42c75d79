"""A finished re-evaluation against the docs it replaces: TS/TC on the card, the tasks that flipped both
ways, and one task side by side under the two doc versions with the doc diff above it.

The episodes come from the real runner on the sample benchmark (the scripted doc reader fails orders
until the docs state the date format and the required quantity); the job row is what `start_job`
records for an evaluation started from the page with "Compare against".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from core.agents.base import AgentConfig
from core.llm import Gateway, script, using
from core.runner import RunPlan, run
from core.sample import SampleShop, doc_reader, seeded_copy
from core.ui.testing import open_app, problems, show
from core.ui.views.jobs import eval_argv
from core.warehouse import Warehouse
from core.warehouse.rows import JobEventRow, JobRow

pytestmark = pytest.mark.slow


def _evaluate(wh: Warehouse, docset_id: str, model: str) -> str:
    """What `docschisel eval --split test` runs for one doc set (same plan key, same episodes)."""
    bench = SampleShop()
    from core.benchmarks.splits import DEFAULT_GROUPING, get_or_create_split

    docset = wh.load_docset(docset_id)
    split = get_or_create_split(wh, bench.key, bench.tasks(), seed=0, grouping=DEFAULT_GROUPING)
    tasks = split.tasks(bench.tasks(), "test")
    config = AgentConfig(model=model, max_steps=2)
    plan = RunPlan(bench, docset, config, tasks, split="test", extra={"split_seed": 0, "docs_ref": docset_id})
    return run(wh, plan).run_id


def _done_job(wh: Warehouse, job_id: str, params: dict) -> None:
    wh.record([JobRow(job_id=job_id, kind="eval", params={**params, "argv": []}, pid=None)])
    wh.record(
        [
            JobEventRow(job_id=job_id, status=s, done=d, total=t, message=m)
            for s, d, t, m in [
                ("queued", None, None, "queued"),
                ("running", None, None, "started"),
                ("running", 4, 4, "new docs"),
                ("done", 4, 4, "finished"),
            ]
        ]  # fmt: skip
    )


def reevaluated(wh: Warehouse, old: str, new: str, job_id: str, name: str) -> str:
    """Both doc sets evaluated on the test split as `eval --against` does, and the finished job recorded."""
    with using(Gateway.for_warehouse(wh)):
        reader = script(doc_reader, name=name)
        _evaluate(wh, old, reader.model)
        _evaluate(wh, new, reader.model)
    params = {"benchmark": "sample-shop", "docset": new, "against": old, "split": "test",
              "model": reader.model, "agent": "react"}  # fmt: skip
    _done_job(wh, job_id, params)
    return reader.model


def test_a_finished_reevaluation_shows_what_flipped_and_one_task_side_by_side(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    ids = seeded_copy(path)
    wh = Warehouse(path)
    original = wh.rows("SELECT docset_id FROM doc_sets WHERE origin = 'original'")[0][0]
    optimized = ids["optimized_docset"]
    reevaluated(wh, original, optimized, "eval-1", "reeval-reader")

    at = show(open_app(path), "jobs")
    assert not problems(at)
    card = " ".join(m.value for m in at.markdown)
    assert "TS " in card and "→" in card and "fixed" in card and "broken" in card

    at = show(at, "jobs", job="eval-1")
    assert not problems(at), problems(at)
    text = " ".join(m.value for m in at.markdown)
    assert f"`{optimized[:8]}` against `{original[:8]}`" in text
    assert "Fixed: pass more often with the new docs" in text
    fixed = at.dataframe[0].value
    assert len(fixed) > 0 and (fixed["new_ts"] > fixed["old_ts"]).all()
    task = at.selectbox(key="runcmp_task").value
    assert task == fixed["task_id"].iloc[0]
    assert "Doc diff" in text and f"`{task}` under the two doc versions" in text
    assert "Old docs" in text and "New docs" in text and ":red-badge[failed]" in text
    assert ":green-badge[success]" in text


def test_eval_against_runs_the_old_docs_first_on_the_same_tasks(tmp_path: Path, data_dir: Path) -> None:
    from core.cli.main import cli

    reader = script(lambda _m, _p: "I cannot help with that.", name="against-reader")
    path = tmp_path / "wh.duckdb"
    args = ["eval", "--benchmark", "api-bank", "--split", "test", "--limit", "2", "--model", reader.model,
            "--docs", "original", "--against", "original", "--warehouse", str(path), "--data-dir", str(data_dir)]  # fmt: skip
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    assert "old docs" in out.output and "run id:" in out.output
    assert eval_argv("b", "new", "test", "m", "react", "/w", against="old")[-2:] == ["--against", "old"]
