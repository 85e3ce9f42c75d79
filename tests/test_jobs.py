"""Background jobs: progress in the warehouse, cooperative cancel, SIGTERM fallback, failures."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core import jobs
from core.warehouse import Warehouse
from core.warehouse.rows import JobEventRow, JobRow


@pytest.fixture
def wh(tmp_path: Path) -> Warehouse:
    return Warehouse(tmp_path / "jobs.duckdb")


def _wait_running(wh: Warehouse, job_id: str, timeout_s: float = 30) -> jobs.JobState:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        state = jobs.job_state(wh, job_id)
        if state is not None and state.done:
            return state
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} never reported progress: {jobs.job_state(wh, job_id)}")


def test_jobs_complete_fail_and_cancel(wh: Warehouse) -> None:
    """Three jobs at once (process start-up dominates, so they share the wait)."""
    ok = jobs.start_job(
        wh, "selftest", ["warehouse", "selftest-job", "--steps", "4", "--delay", "0.05"], {"note": "x"}
    )
    bad = jobs.start_job(
        wh, "selftest", ["warehouse", "selftest-job", "--steps", "5", "--delay", "0.01", "--fail-at", "2"]
    )
    slow = jobs.start_job(wh, "selftest", ["warehouse", "selftest-job", "--steps", "500", "--delay", "0.05"])
    assert {j.job_id for j in jobs.list_jobs(wh)} == {ok, bad, slow}

    _wait_running(wh, slow)
    jobs.request_cancel(wh, slow, "user asked")
    assert jobs.job_state(wh, slow).status in ("cancelling", "cancelled")

    state = jobs.wait_for(wh, ok, timeout_s=60)
    assert state.status == "done", jobs.log_tail(wh, ok)
    assert (state.done, state.total) == (4, 4)
    assert state.params["note"] == "x" and state.argv[0] == "warehouse"
    statuses = list(wh.query("SELECT status FROM job_events WHERE job_id = ? ORDER BY ts", [ok])["status"])
    assert statuses[0] == "queued" and statuses[-1] == "done" and "running" in statuses
    assert "selftest finished" in jobs.log_tail(wh, ok)

    state = jobs.wait_for(wh, bad, timeout_s=60)
    assert state.status == "failed"
    assert "selftest failure at step 2" in state.message

    state = jobs.wait_for(wh, slow, timeout_s=30)
    assert state.status == "cancelled"
    assert state.done is not None and state.done < 500
    assert "cancelled after" in jobs.log_tail(wh, slow)


def test_cancel_falls_back_to_sigterm(wh: Warehouse) -> None:
    argv = ["warehouse", "selftest-job", "--steps", "500", "--delay", "0.05", "--ignore-cancel"]
    job_id = jobs.start_job(wh, "selftest", argv, grace_s=0.5)
    _wait_running(wh, job_id)
    t0 = time.monotonic()
    jobs.request_cancel(wh, job_id)
    state = jobs.wait_for(wh, job_id, timeout_s=30)
    assert state.status == "cancelled" and "terminated" in state.message
    assert time.monotonic() - t0 < 15


def test_progress_is_throttled_and_cancel_flag_is_read_from_the_log(wh: Warehouse) -> None:
    wh.record([JobEventRow(job_id="j", status="queued", done=None, total=None, message="")])
    for i in range(1, 51):
        jobs.report_progress(wh, "j", i, 50, f"{i}")
    n = wh.scalar("SELECT count(*) FROM job_events WHERE job_id = 'j' AND status = 'running'")
    assert 2 <= n < 10  # first and last always land, the burst in between is throttled
    state = jobs.job_state(wh, "j")
    assert (state.done, state.total, state.message) == (50, 50, "50")
    assert not jobs.cancel_requested(wh, "j")
    jobs.request_cancel(wh, "j")
    jobs._cancel_seen.clear()
    assert jobs.cancel_requested(wh, "j")
    # progress after the request does not hide it
    jobs.report_progress(wh, "j", 50, 50)
    assert jobs.job_state(wh, "j").status == "cancelling"


def test_a_job_whose_process_vanished_is_reported_lost(wh: Warehouse) -> None:
    wh.record([JobEventRow(job_id="gone", status="running", done=None, total=None, message="")])
    wh.record([JobRow(job_id="gone", kind="eval", params={}, pid=2**22 + 12345)])
    assert jobs.job_state(wh, "gone").status == "lost"
