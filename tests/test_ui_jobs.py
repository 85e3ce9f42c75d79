"""Re-evaluation page: start a background job, see it finish, cancel one; the eval argv others implement."""

from __future__ import annotations

from pathlib import Path

from core import jobs
from core.sample import seeded_copy
from core.ui.testing import open_app, problems, show
from core.ui.views.jobs import eval_argv
from core.warehouse import Warehouse


def test_start_finish_and_cancel_jobs_from_the_page(tmp_path: Path) -> None:
    path = tmp_path / "wh.duckdb"
    ids = seeded_copy(path)
    wh = Warehouse(path)
    at = show(open_app(path), "jobs")
    assert not problems(at)
    assert any(ids["job_id"] in c.value for c in at.caption)  # the job log is listed, newest first

    at.slider(key="selftest_steps").set_value(5)
    at.button(key="start_selftest").click().run()
    job = jobs.list_jobs(wh, kind="selftest")[0]
    assert job.argv[:2] == ["warehouse", "selftest-job"] and job.params["steps"] == 5
    state = jobs.wait_for(wh, job.job_id)
    assert state.status == "done" and (state.done, state.total) == (5, 5)
    at.run()
    assert any(job.job_id in c.value for c in at.caption)
    assert any(b.proto.label == "done" for b in at.get("badge")) if at.get("badge") else True

    # a long job, cancelled from its card: the click arrives in a full-app run (as after a reload)
    at.slider(key="selftest_steps").set_value(120)
    at.button(key="start_selftest").click().run()
    long = next(j for j in jobs.list_jobs(wh, kind="selftest") if j.job_id != job.job_id)
    jobs.wait_until(wh, long.job_id, lambda s: bool(s.done))
    at.run()
    at.button(key=f"cancel_{long.job_id}").click().run()
    assert not problems(at)  # no "rerun(scope='fragment') outside a fragment rerun" error box
    assert jobs.job_state(wh, long.job_id).status in ("cancelling", "cancelled")
    assert any("badge[cancell" in m.value for m in at.markdown)  # the card redrew in the same run
    assert jobs.wait_for(wh, long.job_id).status == "cancelled"


def test_eval_argv_is_the_documented_command() -> None:
    assert eval_argv("api-bank", "abc123", "test", "local/smollm2-135m", "react", "/tmp/w.duckdb") == [
        "eval", "--benchmark", "api-bank", "--docs", "abc123", "--split", "test",
        "--model", "local/smollm2-135m", "--agent", "react", "--warehouse", "/tmp/w.duckdb",
    ]  # fmt: skip
